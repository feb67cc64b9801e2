"""Agents behind one interface: ``agents.make(name, game, **kwargs)``.

>>> import agents
>>> agent = agents.make("random", "abracadabra", seed=0)
>>> sorted(agents.available("four_aces"))  # doctest: +SKIP
"""

from agents.base import Agent, RandomAgent, sample_legal
from agents.registry import GAMES, available, make, register

__all__ = ["Agent", "GAMES", "RandomAgent", "available", "make", "register", "sample_legal"]
