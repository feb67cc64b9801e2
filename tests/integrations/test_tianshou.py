"""Tianshou 2.0 (``examples/tianshou_dqn.py``): masked random play, then DQN epochs."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import requires, run_recipe

pytestmark = [requires("tianshou"), pytest.mark.slow, pytest.mark.xdist_group("integrations")]


@pytest.mark.parametrize("game", ["abracadabra", "four_aces"])
def test_tianshou_random_play_and_dqn(game, tmp_path):
    out = run_recipe("tianshou_dqn", "--game", game, "--episodes", "4", "--epochs", "2",
                     "--epoch-steps", "100", "--envs", "2", cwd=tmp_path)
    assert "random play: 4 episodes" in out
    assert "DQN:" in out and "gradient steps" in out
