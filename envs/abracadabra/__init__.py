"""Abracadabra: the pure-numpy batch rules engine (no RL framework imported).

The PettingZoo environment is :mod:`envs.abracadabra_v0`.
"""

from .config import AbracadabraConfig, VariantSpec
from .engine import (
    ACTION_NAMES,
    BID_OFFSET,
    CALL,
    LAYOUT,
    NO_CALL,
    NUM_ACTIONS,
    PLAY_OFFSET,
    SHOW_OFFSET,
    STOP,
    AbracadabraEngine,
)

__all__ = [
    "ACTION_NAMES",
    "BID_OFFSET",
    "CALL",
    "LAYOUT",
    "NO_CALL",
    "NUM_ACTIONS",
    "PLAY_OFFSET",
    "SHOW_OFFSET",
    "STOP",
    "AbracadabraConfig",
    "AbracadabraEngine",
    "VariantSpec",
]
