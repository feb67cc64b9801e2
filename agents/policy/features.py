"""Input feature sets of policy networks, by name.

A policy's model config names its features (``features: none | abracadabra | four_aces |
...``, see :data:`FEATURES`); the network input is ``concat(obs, features(obs, masks))``
(:meth:`agents.policy.net.PolicyNet.prepare`): most sets read the observation alone,
``abracadabra_advice`` and ``abracadabra_cards`` also the legal-action masks. The
features themselves are game knowledge and live beside each game's heuristics:
:mod:`agents.abracadabra.features`, :mod:`agents.four_aces.features`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.abracadabra.features import (
    ABRACADABRA_ADVICE_SIZE,
    ABRACADABRA_CARDS_SIZE,
    ABRACADABRA_SIZE,
    abracadabra_advice_features,
    abracadabra_cards_features,
    abracadabra_features,
)
from agents.four_aces.features import (
    FOUR_ACES_LOOKAHEAD_SIZE,
    FOUR_ACES_REFILL_SIZE,
    FOUR_ACES_REFILL_TURNS_SIZE,
    FOUR_ACES_SIZE,
    FOUR_ACES_TURNS_SIZE,
    four_aces_features,
    four_aces_lookahead_features,
    four_aces_refill_features,
    four_aces_refill_turns_features,
    four_aces_turns_features,
)
from envs.abracadabra.observation import LAYOUT as ABRACADABRA_LAYOUT
from envs.abracadabra.observation import V0_SIZE as ABRACADABRA_V0_SIZE

#: observation size of a former environment version -> the current version's size, whose
#: observation starts with the former's columns: a network trained on the former reads
#: that prefix of the current observation (abracadabra_v0 -> v1 appended "voids").
FORMER_OBSERVATIONS = {ABRACADABRA_V0_SIZE: ABRACADABRA_LAYOUT.size}


def reads_width(observation_size: int, width: int) -> bool:
    """Whether a network of ``observation_size`` reads observations of ``width`` columns:
    its own, or the current version's of its former one (:data:`FORMER_OBSERVATIONS`)."""
    return width == observation_size or FORMER_OBSERVATIONS.get(observation_size) == width


#: a feature set's function: (observations float32 [N, D], masks bool [N, A] or None) ->
#: float32 [N, F]
FeatureFn = Callable[[np.ndarray, "np.ndarray | None"], np.ndarray]


def _of_observations(fn: Callable[[np.ndarray], np.ndarray]) -> FeatureFn:
    """A feature function of the observations alone, as a :data:`FeatureFn`."""
    return lambda obs, masks: fn(obs)

#: feature set name -> (number of columns, its function)
FEATURES: dict[str, tuple[int, FeatureFn | None]] = {
    "none": (0, None),
    "abracadabra": (ABRACADABRA_SIZE, _of_observations(abracadabra_features)),
    "abracadabra_advice": (ABRACADABRA_ADVICE_SIZE, abracadabra_advice_features),
    "abracadabra_cards": (ABRACADABRA_CARDS_SIZE, abracadabra_cards_features),
    "four_aces": (FOUR_ACES_SIZE, _of_observations(four_aces_features)),  # strict (default)
    "four_aces_free": (FOUR_ACES_SIZE,
                       _of_observations(lambda obs: four_aces_features(obs, "free"))),
    "four_aces_refill": (FOUR_ACES_REFILL_SIZE,  # strict only
                         _of_observations(four_aces_refill_features)),
    "four_aces_turns": (FOUR_ACES_TURNS_SIZE,  # strict only
                        _of_observations(four_aces_turns_features)),
    "four_aces_refill_turns": (FOUR_ACES_REFILL_TURNS_SIZE,  # strict only
                               _of_observations(four_aces_refill_turns_features)),
    "four_aces_lookahead": (FOUR_ACES_LOOKAHEAD_SIZE,  # strict only
                            _of_observations(four_aces_lookahead_features)),
}


#: feature set -> the game options its values are computed for (Four Aces' K3 scoring)
COMPUTED_FOR = {"four_aces_free": {"scoring": "free"},
                **{name: {"scoring": "strict"} for name in FEATURES
                   if name.startswith("four_aces") and name != "four_aces_free"}}


def check_features(name: str, game: str | None = None, game_config=None) -> str:
    """``name`` if it is a feature set (of ``game``, computed for the rules of
    ``game_config``, the game's config object); ValueError naming what fits otherwise."""
    if name not in FEATURES:
        raise ValueError(f"features={name!r}: expected one of {tuple(FEATURES)}")
    if game is not None and name != "none" and not name.startswith(game):
        raise ValueError(f"features: {name!r} does not fit game {game!r}")
    rules = COMPUTED_FOR.get(name, {})
    if game_config is not None and any(getattr(game_config, k) != v for k, v in rules.items()):
        fits = [other for other, r in COMPUTED_FOR.items() if other.startswith(str(game)) and
                all(getattr(game_config, k) == v for k, v in r.items())]
        raise ValueError(f"features: {name!r} is computed for {rules}, not the config's "
                         f"options: use {' or '.join(fits)}")
    return name


def feature_size(name: str) -> int:
    """Columns the feature set ``name`` adds to the observation."""
    return FEATURES[check_features(name)][0]


def with_features(name: str, observations: np.ndarray, masks: np.ndarray | None = None,
                  columns: int | None = None) -> np.ndarray:
    """``concat(obs[:, :columns], features(obs, masks))`` as float32 [N, columns + F]
    (the observation columns alone for "none"). ``masks``: the rows' legal-action masks
    [N, A], which ``abracadabra_advice`` and ``abracadabra_cards`` need. ``columns``
    (default: all) keeps a prefix of the observation, for a network trained on a former
    environment version whose observation is that prefix; the features always read the
    whole observation."""
    obs = np.asarray(observations, dtype=np.float32)
    size, fn = FEATURES[check_features(name)]
    if fn is None:
        return obs if columns is None else obs[..., :columns]
    if obs.ndim == 1:
        obs = obs[None, :]
    kept = obs if columns is None else obs[:, :columns]
    if masks is not None:
        masks = np.asarray(masks, dtype=bool).reshape(len(obs), -1)
    return np.concatenate([kept, fn(obs, masks)], axis=1)
