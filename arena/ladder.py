"""The strength ladder: every kind of agent against the strongest heuristic, on the same
duplicate deals, with the time each takes per decision.

A rung is one agent X against the field of the reference R, the strongest heuristic of
the game (its descriptor's ``reference``; the base rungs are its ``ladder``, weakest
first): the one-seat evaluation of :mod:`arena.one_seat`, line-up ``X, R, R, …``, every
deal under every seat rotation, the same deal keys on every rung
(the tournament seed). Its strength is the paired difference

    d[X] = mean over deals of ( X's mean points in the deal - the R copies' mean points )

with its 95 % t-interval: how much more X scores than the heuristics at its own table.
The reference's own rung measures the noise floor (zero for a deterministic reference).

Time per decision is measured apart (:func:`time_per_decision`): ``timing_deals`` deals,
every rotation, each game a batch of one (a decision as a player waits for it), the CPU
time of the agent's own calls (``time.process_time``: on a machine shared with other work
the wall time would measure the others too); a search agent's includes its whole search.

:func:`write_ladder` writes ``<name>.md`` (headed by the command, machine and date, then
one row per rung with the tournament command that reproduces it), ``<name>.csv`` and
``<name>.png`` (strength against time per decision). The command: :mod:`cli.ladder`.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from agents.base import act_grouped
from arena.one_seat import check_one_seat, evaluate_one_seat
from arena.tournament import command_line, deal_keys
from envs import registry
from records.output import atomic_files
from records.provenance import machine_line, utc_now

#: the columns of the ladder table
COLUMNS = ("rung", "agent", "seed", "deals", "mean_points", "diff", "ci_low", "ci_high",
           "ms_per_decision", "decisions_timed", "tournament_s", "command")  # fmt: skip


def reference_of(game: str) -> str:
    """The agent every rung of ``game`` is measured against, its strongest heuristic
    (``Game.reference``); ``ValueError`` in one line when the game declares none."""
    return registry.get(game).require("reference", "ladder reference")


def base_rungs(game: str) -> tuple[str, ...]:
    """The agents of ``game``'s ladder below the search rungs, weakest first
    (``Game.ladder``); ``ValueError`` in one line when the game declares none."""
    return registry.get(game).require("ladder", "ladder rungs")


@dataclass(frozen=True)
class Rung:
    """One agent of the ladder: ``label`` (its name in the tables), the registry ``name``
    and its keyword arguments."""

    label: str
    name: str
    kwargs: dict = field(default_factory=dict)


def default_rungs(game: str, worlds: list[int], rollout: str | None = None,
                  objective: str = "points", guided_worlds: list[int] = (),
                  base: list[str] | None = None) -> list[Rung]:
    """The base rungs (``base``, default the game's :func:`base_rungs`), one PIMC rung per
    world count (``pimc<W>``) and one network-guided search rung per count of
    ``guided_worlds`` (``pimc_policy<W>``: PIMC with the committed policy's rollouts)."""
    rungs = [Rung(name, name) for name in (base_rungs(game) if base is None else base)]
    for w in worlds:
        kwargs = {"worlds": int(w), "objective": objective}
        if rollout is not None:
            kwargs["rollout"] = rollout
        rungs.append(Rung(f"pimc{w}", "pimc", kwargs))
    for w in guided_worlds:
        rungs.append(Rung(f"pimc_policy{w}", "pimc_policy",
                          {"worlds": int(w), "objective": objective}))
    return rungs


def rung_label(game: str, rung: Rung) -> str:
    """The label of ``rung``'s entrant in its tournament: its own, starred for the
    reference's rung (``heuristic*``) so that it differs from the copies'."""
    reference = reference_of(game)
    return rung.label if rung.label != reference else f"{reference}*"


def check_rungs(game: str, options: dict, rungs: list[Rung], deals: int,
                seeds: list[int], chunk_size: int = 64) -> None:
    """``ValueError`` (the tournament's message, naming the rung) unless every rung's
    tournament can be played on every seed of ``seeds``: its arguments are valid and its
    entrants are built and play the table (:func:`arena.one_seat.check_one_seat`).
    Creates nothing, so that a bad rung is refused before any tournament is played."""
    for seed in seeds:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed={seed!r} is not allowed: expected an integer >= 0")
    for rung in rungs:
        try:
            check_one_seat(game, rung.name, reference_of(game), deals, seeds[0], options,
                           rung_label(game, rung), rung.kwargs, chunk_size)
        except ValueError as err:
            raise ValueError(f"rung {rung.label!r}: {err}") from None


def play_rung(game: str, options: dict, rung: Rung, deals: int, seed: int, work_dir: Path,
              workers: int = 1, chunk_size: int = 64, progress: bool = False) -> dict:
    """The tournament of ``rung`` against the reference (module doc), resumable in
    ``work_dir / <label>_seed<seed>``; its row of the ladder table (without timing)."""
    start = time.perf_counter()
    measured = evaluate_one_seat(game, rung.name, reference_of(game), deals, seed, options,
                                 label=rung_label(game, rung), candidate_kwargs=rung.kwargs,
                                 workers=workers, chunk_size=chunk_size,
                                 out_dir=work_dir / f"{rung.label}_seed{seed}",
                                 progress=progress)
    return {"rung": rung.label, "agent": rung.name, "seed": seed, "deals": deals,
            "mean_points": measured.candidate_points, "diff": measured.diff,
            "ci_low": measured.diff_low, "ci_high": measured.diff_high,
            "tournament_s": time.perf_counter() - start,
            "command": command_line(measured.tournament.spec)}  # fmt: skip


def time_per_decision(game: str, options: dict, rung: Rung, deals: int, seed: int
                      ) -> tuple[float, int]:
    """(CPU milliseconds per decision, decisions timed) of ``rung``'s agent: ``deals``
    deals (the tournament's first deal keys of ``seed``), every rotation, one game at a
    time, the agent in the rotating seat and the reference elsewhere; only its calls
    timed, by ``time.process_time``."""
    import agents

    engine = registry.make_engine(game, 1, **options)
    entrant = agents.make_from_spec(rung.name, game, seed=seed, **rung.kwargs)
    reference = agents.make(reference_of(game), game, seed=seed + 1)
    seconds, decisions = 0.0, 0
    one = np.zeros(1, np.int64)
    for key in deal_keys(seed, range(deals)):
        for seat in range(engine.num_players):
            engine.reset(game_seeds=np.array([key], np.uint64))
            while not engine.game_over[0]:
                mine = int(engine.current_player[0]) == seat
                obs, mask = engine.observe(), engine.legal_action_mask()
                player = entrant if mine else reference
                begin = time.process_time()
                action = act_grouped([player], one, obs, mask, engine=engine)
                if mine:
                    seconds += time.process_time() - begin
                    decisions += 1
                engine.step(action)
    return 1000.0 * seconds / max(decisions, 1), decisions


def run_ladder(game: str, options: dict, rungs: list[Rung], deals: int, seed: int,
               work_dir: str | os.PathLike, timing_deals: int = 4, workers: int = 1,
               chunk_size: int = 64, confirm_seed: int | None = None,
               log=None) -> pd.DataFrame:
    """Play and time every rung (module doc); with ``confirm_seed`` the last rung (the
    largest search) is played again on that seed's deals. One row per run, columns
    :data:`COLUMNS`. ``log`` (a callable) gets a line as each run ends. Every rung is
    checked (:func:`check_rungs`) before ``work_dir`` is created."""
    check_rungs(game, options, rungs, deals,
                [seed] if confirm_seed is None else [seed, confirm_seed], chunk_size)
    work = Path(work_dir)
    work.mkdir(parents=True, exist_ok=True)
    runs = [(rung, seed) for rung in rungs]
    if confirm_seed is not None:
        runs.append((rungs[-1], confirm_seed))
    rows = []
    for rung, s in runs:
        row = play_rung(game, options, rung, deals, s, work, workers, chunk_size)
        if s == seed:
            row["ms_per_decision"], row["decisions_timed"] = time_per_decision(
                game, options, rung, timing_deals, seed)
        else:
            row["ms_per_decision"], row["decisions_timed"] = math.nan, 0
        rows.append(row)
        if log is not None:
            log(f"{rung.label} seed {s}: diff {row['diff']:+.3f} [{row['ci_low']:+.3f}, "
                f"{row['ci_high']:+.3f}], {row['ms_per_decision']:.2f} CPU ms/decision, "
                f"tournament {row['tournament_s']:.0f} s")
    return pd.DataFrame(rows, columns=COLUMNS)


def ladder_markdown(table: pd.DataFrame, game: str, options: dict, command: str,
                    timing_deals: int) -> str:
    """The ladder as a markdown document headed by the command, machine and date."""
    reference = reference_of(game)
    first = table.iloc[0]
    lines = [
        f"# Strength ladder: {game}"
        + (" (" + ", ".join(f"{k}={v}" for k, v in options.items()) + ")" if options else ""),
        "",
        f"- command: `{command}`",
        f"- machine: {machine_line()}",
        f"- date: {utc_now()}",
        f"- load average when written (1/5/15 min): "
        f"{' / '.join(f'{v:.1f}' for v in os.getloadavg())}",
        f"- design: each rung X plays `X,{reference},{reference},…` on the same {first.deals} "
        f"duplicate deals (seed {first.seed}), every seat rotation; diff = X's points per "
        f"deal minus the mean of the {reference} copies at its table, paired by deal, "
        f"95 % t-interval (arena/ladder.py).",
        f"- time per decision: CPU time (process_time) of the agent's own calls, "
        f"{timing_deals} deals x every rotation, one game at a time (a search agent's "
        "whole search).",
        "",
        "| rung | seed | deals | mean points | diff vs " + reference
        + " | 95% CI | CPU ms / decision | tournament s (wall) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples():
        ms = "" if math.isnan(row.ms_per_decision) else f"{row.ms_per_decision:.2f}"
        lines.append(
            f"| {row.rung} | {row.seed} | {row.deals} | {row.mean_points:.3f} | "
            f"{row.diff:+.3f} | [{row.ci_low:+.3f}, {row.ci_high:+.3f}] | {ms} | "
            f"{row.tournament_s:.0f} |"
        )
    lines += ["", "## The tournament of each rung", ""]
    lines += [f"- {row.rung} (seed {row.seed}): `{row.command}`" for row in table.itertuples()]
    return "\n".join(lines) + "\n"


def plot_ladder(table: pd.DataFrame, game: str, path: str | os.PathLike) -> None:
    """Strength (diff vs the reference, 95 % CI) against milliseconds per decision."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timed = table[table.ms_per_decision.notna()]
    fig, ax = plt.subplots(figsize=(7.0, 4.5))
    x = np.maximum(timed.ms_per_decision.to_numpy(), 1e-3)
    y = timed["diff"].to_numpy()
    err = [y - timed.ci_low.to_numpy(), timed.ci_high.to_numpy() - y]
    ax.errorbar(x, y, yerr=np.nan_to_num(err), fmt="o", capsize=4)
    for xi, yi, label in zip(x, y, timed.rung, strict=True):
        ax.annotate(label, (xi, yi), textcoords="offset points", xytext=(5, 5), fontsize=8)
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("CPU milliseconds per decision (one game at a time, log scale)")
    ax.set_ylabel(f"points per deal minus {reference_of(game)} (95 % CI)")
    ax.set_title(f"{game}: strength against time per decision")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120, format="png")
    plt.close(fig)


def ladder_files(name: str) -> list[str]:
    """The files :func:`write_ladder` writes for the ladder ``name``."""
    return [f"{name}.md", f"{name}.csv", f"{name}.png"]


def write_ladder(table: pd.DataFrame, game: str, options: dict, out_dir: str | os.PathLike,
                 name: str, command: str, timing_deals: int) -> list[Path]:
    """Write ``name``.md, ``name``.csv and ``name``.png into ``out_dir``, all or none
    (:func:`records.output.atomic_files`: a full disk is a ``ValueError`` and leaves
    earlier files as they were); their paths."""
    paths = [Path(out_dir) / file for file in ladder_files(name)]
    with atomic_files(paths) as (md, csv, png):
        md.write_text(ladder_markdown(table, game, options, command, timing_deals))
        table.to_csv(csv, index=False)
        plot_ladder(table, game, png)
    return paths
