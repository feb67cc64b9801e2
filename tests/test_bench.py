"""`cardrl bench` runs end to end on a tiny budget and writes its report.

No timing assertions: performance is checked by the benchmark itself, not by tests.
"""

from __future__ import annotations

import json

import pytest

from training import bench, cli

RECORD_KEYS = {"engine", "game", "variant", "batch", "steps_per_s", "games_per_s"}
ENGINES = {"batch", "aec", "vecenv", *bench.OPENSPIEL_MODES}


def test_bench_writes_table_json_and_plot(tmp_path):
    out, json_path = tmp_path / "bench.md", tmp_path / "bench.json"
    argv = ["bench", "--seconds", "0.05", "--repeats", "1", "--batch", "1,8"]
    argv += ["--out", str(out), "--json", str(json_path), "--memory-batch", "8"]
    assert cli.main(argv) == 0

    records = json.loads(json_path.read_text())
    assert all(set(r) == RECORD_KEYS and r["engine"] in ENGINES for r in records)
    ours = {(r["engine"], r["game"], r["variant"], r["batch"]) for r in records}
    for game, variant in bench.VARIANTS:
        assert {("batch", game, variant, 1), ("batch", game, variant, 8)} <= ours
        assert ("aec", game, variant, 1) in ours
    assert all(r["steps_per_s"] > 0 and r["games_per_s"] >= 0 for r in records)

    text = out.read_text()
    assert "| engine | game | variant | batch | agent-steps/s | deals/s" in text
    assert "Command: `cardrl bench --game all --batch 1,8" in text
    assert "## Memory" in text and "state bytes/game" in text
    assert (tmp_path / "bench.png").stat().st_size > 0
    if bench.importlib.util.find_spec("pyspiel") is not None:
        assert {r["engine"] for r in records} >= set(bench.OPENSPIEL_MODES)
        assert "× OS bare" in text


def test_bench_one_game_without_openspiel(tmp_path):
    out = tmp_path / "four_aces.md"
    argv = ["bench", "--game", "four_aces", "--seconds", "0.02", "--repeats", "2"]
    argv += ["--batch", "4", "--out", str(out), "--no-openspiel", "--no-memory"]
    assert cli.main(argv) == 0
    text = out.read_text()
    assert "four_aces" in text and "abracadabra" not in text
    assert "OpenSpiel rows skipped (--no-openspiel)" in text


def test_bench_help_and_bad_batch(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--help"])
    assert exit_info.value.code == 0
    assert "--seconds" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--batch", "1,x"])
    assert exit_info.value.code == 2
