"""``cardrl demo``: the main job on a small default budget.

Plays one match of each game between random agents through the PettingZoo environments
and prints the results.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--seed", type=int, default=0, help="seed of the demo (default 0)")


def play_random_match(module, game: str, seed: int, **config) -> dict:
    """Play one match between random agents in the AEC env ``module``; the last result."""
    import agents

    env = module.env(episode="match", **config)
    env.reset(seed=seed)
    players = {a: agents.make("random", game, seed=seed + i) for i, a in enumerate(env.agents)}
    for agent in env.agent_iter():
        observation, _, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        env.step(players[agent].act(observation["observation"], observation["action_mask"]))
    return info["result"]


def run(args: argparse.Namespace) -> int:
    from envs import abracadabra_v0, four_aces_v0

    result = play_random_match(abracadabra_v0, "abracadabra", args.seed, variant="four")
    print(f"Abracadabra (four, random agents): totals {result['totals']}, "
          f"winners {result.get('winners')}")
    result = play_random_match(four_aces_v0, "four_aces", args.seed, num_players=4)
    print(f"Four Aces (4 players, random agents): totals {result['totals']}, "
          f"winners {result.get('winners')}")
    return 0
