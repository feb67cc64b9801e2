"""Abracadabra: the batch rules engine, numpy state stepped by compiled loops (no RL
framework imported).

The rules' constants are :mod:`.rules`, the games' arrays :mod:`.state`, the engine
:mod:`.engine`; the PettingZoo environment is :mod:`envs.abracadabra_v1`.
"""

from .config import AbracadabraConfig, VariantSpec
from .engine import AbracadabraEngine
from .observation import LAYOUT
from .rules import (
    ACTION_NAMES,
    BID_OFFSET,
    CALL,
    NO_CALL,
    NUM_ACTIONS,
    PLAY_OFFSET,
    SHOW_OFFSET,
    STOP,
    Phase,
)
from .state import AbracadabraState

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
    "AbracadabraState",
    "Phase",
    "VariantSpec",
]
