"""The single-file masked PPO of ``examples/cleanrl_ppo.py`` (PettingZoo's CleanRL tutorial
with our env swapped in; it needs only torch): one tiny update on each of the seven
tables."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import requires, run_recipe

pytestmark = [requires("torch"), pytest.mark.xdist_group("integrations")]


def test_cleanrl_ppo_trains_on_every_table(tmp_path):
    out = run_recipe("cleanrl_ppo", "--game", "all", "--updates", "1", "--episodes", "1",
                     "--epochs", "1", "--eval-episodes", "1", cwd=tmp_path)
    for table in ("abracadabra variant=four", "abracadabra variant=three",
                  "abracadabra variant=two_dummy", "abracadabra variant=two",
                  "four_aces num_players=3", "four_aces num_players=4",
                  "four_aces num_players=5"):
        assert f"{table}: update 0: " in out and f"{table}: trained " in out, table
        assert f"{table}: policy in player_0 " in out, table
