"""SuperSuit + ``turn_based_aec_to_parallel`` (``examples/supersuit_parallel.py``): reward
wrappers, the parallel API, a SuperSuit vector env."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import requires, run_recipe

pytestmark = [requires("supersuit"), pytest.mark.xdist_group("integrations")]


@pytest.mark.parametrize("game,slots", [("abracadabra", 4), ("four_aces", 6)])
def test_supersuit_parallel_and_vector_env(game, slots, tmp_path):
    out = run_recipe("supersuit_parallel", "--game", game, "--episodes", "3", "--tables", "2",
                     "--steps", "100", cwd=tmp_path)
    assert out.count("clipped returns") == 3
    assert f"vector env: {slots} slots, 100 steps" in out
