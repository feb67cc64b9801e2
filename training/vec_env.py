"""``BatchSeatVecEnv``: a stable-baselines3 ``VecEnv`` over one batch engine.

Env ``i`` of the VecEnv is game ``i`` of the engine, seen from the learner's seat (see
``training/seat_env.py`` for the seat view and how rewards are credited). One ``step``
advances every game with one engine call per acting seat instead of one Python env per
game. Finished games reset automatically (SB3 convention: the returned observation is
the new episode's, the last one is in ``infos[i]["terminal_observation"]``, and
``infos[i]["episode"]`` holds the learner's return and length for SB3's logger).

``sb3_contrib.MaskablePPO`` reads the legal actions through
``env.env_method("action_masks")``, which returns one bool [A] mask per env.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from training.opponents import OpponentPool
from training.seat_env import SeatDriver, make_pool


class BatchSeatVecEnv(VecEnv):
    """Many games of one batch engine as an SB3 ``VecEnv`` from the learner's seats."""

    render_mode = None

    def __init__(self, engine, pool: OpponentPool, reward_scale: float = 1.0):
        self.driver = SeatDriver(engine, pool, reward_scale)
        low, high = engine.observation_bounds
        observation_space = gym.spaces.Box(low, high, (engine.observation_size,),
                                           dtype=np.float32)
        super().__init__(engine.batch_size, observation_space,
                         gym.spaces.Discrete(engine.num_actions))
        self._actions: np.ndarray | None = None

    # -- the VecEnv protocol ----------------------------------------------------------------
    def reset(self) -> np.ndarray:
        seed = self._seeds[0]
        self._reset_seeds()
        self._reset_options()
        return self.driver.reset(seed=seed)

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self):
        obs, rewards, dones, finished = self.driver.step(self._actions, auto_reset=True)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for game, terminal, ret, length, result in finished:
            infos[game] = {"terminal_observation": terminal, "result": result,
                           "episode": {"r": ret, "l": length}}
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """bool [B, A]: the learner's legal actions in every game."""
        return self.driver.masks.copy()

    def close(self) -> None:
        pass

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        """Calls ``method_name`` once on the whole batch and splits the result per env
        (``action_masks`` -> one mask per env)."""
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result[i] for i in self._get_indices(indices)]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        value = getattr(self, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


def make_vec_env(game: str, num_games: int, options: dict | None = None,
                 opponents=("random",), seed: int | None = None, reward_scale: float = 1.0,
                 max_snapshots: int = 10) -> BatchSeatVecEnv:
    """A :class:`BatchSeatVecEnv` of ``num_games`` games of ``game`` against ``opponents``."""
    from envs.registry import make_engine

    engine = make_engine(game, num_games, **(options or {}))
    env = BatchSeatVecEnv(engine, make_pool(game, opponents, seed, max_snapshots), reward_scale)
    env.seed(seed)
    return env
