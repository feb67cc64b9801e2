"""Four Aces (docs/rules.md G–K): a pure-numpy batch rules engine and exact scoring.

``rules`` holds the constants, ``state`` the games' arrays, ``engine`` the transitions,
``observation`` what each seat sees, ``scoring`` the K2/K3 score. No RL framework is
imported here; :mod:`envs.four_aces_v0` is the PettingZoo adapter.
"""

from envs.four_aces.config import DEFAULT_MAX_ROUNDS, FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.observation import LAYOUT
from envs.four_aces.rules import ACTION_NAMES, DISCARD_OFFSET, DRAW, NUM_ACTIONS
from envs.four_aces.scoring import score_batch, score_cards
from envs.four_aces.state import FourAcesState

__all__ = [
    "ACTION_NAMES",
    "DEFAULT_MAX_ROUNDS",
    "DISCARD_OFFSET",
    "DRAW",
    "LAYOUT",
    "NUM_ACTIONS",
    "FourAcesConfig",
    "FourAcesEngine",
    "FourAcesState",
    "score_batch",
    "score_cards",
]
