"""The Ray backend gives the local backend's results (skipped when ray is missing)."""

from __future__ import annotations

import pandas as pd
import pytest

from arena.tournament import run_tournament

pytest.importorskip("ray")


@pytest.mark.xdist_group("ray")  # one worker shares the session's Ray (tests/conftest.py)
def test_ray_backend_equals_local(local_ray, tmp_path):
    arguments = dict(
        game="abracadabra", agent_names=["random", "random", "random"], deals=9, seed=4,
        options={"variant": "three"}, progress=False, chunk_size=3,
    )  # fmt: skip
    local = run_tournament(**arguments, out_dir=tmp_path / "local")
    remote = run_tournament(**arguments, out_dir=tmp_path / "ray", backend="ray")
    pd.testing.assert_frame_equal(local.games, remote.games)
    pd.testing.assert_frame_equal(local.summary, remote.summary)
    assert (tmp_path / "local" / "games.csv").read_bytes() == (
        tmp_path / "ray" / "games.csv"
    ).read_bytes()
