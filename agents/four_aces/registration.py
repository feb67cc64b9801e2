"""Four Aces' own agents, registered with :mod:`agents.registry` (which imports this
module the first time the game's agents are asked for): the discarders of
:mod:`agents.four_aces.heuristics`."""

from __future__ import annotations

from agents.registry import register

GAME = "four_aces"

register(GAME, "greedy", "agents.four_aces.heuristics:GreedyDiscarder")
register(GAME, "lookahead", "agents.four_aces.heuristics:LookaheadDiscarder")
register(GAME, "heuristic", "agents.four_aces.heuristics:HeuristicDiscarder")
