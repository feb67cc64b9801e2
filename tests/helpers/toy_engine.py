"""A tiny batch engine with the ``envs.core.BatchEngine`` interface, for training tests.

Every episode lasts ``length`` engine steps; seats move in turn starting at
``first_player``. Three actions: 0 is always legal, 1 only on even steps, 2 never (so
masks matter). The observation [4] is (step / length, 1 if the observer is to move,
observer seat / P, 1). Rewards are scripted: ``payouts[t]`` is the float [P] vector paid
to the seats at step t of the episode (default: at the last step seat s earns
``10 * (s + 1)``), plus ``action`` to the mover when ``action_reward`` is set.
"""

from __future__ import annotations

import numpy as np


class ToyEngine:
    num_actions = 3
    action_names = ("zero", "one", "two")
    observation_bounds = (0.0, 1.0)
    observation_size = 4

    def __init__(self, batch_size: int, num_players: int = 3, length: int = 7,
                 first_player: int = 0, payouts: dict[int, list[float]] | None = None,
                 action_reward: bool = False):
        self.batch_size = batch_size
        self.num_players = num_players
        self.length = length
        self.first_player = first_player
        if payouts is None:
            payouts = {length - 1: [10.0 * (s + 1) for s in range(num_players)]}
        self.payouts = {t: np.asarray(v, dtype=np.float32) for t, v in payouts.items()}
        self.action_reward = action_reward
        self.t = np.zeros(batch_size, dtype=np.int64)
        self.current_player = np.full(batch_size, -1, dtype=np.int8)
        self.game_over = np.ones(batch_size, dtype=bool)
        self.resets = np.zeros(batch_size, dtype=np.int64)
        self.history: list[tuple[int, int, int]] = []  # (game, seat, action) of every move

    def reset(self, seed=None, games=None, game_seeds=None):
        games = np.ones(self.batch_size, dtype=bool) if games is None else np.asarray(games)
        self.t[games] = 0
        self.current_player[games] = self.first_player
        self.game_over[games] = False
        self.resets[games] += 1

    def legal_action_mask(self):
        mask = np.zeros((self.batch_size, 3), dtype=bool)
        live = ~self.game_over
        mask[live, 0] = True
        mask[live, 1] = self.t[live] % 2 == 0
        return mask

    def observe(self, seats=None):
        seats = self.current_player if seats is None else np.asarray(seats)
        obs = np.zeros((self.batch_size, 4), dtype=np.float32)
        obs[:, 0] = self.t / self.length
        obs[:, 1] = (seats == self.current_player) & ~self.game_over
        obs[:, 2] = np.clip(seats, 0, None) / self.num_players
        obs[:, 3] = 1.0
        return obs

    def step(self, actions, active=None):
        actions = np.asarray(actions)
        active = ~self.game_over if active is None else np.asarray(active) & ~self.game_over
        legal = self.legal_action_mask()
        rows = np.flatnonzero(active)
        if not legal[rows, actions[rows]].all():
            raise ValueError("illegal action")
        rewards = np.zeros((self.batch_size, self.num_players), dtype=np.float32)
        for g in rows:
            seat = int(self.current_player[g])
            self.history.append((int(g), seat, int(actions[g])))
            if int(self.t[g]) in self.payouts:
                rewards[g] += self.payouts[int(self.t[g])]
            if self.action_reward:
                rewards[g, seat] += actions[g]
            self.t[g] += 1
            if self.t[g] >= self.length:
                self.game_over[g] = True
                self.current_player[g] = -1
            else:
                self.current_player[g] = (seat + 1) % self.num_players
        return rewards

    def result(self, game=0):
        return {"steps": int(self.t[game])} if self.game_over[game] else None
