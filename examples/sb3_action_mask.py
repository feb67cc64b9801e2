"""Stable-Baselines3: PettingZoo's SB3 action-mask tutorial, with our env swapped in.

PettingZoo's tutorial "SB3: Action Masked PPO for Connect Four"
(``tutorials/SB3/connect_four/sb3_connect_four_action_mask.py``) in its structure, with
``connect_four_v3`` replaced by one of our tables:

- ``SB3ActionMaskWrapper`` (a ``pettingzoo.utils.BaseWrapper``) makes the AEC game look
  like one gymnasium env: ``reset`` fixes the spaces to the first agent's (the
  ``observation`` part of the dict), ``step`` returns the *next* agent's observation with
  the reward, termination and info of the agent that just acted, ``action_mask()`` reads
  the mask of the agent to act. One model thus plays every seat.
- sb3-contrib's ``ActionMasker`` + ``MaskablePPO(MaskableActorCriticPolicy, ...)`` train it;
  the model is saved as ``<env name>_<time>.zip``.
- ``eval_action_mask`` loads the latest model and plays it in every seat but the first,
  which plays uniformly random legal moves (``action_space.sample(action_mask)``), then
  reports the tutorial's numbers (rewards, scores, winrate); then ``--watch-games`` games
  with ``render_mode="human"``.

What differs from the tutorial: the wrapper is also a ``gymnasium.Env`` (the tutorial
asks for gymnasium <= 0.29.1; gymnasium 1.x wraps only a ``gymnasium.Env``); the model is
saved under ``--model-dir``; ``--n-steps`` and ``--batch-size`` reach ``MaskablePPO``
(SB3's defaults by default) so that a smoke run can be tiny; and, with more than two
seats, "winrate" is the trained seats' share of the winners' points (the tutorial counts
``player_1``'s). Our rewards are the game's points, not Connect Four's +1/-1.

Run: ``python examples/sb3_action_mask.py --game abracadabra --variant three --steps 20480``
"""

from __future__ import annotations

import argparse
import glob
import os
import time

import gymnasium
import pettingzoo.utils
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows this docstring as written and each option's default."""


class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
    """The AEC game seen as one gymnasium env whose single player is whoever is to act.

    Also a ``gymnasium.Env``: sb3-contrib's ``ActionMasker`` is a gymnasium wrapper, and
    gymnasium 1.x accepts only a ``gymnasium.Env`` inside one (the tutorial's wrapper
    derives from ``BaseWrapper`` alone and asks for gymnasium <= 0.29.1)."""

    def reset(self, seed=None, options=None):
        """Reset, then pin the spaces SB3 reads as attributes: the first agent's (every
        agent has the same), the observation without its mask. Returns (observation, {})."""
        super().reset(seed, options)
        self.observation_space = super().observation_space(self.possible_agents[0])[
            "observation"]
        self.action_space = super().action_space(self.possible_agents[0])
        return self.observe(self.agent_selection), {}

    def step(self, action):
        """Play ``action`` for the agent to act. The observation returned is the next
        agent's (what the model acts on next); reward, termination, truncation and info
        are those of the agent that just moved."""
        mover = self.agent_selection
        super().step(action)
        return (self.observe(self.agent_selection), self._cumulative_rewards[mover],
                self.terminations[mover], self.truncations[mover], self.infos[mover])

    def observe(self, agent):
        """The observation vector alone (the mask is read by :meth:`action_mask`)."""
        return super().observe(agent)["observation"]

    def action_mask(self):
        """The legal actions of the agent to act."""
        return super().observe(self.agent_selection)["action_mask"]


def mask_fn(env):
    """What ``ActionMasker`` calls for the current mask."""
    return env.action_mask()


def train_action_mask(env_fn, steps=10_000, seed=0, n_steps=2048, batch_size=64,
                      model_dir=".", **env_kwargs):
    """One MaskablePPO model trained in every seat at once (self-play through the
    wrapper); saved as ``<env name>_<time>.zip`` in ``model_dir``."""
    env = env_fn.env(**env_kwargs)
    name = env.metadata["name"]
    print(f"Starting training on {name}.")
    env = SB3ActionMaskWrapper(env)
    env.reset(seed=seed)  # sets the spaces SB3 reads
    env = ActionMasker(env, mask_fn)  # MaskablePPO finds this wrapper and uses its masks
    model = MaskablePPO(MaskableActorCriticPolicy, env, n_steps=n_steps,
                        batch_size=batch_size, verbose=1, device="cpu")
    model.set_random_seed(seed)
    model.learn(total_timesteps=steps)
    os.makedirs(model_dir, exist_ok=True)
    model.save(os.path.join(model_dir, f"{name}_{time.strftime('%Y%m%d-%H%M%S')}"))
    print(f"Model has been saved. Finished training on {name}.\n")
    env.close()


def eval_action_mask(env_fn, num_games=100, render_mode=None, model_dir=".", **env_kwargs):
    """The latest saved model in every seat but the first, which samples uniformly among
    its legal actions; prints each game's rewards, the totals, the winrate and scores."""
    env = env_fn.env(render_mode=render_mode, **env_kwargs)
    trained = env.possible_agents[1:]
    print(f"Starting evaluation vs a random agent. Trained agent will play as {trained}.")
    saved = glob.glob(os.path.join(model_dir, f"{env.metadata['name']}*.zip"))
    if not saved:
        raise SystemExit(f"Policy not found in {model_dir}.")
    model = MaskablePPO.load(max(saved, key=os.path.getctime))

    scores = dict.fromkeys(env.possible_agents, 0)  # the winner's reward, summed
    total_rewards = dict.fromkeys(env.possible_agents, 0)
    round_rewards = []
    for i in range(num_games):
        env.reset(seed=i)
        env.action_space(env.possible_agents[0]).seed(i)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            observation, action_mask = obs.values()
            if termination or truncation:
                rewards = dict(env.rewards)
                if len(set(rewards.values())) > 1:  # not a tie
                    winner = max(rewards, key=rewards.get)
                    scores[winner] += rewards[winner]
                for a in env.possible_agents:
                    total_rewards[a] += rewards[a]
                round_rewards.append(rewards)
                break
            if agent == env.possible_agents[0]:
                act = env.action_space(agent).sample(action_mask)
            else:  # PettingZoo wants a plain int
                act = int(model.predict(observation, action_masks=action_mask,
                                        deterministic=True)[0])
            env.step(act)
    env.close()

    won = sum(scores.values())
    winrate = sum(scores[a] for a in trained) / won if won else 0
    print("Rewards by round: ", round_rewards)
    print("Total rewards (incl. negative rewards): ", total_rewards)
    print("Winrate: ", winrate)
    print("Final scores: ", scores)
    return round_rewards, total_rewards, winrate, scores


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--game", choices=["abracadabra", "four_aces"], default="abracadabra",
                        help="which game")
    parser.add_argument("--variant", choices=VARIANTS, default="two",
                        help="Abracadabra's table: abracadabra_v1.env(variant=...)")
    parser.add_argument("--num-players", type=int, choices=range(RANGES["num_players"][0],
                                                                 RANGES["num_players"][1] + 1),
                        default=3, help="Four Aces' table: four_aces_v0.env(num_players=...)")
    parser.add_argument("--steps", type=int, default=20_480, help="training steps (all seats)")
    parser.add_argument("--n-steps", type=int, default=2048,
                        help="MaskablePPO's rollout length (SB3's default)")
    parser.add_argument("--batch-size", type=int, default=64, help="MaskablePPO's minibatch")
    parser.add_argument("--eval-games", type=int, default=100, help="games against random")
    parser.add_argument("--watch-games", type=int, default=2,
                        help="games shown with render_mode='human'")
    parser.add_argument("--model-dir", default="runs/sb3_action_mask",
                        help="where the model is saved and loaded from")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)

    # the tutorial's env_fn and env_kwargs: our module and the table's keyword
    env_fn = abracadabra_v1 if args.game == "abracadabra" else four_aces_v0
    env_kwargs = ({"variant": args.variant} if args.game == "abracadabra"
                  else {"num_players": args.num_players})

    train_action_mask(env_fn, steps=args.steps, seed=args.seed, n_steps=args.n_steps,
                      batch_size=args.batch_size, model_dir=args.model_dir, **env_kwargs)
    eval_action_mask(env_fn, num_games=args.eval_games, render_mode=None,
                     model_dir=args.model_dir, **env_kwargs)
    if args.watch_games:
        eval_action_mask(env_fn, num_games=args.watch_games, render_mode="human",
                         model_dir=args.model_dir, **env_kwargs)


if __name__ == "__main__":
    main()
