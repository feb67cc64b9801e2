"""TorchRL (``examples/torchrl_rollout.py``): ``PettingZooWrapper(use_mask=True)``, a masked
rollout of one game and of a ``SerialEnv`` batch (the recipe asserts every chosen action was
legal)."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import requires, run_recipe

pytestmark = [requires("torchrl", "tensordict"), pytest.mark.slow,
              pytest.mark.xdist_group("integrations")]


@pytest.mark.parametrize("game", ["abracadabra", "four_aces"])
def test_torchrl_masked_rollout(game, tmp_path):
    out = run_recipe("torchrl_rollout", "--game", game, "--tables", "2", "--steps", "100",
                     cwd=tmp_path)
    assert "one game:" in out
    assert "2 tables: 100 steps each" in out
