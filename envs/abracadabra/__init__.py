"""Abracadabra: the batch rules engine, numpy state stepped by compiled loops (no RL
framework imported).

The rules' constants are :mod:`.rules`, the games' arrays :mod:`.state`, the engine
:mod:`.engine`; the PettingZoo environment is :mod:`envs.abracadabra_v1`.
"""

from __future__ import annotations

from envs.lazy import lazy_exports

#: each name of the package -> the module defining it, imported on first use, so that the
#: game's descriptor (:mod:`.game`, read by :mod:`envs.registry`) loads no engine
_EXPORTS: dict[str, str] = {
    "AbracadabraConfig": ".config",
    "VariantSpec": ".config",
    "AbracadabraEngine": ".engine",
    "LAYOUT": ".observation",
    "ACTION_NAMES": ".rules",
    "BID_OFFSET": ".rules",
    "CALL": ".rules",
    "NO_CALL": ".rules",
    "NUM_ACTIONS": ".rules",
    "PLAY_OFFSET": ".rules",
    "SHOW_OFFSET": ".rules",
    "STOP": ".rules",
    "Phase": ".rules",
    "AbracadabraState": ".state",
}

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


__getattr__ = lazy_exports(__name__, _EXPORTS)
