"""RLlib (new API stack): PPO with action masking, every seat sharing one policy.

RLlib's parameter-sharing example (``examples/multi_agent/pettingzoo_parameter_sharing.py``:
one policy for every agent, here ``"shared"``) over our AEC game in
``ray.rllib.env.wrappers.pettingzoo_env.PettingZooEnv``, plus RLlib's example
action-masking module, ``ActionMaskingTorchRLModule``. Two details:

- That module reads the observation dict keys ``"observations"`` and ``"action_mask"``;
  PettingZoo's convention (ours) is ``"observation"``. :class:`MaskKeys` renames the key
  (and gives the mask as float32, the form the module's docstring names).
- RLlib checks a new environment by stepping a random action *without* its mask. Our
  ``env()`` follows PettingZoo's classic-games convention by default
  (``illegal_action="terminate"``): an illegal action ends the game with -1 for the
  offender (and a warning) instead of raising, so that check passes; the masked policy
  itself never plays one.

Ray runs locally with no extra workers (``num_env_runners=0``); two PPO iterations on a
tiny batch. Run: ``python examples/rllib_ppo.py --game four_aces --num-players 4
--iterations 2``
"""

from __future__ import annotations

import argparse

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows this docstring as written and each option's default."""


class MaskKeys(BaseWrapper):
    """Observations as ``{"observations": float32[D], "action_mask": float32[A]}``."""

    def __init__(self, env):
        super().__init__(env)
        inner = env.observation_space(env.possible_agents[0])
        self._space = spaces.Dict({
            "observations": inner["observation"],
            "action_mask": spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32),
        })

    def observation_space(self, agent):
        return self._space

    def observe(self, agent):
        obs = self.env.observe(agent)
        return {"observations": obs["observation"],
                "action_mask": obs["action_mask"].astype(np.float32)}


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


def make_aec(game: str, table: dict):
    """The AEC game with RLlib-friendly keys; illegal actions end the game (the default,
    see above)."""
    return MaskKeys((abracadabra_v1 if game == "abracadabra" else four_aces_v0).env(**table))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    add_table_arguments(parser)
    parser.add_argument("--iterations", type=int, default=2, help="PPO iterations")
    parser.add_argument("--batch", type=int, default=256, help="env steps per iteration")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random draw")
    args = parser.parse_args(argv)
    table = table_of(args)

    import ray  # heavy: imported once the arguments are known (so --help is instant)
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )
    from ray.tune.registry import register_env

    register_env("cardgame", lambda _config: PettingZooEnv(make_aec(args.game, table)))
    config = (
        PPOConfig()
        .environment("cardgame")
        .env_runners(num_env_runners=0)  # sample in this process
        .multi_agent(policies={"shared"},
                     policy_mapping_fn=lambda agent_id, *a, **k: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": [64, 64]}),
        }))
        .training(train_batch_size_per_learner=args.batch, minibatch_size=64, num_epochs=1,
                  lr=3e-4)
        .debugging(seed=args.seed)
    )
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        algo = config.build_algo()
        for iteration in range(args.iterations):
            result = algo.train()
            runners = result["env_runners"]
            print(f"iteration {iteration}: {runners['num_env_steps_sampled_lifetime']} env "
                  f"steps, {runners.get('num_episodes_lifetime', 0)} episodes, mean return "
                  f"{runners.get('episode_return_mean', float('nan')):.2f}")
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
