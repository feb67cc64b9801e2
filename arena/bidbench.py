"""``cardrl bidbench``: Abracadabra bidding strategies compared on the same deals.

Every strategy bids with its own rule (C1–C3) while the card play, showing and calling
are done by one common agent (``--player``, default ``heuristic``), so differences come
from the bidding alone. Every dealt key is played several times on the batch engine
(``reset(game_seeds=...)`` replays the identical deal):

1. **Same-strategy tables** — once per strategy, every seat bidding by it. The strategy
   sets the table's target: mean T, how often the declarer hits (F2), how often anyone
   hits, hitters per deal, points per seat, the declarer's points and chips.
2. **Mixed tables** — the strategies share one table, seat assignment rotated over the
   rotations of the line-up (strategy ``k`` in seat ``(k + r) mod P`` at rotation ``r``),
   so each one bids from every seat on every deal. This measures who becomes declarer
   (C3, ties to the first bidder) and the points and chips each strategy earns against
   the others, with 95 % confidence intervals paired by deal.

Writes ``bidbench.md`` (both tables, the exact command, machine and date) and
``bidbench.png`` in ``--out``; ``bidbench_same.csv`` and ``bidbench_mixed.csv`` hold the
numbers.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import shlex
import sys
import time

import numpy as np

from agents.base import act_grouped

#: phase one-hot position of bidding in the Abracadabra observation
_BID_PHASE = 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deals", type=int, default=500,
                        help="dealt keys; each is played once per strategy and once per "
                             "rotation of the mixed table (default 500)")
    parser.add_argument("--bidders", default="sure_tricks,expected_tricks,control",
                        help="comma-separated Abracadabra agent names (or policy:PATH) "
                             "whose bidding is compared (default: "
                             "sure_tricks,expected_tricks,control)")
    parser.add_argument("--player", default="heuristic",
                        help="agent that plays the cards, shows and calls for every "
                             "seat (default heuristic)")
    parser.add_argument("--variant", default="four",
                        help="Abracadabra variant: four, three, two_dummy, two (default four)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the dealt keys")
    parser.add_argument("--batch", type=int, default=500,
                        help="games advanced together on the batch engine (default 500)")
    parser.add_argument("--out", default="results/bidbench",
                        help="output folder (default results/bidbench)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


class BidThenPlay:
    """An agent that bids like ``bidder`` and does everything else like ``player``."""

    def __init__(self, bidder, player, phase_slice: slice):
        self.bidder = bidder
        self.player = player
        self.phase_slice = phase_slice

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        phase = observations[:, self.phase_slice]
        bidding = phase[:, _BID_PHASE] > 0.5
        out = np.zeros(len(observations), np.int64)
        if bidding.any():
            out[bidding] = self.bidder.act_batch(observations[bidding], action_masks[bidding])
        if (~bidding).any():
            out[~bidding] = self.player.act_batch(observations[~bidding], action_masks[~bidding])
        return out


def play_deals(engine, keys: np.ndarray, seat_agents: list) -> list[dict]:
    """Play one deal per key with ``seat_agents[s]`` in seat ``s``; the deals' results."""
    n = len(keys)
    engine.reset(game_seeds=np.resize(keys, engine.batch_size))  # a short last chunk repeats
    while not engine.game_over[:n].all():
        obs = engine.observe()
        mask = engine.legal_action_mask()
        seat = engine.current_player
        engine.step(act_grouped(seat_agents, seat, obs, mask, seat >= 0))
    return [engine.result(g) for g in range(n)]


def run(args: argparse.Namespace) -> int:
    import pandas as pd
    from tqdm import tqdm

    import agents
    from arena.stats import mean_ci
    from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
    from envs.abracadabra.engine import LAYOUT

    bidders = [b.strip() for b in args.bidders.split(",") if b.strip()]
    if not bidders:
        raise SystemExit("--bidders needs at least one agent name")
    if args.deals < 1 or args.batch < 1:
        raise SystemExit("--deals and --batch must be >= 1")
    known = agents.available("abracadabra")
    for name in bidders + [args.player]:
        if name not in known and not name.startswith("policy:"):
            raise SystemExit(f"unknown Abracadabra agent {name!r}: expected one of "
                             f"{sorted(known)} or policy:PATH")
    config = AbracadabraConfig(variant=args.variant)
    P = config.num_players
    player = agents.make_from_spec(args.player, "abracadabra", seed=args.seed)
    bid_agents = {b: agents.make_from_spec(b, "abracadabra", seed=args.seed + 1 + i)
                  for i, b in enumerate(bidders)}
    composite = {b: BidThenPlay(a, player, LAYOUT["phase"]) for b, a in bid_agents.items()}
    keys = np.random.default_rng(args.seed).integers(0, 2**63, size=args.deals, dtype=np.int64)
    rotations = max(P, len(bidders))
    chunks = [keys[i : i + args.batch] for i in range(0, len(keys), args.batch)]
    engine = AbracadabraEngine(config, min(args.batch, len(keys)))
    same_rows, mixed_rows = [], []
    total = len(chunks) * (len(bidders) + rotations)
    start = time.time()
    with tqdm(total=total, desc="bidbench", unit="batch", disable=args.no_progress) as bar:
        for c, chunk in enumerate(chunks):
            base = c * args.batch
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
    same = pd.DataFrame(same_rows)
    mixed = pd.DataFrame(mixed_rows)

    # -- summaries -------------------------------------------------------------------
    same_table = []
    for b in bidders:
        df = same[same.bidder == b]
        same_table.append({
            "bidder": b, "deals": len(df), "mean_target": df.target.mean(),
            "declarer_hit_rate": df.declarer_hit.mean(),
            "any_hit_rate": (df.hitters > 0).mean(), "hitters_per_deal": df.hitters.mean(),
            "points_per_seat": df.points_per_seat.mean(),
            "declarer_points": df.declarer_points.mean(),
            "declarer_chips": df.declarer_chips.mean(),
        })
    same_table = pd.DataFrame(same_table)
    mixed_table = []
    for b in bidders:
        df = mixed[mixed.bidder == b]
        per_deal = df.groupby("deal")[["points", "chips"]].mean()
        pm, pl, ph = mean_ci(per_deal.points.to_numpy())
        cm, cl, ch = mean_ci(per_deal.chips.to_numpy())
        decl = df[df.declarer]
        mixed_table.append({
            "bidder": b, "seat_deals": len(df), "declarer_rate": df.declarer.mean(),
            "declarer_hit_rate": decl.hit.mean() if len(decl) else float("nan"),
            "hit_rate": df.hit.mean(),
            "points": pm, "points_ci_low": pl, "points_ci_high": ph,
            "chips": cm, "chips_ci_low": cl, "chips_ci_high": ch,
        })
    mixed_table = pd.DataFrame(mixed_table)

    os.makedirs(args.out, exist_ok=True)
    same_table.to_csv(os.path.join(args.out, "bidbench_same.csv"), index=False)
    mixed_table.to_csv(os.path.join(args.out, "bidbench_mixed.csv"), index=False)
    _plot(same_table, mixed_table, os.path.join(args.out, "bidbench.png"), args)
    md = _markdown(same_table, mixed_table, args, P, rotations, seconds)
    with open(os.path.join(args.out, "bidbench.md"), "w") as f:
        f.write(md)
    print(md)
    return 0


def _command(args: argparse.Namespace) -> str:
    return ("cardrl bidbench " + " ".join([
        f"--deals {args.deals}", f"--bidders {args.bidders}", f"--player {args.player}",
        f"--variant {args.variant}", f"--seed {args.seed}", f"--batch {args.batch}",
        f"--out {shlex.quote(args.out)}",
    ]))


def _markdown(same, mixed, args, P: int, rotations: int, seconds: float) -> str:
    machine = f"{platform.node()} ({platform.machine()}, {os.cpu_count()} CPUs, " \
              f"Python {platform.python_version()}, {platform.system()})"
    lines = [
        "# Bidding benchmark (Abracadabra)",
        "",
        "```",
        _command(args),
        "```",
        "",
        f"- date: {_dt.datetime.now().isoformat(timespec='seconds')}; machine: {machine}; "
        f"{seconds:.1f} s",
        f"- variant `{args.variant}` ({P} players), {args.deals} dealt keys, card play by "
        f"`{args.player}`; each key is played once per bidder (same-strategy tables) and "
        f"{rotations} times in the mixed table (seat rotations).",
        "",
        "## Same-strategy tables (every seat bids by the strategy)",
        "",
        "| bidder | deals | mean T | declarer hits | anyone hits | hitters/deal | "
        "points/seat | declarer points | declarer chips |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in same.itertuples():
        lines.append(
            f"| {r.bidder} | {r.deals} | {r.mean_target:.2f} | {r.declarer_hit_rate:.1%} | "
            f"{r.any_hit_rate:.1%} | {r.hitters_per_deal:.2f} | {r.points_per_seat:.2f} | "
            f"{r.declarer_points:.2f} | {r.declarer_chips:+.2f} |"
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


def _plot(same, mixed, path: str, args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    fig.suptitle(f"bidbench: {args.variant}, {args.deals} deals, play by {args.player}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="bidbench", description=__doc__.splitlines()[0])
    add_arguments(parser)
    sys.exit(run(parser.parse_args()))
