"""Abracadabra's own agents, registered with :mod:`agents.registry` (which imports this
module the first time the game's agents are asked for): the heuristics
(:mod:`agents.abracadabra.heuristics`) and the bid-only network; and its policies' input
feature sets (:mod:`agents.abracadabra.features`) with :mod:`agents.policy.features`, under
the names checkpoints store, and the observation of abracadabra_v0 that its v1 extends."""

from __future__ import annotations

from agents.policy import features
from agents.registry import register

GAME = "abracadabra"

register(GAME, "heuristic", "agents.abracadabra.heuristics:BestHeuristic")
register(GAME, "sure_tricks", "agents.abracadabra.heuristics:SureTricksAgent")
register(GAME, "expected_tricks", "agents.abracadabra.heuristics:ExpectedTricksAgent")
register(GAME, "control", "agents.abracadabra.heuristics:ControlAgent")
register(GAME, "bidder", "agents.policy.agent:BidderAgent")  # bid-only network

# the feature sets, in the order configs list them; the functions are imported on first use
SETS = "agents.abracadabra.features"
features.register(GAME, "abracadabra", f"{SETS}:abracadabra_features",
                  f"{SETS}:ABRACADABRA_SIZE")
features.register(GAME, "abracadabra_advice", f"{SETS}:abracadabra_advice_features",
                  f"{SETS}:ABRACADABRA_ADVICE_SIZE", masks=True)
features.register(GAME, "abracadabra_cards", f"{SETS}:abracadabra_cards_features",
                  f"{SETS}:ABRACADABRA_CARDS_SIZE", masks=True)
# abracadabra_v0 -> v1 appended "voids": a v0 network reads v1's first columns
features.register_former_observation("envs.abracadabra.observation:V0_SIZE",
                                     "envs.abracadabra.observation:LAYOUT.size")
