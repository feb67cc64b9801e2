"""RLlib (``examples/rllib_ppo.py``): PPO with RLlib's action-masking module, two
iterations, Ray local with no extra env runners."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import has_illegal_action_option, requires, run_recipe

# TODO(lead): remove this xfail once issue 14 item 2 has landed (env(...,
# illegal_action="terminate")). RLlib's environment check steps an unmasked random action;
# the recipe builds the games with illegal_action="terminate" so that check passes.
WAITS_FOR_ILLEGAL_ACTION = pytest.mark.xfail(
    not has_illegal_action_option(), strict=False,
    reason="waits for env(illegal_action='terminate') (issue 14 item 2): RLlib's env check "
           "steps an unmasked random action")

# "tree" is dm-tree, which ray[rllib] brings: plain ray cannot import ray.rllib
pytestmark = [requires("ray", "tree", "torch"), pytest.mark.slow,
              pytest.mark.xdist_group("integrations"), WAITS_FOR_ILLEGAL_ACTION]


def test_rllib_ppo_with_action_masking(tmp_path):
    # HOME: RLlib writes its logs under ~/ray_results; keep them in the scratch folder
    out = run_recipe("rllib_ppo", "--game", "four_aces", "--iterations", "2", "--batch", "128",
                     cwd=tmp_path, env={"HOME": str(tmp_path)})
    assert "iteration 0:" in out and "iteration 1:" in out
