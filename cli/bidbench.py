"""``cardrl bidbench``: Abracadabra bidding strategies compared on the same deals.

The benchmark itself is :mod:`arena.bidbench`; this module is its command line. Writes
``bidbench.md`` (headed by the exact command that regenerates the folder),
``bidbench.png``, ``bidbench_same.csv``, ``bidbench_mixed.csv`` and
``bidbench_deals.csv`` (per deal, for ``python -m arena.bidcompare``) in ``--out``: by
default ``runs/bidbench`` (an ignored folder); the committed ``results/bidbench/`` and
``results/bidbench_policy/`` are regenerated only by the commands at the top of their
``bidbench.md``, which name ``--out results/...``, with ``--force``: a folder that already
holds a benchmark is refused without it, before anything is played. The files are written
all or none (:func:`records.output.atomic_files`).
"""

from __future__ import annotations

import argparse
import shlex

from agents.policy.checkpoint import TRUST_PICKLE_HELP
from records.output import check_output

#: where the files go without --out (runs/ is ignored by git)
DEFAULT_OUT = "runs/bidbench"
#: the most dealt keys of a run (each is played once per bidder and per mixed rotation,
#: and every result is kept in memory until the tables are made)
MAX_DEALS = 1_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's flags."""
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
    parser.add_argument("--player-arg", action="append", default=[], metavar="KEY=VALUE",
                        help="a keyword argument of the --player agent (repeatable), e.g. "
                             "--player pimc --player-arg worlds=8")
    parser.add_argument("--variant", default="four",
                        help="Abracadabra variant: four, three, two_dummy, two (default four)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the dealt keys")
    parser.add_argument("--batch", type=int, default=500,
                        help="games advanced together on the batch engine (default 500)")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"output folder (default {DEFAULT_OUT}; the committed results "
                             "are regenerated with the command at the top of their "
                             "bidbench.md, e.g. --out results/bidbench)")
    parser.add_argument("--force", action="store_true",
                        help="replace the benchmark already in --out (refused without it)")
    parser.add_argument("--trust-pickle", action="store_true",
                        help=f"policy bidders and players {TRUST_PICKLE_HELP}")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def command_line(args: argparse.Namespace) -> str:
    """The command as the report prints it, every argument spelled out (shell-quoted)."""
    return shlex.join([
        "cardrl", "bidbench", "--deals", str(args.deals), "--bidders", args.bidders,
        "--player", args.player,
        *[part for arg in args.player_arg for part in ("--player-arg", arg)],
        "--variant", args.variant, "--seed", str(args.seed),
        "--batch", str(args.batch), "--out", str(args.out),
        *(["--trust-pickle"] if args.trust_pickle else []),
    ])  # fmt: skip


def check_arguments(args: argparse.Namespace) -> None:
    """ValueError unless the numbers are in range and ``--out`` is a folder or can be made
    one, holding no benchmark unless ``--force`` (checked before playing)."""
    from arena.bidbench import OUTPUTS

    if args.deals > MAX_DEALS:
        raise ValueError(f"--deals {args.deals} is not allowed: expected an integer in "
                         f"[1, {MAX_DEALS:_}]")
    if args.seed < 0:
        raise ValueError(f"--seed {args.seed} is not allowed: expected an integer >= 0")
    check_output(args.out, OUTPUTS, "a benchmark", force=args.force)


def run(args: argparse.Namespace) -> int:
    """Play the benchmark, write its files and print the report; a bad argument is a
    ValueError with the whole message."""
    from arena.bidbench import run_bidbench, write_outputs
    from cli.tournament import _pairs

    check_arguments(args)
    player_kwargs = dict(_pairs(args.player_arg, "--player-arg"))
    bidders = [b.strip() for b in args.bidders.split(",") if b.strip()]
    result = run_bidbench(bidders, player=args.player, variant=args.variant,
                          deals=args.deals, seed=args.seed, batch=args.batch,
                          progress=not args.no_progress, trust_pickle=args.trust_pickle,
                          player_kwargs=player_kwargs)  # fmt: skip
    print(write_outputs(result, args.out, command_line(args)))
    return 0
