"""Agents behind one interface: ``agents.make(name, game, **kwargs)``.

>>> import agents
>>> agent = agents.make("random", "abracadabra", seed=0)
>>> sorted(agents.available("four_aces"))  # doctest: +SKIP
"""

from agents.base import Agent, RandomAgent, act_grouped, sample_legal
from agents.registry import (
    GAMES,
    available,
    is_policy_spec,
    make,
    make_from_spec,
    register,
)

__all__ = [
    "Agent",
    "GAMES",
    "RandomAgent",
    "act_grouped",
    "available",
    "is_policy_spec",
    "make",
    "make_from_spec",
    "register",
    "sample_legal",
]
