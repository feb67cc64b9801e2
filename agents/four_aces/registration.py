"""Four Aces' own agents, registered with :mod:`agents.registry` (which imports this
module the first time the game's agents are asked for): the discarders of
:mod:`agents.four_aces.heuristics`; and its policies' input feature sets
(:mod:`agents.four_aces.features`) and suit symmetry (:mod:`agents.four_aces.symmetry`)
with :mod:`agents.policy.features`, under the names checkpoints store."""

from __future__ import annotations

from agents.policy import features
from agents.registry import register

GAME = "four_aces"

register(GAME, "greedy", "agents.four_aces.heuristics:GreedyDiscarder")
register(GAME, "lookahead", "agents.four_aces.heuristics:LookaheadDiscarder")
register(GAME, "heuristic", "agents.four_aces.heuristics:HeuristicDiscarder")

# the feature sets, in the order configs list them; the functions are imported on first use.
# Each reads one K3 scoring rule (computed_for): all but four_aces_free the strict one.
SETS = "agents.four_aces.features"
STRICT, FREE = {"scoring": "strict"}, {"scoring": "free"}
features.register(GAME, "four_aces", f"{SETS}:four_aces_features",
                  f"{SETS}:FOUR_ACES_SIZE", computed_for=STRICT)
features.register(GAME, "four_aces_free", f"{SETS}:four_aces_features",
                  f"{SETS}:FOUR_ACES_SIZE", kwargs=FREE, computed_for=FREE)
features.register(GAME, "four_aces_refill", f"{SETS}:four_aces_refill_features",
                  f"{SETS}:FOUR_ACES_REFILL_SIZE", computed_for=STRICT)
features.register(GAME, "four_aces_turns", f"{SETS}:four_aces_turns_features",
                  f"{SETS}:FOUR_ACES_TURNS_SIZE", computed_for=STRICT)
features.register(GAME, "four_aces_refill_turns",
                  f"{SETS}:four_aces_refill_turns_features",
                  f"{SETS}:FOUR_ACES_REFILL_TURNS_SIZE", computed_for=STRICT)
features.register(GAME, "four_aces_lookahead", f"{SETS}:four_aces_lookahead_features",
                  f"{SETS}:FOUR_ACES_LOOKAHEAD_SIZE", computed_for=STRICT)
# its suits play identical roles (no rule names a suit): ``symmetry: suits``
features.register_symmetry(GAME, "suits")
