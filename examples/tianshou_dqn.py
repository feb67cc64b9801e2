"""Tianshou 2.0: masked random play, then a DQN seat against random seats.

Tianshou's own PettingZoo recipe (its tic-tac-toe test, ``test/pettingzoo/tic_tac_toe.py``),
applied unchanged to our games: wrap the AEC environment in ``tianshou.env.PettingZooEnv``
(it turns the observation dict into ``obs`` / ``mask`` / ``agent_id``), give every seat an
algorithm, and let ``MultiAgentOffPolicyAlgorithm`` dispatch each step to the seat to act.

1. Collect a few episodes with every seat played by Tianshou's masked random algorithm.
2. Train DQN in seat ``player_0`` against masked random seats for a few short epochs.
   Tianshou's DQN masks illegal actions itself: it reads ``batch.obs.mask``.

Tianshou's replay buffer stores each step's ``info``; that works because ``info["result"]``
has the same keys and shapes on every episode.

What this shows is that the plumbing works, not a training method: Tianshou's recipe gives
each stored step to the seat that moved, with that step's reward, so ``player_0`` sees its
end-of-deal reward only in the deals where it makes the last move, and its next
observation is the next seat's. For training one seat against others, see
``examples/sb3_maskable_ppo.py`` (the seat view credits every reward to the learner's seat).

Run: ``python examples/tianshou_dqn.py --game four_aces --num-players 4 --epochs 2``
"""

from __future__ import annotations

import argparse
import logging

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES


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


def make_env(game: str, table: dict) -> PettingZooEnv:
    """One game in Tianshou's PettingZoo wrapper."""
    return PettingZooEnv((abracadabra_v1 if game == "abracadabra" else four_aces_v0).env(**table))


def random_seats(env: PettingZooEnv) -> MultiAgentOffPolicyAlgorithm:
    """Every seat plays a uniformly random legal action (the mask comes from the env)."""
    seats = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
             for _ in env.agents]
    return MultiAgentOffPolicyAlgorithm(algorithms=seats, env=env)


def dqn_in_seat_0(env: PettingZooEnv, lr: float) -> MultiAgentOffPolicyAlgorithm:
    """DQN plays ``player_0``; the other seats stay masked random."""
    net = Net(state_shape=env.observation_space["observation"].shape,
              action_shape=env.action_space.n, hidden_sizes=[128, 128])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     eps_training=0.1, eps_inference=0.05)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=0.99,
                  n_step_return_horizon=1, target_update_freq=100)
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
              for _ in env.agents[1:]]
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--episodes", type=int, default=10, help="random-play episodes")
    parser.add_argument("--epochs", type=int, default=3, help="DQN epochs")
    parser.add_argument("--epoch-steps", type=int, default=500, help="env steps per epoch")
    parser.add_argument("--envs", type=int, default=4, help="parallel (dummy) environments")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)
    table = table_of(args)

    # Per-seat returns are [episodes, seats]; Tianshou's summary says it flattens them.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    np.random.seed(args.seed)  # Tianshou's random policy and epsilon draw from numpy
    torch.manual_seed(args.seed)
    # Each collector needs its own environments: collecting resets the ones it steps.
    envs, test_envs = (
        DummyVectorEnv([lambda: make_env(args.game, table) for _ in range(args.envs)])
        for _ in range(2))
    envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    env = make_env(args.game, table)  # a template for the spaces and the agent names

    # 1. Masked random play in every seat, stored in a replay buffer.
    buffer = VectorReplayBuffer(20_000, len(envs))
    collector = Collector[CollectStats](random_seats(env), envs, buffer)
    stats = collector.collect(n_episode=args.episodes, reset_before_collect=True)
    print(f"random play: {stats.n_collected_episodes} episodes, "
          f"{stats.n_collected_steps} steps, {len(buffer)} transitions stored")

    # 2. A few DQN epochs in seat player_0. The reward that counts is player_0's column.
    algorithm = dqn_in_seat_0(env, args.lr)
    train = Collector[CollectStats](algorithm, envs, VectorReplayBuffer(20_000, len(envs)),
                                    exploration_noise=True)
    test = Collector[CollectStats](algorithm, test_envs, exploration_noise=True)
    train.reset()
    train.collect(n_step=64 * len(envs))  # warm the buffer before the first update
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train, test_collector=test, max_epochs=args.epochs,
        epoch_num_steps=args.epoch_steps, collection_step_num_env_steps=16,
        test_step_num_episodes=args.envs, batch_size=64,
        update_step_num_gradient_steps_per_sample=0.25, test_in_training=False,
        multi_agent_return_reduction=lambda rews: rews[:, 0], verbose=False,
        show_progress=False,
    ))
    print(f"DQN: {result.update_step} gradient steps, {result.train_step} env steps, "
          f"best player_0 test return {result.best_reward:.2f}")


if __name__ == "__main__":
    main()
