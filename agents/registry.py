"""Agent registry: ``make(name, game, **kwargs)`` and ``available(game)``."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from agents.base import Agent
from envs.registry import GAMES

# game -> name -> "module:Class"; modules are imported on first use (torch only for policy)
_REGISTRY: dict[str, dict[str, str]] = {game: {} for game in GAMES}


def register(game: str, name: str, target: str) -> None:
    """Register ``target`` ("module:Class") as agent ``name`` for ``game``."""
    _check_game(game)
    _REGISTRY[game][name] = target


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}: expected one of {GAMES}")


def _resolve(target: str) -> Callable[..., Agent]:
    module_name, class_name = target.split(":")
    return getattr(importlib.import_module(module_name), class_name)


def available(game: str) -> dict[str, str]:
    """Agent names for ``game`` with a one-line summary of each."""
    _check_game(game)
    return {name: _resolve(target).summary for name, target in _REGISTRY[game].items()}


def make(name: str, game: str, **kwargs) -> Agent:
    """Build agent ``name`` for ``game``; kwargs go to the agent (e.g. ``seed``, ``path``).

    Every agent takes the env's own table keywords (``variant=`` for Abracadabra,
    ``num_players=`` for Four Aces: :data:`TABLE_KEYWORDS`): a policy loads the network of
    that table; an agent that reads the table from its observations checks them (a bad
    one is the env's ``ValueError``) and plays any table."""
    _check_game(game)
    if name not in _REGISTRY[game]:
        raise ValueError(
            f"unknown agent {name!r} for {game}: expected one of {sorted(_REGISTRY[game])}"
        )
    cls = _resolve(_REGISTRY[game][name])
    table = {k: kwargs.pop(k) for k in TABLE_KEYWORDS if k in kwargs and not _takes(cls, k)}
    if table:  # the env's own keywords: checked, though this agent reads its observations
        from envs.registry import make_config

        make_config(game, **table)
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


for _game in GAMES:
    register(_game, "random", "agents.base:RandomAgent")
    register(_game, "policy", "agents.policy.agent:PolicyAgent")
    register(_game, "pimc", "agents.search.pimc:PIMCAgent")  # search (agents/search/)
    register(_game, "pimc_policy", "agents.search.pimc:GuidedPIMCAgent")

# heuristics (agents/abracadabra/heuristics.py, agents/four_aces/heuristics.py)
register("abracadabra", "heuristic", "agents.abracadabra.heuristics:BestHeuristic")
register("abracadabra", "sure_tricks", "agents.abracadabra.heuristics:SureTricksAgent")
register("abracadabra", "expected_tricks", "agents.abracadabra.heuristics:ExpectedTricksAgent")
register("abracadabra", "control", "agents.abracadabra.heuristics:ControlAgent")
register("abracadabra", "bidder", "agents.policy.agent:BidderAgent")  # bid-only network
register("four_aces", "greedy", "agents.four_aces.heuristics:GreedyDiscarder")
register("four_aces", "lookahead", "agents.four_aces.heuristics:LookaheadDiscarder")
register("four_aces", "heuristic", "agents.four_aces.heuristics:HeuristicDiscarder")
