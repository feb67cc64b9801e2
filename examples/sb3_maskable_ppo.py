"""Stable-Baselines3 / sb3-contrib: MaskablePPO through the project's seat view.

A multi-player game is not a single-agent env; the seat view makes it one: the learner
holds one seat of each game, an opponent pool plays the others (``training/seat_env.py``;
the seat rotates every episode, delayed end-of-deal rewards are credited to the learner's
own seat). Two forms, both with ``action_masks()`` as ``MaskablePPO`` expects:

- ``training.vec_env.make_vec_env``: many games of one batch engine as an SB3 ``VecEnv``
  (what ``cardrl train`` with ``algo: sb3`` uses) -- train on this;
- ``training.seat_env.make_seat_env``: one game as a plain ``gymnasium.Env`` -- used here to
  watch the trained policy play with ``predict(..., action_masks=...)``.

Opponents are any names of ``agents.make`` (``random``, ``heuristic``, ...) with weights.

Run: ``python examples/sb3_maskable_ppo.py --game abracadabra --variant three --steps 2048``
"""

from __future__ import annotations

import argparse

import numpy as np
from sb3_contrib import MaskablePPO

from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES
from training.seat_env import make_seat_env
from training.vec_env import make_vec_env


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows this docstring as written and each option's default."""


def add_table_arguments(parser: argparse.ArgumentParser) -> None:
    """``--game``, ``--variant``, ``--num-players``: the table, in ``env()``'s keywords."""
    parser.add_argument("--game", choices=["abracadabra", "four_aces"], default="abracadabra",
                        help="which game")
    parser.add_argument("--variant", choices=VARIANTS, default="two",
                        help="Abracadabra's table: abracadabra_v1.env(variant=...)")
    parser.add_argument("--num-players", type=int, choices=range(RANGES["num_players"][0],
                                                                 RANGES["num_players"][1] + 1),
                        default=3, help="Four Aces' table: four_aces_v0.env(num_players=...)")


def table_of(args: argparse.Namespace) -> dict:
    """The keyword of ``env()`` that chooses the table."""
    if args.game == "abracadabra":
        return {"variant": args.variant}
    return {"num_players": args.num_players}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--games", type=int, default=8, help="games in the batch VecEnv")
    parser.add_argument("--steps", type=int, default=1024, help="learner decisions to train")
    parser.add_argument("--episodes", type=int, default=5, help="episodes to watch")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)
    table = table_of(args)

    # Opponents: 70% random, 30% the game's rule-based heuristic, drawn per seat and episode.
    opponents = [{"name": "random", "weight": 0.7}, {"name": "heuristic", "weight": 0.3}]
    env = make_vec_env(args.game, args.games, table, opponents, seed=args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=2,
                        learning_rate=3e-4, seed=args.seed, device="cpu", verbose=0)
    model.learn(total_timesteps=args.steps)  # reads env.action_masks() at every step
    print(f"trained {model.num_timesteps} learner decisions on {args.games} games")

    # Watch it: one game, one decision at a time, the mask passed to predict.
    single = make_seat_env(args.game, table, opponents, seed=args.seed + 1)
    returns = []
    for episode in range(args.episodes):
        obs, info = single.reset(seed=args.seed + episode)
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=single.action_masks(),
                                      deterministic=True)
            obs, reward, done, truncated, info = single.step(int(action))
            total += reward
        returns.append(total)
        print(f"episode {episode}: seat {single.seat}, return {total:+.1f}")
    print(f"mean return over {args.episodes} episodes: {np.mean(returns):+.2f}")


if __name__ == "__main__":
    main()
