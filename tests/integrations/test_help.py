"""Every recipe answers ``--help`` (its options and what it runs), and every one takes the
table as ``env()`` does: ``--game``, ``--variant``, ``--num-players``. (The TorchRL MARL
PPO and SB3 tutorial recipes, whose imports alone take seconds, are run by the matrix:
``examples/library_matrix.py``, results/integrations/.)"""

from __future__ import annotations

import pytest

from tests.integrations.recipes import APART, requires, run_recipe

RECIPES = [
    pytest.param("pettingzoo_utilities", marks=requires("pettingzoo")),
    pytest.param("tianshou_dqn", marks=requires("tianshou")),
    pytest.param("torchrl_rollout", marks=requires("torchrl", "tensordict")),
    pytest.param("rllib_ppo", marks=requires("ray", "tree")),
    pytest.param("supersuit_parallel", marks=requires("supersuit")),
    pytest.param("sb3_maskable_ppo", marks=requires("sb3_contrib")),
    pytest.param("cleanrl_ppo", marks=requires("torch")),
    pytest.param("agilerl_dqn", marks=requires(
        "agilerl", install=f"it pins pettingzoo<1.27 and tensordict==0.13: install it apart, "
                           f"{APART}")),
    pytest.param("pufferlib_emulation", marks=requires(
        "pufferlib", install=f"pufferlib-core pins torch==2.9.0: install it apart, {APART}")),
]

pytestmark = pytest.mark.xdist_group("integrations")


@pytest.mark.parametrize("name", RECIPES)
def test_recipe_help(name, tmp_path):
    out = run_recipe(name, "--help", cwd=tmp_path, timeout=120)
    assert out.startswith("usage:")
    for option in ("--game", "--variant", "--num-players"):
        assert option in out, option
    assert "--seed" in out or name == "pettingzoo_utilities"  # its utilities take no seed
