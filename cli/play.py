"""``cardrl play``: play a game in the terminal against the agents (:mod:`arena.play`).

    cardrl play abracadabra --variant three --seat 0 --vs heuristic
    cardrl play four_aces --players 3 --vs random --seed 7 --save-games mine.jsonl

The game is imported when the command runs, so that ``cardrl --help`` loads no engine.
"""

from __future__ import annotations

import argparse
import sys

from envs import registry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=registry.GAMES)
    parser.add_argument("--variant", default=None,
                        help="Abracadabra: four, three, two_dummy, two (default four); "
                             "Four Aces: the scoring rule, strict, free")
    parser.add_argument("--players", type=int, default=None,
                        help="Four Aces: number of players, 3-5 (default 4)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--vs", default="heuristic",
                        help="the other seats: heuristic, random, policy, policy:PATH or any "
                             "name from 'cardrl agents' (default heuristic)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deal")
    parser.add_argument("--match", action="store_true",
                        help="play a whole match instead of one deal / round")
    parser.add_argument("--save-games", default=None, metavar="FILE",
                        help="append the finished game to FILE (JSON lines; cardrl replay)")


def run(args: argparse.Namespace) -> int:
    from arena.play import play

    try:
        return play(args.game, variant=args.variant, players=args.players, seat=args.seat,
                    vs=args.vs, seed=args.seed, match=args.match, save_games=args.save_games)
    except ValueError as err:
        print(f"cardrl play: {err}", file=sys.stderr)
        return 2
