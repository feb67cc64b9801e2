"""Input feature sets of policy networks, by name.

A policy's model config names its features (``features: none | abracadabra | four_aces |
...``, see :data:`FEATURES`); the network input is ``concat(obs, features(obs))``
(:meth:`agents.policy.net.PolicyNet.prepare`), or ``concat(obs, features(obs, masks))``
for the sets of :data:`MASK_FEATURES`, which also read the legal-action masks. The
features themselves are game knowledge and live beside each game's heuristics:
:mod:`agents.abracadabra.features`, :mod:`agents.four_aces.features`.
"""

from __future__ import annotations

import numpy as np

from agents.abracadabra.features import (
    ABRACADABRA_ADVICE_SIZE,
    ABRACADABRA_SIZE,
    abracadabra_advice_features,
    abracadabra_features,
)
from agents.four_aces.features import (
    FOUR_ACES_REFILL_SIZE,
    FOUR_ACES_REFILL_TURNS_SIZE,
    FOUR_ACES_SIZE,
    FOUR_ACES_TURNS_SIZE,
    four_aces_features,
    four_aces_refill_features,
    four_aces_refill_turns_features,
    four_aces_turns_features,
)

#: feature set name -> (number of columns, function of the observation batch)
FEATURES = {
    "none": (0, None),
    "abracadabra": (ABRACADABRA_SIZE, abracadabra_features),
    "abracadabra_advice": (ABRACADABRA_ADVICE_SIZE, abracadabra_advice_features),
    "four_aces": (FOUR_ACES_SIZE, four_aces_features),  # strict scoring (the default)
    "four_aces_free": (FOUR_ACES_SIZE, lambda obs: four_aces_features(obs, "free")),
    "four_aces_refill": (FOUR_ACES_REFILL_SIZE, four_aces_refill_features),  # strict only
    "four_aces_turns": (FOUR_ACES_TURNS_SIZE, four_aces_turns_features),  # strict only
    "four_aces_refill_turns": (FOUR_ACES_REFILL_TURNS_SIZE,  # strict only
                               four_aces_refill_turns_features),
}

#: the feature sets whose function also takes the legal-action masks: fn(obs, masks)
MASK_FEATURES = frozenset({"abracadabra_advice"})


def check_features(name: str) -> str:
    if name not in FEATURES:
        raise ValueError(f"features={name!r}: expected one of {tuple(FEATURES)}")
    return name


def feature_size(name: str) -> int:
    """Columns the feature set ``name`` adds to the observation."""
    return FEATURES[check_features(name)][0]


def with_features(name: str, observations: np.ndarray,
                  masks: np.ndarray | None = None) -> np.ndarray:
    """``concat(obs, features(obs))`` as float32 [N, D + F] (obs itself for "none"). The
    sets of :data:`MASK_FEATURES` need the legal-action ``masks`` [N, A] of the rows."""
    obs = np.asarray(observations, dtype=np.float32)
    size, fn = FEATURES[check_features(name)]
    if fn is None:
        return obs
    if obs.ndim == 1:
        obs = obs[None, :]
    if name not in MASK_FEATURES:
        return np.concatenate([obs, fn(obs)], axis=1)
    if masks is None:
        raise ValueError(f"features={name!r} read the legal-action masks: expected "
                         "with_features(name, observations, masks)")
    masks = np.asarray(masks, dtype=bool).reshape(len(obs), -1)
    return np.concatenate([obs, fn(obs, masks)], axis=1)
