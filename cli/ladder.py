"""``cardrl ladder``: every kind of agent against the strongest heuristic on the same
duplicate deals, with its time per decision (:mod:`arena.ladder`).

Writes ``<game>_<table>.md`` (headed by the exact command), ``.csv`` and ``.png`` into
``--out`` (default ``runs/ladder``, an ignored folder; the committed ``results/ladder/``
is regenerated only by the commands at the top of its files, which name
``--out results/ladder``, with ``--force``: files of the same ladder already in ``--out``
are refused without it). The tournaments of the rungs are kept, resumable, in
``--work`` (default ``runs/ladder/<game>_<table>``, one folder per ladder): rerunning an
interrupted command resumes them. Every argument, every rung's agents and both folders
are checked before anything is created or played; the three files are written all or none
(:func:`records.output.atomic_files`).
"""

from __future__ import annotations

import argparse
import shlex
import sys

from envs import registry
from records.output import check_output

#: where the files go without --out (runs/ is ignored by git)
DEFAULT_OUT = "runs/ladder"
#: the PIMC rungs' world counts without --worlds, for a game that provides search rollouts
DEFAULT_WORLDS = "8,32"
#: the most worlds of a PIMC rung (PIMC's max_rows: the most games of one rollout batch)
MAX_WORLDS = 65_536


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's flags."""
    parser.add_argument("--game", required=True, choices=registry.GAMES)
    parser.add_argument("--variant", default=None,
                        help="Abracadabra variant (default four)")
    parser.add_argument("--players", "--num-players", dest="players", type=int, default=None,
                        help="Four Aces players, 3..5 (default 4)")
    parser.add_argument("--deals", type=int, default=500,
                        help="duplicate deals of every rung, each under every seat "
                             "rotation (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument("--worlds", default=None,
                        help=f"comma-separated world counts of the PIMC rungs (default "
                             f"{DEFAULT_WORLDS}; none for a game without search rollouts)")
    parser.add_argument("--rollout", default=None,
                        help="PIMC rollout policy (default: the agent's default)")
    parser.add_argument("--guided-worlds", default="",
                        help="comma-separated world counts of the network-guided search "
                             "rungs (pimc_policy: PIMC with the policy network's rollouts; "
                             "default: none)")
    parser.add_argument("--objective", default="points", choices=("points", "relative"),
                        help="PIMC objective (default points)")
    parser.add_argument("--rungs", default=None,
                        help="comma-separated base rungs instead of the game's default "
                             "(e.g. random,heuristic); PIMC rungs come after them")
    parser.add_argument("--confirm-seed", type=int, default=None,
                        help="play the last PIMC rung again on this seed's deals")
    parser.add_argument("--timing-deals", type=int, default=4,
                        help="deals (x every rotation) timed one game at a time (default 4)")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes playing each rung's chunks (default 1)")
    parser.add_argument("--chunk-size", type=int, default=64,
                        help="deals per batch of a rung's tournament (default 64)")
    parser.add_argument("--out", default=DEFAULT_OUT,
                        help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--force", action="store_true",
                        help="replace the files of this ladder already in --out (refused "
                             "without it)")
    parser.add_argument("--work", default=None,
                        help="folder of the rungs' tournaments, one per ladder (default "
                             "runs/ladder/<game>_<table>)")


def command_line(args: argparse.Namespace) -> str:
    """The command as the report prints it, every argument spelled out (shell-quoted)."""
    words = ["cardrl", "ladder", "--game", args.game]
    if args.variant is not None:
        words += ["--variant", args.variant]
    if args.players is not None:
        words += ["--players", str(args.players)]
    words += ["--deals", str(args.deals), "--seed", str(args.seed), "--worlds", args.worlds]
    if args.rollout is not None:
        words += ["--rollout", args.rollout]
    if args.guided_worlds:
        words += ["--guided-worlds", args.guided_worlds]
    words += ["--objective", args.objective]
    if args.rungs is not None:
        words += ["--rungs", args.rungs]
    if args.confirm_seed is not None:
        words += ["--confirm-seed", str(args.confirm_seed)]
    words += ["--timing-deals", str(args.timing_deals), "--workers", str(args.workers),
              "--chunk-size", str(args.chunk_size), "--out", str(args.out)]  # fmt: skip
    if args.work is not None:
        words += ["--work", str(args.work)]
    return shlex.join(words)


def world_counts(text: str, flag: str) -> list[int]:
    """The world counts of ``flag``'s comma-separated ``text``; ValueError naming the flag
    for a count that is not an integer in [1, MAX_WORLDS]."""
    try:
        worlds = [int(w) for w in text.split(",") if w.strip()]
    except ValueError:
        raise ValueError(f"{flag}={text!r}: expected comma-separated integers, "
                         "e.g. 8,32") from None
    for w in worlds:
        if not 1 <= w <= MAX_WORLDS:
            raise ValueError(f"{flag}={text!r}: {w} worlds is not allowed: expected "
                             f"integers in [1, {MAX_WORLDS:_}] (PIMC's largest rollout batch)")
    return worlds


def run(args: argparse.Namespace) -> int:
    """Play the ladder, write its files and print their paths; a bad argument is a
    ValueError with the whole message."""
    from arena.ladder import (
        base_rungs,
        default_rungs,
        ladder_files,
        run_ladder,
        write_ladder,
    )

    game = registry.get(args.game)
    if args.worlds is None:  # before command_line(args): the report names the counts played
        args.worlds = DEFAULT_WORLDS if game.rollouts else ""
    options: dict = {}
    table = game.table_option
    value = {"variant": args.variant, "num_players": args.players}[table]
    other = args.players if table == "variant" else args.variant
    if other is not None:
        raise ValueError(f"--{'players' if table == 'variant' else 'variant'} does not "
                         f"apply to {args.game}")
    if value is not None:
        options[table] = value
    for name, number in (("--deals", args.deals), ("--timing-deals", args.timing_deals),
                         ("--workers", args.workers), ("--chunk-size", args.chunk_size)):
        if number < 1:
            raise ValueError(f"{name}={number} is not allowed: expected an integer >= 1")
    worlds = world_counts(args.worlds, "--worlds")
    guided = world_counts(args.guided_worlds, "--guided-worlds")
    for flag, seed in (("--seed", args.seed), ("--confirm-seed", args.confirm_seed)):
        if seed is not None and seed < 0:
            raise ValueError(f"{flag} {seed} is not allowed: expected an integer >= 0")
    base = None if args.rungs is None else [n.strip() for n in args.rungs.split(",")
                                            if n.strip()]
    rungs = default_rungs(args.game, worlds, args.rollout, args.objective, guided, base)
    registry.make_config(args.game, **options)  # a bad table: its one-line ValueError
    name = f"{args.game}_{game.table_name(**options)}"
    if not rungs:
        raise ValueError(f"no rungs: give --worlds or --rungs (e.g. {base_rungs(args.game)})")
    work = args.work if args.work is not None else f"runs/ladder/{name}"
    check_output(args.out, ladder_files(name), f"the ladder {name}", force=args.force)
    check_output(work, (), "the rungs' tournaments", flag="--work")
    result = run_ladder(
        args.game, options, rungs, args.deals, args.seed, work,
        timing_deals=args.timing_deals, workers=args.workers, chunk_size=args.chunk_size,
        confirm_seed=args.confirm_seed, log=lambda line: print(line, flush=True),
    )
    for path in write_ladder(result, args.game, options, args.out, name, command_line(args),
                             args.timing_deals):
        print(path)
    sys.stdout.flush()
    return 0
