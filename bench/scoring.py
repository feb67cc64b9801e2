"""Benchmark of Four Aces round scoring (docs/rules.md K2/K3): scorings per second.

Measures, on random sets of 6 to 9 cards and for both K3 modes: ``score_batch`` batched
(one call for all sets), ``score_batch`` in calls of 200 sets (what the engine scores at a
step of a 1024-game batch), ``score_cards`` one set per call (its cache bypassed) and
``score_batch`` one set per call; writes a Markdown table.

It is a developer's script rather than a ``cardrl`` command; its entry point is this
module (:func:`main` holds its few flags)::

    python -m bench.scoring --sets 20000 --out results/scoring_bench.md
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from envs.four_aces.scoring import _score_cached, score_batch
from records.provenance import machine_line, utc_now

#: score_cards without its lru cache (one set through the compiled scorer)
_UNCACHED = _score_cached.__wrapped__
#: the K3 scoring modes and the set sizes measured
SCORINGS = ("strict", "free")
SIZES = (6, 7, 8, 9)
#: sets per call of the chunked row (a step of a 1024-game batch)
CHUNK = 200


class ScoringRow(NamedTuple):
    """Scorings per second of one (scoring mode, set size), and the mean score."""

    scoring: str
    cards: int
    batched: float  #: score_batch, all sets in one call
    chunked: float  #: score_batch, CHUNK sets per call
    single: float  #: score_cards (uncached), one set per call
    single_np: float  #: score_batch, one set per call
    mean_score: float  #: over the first 2000 sets


def _random_sets(rng: np.random.Generator, num: int, size: int) -> np.ndarray:
    return np.argsort(rng.random((num, 52)), axis=1)[:, :size]


def _rate(fn: Callable[[], object], num: int) -> float:
    start = time.perf_counter()
    fn()
    return num / (time.perf_counter() - start)


def measure_scoring(sets: int, single_sets: int, seed: int = 0) -> list[ScoringRow]:
    """Scorings per second for every mode and size: ``sets`` random sets per size for
    the batched rows, the first ``single_sets`` of them for the one-per-call rows.
    Prints one line per row."""
    rng = np.random.default_rng(seed)
    rows = []
    for scoring in SCORINGS:
        score_batch(_random_sets(rng, 8, 9), scoring)  # build the static tables first
        for size in SIZES:
            cards = _random_sets(rng, sets, size)
            batched = _rate(lambda s=cards, m=scoring: score_batch(s, m), len(cards))
            chunks = [cards[i : i + CHUNK] for i in range(0, len(cards), CHUNK)]
            chunked = _rate(lambda c=chunks, m=scoring: [score_batch(x, m) for x in c],
                            len(cards))
            few = cards[:single_sets]
            tuples = [tuple(int(c) for c in row) for row in few]
            single = _rate(lambda f=tuples, m=scoring: [_UNCACHED(t, m) for t in f], len(few))
            single_np = _rate(
                lambda f=few, m=scoring: [score_batch(row[None, :], m) for row in f], len(few)
            )
            mean = float(score_batch(cards[:2000], scoring).mean())
            rows.append(ScoringRow(scoring, size, batched, chunked, single, single_np, mean))
            print(
                f"{scoring:6s} {size} cards: {batched:10,.0f}/s batched, "
                f"{chunked:10,.0f}/s in calls of {CHUNK}, "
                f"{single:8,.0f}/s score_cards, {single_np:8,.0f}/s score_batch one set"
            )
    return rows


def render_markdown(rows: Sequence[ScoringRow], command: str, sets: int, single_sets: int,
                    load: float) -> str:
    """The Markdown report: machine, date, load average ``load`` at the start, the
    ``command``, the budget and one table line per row."""
    lines = [
        "# Four Aces scoring benchmark",
        "",
        f"- machine: {machine_line()}",
        f"- date: {utc_now()}",
        f"- load average (1 min) at start: {load:.2f}",
        f"- command: `{command}`",
        f"- {sets} random sets per size (batched), {single_sets} (single call)",
        "",
        f"| scoring | cards | score_batch batched /s | score_batch {CHUNK} per call /s "
        "| score_cards single /s | score_batch single /s | mean score |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {m} | {n} | {b:,.0f} | {c:,.0f} | {s:,.0f} | {s1:,.0f} | {x:+.2f} |"
        for m, n, b, c, s, s1, x in rows
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.scoring``: measure and write the report to ``--out``."""
    parser = argparse.ArgumentParser(prog="python -m bench.scoring",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--sets", type=int, default=20000, help="random card sets per size")
    parser.add_argument(
        "--single-sets", type=int, default=300, help="sets per size for the single-call rate"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random card sets")
    parser.add_argument(
        "--out", type=Path, default=Path("results/scoring_bench.md"), help="markdown output"
    )
    args = parser.parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    load = os.getloadavg()[0]
    rows = measure_scoring(args.sets, args.single_sets, args.seed)
    command = "python -m bench.scoring " + " ".join(shlex.quote(a) for a in argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render_markdown(rows, command, args.sets, args.single_sets, load))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
