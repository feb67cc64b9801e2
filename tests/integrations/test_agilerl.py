"""AgileRL's DQN curriculum (``examples/agilerl_dqn.py``) on every table, where AgileRL is
installed: it pins pettingzoo<1.27 and tensordict==0.13, so it lives in an environment of
its own (docs/integrations.md, "Libraries that conflict"), where this test runs it."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import APART, requires, run_recipe

pytestmark = [requires("agilerl", install=f"it pins pettingzoo<1.27 and tensordict==0.13: "
                                          f"install it apart, {APART}"),
              pytest.mark.slow, pytest.mark.xdist_group("integrations")]


def test_agilerl_dqn_curriculum_on_every_table(tmp_path):
    out = run_recipe("agilerl_dqn", "--game", "all", "--episodes", "2", "--eval-episodes",
                     "1", "--warm-up", "32", "--batch-size", "16", cwd=tmp_path)
    assert out.count("replay buffer warmed up") == 7
    assert out.count(": lesson random: 2 episodes") == 7
    assert out.count(": lesson self: 2 episodes") == 7
