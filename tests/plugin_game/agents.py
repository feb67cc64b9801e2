"""High Card's one heuristic: play the highest legal card."""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from envs.cards import RANK_OF


class HighestCard(Agent):
    """Plays its highest legal card (by rank, HC3)."""

    summary = "plays the highest legal card"

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        value = np.where(np.asarray(action_masks, bool), RANK_OF[:52][None, :] + 1, 0)
        return value.argmax(axis=1).astype(np.int64)
