"""Every recipe answers ``--help`` (its options and what it runs)."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import requires, run_recipe

RECIPES = [
    pytest.param("tianshou_dqn", marks=requires("tianshou")),
    pytest.param("torchrl_rollout", marks=requires("torchrl", "tensordict")),
    pytest.param("rllib_ppo", marks=requires("ray", "tree")),
    pytest.param("supersuit_parallel", marks=requires("supersuit")),
    pytest.param("sb3_maskable_ppo", marks=requires("sb3_contrib")),
]

pytestmark = pytest.mark.xdist_group("integrations")


@pytest.mark.parametrize("name", RECIPES)
def test_recipe_help(name, tmp_path):
    out = run_recipe(name, "--help", cwd=tmp_path, timeout=120)
    assert out.startswith("usage:") and "--game" in out and "--seed" in out
