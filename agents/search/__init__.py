"""Agents that search on the batch engine over worlds sampled from what their seat knows:
:class:`~agents.search.pimc.PIMCAgent` (``agents.make("pimc", game)``), the same search
with a policy network's rollouts (``agents.make("pimc_policy", game)``) and its rollout
policies (:mod:`agents.search.rollouts`). How a driver hands them the engine: the
``needs_engine`` hook of :mod:`agents.base`."""

from agents.search.pimc import GuidedPIMCAgent, PIMCAgent
from agents.search.rollouts import ROLLOUTS, play_out

__all__ = ["GuidedPIMCAgent", "PIMCAgent", "ROLLOUTS", "play_out"]
