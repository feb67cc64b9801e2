"""RLlib (``examples/rllib_ppo.py``): PPO with RLlib's action-masking module, two
iterations, Ray local with no extra env runners."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import requires, run_recipe

# "tree" is dm-tree, which ray[rllib] brings: plain ray cannot import ray.rllib
pytestmark = [requires("ray", "tree", "torch"), pytest.mark.slow,
              pytest.mark.xdist_group("integrations")]


def test_rllib_ppo_with_action_masking(tmp_path):
    # HOME: RLlib writes its logs under ~/ray_results; keep them in the scratch folder
    out = run_recipe("rllib_ppo", "--game", "four_aces", "--iterations", "2", "--batch", "128",
                     cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert "iteration 0:" in out and "iteration 1:" in out
