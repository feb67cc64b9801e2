"""``cardrl play``: play a game in the terminal against the agents (:mod:`arena.play`).

    cardrl play abracadabra --variant three --seat 0 --vs heuristic
    cardrl play four_aces --players 3 --vs random --seed 7 --save-games mine.jsonl

The game is imported when the command runs, so that ``cardrl --help`` loads no engine.
Every argument (the table, the seat, the opponents, the seed, where the game is saved) is
checked before the first deal; a problem is one ``cardrl play: error:`` line on stderr
and exit status 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from agents.policy.checkpoint import TRUST_PICKLE_HELP
from envs import registry


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", choices=registry.GAMES)
    parser.add_argument("--variant", default=None,
                        help="Abracadabra: four, three, two_dummy, two (default four); "
                             "Four Aces: the scoring rule, strict, free")
    parser.add_argument("--players", "--num-players", dest="players", type=int, default=None,
                        help="Four Aces: number of players, 3-5 (default 4)")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--vs", default="heuristic",
                        help="the other seats: heuristic, random, policy, policy:PATH or any "
                             "name from 'cardrl agents' (default heuristic)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the deal, an integer >= 0")
    parser.add_argument("--match", action="store_true",
                        help="play a whole match instead of one deal / round")
    parser.add_argument("--save-games", default=None, metavar="FILE",
                        help="append the finished game to FILE (JSON lines; cardrl replay)")
    parser.add_argument("--trust-pickle", action="store_true",
                        help=f"a policy opponent may {TRUST_PICKLE_HELP}")


def check_games_file(path: str) -> None:
    """ValueError unless the finished game can be appended to ``path`` (checked before the
    game starts, so that a game played is never lost at the end)."""
    target = Path(path)
    if target.is_dir():
        raise ValueError(f"--save-games {path}: found a folder, expected a file to append "
                         "the game to (JSON lines)")
    if not target.parent.is_dir():
        raise ValueError(f"--save-games {path}: the folder {target.parent} does not exist; "
                         "expected a file in an existing folder")


def run(args: argparse.Namespace) -> int:
    """Play the game; a bad argument is a ValueError with the whole message."""
    from arena.play import play

    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed {args.seed} is not allowed: expected an integer >= 0")
    if args.save_games is not None:
        check_games_file(args.save_games)
    return play(args.game, variant=args.variant, players=args.players, seat=args.seat,
                vs=args.vs, seed=args.seed, match=args.match, save_games=args.save_games,
                trust_pickle=args.trust_pickle)
