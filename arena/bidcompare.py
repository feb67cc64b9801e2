"""Do the bidders rank the same under another card play? Two ``cardrl bidbench`` folders
of the same deals (the same ``--deals``, ``--seed``, ``--bidders`` and ``--variant``), each
played by another ``--player``, compared paired by deal.

For each table kind (``same``: every seat bids by the strategy; ``mixed``: the strategies
share a table, seats rotated) and each card play, every bidder's points per seat and deal
and the paired difference between every two bidders, with 95 % CIs; a pair is *ordered*
under a play when its CI excludes zero. A pair is *reversed* when it is ordered one way
under one play and the other way under the other; a pair ordered under one play only is
reported as such (a difference in strength or in noise, not a reversal).

    python -m arena.bidcompare results/bidbench_pimc_play_heuristic \\
        results/bidbench_pimc_play --out results/bidbench_pimc_play/compare.md
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from arena.stats import mean_ci
from records.output import atomic_files
from records.provenance import machine_line, utc_now

#: the per-deal file of a bidbench folder (arena.bidbench.deals_table)
DEALS_FILE = "bidbench_deals.csv"


def read_deals(folder: str | Path) -> tuple[pd.DataFrame, str]:
    """The per-deal rows of a bidbench folder and its command (the report's first code
    line). ``ValueError`` naming the folder when either is missing."""
    folder = Path(folder)
    path, report = folder / DEALS_FILE, folder / "bidbench.md"
    if not path.is_file() or not report.is_file():
        raise ValueError(f"{folder} holds no bidbench with per-deal rows ({DEALS_FILE}): "
                         "expected the --out folder of a cardrl bidbench run")
    lines = report.read_text().split("\n")
    command = lines[3] if len(lines) > 3 else "?"
    return pd.read_csv(path), command


def pair_table(deals: pd.DataFrame, table: str) -> pd.DataFrame:
    """For one table kind: every pair of bidders (a, b) with a's points minus b's per seat
    and deal, its 95 % CI and whether it is ordered (the CI excludes zero)."""
    wide = deals[deals["table"] == table].pivot(index="deal", columns="bidder",
                                                values="points")
    rows = []
    for a, b in itertools.combinations(wide.columns, 2):
        diff, low, high = mean_ci((wide[a] - wide[b]).to_numpy())
        order = ">" if low > 0 else "<" if high < 0 else "~"
        rows.append({"a": a, "b": b, "diff": diff, "low": low, "high": high,
                     "order": order})
    return pd.DataFrame(rows)


def compare(first: pd.DataFrame, second: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per table kind, the pairs under both plays side by side with ``change``:
    ``reversed`` (ordered one way under one play, the other way under the other),
    ``ordered under play 1 only`` (or 2), or ``no``. ``ValueError`` when the two
    folders did not play the same deals and bidders."""
    keys = ["deal", "key", "bidder", "table"]
    if not first[keys].sort_values(keys).reset_index(drop=True).equals(
            second[keys].sort_values(keys).reset_index(drop=True)):
        raise ValueError("the two benchmarks did not play the same deals and bidders: run "
                         "both with the same --deals, --seed, --bidders and --variant")
    out = {}
    for table in ("mixed", "same"):
        a, b = pair_table(first, table), pair_table(second, table)
        both = a.merge(b, on=["a", "b"], suffixes=("_1", "_2"))
        reversed_ = ((both["order_1"] == ">") & (both["order_2"] == "<")) | (
            (both["order_1"] == "<") & (both["order_2"] == ">"))
        one_only = (both["order_1"] == "~") != (both["order_2"] == "~")
        both["change"] = np.where(reversed_, "reversed", np.where(
            one_only, np.where(both["order_2"] == "~", "ordered under play 1 only",
                               "ordered under play 2 only"), "no"))
        out[table] = both
    return out


def ranking(deals: pd.DataFrame, table: str) -> list[tuple[str, float, float, float]]:
    """(bidder, mean points per seat and deal, CI low, CI high), best first."""
    rows = []
    for bidder, part in deals[deals["table"] == table].groupby("bidder"):
        rows.append((bidder, *mean_ci(part["points"].to_numpy())))
    return sorted(rows, key=lambda r: -r[1])


def report(first_dir: str | Path, second_dir: str | Path, command: str) -> str:
    """The markdown comparison of two bidbench folders."""
    (first, cmd1), (second, cmd2) = read_deals(first_dir), read_deals(second_dir)
    result = compare(first, second)
    lines = ["# Bidders under two card plays", "", "```", command, "```", "",
             f"- date: {utc_now()}; machine: {machine_line()}",
             f"- play 1: `{cmd1}`", f"- play 2: `{cmd2}`",
             f"- {first['deal'].nunique()} deals, paired by deal; 95 % t-intervals; a pair "
             "is ordered when its interval excludes zero.", ""]
    for table in ("mixed", "same"):
        title = ("Mixed tables (the bidders share a table, seats rotated)" if table == "mixed"
                 else "Same-strategy tables (every seat bids by the strategy)")
        lines += [f"## {title}", "", "Points per seat and deal, best first:", "",
                  "| rank | play 1 | points | play 2 | points |", "|---|---|---:|---|---:|"]
        for k, (r1, r2) in enumerate(zip(ranking(first, table), ranking(second, table),
                                         strict=True)):
            lines.append(f"| {k + 1} | {r1[0]} | {r1[1]:.2f} [{r1[2]:.2f}, {r1[3]:.2f}] | "
                         f"{r2[0]} | {r2[1]:.2f} [{r2[2]:.2f}, {r2[3]:.2f}] |")
        lines += ["", "Every pair, a − b per seat and deal:", "",
                  "| a | b | play 1 | play 2 | change |", "|---|---|---:|---:|---|"]
        for r in result[table].itertuples():
            change = r.change if r.change == "no" else f"**{r.change}**"
            lines.append(f"| {r.a} | {r.b} | {r.diff_1:+.2f} [{r.low_1:+.2f}, {r.high_1:+.2f}] "
                         f"| {r.diff_2:+.2f} [{r.low_2:+.2f}, {r.high_2:+.2f}] | {change} |")
        changes = result[table]["change"]
        flipped = int((changes == "reversed").sum())
        partial = int(changes.str.startswith("ordered").sum())
        lines += ["", f"**{table} tables: " + (
            f"{flipped} pair(s) reversed" if flipped else "no pair reversed")
            + f"; {partial} pair(s) ordered under one play only.**", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m arena.bidcompare",
        description="Compare two cardrl bidbench folders of the same deals played by "
                    "different card players: do the bidders rank the same?")
    parser.add_argument("first", help="bidbench --out folder of the first card play")
    parser.add_argument("second", help="bidbench --out folder of the second card play")
    parser.add_argument("--out", default="runs/bidcompare.md",
                        help="the report (default runs/bidcompare.md, an ignored folder)")
    args = parser.parse_args(argv)
    command = (f"python -m arena.bidcompare {args.first} {args.second} --out {args.out}")
    try:
        text = report(args.first, args.second, command)
        with atomic_files([args.out]) as (out,):
            out.write_text(text)
    except ValueError as error:
        parser.exit(2, f"{parser.prog}: error: {error}\n")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
