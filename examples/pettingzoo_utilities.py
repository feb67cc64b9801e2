"""PettingZoo's own testing utilities on one table, each called with its default arguments.

PettingZoo's documented way to check an environment ("Testing Environments"): ``api_test``,
``seed_test``, ``state_test``, ``average_total_reward``, ``render_test``,
``parallel_api_test`` and ``parallel_seed_test``, here exactly as that page calls them
(default ``num_cycles``, ``max_episodes``, ...), the env built with nothing but the
table's keyword. Several of them step random actions without the mask: ``env()`` ends
the game at the first illegal one, -1 to its player, with an ``IllegalActionWarning``
(PettingZoo's classic-games convention). Our games are turn-based
(``metadata["is_parallelizable"]`` is False), so the parallel API is
``turn_based_aec_to_parallel(env())``.

Each utility prints one line, ``<name>: passed (<seconds> s)``; the first failure ends the
run with PettingZoo's error. ``--only`` runs some of them.

Run: ``python examples/pettingzoo_utilities.py --game four_aces --num-players 5``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
import warnings
from functools import partial

from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)
from pettingzoo.utils import average_total_reward
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES
from envs.pettingzoo_base import IllegalActionWarning

#: each utility as PettingZoo's documentation calls it, given the table's ``env`` function
UTILITIES = {
    "api_test": lambda env_fn: api_test(env_fn()),
    "seed_test": lambda env_fn: seed_test(env_fn),
    "state_test": lambda env_fn: state_test(env_fn(), turn_based_aec_to_parallel(env_fn())),
    "average_total_reward": lambda env_fn: average_total_reward(env_fn()),
    "render_test": lambda env_fn: render_test(env_fn),
    "parallel_api_test": lambda env_fn: parallel_api_test(turn_based_aec_to_parallel(env_fn())),
    "parallel_seed_test": lambda env_fn: parallel_seed_test(
        lambda: turn_based_aec_to_parallel(env_fn())),
}


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows this docstring as written and each option's default."""


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game``, ``--variant``, ``--num-players``: the table, in ``env()``'s keywords."""
    parser.add_argument("--game", choices=["abracadabra", "four_aces"], default="abracadabra",
                        help="which game")
    parser.add_argument("--variant", choices=VARIANTS, default="four",
                        help="Abracadabra's table: abracadabra_v1.env(variant=...)")
    parser.add_argument("--num-players", type=int, choices=range(RANGES["num_players"][0],
                                                                 RANGES["num_players"][1] + 1),
                        default=4, help="Four Aces' table: four_aces_v0.env(num_players=...)")


def table_of(args: argparse.Namespace) -> dict:
    """The keyword of ``env()`` that chooses the table."""
    if args.game == "abracadabra":
        return {"variant": args.variant}
    return {"num_players": args.num_players}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--only", nargs="+", choices=list(UTILITIES), default=list(UTILITIES),
                        help="the utilities to run")
    parser.add_argument("--show-output", action="store_true",
                        help="print what the utilities print (api_test's notes, the frames "
                             "render_test draws)")
    args = parser.parse_args(argv)
    env_fn = partial((abracadabra_v1 if args.game == "abracadabra" else four_aces_v0).env,
                     **table_of(args))
    # random actions without the mask: each game they end is expected, not news
    warnings.simplefilter("ignore", IllegalActionWarning)
    for name in args.only:
        start, printed = time.perf_counter(), io.StringIO()
        with contextlib.redirect_stdout(printed):
            UTILITIES[name](env_fn)
        if args.show_output:
            print(printed.getvalue(), end="")
        print(f"{name}: passed ({time.perf_counter() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
