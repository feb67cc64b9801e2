"""``cardrl agents``: the agents of each game, one line each on what they do."""

from __future__ import annotations

import argparse

from envs.registry import GAMES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        choices=GAMES,
        help="list only this game's agents (default: both games)",
    )


def format_agents(game: str) -> str:
    """The agents of ``game`` as an aligned list: name, then its one-line summary."""
    import agents

    listing = agents.available(game)
    width = max((len(name) for name in listing), default=0)
    lines = [f"{game}:"]
    lines += [f"  {name.ljust(width)}  {summary}" for name, summary in sorted(listing.items())]
    return "\n".join(lines)


#: the committed evidence of how strong the agents are, on the same duplicate deals
EVIDENCE = "results/tournaments/*/summary.md (heuristics), results/proof/*/summary.md (policies)"


def run(args: argparse.Namespace) -> int:
    games = [args.game] if args.game else list(GAMES)
    print("\n\n".join(format_agents(game) for game in games))
    print("\nuse: agents.make(NAME, GAME, **kwargs), or `cardrl tournament --agents NAME,...`")
    print(f"strength: {EVIDENCE}")
    return 0
