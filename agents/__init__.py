"""Agents behind one interface: ``agents.make(name, game, **kwargs)``.

>>> import agents
>>> agent = agents.make("random", "abracadabra", seed=0)
>>> sorted(agents.available("four_aces"))  # doctest: +SKIP
"""

from agents.base import Agent, RandomAgent, act_grouped, sample_legal
from agents.registry import (
    available,
    is_policy_spec,
    make,
    make_from_spec,
    register,
)

__all__ = [
    "Agent",
    "RandomAgent",
    "act_grouped",
    "available",
    "is_policy_spec",
    "make",
    "make_from_spec",
    "register",
    "sample_legal",
]


def __getattr__(name: str):
    """``GAMES``: the games of :mod:`envs.registry` now (plugins included)."""
    if name == "GAMES":
        from envs import registry

        return registry.GAMES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
