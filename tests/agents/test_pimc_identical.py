"""PIMC's decisions do not change when its rollouts get faster: the actions of the
Abracadabra ``pimc`` agent (8 worlds, seed 0, the ``heuristic`` rollout) on fixed live
positions, recorded with the code before its speed-up (issue #15). The committed ladder
and tournament results depend on these choices; a change here must be deliberate."""

from __future__ import annotations

import numpy as np

import agents
from bench.agents import live_games

#: one call on all 16 games, then one call per game of the first 8 (the agent's
#: generator runs on between calls, so later draws depend on the earlier ones)
BATCH_ACTIONS = [101, 96, 97, 68, 71, 1, 11, 0, 91, 119, 121, 114, 103, 99, 70, 73]
SINGLE_ACTIONS = [101, 96, 97, 77, 71, 2, 4, 0]


def test_pimc_actions_are_the_recorded_ones():
    engine = live_games("abracadabra", 16, seed=0)
    agent = agents.make("pimc", "abracadabra", seed=0, worlds=8)
    assert agent.act_engine(engine, np.arange(16)).tolist() == BATCH_ACTIONS
    single = [int(agent.act_engine(engine, np.array([g]))[0]) for g in range(8)]
    assert single == SINGLE_ACTIONS
