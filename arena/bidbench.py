"""The bidding benchmark: Abracadabra bidding strategies compared on the same deals.

Every strategy bids with its own rule (C1–C3) while the card play, showing and calling
are done by one common agent (``player``, default ``heuristic``), so differences come from
the bidding alone. Every dealt key is played several times on the batch engine
(``reset(game_seeds=...)`` replays the identical deal):

1. **Same-strategy tables** — once per strategy, every seat bidding by it. The strategy
   sets the table's target: mean T, how often the declarer hits (F2), how often anyone
   hits, hitters per deal, points per seat, the declarer's points and chips.
2. **Mixed tables** — the strategies share one table, seat assignment rotated over the
   rotations of the line-up (strategy ``k`` in seat ``(k + r) mod P`` at rotation ``r``),
   so each one bids from every seat on every deal. This measures who becomes declarer
   (C3, ties to the first bidder) and the points and chips each strategy earns against
   the others, with 95 % confidence intervals paired by deal.

:func:`write_outputs` writes ``bidbench.md`` (both tables, the exact command, machine and
date), ``bidbench.png``, and ``bidbench_same.csv`` / ``bidbench_mixed.csv`` with the
numbers. The command: :mod:`cli.bidbench`.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from agents.base import act_grouped
from arena.stats import mean_ci, per_deal_points
from envs.abracadabra import LAYOUT, AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.game import GAME as ABRACADABRA
from envs.abracadabra.rules import Phase
from records.output import atomic_files
from records.provenance import machine_line, utc_now

#: the files :func:`write_outputs` writes into its folder (a benchmark's folder holds them)
#: the game whose bidding this measures
GAME = ABRACADABRA.name
OUTPUTS = ("bidbench.md", "bidbench.png", "bidbench_same.csv", "bidbench_mixed.csv",
           "bidbench_deals.csv")


class BidThenPlay:
    """An agent that bids like ``bidder`` and does everything else like ``player``."""

    def __init__(self, bidder, player, phase_slice: slice):
        self.bidder = bidder
        self.player = player
        self.phase_slice = phase_slice

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The bidder's actions where the observation's phase is bidding, else the player's."""
        phase = observations[:, self.phase_slice]
        bidding = phase[:, Phase.BID] > 0.5  # the phase one-hot: position = Phase value
        out = np.zeros(len(observations), np.int64)
        if bidding.any():
            out[bidding] = self.bidder.act_batch(observations[bidding], action_masks[bidding])
        if (~bidding).any():
            out[~bidding] = self.player.act_batch(observations[~bidding], action_masks[~bidding])
        return out

    @property
    def needs_engine(self) -> bool:
        """True when the bidder or the player searches on the engine (:mod:`agents.base`)."""
        return any(getattr(a, "needs_engine", False) for a in (self.bidder, self.player))

    def act_engine(self, engine, games: np.ndarray) -> np.ndarray:
        """:meth:`act_batch` for ``games`` of ``engine``, each part through its agent's
        ``act_engine`` (the hook of agents that search, :mod:`agents.base`)."""
        games = np.asarray(games, dtype=np.intp)
        phase = engine.observe()[games][:, self.phase_slice]
        bidding = phase[:, Phase.BID] > 0.5
        out = np.zeros(len(games), np.int64)
        for agent, part in ((self.bidder, bidding), (self.player, ~bidding)):
            if part.any():
                out[part] = agent.act_engine(engine, games[part])
        return out


def play_deals(engine, keys: np.ndarray, seat_agents: list) -> list[dict]:
    """Play one deal per key with ``seat_agents[s]`` in seat ``s``; the deals' results."""
    n = len(keys)
    engine.reset(game_seeds=np.resize(keys, engine.batch_size))  # a short last chunk repeats
    while not engine.game_over[:n].all():
        obs = engine.observe()
        mask = engine.legal_action_mask()
        seat = engine.current_player
        engine.step(act_grouped(seat_agents, seat, obs, mask, seat >= 0, engine=engine))
    return [engine.result(g) for g in range(n)]


@dataclass
class BidbenchResult:
    """The benchmark's two tables and what they were measured on."""

    same: pd.DataFrame  #: one row per bidder: the same-strategy tables
    mixed: pd.DataFrame  #: one row per bidder: the mixed tables, with 95 % CIs
    variant: str
    num_players: int
    deals: int
    rotations: int  #: rotations of the mixed table, max(P, number of bidders)
    player: str
    seconds: float  #: wall time of the play
    #: one row per deal, bidder and table kind (``same``: its same-strategy table;
    #: ``mixed``: its seats' mean over the mixed rotations): ``points`` per seat and deal
    #: and ``declarer_hit`` (same tables), what :mod:`arena.bidcompare` pairs by deal
    deals_table: pd.DataFrame | None = None


def run_bidbench(
    bidders: list[str],
    player: str = "heuristic",
    variant: str = "four",
    deals: int = 500,
    seed: int = 0,
    batch: int = 500,
    progress: bool = True,
    trust_pickle: bool = False,
    player_kwargs: dict | None = None,
) -> BidbenchResult:
    """Play the benchmark (module docstring) and summarise it.

    Args:
        bidders: Abracadabra agent names (or ``policy:PATH``) whose bidding is compared.
        player: the agent that plays the cards, shows and calls for every seat.
        variant: the Abracadabra variant.
        deals: dealt keys; each is played once per bidder and once per mixed rotation.
        seed: seed of the dealt keys; the agents' seeds derive from it.
        batch: games advanced together on the batch engine.
        progress: show a tqdm bar of batches.
        trust_pickle: policies (``policy``, ``policy:PATH``) also load checkpoints that load
            only by unpickling them (:data:`agents.policy.checkpoint.TRUST_PICKLE_HELP`).
        player_kwargs: keyword arguments of the card player (e.g. ``{"worlds": 8}`` for a
            ``pimc`` player).
    """
    from tqdm import tqdm

    import agents

    if not bidders:
        raise ValueError("--bidders needs at least one agent name")
    if deals < 1 or batch < 1:
        raise ValueError("--deals and --batch must be >= 1")
    known = agents.available(GAME)
    for name in [*bidders, player]:
        if name not in known and not name.startswith("policy:"):
            raise ValueError(f"unknown Abracadabra agent {name!r}: expected one of "
                             f"{sorted(known)} or policy:PATH")
    config = AbracadabraConfig(variant=variant)
    P = config.num_players

    def make(name: str, agent_seed: int, **kwargs):  # trust_pickle goes to policies only
        policy = agents.is_policy_spec(name)
        if policy and trust_pickle:
            kwargs["trust_pickle"] = True
        try:
            agent = agents.make_from_spec(name, GAME, seed=agent_seed, **kwargs)
        except TypeError as error:  # an argument the agent does not take
            raise ValueError(f"agent {name!r} refuses {kwargs}: {error}") from None
        if hasattr(agent, "check_options"):  # a policy without a network for this variant
            agent.check_options({"variant": variant})
        return agent

    play_agent = make(player, seed, **(player_kwargs or {}))
    bid_agents = {b: make(b, seed + 1 + i) for i, b in enumerate(bidders)}
    composite = {b: BidThenPlay(a, play_agent, LAYOUT["phase"]) for b, a in bid_agents.items()}
    keys = np.random.default_rng(seed).integers(0, 2**63, size=deals, dtype=np.int64)
    rotations = max(P, len(bidders))
    chunks = [keys[i : i + batch] for i in range(0, len(keys), batch)]
    engine = AbracadabraEngine(config, min(batch, len(keys)))
    same_rows, mixed_rows = [], []
    total = len(chunks) * (len(bidders) + rotations)
    start = time.time()
    with tqdm(total=total, desc="bidbench", unit="batch", disable=not progress) as bar:
        for c, chunk in enumerate(chunks):
            base = c * batch
            for b in bidders:  # same-strategy tables
                for i, res in enumerate(play_deals(engine, chunk, [composite[b]] * P)):
                    d = res["declarer"]
                    same_rows.append({
                        "deal": base + i, "bidder": b, "target": res["target"],
                        "declarer_hit": d in res["hitters"], "hitters": len(res["hitters"]),
                        "points_per_seat": float(np.mean(res["points"])),
                        "declarer_points": res["points"][d],
                        "declarer_chips": res["chips"][d],
                    })
                bar.update()
            for r in range(rotations):  # mixed tables
                line_up = [bidders[(s + r) % len(bidders)] for s in range(P)]
                seats = [composite[b] for b in line_up]
                for i, res in enumerate(play_deals(engine, chunk, seats)):
                    for s, b in enumerate(line_up):
                        mixed_rows.append({
                            "deal": base + i, "rotation": r, "seat": s, "bidder": b,
                            "declarer": res["declarer"] == s, "hit": s in res["hitters"],
                            "declarer_hit": res["declarer"] == s and s in res["hitters"],
                            "points": res["points"][s], "chips": res["chips"][s],
                        })
                bar.update()
    seconds = time.time() - start
    return BidbenchResult(
        same=same_table(pd.DataFrame(same_rows), bidders),
        mixed=mixed_table(pd.DataFrame(mixed_rows), bidders),
        deals_table=deals_table(pd.DataFrame(same_rows), pd.DataFrame(mixed_rows), keys),
        variant=variant, num_players=P, deals=deals, rotations=rotations,
        player=player + "".join(f" {k}={v}" for k, v in (player_kwargs or {}).items()),
        seconds=seconds,
    )  # fmt: skip


def deals_table(same: pd.DataFrame, mixed: pd.DataFrame, keys: np.ndarray) -> pd.DataFrame:
    """One row per deal, bidder and table kind (:attr:`BidbenchResult.deals_table`), with
    the key the deal was dealt from (``key``)."""
    own = same.assign(table="same", points=same["points_per_seat"])
    seats = mixed.groupby(["deal", "bidder"], as_index=False).agg(
        points=("points", "mean"), declarer_hit=("declarer_hit", "mean"))
    rows = pd.concat([own[["deal", "bidder", "table", "points", "declarer_hit"]],
                      seats.assign(table="mixed")], ignore_index=True)
    rows["declarer_hit"] = rows["declarer_hit"].astype(float)
    rows.insert(1, "key", np.asarray(keys, np.int64)[rows["deal"].to_numpy()])
    return rows.sort_values(["table", "bidder", "deal"], kind="stable").reset_index(drop=True)


def same_table(same: pd.DataFrame, bidders: list[str]) -> pd.DataFrame:
    """One row per bidder from the same-strategy rows (one row per deal and bidder).

    ``declarer_hit_diff`` (with ``_low``/``_high``, its 95 % CI): the bidder's declarer hit
    rate minus the first bidder's, paired by deal (both tables play the same dealt keys),
    so that a difference of a few tenths of a point reads as noise or not; NaN for the
    first bidder itself."""
    hits = per_deal_points(same.rename(columns={"bidder": "agent"}), "declarer_hit")
    rows = []
    for b in bidders:
        df = same[same.bidder == b]
        diff = ((math.nan,) * 3 if b == bidders[0] else  # as stats.head_to_head pairs them
                mean_ci((hits[b] - hits[bidders[0]]).dropna().to_numpy()))
        rows.append({
            "bidder": b, "deals": len(df), "mean_target": df.target.mean(),
            "declarer_hit_rate": df.declarer_hit.mean(),
            "declarer_hit_diff": diff[0], "declarer_hit_diff_low": diff[1],
            "declarer_hit_diff_high": diff[2],
            "any_hit_rate": (df.hitters > 0).mean(), "hitters_per_deal": df.hitters.mean(),
            "points_per_seat": df.points_per_seat.mean(),
            "declarer_points": df.declarer_points.mean(),
            "declarer_chips": df.declarer_chips.mean(),
        })
    return pd.DataFrame(rows)


def mixed_table(mixed: pd.DataFrame, bidders: list[str]) -> pd.DataFrame:
    """One row per bidder from the mixed-table rows (one row per deal, rotation and seat);
    points and chips with their 95 % CIs paired by deal."""
    rows = []
    for b in bidders:
        df = mixed[mixed.bidder == b]
        per_deal = df.groupby("deal")[["points", "chips"]].mean()
        pm, pl, ph = mean_ci(per_deal.points.to_numpy())
        cm, cl, ch = mean_ci(per_deal.chips.to_numpy())
        decl = df[df.declarer]
        rows.append({
            "bidder": b, "seat_deals": len(df), "declarer_rate": df.declarer.mean(),
            "declarer_hit_rate": decl.hit.mean() if len(decl) else float("nan"),
            "hit_rate": df.hit.mean(),
            "points": pm, "points_ci_low": pl, "points_ci_high": ph,
            "chips": cm, "chips_ci_low": cl, "chips_ci_high": ch,
        })
    return pd.DataFrame(rows)


def write_outputs(result: BidbenchResult, out: str | os.PathLike, command: str) -> str:
    """Write :data:`OUTPUTS` into ``out``, all or none (:func:`records.output.atomic_files`:
    a full disk is a ``ValueError`` and leaves earlier files as they were); return the
    markdown."""
    md = markdown(result, command)
    paths = [os.path.join(out, name) for name in OUTPUTS]
    with atomic_files(paths) as (report, png, same, mixed, deals):
        result.same.to_csv(same, index=False)
        result.mixed.to_csv(mixed, index=False)
        if result.deals_table is not None:
            result.deals_table.to_csv(deals, index=False)
        else:
            deals.write_text("deal,key,bidder,table,points,declarer_hit\n")
        plot(result, png)
        report.write_text(md)
    return md


def markdown(result: BidbenchResult, command: str) -> str:
    """The report: the command, machine and date, then both tables."""
    same, mixed = result.same, result.mixed
    lines = [
        "# Bidding benchmark (Abracadabra)",
        "",
        "```",
        command,
        "```",
        "",
        f"- date: {utc_now()}; machine: {machine_line()}; {result.seconds:.1f} s",
        f"- variant `{result.variant}` ({result.num_players} players), {result.deals} dealt "
        f"keys, card play by `{result.player}`; each key is played once per bidder "
        f"(same-strategy tables) and {result.rotations} times in the mixed table (seat "
        "rotations).",
        "",
        "## Same-strategy tables (every seat bids by the strategy)",
        "",
        f"Declarer hits − `{same.bidder.iloc[0]}`: the difference in percentage points, "
        "paired by deal, with its 95 % CI.",
        "",
        "| bidder | deals | mean T | declarer hits | declarer hits − first (95 % CI) | "
        "anyone hits | hitters/deal | points/seat | declarer points | declarer chips |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in same.itertuples():
        diff = ("—" if math.isnan(r.declarer_hit_diff) else
                f"{100 * r.declarer_hit_diff:+.1f} [{100 * r.declarer_hit_diff_low:+.1f}, "
                f"{100 * r.declarer_hit_diff_high:+.1f}]")
        lines.append(
            f"| {r.bidder} | {r.deals} | {r.mean_target:.2f} | {r.declarer_hit_rate:.1%} | "
            f"{diff} | {r.any_hit_rate:.1%} | {r.hitters_per_deal:.2f} | "
            f"{r.points_per_seat:.2f} | {r.declarer_points:.2f} | {r.declarer_chips:+.2f} |"
        )
    lines += [
        "",
        "## Mixed tables (the strategies share a table, seats rotated)",
        "",
        "Points and chips are per seat and deal, 95 % CI paired by deal.",
        "",
        "| bidder | seat-deals | declarer | declarer hits | hits | points (95 % CI) | "
        "chips (95 % CI) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in mixed.itertuples():
        lines.append(
            f"| {r.bidder} | {r.seat_deals} | {r.declarer_rate:.1%} | "
            f"{r.declarer_hit_rate:.1%} | {r.hit_rate:.1%} | {r.points:.2f} "
            f"[{r.points_ci_low:.2f}, {r.points_ci_high:.2f}] | {r.chips:+.3f} "
            f"[{r.chips_ci_low:+.3f}, {r.chips_ci_high:+.3f}] |"
        )
    lines += [
        "",
        "Declarer hits: share of deals where the declarer said Abracadabra and took exactly "
        "T tricks (F2). Chips: pot share minus stake (S4, D2); a pot nobody wins goes to the "
        "points winner at the end of a one-deal episode (M2).",
        "",
        "![bidbench](bidbench.png)",
        "",
    ]
    return "\n".join(lines)


def plot(result: BidbenchResult, path: str | os.PathLike) -> None:
    """Hit rates and mean target of the same-strategy tables; points and declarer rate of
    the mixed tables."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    same, mixed = result.same, result.mixed
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    x = np.arange(len(same))
    ax = axes[0]
    ax.bar(x - 0.2, same.declarer_hit_rate, 0.4, label="declarer hits")
    ax.bar(x + 0.2, same.any_hit_rate, 0.4, label="anyone hits")
    ax.set_xticks(x, same.bidder, rotation=20)
    ax.set_ylabel("share of deals")
    ax.set_title("same-strategy tables: hit rates")
    ax.legend()
    ax = axes[1]
    ax.bar(x, same.mean_target, color="tab:green")
    ax.set_xticks(x, same.bidder, rotation=20)
    ax.set_title("same-strategy tables: mean target T")
    ax = axes[2]
    err = np.vstack([mixed.points - mixed.points_ci_low, mixed.points_ci_high - mixed.points])
    ax.bar(np.arange(len(mixed)), mixed.points, yerr=err, capsize=4, color="tab:purple")
    ax2 = ax.twinx()
    ax2.plot(np.arange(len(mixed)), mixed.declarer_rate, "ko--", label="declarer rate")
    ax2.set_ylim(0, 1)
    ax2.legend(loc="lower right")
    ax.set_xticks(np.arange(len(mixed)), mixed.bidder, rotation=20)
    ax.set_title("mixed tables: points/deal (95 % CI)")
    fig.suptitle(f"bidbench: {result.variant}, {result.deals} deals, play by {result.player}")
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)
