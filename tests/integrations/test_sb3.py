"""sb3-contrib MaskablePPO through the seat view (``examples/sb3_maskable_ppo.py``)."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import requires, run_recipe

pytestmark = [requires("sb3_contrib", "stable_baselines3"), pytest.mark.slow,
              pytest.mark.xdist_group("integrations")]


@pytest.mark.parametrize("game", ["abracadabra", "four_aces"])
def test_sb3_maskable_ppo_on_the_seat_view(game, tmp_path):
    out = run_recipe("sb3_maskable_ppo", "--game", game, "--games", "4", "--steps", "256",
                     "--episodes", "2", cwd=tmp_path)
    assert "trained 256 learner decisions on 4 games" in out
    assert "mean return over 2 episodes" in out
