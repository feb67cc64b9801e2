"""The compilation figures of ``cardrl bench`` (:mod:`bench.compile_cost`): what a first
use plays and how the report shows it. No timing assertions."""

from __future__ import annotations

import subprocess

import pytest

from bench import compile_cost


def test_first_use_times_the_import_and_each_game_s_engine_and_environment():
    seconds = compile_cost.first_use()  # in this process: whatever is compiled stays
    assert list(seconds) == ["import", "abracadabra engine", "abracadabra aec",
                             "four_aces engine", "four_aces aec"]
    assert all(value >= 0 for value in seconds.values())


def test_measure_compile_cost_runs_two_interpreters_on_one_new_cache(monkeypatch):
    calls = []

    def fake_run(argv, env, **kwargs):
        calls.append(env["NUMBA_CACHE_DIR"])
        return subprocess.CompletedProcess(argv, 0, stdout='noise\n{"import": 0.5}\n')

    monkeypatch.setattr(compile_cost.subprocess, "run", fake_run)
    cost = compile_cost.measure_compile_cost()
    assert cost == {"cold": {"import": 0.5}, "warm": {"import": 0.5}}
    assert len(calls) == 2 and calls[0] == calls[1] and "cardrl-numba-cache-" in calls[0]


def test_compile_section_adds_up_each_run():
    cost = {"cold": {"import": 0.25, "abracadabra engine": 7.5},
            "warm": {"import": 0.25, "abracadabra engine": 0.5}}
    text = "\n".join(compile_cost.compile_section(cost))
    assert "| run | import | abracadabra engine | total |" in text
    assert "| cold | 0.25 | 7.50 | 7.75 |" in text
    assert "| warm | 0.25 | 0.50 | 0.75 |" in text
    with pytest.raises(KeyError):
        compile_cost.compile_section({"cold": {}})  # both runs are needed
