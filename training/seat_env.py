"""The single-agent seat view of a game: the learner plays one seat, a pool the others.

:class:`SeatDriver` is the core, written once over a whole batch engine (it serves the
one-game :class:`SeatEnv` here and the many-game ``BatchSeatVecEnv`` in
``training/vec_env.py``). In each game the learner holds one seat; every other seat is
played by an actor drawn from an :class:`~training.opponents.OpponentPool` at the start of
the episode. After the learner acts, the opponents act — vectorised across games, one
``act_batch`` call per actor and engine step — until it is the learner's turn again or the
game is over. The learner's seat rotates by one every episode of a game.

**Reward crediting.** ``engine.step`` returns the reward every seat earned at that step,
and delayed end-of-deal rewards arrive at the step that ends the deal, which is often an
opponent's. The learner's reward for a decision is the sum, over every engine step from
that decision up to its next one (or the end of the episode), of the reward column of
**its own seat** — never the mover's. Rewards a seat earns before the learner's first
decision of an episode have no decision to be credited to and are dropped (none of our
games pays out before every seat has acted).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from training.opponents import OpponentPool


class SeatDriver:
    """Drives a batch engine from the learner's seat in every game (the shared core).

    Attributes:
        engine: the batch engine (B games, P seats).
        pool: the opponents of the non-learner seats.
        learner_seat: int64 [B], the learner's seat in each game.
        actors: int64 [B, P], the pool actor of each seat this episode (-1 = learner).
        masks: bool [B, A], the learner's legal actions (all False where a game is over).
        episode_return, episode_length: float64 / int64 [B], the running episode's learner
            reward and decision count.
    """

    def __init__(self, engine, pool: OpponentPool, reward_scale: float = 1.0):
        self.engine = engine
        self.pool = pool
        self.reward_scale = float(reward_scale)
        self.num_games = engine.batch_size
        self.num_seats = engine.num_players
        self._rows = np.arange(self.num_games)
        self._resets = 0
        self.learner_seat = self._rows % self.num_seats
        self.actors = np.full((self.num_games, self.num_seats), -1, dtype=np.int64)
        self.masks = np.zeros((self.num_games, engine.num_actions), dtype=bool)
        self.episode_return = np.zeros(self.num_games)
        self.episode_length = np.zeros(self.num_games, dtype=np.int64)

    # -- episodes -----------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Start new episodes in every game; the learner's observations [B, D].

        Each call moves every game's learner one seat on (game i starts at seat i mod P).
        """
        self.engine.reset(seed=seed)
        self.learner_seat = (self._rows + self._resets) % self.num_seats
        self._resets += 1
        self._start(np.ones(self.num_games, dtype=bool))
        self._settle()
        return self._observe()

    def _start(self, games: np.ndarray) -> None:
        """Draw the opponents of new episodes in ``games`` (bool [B])."""
        rows = np.flatnonzero(games)
        actors = self.pool.sample((len(rows), self.num_seats))
        actors[np.arange(len(rows)), self.learner_seat[rows]] = -1
        self.actors[rows] = actors
        self.episode_return[rows] = 0.0
        self.episode_length[rows] = 0

    def _settle(self) -> None:
        """Let opponents open new episodes; reset games that end before the learner acts
        (their rewards belong to no learner decision)."""
        for _ in range(100):
            self._advance()
            over = self.engine.game_over.copy()
            if not over.any():
                return
            self._restart(over)
        raise RuntimeError("episodes keep ending before the learner's first decision")

    def _restart(self, games: np.ndarray) -> None:
        self.engine.reset(games=games)
        self.learner_seat[games] = (self.learner_seat[games] + 1) % self.num_seats
        self._start(games)

    # -- stepping -----------------------------------------------------------------------------
    def _advance(self) -> np.ndarray:
        """Opponents act until every game is at the learner's turn or over. float64 [B]:
        the reward the learner's seat earned meanwhile (whoever moved)."""
        engine = self.engine
        earned = np.zeros(self.num_games)
        actions = np.zeros(self.num_games, dtype=np.int64)
        while True:
            current = engine.current_player.astype(np.int64)
            waiting = (current >= 0) & (current != self.learner_seat)
            if not waiting.any():
                return earned
            rows = np.flatnonzero(waiting)
            obs = engine.observe()[rows]
            masks = engine.legal_action_mask()[rows]
            actions[:] = 0
            actions[rows] = self.pool.act(self.actors[rows, current[rows]], obs, masks)
            rewards = engine.step(actions, active=waiting)
            earned += rewards[self._rows, self.learner_seat]

    def _observe(self) -> np.ndarray:
        self.masks = self.engine.legal_action_mask()
        return self.engine.observe(seats=self.learner_seat)

    def step(self, actions: np.ndarray, auto_reset: bool = True):
        """The learner's actions [B] in every game (all must be at the learner's turn).

        Returns ``(obs [B, D], rewards [B], dones [B], finished)``: ``finished`` lists
        ``(game, terminal_observation, episode_return, episode_length, result)`` for each
        game whose episode ended. With ``auto_reset`` those games start a new episode and
        ``obs`` is its first observation; without, ``obs`` is the terminal observation.
        """
        engine = self.engine
        current = engine.current_player.astype(np.int64)
        if engine.game_over.any() or not np.array_equal(current, self.learner_seat):
            raise RuntimeError("step called while some game is over or not at the learner's "
                               "turn (reset first)")
        rewards = engine.step(np.asarray(actions, dtype=np.int64))[self._rows, self.learner_seat]
        rewards = (rewards + self._advance()) * self.reward_scale
        self.episode_return += rewards
        self.episode_length += 1
        dones = engine.game_over.copy()
        finished = []
        if dones.any():
            terminal = engine.observe(seats=self.learner_seat)
            for g in np.flatnonzero(dones):
                finished.append((int(g), terminal[g], float(self.episode_return[g]),
                                 int(self.episode_length[g]), engine.result(int(g))))
            if auto_reset:
                self._restart(dones)
                self._settle()
        return self._observe(), rewards.astype(np.float32), dones, finished


class SeatEnv(gym.Env):
    """One game as a ``gymnasium.Env`` from the learner's seat (a batch of one).

    ``action_masks()`` gives the legal actions for ``sb3_contrib.MaskablePPO``; the
    learner's seat rotates at every ``reset``. Build one with :func:`make_seat_env`.
    """

    metadata = {"render_modes": []}

    def __init__(self, engine, pool: OpponentPool, reward_scale: float = 1.0):
        if engine.batch_size != 1:
            raise ValueError("SeatEnv needs an engine with batch_size=1 (use BatchSeatVecEnv)")
        self.driver = SeatDriver(engine, pool, reward_scale)
        low, high = engine.observation_bounds
        self.observation_space = gym.spaces.Box(low, high, (engine.observation_size,),
                                                dtype=np.float32)
        self.action_space = gym.spaces.Discrete(engine.num_actions)
        self._done = True

    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return int(self.driver.learner_seat[0])

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        obs = self.driver.reset(seed=seed)
        self._done = False
        return obs[0], {"action_mask": self.driver.masks[0].copy(), "seat": self.seat}

    def step(self, action):
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        obs, rewards, dones, finished = self.driver.step(np.array([action]), auto_reset=False)
        info = {"action_mask": self.driver.masks[0].copy(), "seat": self.seat}
        self._done = bool(dones[0])
        if self._done:
            info["result"] = finished[0][4]
        return obs[0], float(rewards[0]), self._done, False, info

    def action_masks(self) -> np.ndarray:
        """bool [A]: the learner's legal actions now."""
        return self.driver.masks[0].copy()


def make_pool(game: str, opponents, seed: int | None = None, max_snapshots: int = 10):
    """An :class:`OpponentPool` from a config list (names or ``{name, weight, kwargs}``)."""
    from training.opponents import parse_pool

    return OpponentPool(game, parse_pool(opponents), seed=seed, max_snapshots=max_snapshots)


def make_seat_env(game: str, options: dict | None = None, opponents=("random",),
                  seed: int | None = None, reward_scale: float = 1.0) -> SeatEnv:
    """A :class:`SeatEnv` of ``game`` (config ``options``) against ``opponents``."""
    from envs.registry import make_engine

    engine = make_engine(game, 1, **(options or {}))
    return SeatEnv(engine, make_pool(game, opponents, seed), reward_scale)
