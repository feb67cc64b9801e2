"""``cardrl fuzz``: random play of every configuration with the rules' invariants checked
after every step (:mod:`envs.fuzz`).

    cardrl fuzz --minutes 10                 # both games, every configuration, 10 minutes
    cardrl fuzz --deals 1000000 --batch 4096 # until each game has a million deals/rounds
    cardrl fuzz --only "four_aces num_players=5 ..." --seed 3   # one case, as in a run

Writes ``fuzz.md`` (headed by the exact command, the machine and the date) in ``--out``:
by default ``runs/fuzz`` (an ignored folder); the committed ``results/fuzz.md`` is
regenerated only by the command at its top, which names ``--out results``, with
``--force``: a folder that already holds a fuzz report is refused without it. Every
argument, the memory the batch needs and the folder are checked before anything is played,
and the report is written whole or not at all (:func:`records.output.atomic_files`). Exit
status 0 when no invariant failed, 1 when some did (each is in the report with its case,
seed and step).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from envs import registry
from records.output import atomic_files, available_memory, check_output

if TYPE_CHECKING:
    from envs.fuzz import FuzzCase

#: where the report goes without --out (runs/ is ignored by git)
DEFAULT_OUT = "runs/fuzz"
#: the report's file in --out
REPORT = "fuzz.md"
#: the longest run allowed, in minutes (as training's max_minutes)
MAX_MINUTES = 1_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's flags."""
    parser.epilog = "exit status: 0 no invariant failed; 1 some did (listed in fuzz.md)"
    parser.add_argument("--minutes", type=float, default=None,
                        help="time for the whole run, shared equally by the games and "
                             "their configurations (default 5 unless --deals is given)")
    parser.add_argument("--deals", type=int, default=None,
                        help="play until each game has this many finished deals "
                             "(Abracadabra) or rounds (Four Aces), shared by its "
                             "configurations; with --minutes, whichever comes first")
    parser.add_argument("--batch", type=int, default=1024,
                        help="games played together in one engine (default 1024)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    parser.add_argument("--game", choices=(*registry.GAMES, "all"), default="all",
                        help="the game(s) to fuzz (default all)")
    parser.add_argument("--only", default=None, metavar="CASE",
                        help="only the configuration with this label (as in the report)")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"output folder of fuzz.md (default {DEFAULT_OUT}; the committed "
                             "report is regenerated with the command at the top of "
                             "results/fuzz.md, which names --out results)")
    parser.add_argument("--force", action="store_true",
                        help="replace the fuzz report already in --out (refused without it)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def command_line(args: argparse.Namespace) -> str:
    """The command as the report prints it, every argument spelled out (shell-quoted)."""
    words = ["cardrl", "fuzz"]
    if args.minutes is not None:
        words += ["--minutes", f"{args.minutes:g}"]
    if args.deals is not None:
        words += ["--deals", str(args.deals)]
    words += ["--batch", str(args.batch), "--seed", str(args.seed), "--game", args.game]
    if args.only is not None:
        words += ["--only", args.only]
    return shlex.join([*words, "--out", str(args.out)])


def check_memory(cases: Sequence[FuzzCase], batch: int, available: int | None) -> None:
    """ValueError when a batch of ``batch`` games of the largest of ``cases`` (they play
    one at a time) needs more than ``available`` bytes
    (:func:`envs.fuzz.runner.bytes_per_game`)."""
    from envs.fuzz.runner import bytes_per_game

    if available is None or not cases:
        return
    per_game, largest = max((bytes_per_game(case), case.label) for case in cases)
    if per_game * batch > available:
        gib = 2**30
        raise ValueError(
            f"--batch {batch} needs about {per_game * batch / gib:,.1f} GiB of memory "
            f"({per_game:,} bytes a game for {largest!r}); this machine has "
            f"{available / gib:,.1f} GiB available: expected --batch at most "
            f"{max(available // per_game, 1):,}")


def run(args: argparse.Namespace) -> int:
    """Run the fuzz, write the report and print its totals; bad arguments are a
    ValueError with the whole message."""
    from tqdm import tqdm

    from envs.fuzz import all_cases
    from envs.fuzz.report import markdown, summary
    from envs.fuzz.runner import run_cases
    from records.provenance import machine_line, utc_now

    if args.batch < 1:
        raise ValueError(f"--batch {args.batch} is not allowed: expected an integer >= 1")
    if args.minutes is not None and not 0 < args.minutes <= MAX_MINUTES:
        raise ValueError(f"--minutes {args.minutes} is not allowed: expected a number of "
                         f"minutes > 0 and at most {MAX_MINUTES:_}")
    if args.deals is not None and args.deals < 1:
        raise ValueError(f"--deals {args.deals} is not allowed: expected an integer >= 1")
    if not 0 <= args.seed < 2**31:
        raise ValueError(f"--seed {args.seed} is not allowed: expected 0..2**31-1")
    minutes = 5.0 if args.minutes is None and args.deals is None else args.minutes
    cases = all_cases(None if args.game == "all" else args.game)
    if args.only is not None:
        cases = [c for c in cases if c.label == args.only]
        if not cases:
            raise ValueError(f"--only {args.only!r}: no such configuration (labels are "
                             "those of the report's 'Per configuration' table)")
    check_output(args.out, [REPORT], "a fuzz report", force=args.force)
    check_memory(cases, args.batch, available_memory())
    seconds = None if minutes is None else minutes * 60
    played: dict[str, float] = {}  # case label -> seconds (or deals) played so far
    bar_total = seconds if seconds is not None else args.deals * len({c.game for c in cases})
    with tqdm(total=round(bar_total), desc="fuzz", unit="s" if seconds else " deals",
              disable=args.no_progress, file=sys.stderr) as bar:

        def progress(result) -> None:
            played[result.case.label] = result.seconds if seconds else result.deals
            bar.update(min(int(sum(played.values())), bar.total) - bar.n)
            bar.set_postfix_str(f"{result.case.game} case {len(played)}/{len(cases)}",
                                refresh=False)

        results = run_cases(cases, args.batch, args.seed, seconds=seconds, deals=args.deals,
                            progress=progress)
    header = [f"Command: `{command_line(args)}`", "",
              f"Machine: {machine_line()}. Date: {utc_now()}. Batch: {args.batch} games per "
              f"engine; {sum(r.seconds for r in results):.0f} s of play."]
    path = os.path.join(args.out, REPORT)
    with atomic_files([path]) as (tmp,), open(tmp, "w") as f:
        f.write(markdown(results, header))
    failed = 0
    for game, row in summary(results).items():
        print(f"{game}: {row['cases']} configurations, {row['deals']:,} deals/rounds, "
              f"{row['agent_steps']:,} agent steps, {row['probes']:,} probes, "
              f"{row['violations']} violations")
        failed += row["violations"]
    print(f"report: {path}")
    return 1 if failed else 0
