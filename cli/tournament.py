"""``cardrl tournament``: a duplicate-deal tournament between agents, with ratings and CIs.

Every deal is replayed with every seat rotation of its line-up, so the luck of the cards
cancels (see :mod:`arena.tournament.schedule`). Writes to ``--out`` (default
``runs/tournament_<game>_<seed>``, an ignored folder): ``tournament.json`` (the arguments
and the SHA-256 of every checkpoint the entrants load), ``games.csv`` (one row per deal,
rotation and seat; appended as chunks finish, so a rerun of the same command resumes),
``summary.csv``, ``head_to_head.csv``, ``summary.md`` (headed by the exact command that
regenerates the folder), ``points.png`` and ``head_to_head.png``. Every refusal (a bad
argument, a folder of another tournament or with changed checkpoints, a folder holding
other files without ``--force``, a corrupt file) is a ``ValueError`` with the whole
message, before the folder is created or changed.
"""

from __future__ import annotations

import argparse
import json
import shlex

from agents.policy.checkpoint import TRUST_PICKLE_HELP
from envs import registry

EXAMPLES = """\
examples:
  cardrl tournament --game abracadabra --agents random,random,random,random --deals 2000
  cardrl tournament --game abracadabra --variant three --agents random,random,random --deals 5000 \\
      --workers 2 --out runs/abra_three
  cardrl tournament --game four_aces --players 4 --agents random,random --deals 1000
  cardrl tournament --game abracadabra --agents new=policy,old=policy,random \\
      --agent-arg new.path=runs/a.pt --agent-arg old.path=runs/b.pt --deals 1000
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EXAMPLES
    parser.add_argument("--game", required=True, choices=registry.GAMES)
    parser.add_argument(
        "--variant",
        help="Abracadabra variant: four (default), three, two_dummy, two",
    )
    parser.add_argument(
        "--players", "--num-players", dest="players", type=int,
        help="Four Aces: number of players, 3..5 (default 4); --num-players as the env's keyword"
    )
    parser.add_argument(
        "--agents",
        required=True,
        help="comma-separated entrants: NAME or LABEL=NAME (see `cardrl agents`); NAME may be "
        "policy:PATH (a trained checkpoint) and may repeat. With fewer agents than seats, "
        "agents take several seats",
    )
    parser.add_argument(
        "--deals",
        type=int,
        default=1000,
        help="dealt keys; each is played under all P seat rotations (default 1000)",
    )
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument(
        "--episode",
        choices=("deal", "match"),
        default="deal",
        help="deal: one deal (Four Aces: one round) per game (default); match: whole "
        "matches, points are match totals and win rates are reported",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="any other game config option, e.g. call_mode=auto, target_points=50, "
        "scoring=free (repeatable; values parsed as JSON when possible)",
    )
    parser.add_argument(
        "--agent-arg",
        action="append",
        default=[],
        metavar="AGENT.KEY=VALUE",
        help="keyword argument for an agent (by label or name), e.g. policy.path=x.pt",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="processes for the local backend (default 1)"
    )
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local processes, or Ray tasks (RAY_ADDRESS selects a cluster; needs the "
        "[ray] extra). Results are identical",
    )
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=512,
        help="deals per batch/task (default 512; part of the arguments: changing it "
        "changes the random agents' draws)",
    )
    parser.add_argument(
        "--out",
        default=None,
        help="output directory (default runs/tournament_<game>_<seed>); rerun the same "
        "command to resume an interrupted run (refused if a checkpoint it loads changed)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into an existing --out folder that holds other files and no tournament "
        "(refused without it); a tournament's own folder is resumed without it",
    )
    parser.add_argument(
        "--save-games",
        metavar="FILE",
        help="append every game played to FILE as JSON lines (see cardrl replay)",
    )
    parser.add_argument("--trust-pickle", action="store_true",
                        help=f"policy entrants {TRUST_PICKLE_HELP} (how they load, not part of "
                             "the results: a resume may add or drop it)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def _pairs(items: list[str], what: str) -> list[tuple[str, object]]:
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"{what} {item!r} is not KEY=VALUE")
        pairs.append((key.strip(), _value(value.strip())))
    return pairs


def options_from_args(args: argparse.Namespace) -> dict:
    """The game config options given by --variant, --players and --option; the table
    flags are refused for a game whose table option (``registry.Game.table_option``) is
    another."""
    from arena.tournament.spec import TABLE_FLAGS

    options = dict(_pairs(args.option, "--option"))
    for option, flag in TABLE_FLAGS.items():
        value = getattr(args, flag.removeprefix("--"))
        if value is None:
            continue
        if registry.get(args.game).table_option != option:
            games = [g for g in registry.GAMES if registry.get(g).table_option == option]
            raise ValueError(f"{flag} is for --game {' or '.join(games)}, not {args.game}")
        options[option] = value
    return options


def run(args: argparse.Namespace) -> int:
    """Play (or resume) the tournament, write its folder and print its table; a refusal is
    a ValueError with the whole message."""
    from arena.tournament import command_line, make_spec, run_tournament

    options = options_from_args(args)
    agent_kwargs: dict[str, dict] = {}
    for key, value in _pairs(args.agent_arg, "--agent-arg"):
        agent, dot, name = key.rpartition(".")
        if not dot or not agent:
            raise ValueError(f"--agent-arg {key!r} is not AGENT.KEY=VALUE")
        agent_kwargs.setdefault(agent, {})[name] = value
    out = args.out or f"runs/tournament_{args.game}_{args.seed}"
    entries = [entry for entry in args.agents.split(",") if entry.strip()]
    arguments = dict(
        deals=args.deals,
        seed=args.seed,
        options=options,
        episode=args.episode,
        agent_kwargs=agent_kwargs,
        chunk_size=args.chunk_size,
        trust_pickle=args.trust_pickle,
    )
    # the command at the top of summary.md, every argument spelled out
    command = command_line(make_spec(args.game, entries, **arguments))
    if args.workers != 1 or args.backend != "local":
        command += f" --workers {args.workers} --backend {args.backend}"
    command += f" --out {shlex.quote(out)}"
    result = run_tournament(
        args.game,
        entries,
        workers=args.workers,
        out_dir=out,
        backend=args.backend,
        progress=not args.no_progress,
        command=command,
        save_games=args.save_games,
        force=args.force,
        **arguments,
    )
    table = result.summary[
        ["agent", "games", "mean_points", "ci_low", "ci_high", "win_rate", "rating"]
    ]
    if table["win_rate"].isna().all():
        table = table.drop(columns="win_rate")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    seats = result.spec.num_seats
    if result.played_deals:
        rate = result.played_deals / max(result.play_s, 1e-9)
        print(
            f"\nplayed {result.played_deals} deals x {seats} rotations in {result.play_s:.1f} s "
            f"({rate:.0f} deals/s); total {result.elapsed_s:.1f} s with statistics"
        )
    else:
        print(f"\nall {result.spec.deals} deals were already in {out}: nothing to play")
    print(f"wrote {', '.join(str(p) for p in result.files)}")
    return 0
