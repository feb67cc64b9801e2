"""PufferLib's PettingZoo emulation and vector env (``examples/pufferlib_emulation.py``) on
every table, where pufferlib-core is installed: it pins torch==2.9.0, so it lives in an
environment of its own (docs/integrations.md, "Libraries that conflict")."""

from __future__ import annotations

import pytest

from tests.integrations.recipes import APART, requires, run_recipe

pytestmark = [requires("pufferlib", install=f"pufferlib-core pins torch==2.9.0: install it "
                                            f"apart, {APART}"),
              pytest.mark.xdist_group("integrations")]


def test_pufferlib_emulation_and_vector_env_on_every_table(tmp_path):
    out = run_recipe("pufferlib_emulation", "--game", "all", "--games", "2", "--tables", "2",
                     "--steps", "60", cwd=tmp_path)
    assert out.count("unmasked random play: 2 games") == 7
    assert out.count("2 ended by an illegal action (-1 to its player)") == 7
    assert out.count("vector env: 2 tables") == 7
