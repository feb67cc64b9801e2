"""Abracadabra's own agents, registered with :mod:`agents.registry` (which imports this
module the first time the game's agents are asked for): the heuristics
(:mod:`agents.abracadabra.heuristics`) and the bid-only network."""

from __future__ import annotations

from agents.registry import register

GAME = "abracadabra"

register(GAME, "heuristic", "agents.abracadabra.heuristics:BestHeuristic")
register(GAME, "sure_tricks", "agents.abracadabra.heuristics:SureTricksAgent")
register(GAME, "expected_tricks", "agents.abracadabra.heuristics:ExpectedTricksAgent")
register(GAME, "control", "agents.abracadabra.heuristics:ControlAgent")
register(GAME, "bidder", "agents.policy.agent:BidderAgent")  # bid-only network
