"""Four Aces (docs/rules.md G–K): a pure-numpy batch rules engine and exact scoring.

``rules`` holds the constants, ``state`` the games' arrays, ``engine`` the transitions,
``observation`` what each seat sees, ``scoring`` the K2/K3 score. No RL framework is
imported here; :mod:`envs.four_aces_v0` is the PettingZoo adapter.
"""

from __future__ import annotations

from envs.lazy import lazy_exports

#: each name of the package -> the module defining it, imported on first use, so that the
#: game's descriptor (:mod:`.game`, read by :mod:`envs.registry`) loads no engine
_EXPORTS: dict[str, str] = {
    "DEFAULT_MAX_ROUNDS": ".config",
    "FourAcesConfig": ".config",
    "FourAcesEngine": ".engine",
    "LAYOUT": ".observation",
    "ACTION_NAMES": ".rules",
    "DISCARD_OFFSET": ".rules",
    "DRAW": ".rules",
    "NUM_ACTIONS": ".rules",
    "score_batch": ".scoring",
    "score_cards": ".scoring",
    "FourAcesState": ".state",
}

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


__getattr__ = lazy_exports(__name__, _EXPORTS)
