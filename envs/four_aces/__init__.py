"""Four Aces (RULES.md G–K): a pure-numpy batch rules engine and exact scoring.

No RL framework is imported here; :mod:`envs.four_aces_v0` is the PettingZoo adapter.
"""

from envs.four_aces.config import DEFAULT_MAX_ROUNDS, FourAcesConfig
from envs.four_aces.engine import (
    ACTION_NAMES,
    DISCARD_OFFSET,
    DRAW,
    LAYOUT,
    NUM_ACTIONS,
    FourAcesEngine,
)
from envs.four_aces.scoring import score_batch, score_cards

__all__ = [
    "ACTION_NAMES",
    "DEFAULT_MAX_ROUNDS",
    "DISCARD_OFFSET",
    "DRAW",
    "LAYOUT",
    "NUM_ACTIONS",
    "FourAcesConfig",
    "FourAcesEngine",
    "score_batch",
    "score_cards",
]
