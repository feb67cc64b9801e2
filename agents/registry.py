"""Agent registry: ``make(name, game, **kwargs)`` and ``available(game)``.

Every game gets the agents that play any game: ``random``, and where its descriptor
(:mod:`envs.registry`) declares what they need, ``policy`` (a trained network) and the
searches ``pimc`` / ``pimc_policy`` (its search rollouts). A game's own agents register
from its package, ``agents/<game>/registration.py``, imported the first time the game's
agents are asked for; a game that lives elsewhere calls :func:`register` itself. Asking
for an agent whose capability the game does not provide is a ``ValueError`` in one line
(``game 'x' provides no search rollouts``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agents.base import Agent
from envs import registry

#: the agents every game has: name -> ("module:Class", the descriptor field it needs
#: (None: nothing), the capability named when that field is empty)
GENERIC: dict[str, tuple[str, str | None, str]] = {
    "random": ("agents.base:RandomAgent", None, ""),
    "policy": ("agents.policy.agent:PolicyAgent", "policy_config", "policy network"),
    "pimc": ("agents.search.pimc:PIMCAgent", "rollouts", "search rollouts"),  # agents/search/
    "pimc_policy": ("agents.search.pimc:GuidedPIMCAgent", "rollouts", "search rollouts"),
    "pimc_pruned": ("agents.search.pimc:PrunedPIMCAgent", "rollouts", "search rollouts"),
}


class _Agents(dict):
    """game -> name -> "module:Class"; a game's entry is made the first time it is read
    (:data:`GENERIC`, then the game's own registration). Modules are imported on first
    use (torch only for policy)."""

    def __missing__(self, game: str) -> dict[str, str]:
        registry.get(game)  # an unknown game: ValueError with the choices
        agents = self[game] = {name: target for name, (target, _, _) in GENERIC.items()}
        try:  # the game's own agents: agents/<game>/registration.py, if it has one
            importlib.import_module(_registration(game))
        except ModuleNotFoundError as error:
            if error.name is None or not _registration(game).startswith(error.name):
                raise
        return agents


def _registration(game: str) -> str:
    """The module that registers ``game``'s own agents, if the game has one."""
    return ".".join(("agents", game, "registration"))


_REGISTRY: dict[str, dict[str, str]] = _Agents()


def register(game: str, name: str, target: str) -> None:
    """Register ``target`` ("module:Class") as agent ``name`` for ``game`` (a game of
    :mod:`envs.registry`)."""
    _REGISTRY[game][name] = target


def _missing(game: str, name: str) -> str | None:
    """The capability ``game`` lacks for the generic agent ``name``, or None."""
    if name not in GENERIC or _REGISTRY[game].get(name) != GENERIC[name][0]:
        return None
    _, needs, capability = GENERIC[name]
    if needs is None or getattr(registry.get(game), needs):
        return None
    return capability


def check_provided(name: str, game: str) -> None:
    """``ValueError`` in one line when ``name`` is an agent every game has but ``game``
    does not provide what it needs (``game 'x' provides no search rollouts``)."""
    capability = _missing(game, name)
    if capability is not None:
        raise ValueError(f"game {game!r} provides no {capability}: agent {name!r} needs it")


def _resolve(target: str) -> Callable[..., Agent]:
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def available(game: str) -> dict[str, str]:
    """Agent names for ``game`` with a one-line summary of each (the ones it can build)."""
    return {name: _resolve(target).summary for name, target in _REGISTRY[game].items()
            if _missing(game, name) is None}


def make(name: str, game: str, **kwargs) -> Agent:
    """Build agent ``name`` for ``game``; kwargs go to the agent (e.g. ``seed``, ``path``).

    Every agent takes the env's own table keywords (``variant=`` for Abracadabra,
    ``num_players=`` for Four Aces: :data:`TABLE_KEYWORDS`): a policy loads the network of
    that table; an agent that reads the table from its observations checks them (a bad
    one is the env's ``ValueError``) and plays any table."""
    agents = _REGISTRY[game]
    if name not in agents:
        raise ValueError(
            f"unknown agent {name!r} for {game}: expected one of {sorted(available(game))}"
        )
    check_provided(name, game)
    cls = _resolve(agents[name])
    table = {k: kwargs.pop(k) for k in TABLE_KEYWORDS if k in kwargs and not _takes(cls, k)}
    if table:  # the env's own keywords: checked, though this agent reads its observations
        registry.make_config(game, **table)
    agent = cls(game=game, **kwargs)
    agent.name = name
    return agent


#: the env's keywords that choose a table; every agent takes them (agents.make)
TABLE_KEYWORDS = ("variant", "num_players")


def _takes(cls, keyword: str) -> bool:
    """Whether ``cls(...)`` has a parameter ``keyword`` of its own."""
    import inspect

    return keyword in inspect.signature(cls).parameters


def is_policy_spec(spec: str) -> bool:
    """Whether the agent spec ``spec`` names a trained policy (``policy``, ``policy:PATH``):
    the agents that load a checkpoint file the user names or the committed defaults (and
    take ``trust_pickle``; ``bidder`` loads only its own committed file)."""
    return spec == "policy" or spec.startswith("policy:")


def make_from_spec(spec: str, game: str, **kwargs) -> Agent:
    """An agent from a command-line spec: a registered name (``heuristic``), or
    ``policy:PATH`` for a trained checkpoint (a run's ``policy.pt``)."""
    name, sep, path = spec.partition(":")
    if not sep:
        return make(spec, game, **kwargs)
    if name != "policy" or not path:
        raise ValueError(f"agent {spec!r}: expected a registered name or policy:PATH "
                         f"(e.g. policy:runs/NAME/policy.pt)")
    return make("policy", game, path=path, **kwargs)


def __getattr__(name: str):
    """``GAMES``: the games of :mod:`envs.registry` now (plugins included)."""
    if name == "GAMES":
        return registry.GAMES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
