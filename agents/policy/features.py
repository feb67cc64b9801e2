"""Input transforms of policy networks, by name: feature sets, symmetries, and the former
observations a network may read.

A policy's model config names its features (``features: none | <a registered set>``, see
:data:`FEATURES`); the network input is ``concat(obs, features(obs, masks))``
(:meth:`agents.policy.net.PolicyNet.prepare`): most sets read the observation alone,
some also the legal-action masks. The features themselves are game knowledge: each game
registers its sets from its own package (``agents/<game>/registration.py``, with
:func:`register`), under names that checkpoints and configs store, and each set fits only
the game that registered it. The symmetries a game's policies may use
(:func:`register_symmetry`, ``symmetry: none | <a registered symmetry>``) and the
observations of its former environment versions (:func:`register_former_observation`)
are registered the same way.

Registered pieces are ``"module:attribute"`` strings (an attribute may be dotted:
``"module:LAYOUT.size"``), imported on first use. Reading a table imports the
registration of every game of :mod:`envs.registry` first, so the tables are complete
whoever asks; a game that lives outside ``agents/`` registers its pieces itself.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs import registry

#: a feature set's function: (observations float32 [N, D], masks bool [N, A] or None) ->
#: float32 [N, F]
FeatureFn = Callable[[np.ndarray, "np.ndarray | None"], np.ndarray]


@dataclass(frozen=True)
class FeatureSet:
    """One registered feature set (:func:`register`)."""

    game: str  #: the game whose observations it reads (the only game it fits)
    function: str  #: "module:function" of ``(observations[, masks], **kwargs) -> [N, F]``
    size: str  #: "module:attribute" of its number of columns F
    masks: bool = False  #: the function reads the legal-action masks too
    kwargs: dict = field(default_factory=dict)  #: keyword arguments of the function
    #: the game options its values are computed for (a set that reads one scoring rule)
    computed_for: dict = field(default_factory=dict)


#: the set of no features (the raw observation), every game's
NONE = "none"
_SETS: dict[str, FeatureSet] = {}
_LOADED: dict[str, tuple[int, FeatureFn | None]] = {NONE: (0, None)}
_SYMMETRIES: dict[str, list[str]] = {}  # game -> its symmetries besides "none"
_FORMER: list[tuple[str, str]] = []  # ("module:attribute" former size, current size)
_READ: set[str] = set()  # the games whose registration was imported


def register(game: str, name: str, function: str, size: str, *, masks: bool = False,
             kwargs: dict | None = None, computed_for: dict | None = None) -> None:
    """Register the feature set ``name`` of ``game``: ``function`` and ``size`` as
    ``"module:attribute"`` strings, whether the function reads the legal-action ``masks``,
    its keyword arguments and the game options its values are ``computed_for``. The same
    registration again changes nothing; another set of a registered name is a
    ``ValueError``."""
    entry = FeatureSet(game, function, size, masks, dict(kwargs or {}), dict(computed_for or {}))
    if name == NONE or _SETS.get(name, entry) != entry:
        raise ValueError(f"feature set {name!r} is registered already")
    _SETS[name] = entry


def register_symmetry(game: str, name: str) -> None:
    """Register ``name`` as a symmetry the policies of ``game`` may use (``symmetry:``)."""
    if name not in _SYMMETRIES.setdefault(game, []):
        _SYMMETRIES[game].append(name)


def register_former_observation(former: str, current: str) -> None:
    """Register a former environment version's observation size whose columns start the
    current version's observation (``"module:attribute"`` of both sizes): a network
    trained on the former reads that prefix of the current observation."""
    if (former, current) not in _FORMER:
        _FORMER.append((former, current))


def _registered() -> None:
    """Import the registration of every game not read yet (``agents/<game>/registration.py``,
    where a game has one), so that the tables hold every game's pieces."""
    for game in registry.GAMES:
        if game in _READ:
            continue
        _READ.add(game)
        module = ".".join(("agents", game, "registration"))
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as error:
            if error.name is None or not module.startswith(error.name):
                raise


def _load(target: str) -> Any:
    """The object ``"module:attribute"`` names (a dotted attribute read step by step)."""
    module_name, _, path = target.partition(":")
    value: Any = importlib.import_module(module_name)
    for attribute in path.split("."):
        value = getattr(value, attribute)
    return value


def _loaded(name: str) -> tuple[int, FeatureFn | None]:
    """(columns, function as a :data:`FeatureFn`) of the registered set ``name``."""
    if name not in _LOADED:
        entry = _SETS[name]
        fn, kwargs = _load(entry.function), entry.kwargs
        call = (lambda obs, masks: fn(obs, masks, **kwargs)) if entry.masks else (
            lambda obs, masks: fn(obs, **kwargs))
        _LOADED[name] = (int(_load(entry.size)), call)
    return _LOADED[name]


class _Features(Mapping):
    """Feature set name -> (number of columns, its function): ``none`` first, then each
    game's sets, the games in :data:`envs.registry.GAMES` order, a game's in the order it
    registered them. Names are read without importing a set's module;
    an entry is loaded when read."""

    def __getitem__(self, name: str) -> tuple[int, FeatureFn | None]:
        if name not in self:
            raise KeyError(name)
        return _loaded(name)

    def __contains__(self, name: object) -> bool:
        _registered()
        return name == NONE or name in _SETS

    def __iter__(self) -> Iterator[str]:
        _registered()
        order = {game: i for i, game in enumerate(registry.GAMES)}  # whoever registered first
        return iter([NONE, *sorted(_SETS, key=lambda n: order.get(_SETS[n].game, len(order)))])

    def __len__(self) -> int:
        _registered()
        return 1 + len(_SETS)


#: feature set name -> (number of columns, its function)
FEATURES: Mapping[str, tuple[int, FeatureFn | None]] = _Features()


class _FormerObservations(Mapping):
    """Observation size of a former environment version -> the current version's size,
    whose observation starts with the former's columns (Abracadabra's v0 -> v1 appended
    its "voids")."""

    def _sizes(self) -> dict[int, int]:
        _registered()
        return {int(_load(former)): int(_load(current)) for former, current in _FORMER}

    def __getitem__(self, size: int) -> int:
        return self._sizes()[size]

    def __iter__(self) -> Iterator[int]:
        return iter(self._sizes())

    def __len__(self) -> int:
        return len(self._sizes())


#: observation size of a former environment version -> the current version's size, whose
#: observation starts with the former's columns: a network trained on the former reads
#: that prefix of the current observation
FORMER_OBSERVATIONS: Mapping[int, int] = _FormerObservations()


def reads_width(observation_size: int, width: int) -> bool:
    """Whether a network of ``observation_size`` reads observations of ``width`` columns:
    its own, or the current version's of its former one (:data:`FORMER_OBSERVATIONS`)."""
    return width == observation_size or FORMER_OBSERVATIONS.get(observation_size) == width


def check_symmetry(game: str, name: str) -> str:
    """``name`` if it is a symmetry of ``game`` (``none``, or one it registered);
    ValueError naming the allowed ones."""
    _registered()
    allowed = (NONE, *_SYMMETRIES.get(game, ()))
    if name not in allowed:
        others = [other for other, names in _SYMMETRIES.items() if name in names]
        raise ValueError(f"symmetry={name!r} does not fit game {game!r}: expected one of "
                         f"{allowed}" + (f" ({name!r} is a symmetry of {', '.join(others)} "
                                         "only)" if others else ""))
    return name


def check_features(name: str, game: str | None = None, game_config=None) -> str:
    """``name`` if it is a feature set (of ``game``, computed for the rules of
    ``game_config``, the game's config object); ValueError naming what fits otherwise."""
    if name not in FEATURES:
        raise ValueError(f"features={name!r}: expected one of {tuple(FEATURES)}")
    if name == NONE:
        return name
    entry = _SETS[name]
    if game is not None and entry.game != game:
        raise ValueError(f"features: {name!r} does not fit game {game!r}")
    rules = entry.computed_for
    if game_config is not None and any(getattr(game_config, k) != v for k, v in rules.items()):
        fits = [other for other, e in _SETS.items() if e.computed_for and e.game == game
                and all(getattr(game_config, k) == v for k, v in e.computed_for.items())]
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
    [N, A], which the sets that read them need (:attr:`FeatureSet.masks`). ``columns``
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
