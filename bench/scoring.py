"""Benchmark Four Aces round scoring (RULES.md K2/K3): scorings per second.

Measures, on random sets of 6 to 9 cards and for both K3 modes: ``score_batch`` batched
(one call for all sets), ``score_batch`` in calls of 200 sets (what the engine scores at a
step of a 1024-game batch), ``score_cards`` one set per call (its cache bypassed) and
``score_batch`` one set per call; writes a markdown table.

    python -m bench.scoring --sets 20000 --out results/scoring_bench.md
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import numpy as np

from envs.four_aces.scoring import _score_cached, score_batch

#: score_cards without its lru cache (the single-set Python search)
_UNCACHED = _score_cached.__wrapped__


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sets", type=int, default=20000, help="random card sets per size")
    parser.add_argument(
        "--single-sets", type=int, default=300, help="sets per size for the single-call rate"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random card sets")
    parser.add_argument(
        "--out", type=Path, default=Path("results/scoring_bench.md"), help="markdown output"
    )


def _random_sets(rng: np.random.Generator, num: int, size: int) -> np.ndarray:
    return np.argsort(rng.random((num, 52)), axis=1)[:, :size]


def _rate(fn, num: int) -> float:
    start = time.perf_counter()
    fn()
    return num / (time.perf_counter() - start)


def run(args: argparse.Namespace) -> int:
    rng = np.random.default_rng(args.seed)
    load = os.getloadavg()[0]
    rows = []
    for scoring in ("strict", "free"):
        score_batch(_random_sets(rng, 8, 9), scoring)  # build the static tables first
        for size in (6, 7, 8, 9):
            sets = _random_sets(rng, args.sets, size)
            batched = _rate(lambda s=sets, m=scoring: score_batch(s, m), len(sets))
            chunks = [sets[i : i + 200] for i in range(0, len(sets), 200)]
            chunked = _rate(lambda c=chunks, m=scoring: [score_batch(x, m) for x in c], len(sets))
            few = sets[: args.single_sets]
            tuples = [tuple(int(c) for c in row) for row in few]
            single = _rate(lambda f=tuples, m=scoring: [_UNCACHED(t, m) for t in f], len(few))
            single_np = _rate(
                lambda f=few, m=scoring: [score_batch(row[None, :], m) for row in f], len(few)
            )
            mean = float(score_batch(sets[:2000], scoring).mean())
            rows.append((scoring, size, batched, chunked, single, single_np, mean))
            print(
                f"{scoring:6s} {size} cards: {batched:10,.0f}/s batched, "
                f"{chunked:10,.0f}/s in calls of 200, "
                f"{single:8,.0f}/s score_cards, {single_np:8,.0f}/s score_batch one set"
            )
    argv = getattr(args, "argv", None)
    argv = sys.argv[1:] if argv is None else argv
    command = "python -m bench.scoring " + " ".join(shlex.quote(a) for a in argv)
    lines = [
        "# Four Aces scoring benchmark",
        "",
        f"- machine: {platform.platform()}, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs",
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"- numpy {np.__version__}, Python {platform.python_version()}",
        f"- load average (1 min) at start: {load:.2f}",
        f"- command: `{command}`",
        f"- {args.sets} random sets per size (batched), {args.single_sets} (single call)",
        "",
        "| scoring | cards | score_batch batched /s | score_batch 200 per call /s "
        "| score_cards single /s | score_batch single /s | mean score |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {m} | {n} | {b:,.0f} | {c:,.0f} | {s:,.0f} | {s1:,.0f} | {x:+.2f} |"
        for m, n, b, c, s, s1, x in rows
    ]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    args.argv = argv
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
