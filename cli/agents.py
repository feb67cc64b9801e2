"""``cardrl agents``: the agents of each game, one line each on what they do."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        choices=("abracadabra", "four_aces"),
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


def run(args: argparse.Namespace) -> int:
    import agents

    games = [args.game] if args.game else list(agents.GAMES)
    print("\n\n".join(format_agents(game) for game in games))
    print("\nuse: agents.make(NAME, GAME, **kwargs), or `cardrl tournament --agents NAME,...`")
    return 0
