"""The integration matrix (``examples/library_matrix.py``): its ``--help``, and one small
cell (PettingZoo's testing utilities on Four Aces with 3 players) written as Markdown and
CSV, with a library that cannot be imported shown as skipped, not failed."""

from __future__ import annotations

import csv
from importlib.util import find_spec

import pytest

from tests.integrations.recipes import requires, run_recipe

pytestmark = pytest.mark.xdist_group("integrations")


def test_library_matrix_help(tmp_path):
    out = run_recipe("library_matrix", "--help", cwd=tmp_path, timeout=60)
    assert out.startswith("usage:")
    for option in ("--recipes", "--tables", "--python", "--timeout", "--out"):
        assert option in out, option
    assert "runs/library_matrix" in out  # the default folder, ignored by git


@requires("pettingzoo")
def test_library_matrix_runs_one_cell(tmp_path):
    # AgileRL's recipe under an interpreter that lacks it: skipped with the reason (where
    # this Python has AgileRL, that cell is not asked for: it would train)
    missing = find_spec("agilerl") is None
    recipes = ["pettingzoo", *(["agilerl"] if missing else [])]
    out = run_recipe("library_matrix", "--recipes", *recipes, "--tables", "four_aces-3",
                     "--timeout", "120", "--out", str(tmp_path / "matrix"), cwd=tmp_path,
                     timeout=180)
    assert "[1/" in out and "pettingzoo four_aces-3 ... pass" in out
    table = (tmp_path / "matrix" / "matrix.md").read_text()
    assert "| four_aces-3 |" in table and "pass" in table
    with open(tmp_path / "matrix" / "matrix.csv") as f:
        rows = {row["recipe"]: row for row in csv.DictReader(f)}
    assert rows["pettingzoo"]["status"] == "pass" and rows["pettingzoo"]["table"] == "four_aces-3"
    if missing:
        assert rows["agilerl"]["status"] == "skip" and "--python agilerl=PATH" in \
            rows["agilerl"]["error"]
    log = (tmp_path / "matrix" / "logs" / "pettingzoo__four_aces-3.log").read_text()
    assert "parallel_seed_test: passed" in log
