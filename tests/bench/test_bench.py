"""`cardrl bench` runs end to end on a tiny budget and writes its report.

No timing assertions: performance is checked by the benchmark itself, not by tests.
"""

from __future__ import annotations

import json

import pytest

from bench import engines, loops, openspiel
from bench.loops import SPLIT_PARTS, VARIANTS, batch_time_split, make_batch_engine, measure
from bench.report import Record, render_markdown
from cli import main as cli

RECORD_KEYS = {"engine", "game", "variant", "batch", "steps_per_s", "games_per_s", "obs",
               "bytes_per_step", "detail", "paired"}
ENGINES = {"batch", "aec", "vecenv", "seat", *openspiel.OPENSPIEL_MODES}
SPLIT_KEYS = {f"{part}_ns" for part in (*SPLIT_PARTS, "other", "fill")}


def test_bench_writes_table_json_and_plot(tmp_path, monkeypatch):
    # the compilation figures' subprocesses are bench.compile_cost's test
    cost = {run: {"import": 0.25, "abracadabra engine": seconds} for run, seconds in
            (("cold", 7.5), ("warm", 0.5))}
    monkeypatch.setattr(engines, "measure_compile_cost", lambda: cost)
    out, json_path = tmp_path / "bench.md", tmp_path / "bench.json"
    argv = ["bench", "--seconds", "0.05", "--repeats", "1", "--batch", "1,8"]
    argv += ["--out", str(out), "--json", str(json_path), "--memory-batch", "8"]
    argv += ["--copy-mib", "1"]
    assert cli.main(argv) == 0

    records = json.loads(json_path.read_text())
    assert all(set(r) == RECORD_KEYS and r["engine"] in ENGINES for r in records)
    ours = {(r["engine"], r["game"], r["variant"], r["batch"], r["obs"]) for r in records}
    for game, variant in VARIANTS:
        for obs in ("float32", "int8"):  # both observation dtypes by default
            assert {("batch", game, variant, 1, obs), ("batch", game, variant, 8, obs)} <= ours
        assert ("aec", game, variant, 1, "float32") in ours
        assert ("seat", game, variant, 1, "float32") in ours  # the training seat view
    assert all(r["steps_per_s"] > 0 and r["games_per_s"] >= 0 for r in records)
    assert not {"tournament", "ppo"} & {r["engine"] for r in records}  # --entry-points only
    for r in records:  # bytes/step: observation row + bool mask row, batch rows only
        if r["engine"] == "batch":
            engine = make_batch_engine(r["game"], r["variant"], 1)
            itemsize = {"float32": 4, "int8": 1}[r["obs"]]
            assert r["bytes_per_step"] == engine.observation_size * itemsize + engine.num_actions
        else:
            assert r["bytes_per_step"] is None
    for r in records:  # where the time goes: batch rows at the smallest and largest batch
        if r["engine"] == "batch":
            assert set(r["detail"]) == SPLIT_KEYS
            assert all(v >= 0 for v in r["detail"].values())

    text = out.read_text()
    assert "| engine | game | variant | batch | obs | agent-steps/s | deals/s" in text
    assert "| bytes/step | GB/s (share of copy bandwidth) |" in text
    assert "Copy bandwidth: " in text and "`np.copyto` of a 1 MiB array" in text
    assert "--copy-mib 1" in text
    assert "int8 observations, best at batch" not in text  # no batch >= 1024 here
    assert "Command: `cardrl bench --game all --batch 1,8" in text
    assert "## Memory" in text and "state bytes/game" in text
    assert "## Where a batch step's time goes" in text
    assert "| cold | 0.25 | 7.50 | 7.75 |" in text and "| warm | 0.25 | 0.50 | 0.75 |" in text
    assert "| game | variant | batch | obs | observe | mask | sample | step | reset" in text
    assert (tmp_path / "bench.png").stat().st_size > 0
    if openspiel.available():
        assert {r["engine"] for r in records} >= set(openspiel.OPENSPIEL_MODES)
        assert "× OS bare" in text
        assert all(set(r["paired"]) == set(openspiel.OPENSPIEL_MODES) for r in records)
        assert all(ratio > 0 for r in records for ratio in r["paired"].values())


def test_the_time_split_times_every_call_of_the_loop(monkeypatch):
    """Each part of the split is the time of its own call: on a fake clock that moves only
    during ``step``, 2 ms per batch step of 4 live games, ``step`` takes 0.5 ms per
    agent-step and every other part nothing."""
    engine = make_batch_engine("four_aces", "3p", 4)
    step = engine.step
    clock = [0.0]

    def slow_step(actions):
        clock[0] += 0.002
        return step(actions)

    monkeypatch.setattr(engine, "step", slow_step)
    monkeypatch.setattr(loops.time, "perf_counter", lambda: clock[0])
    split = batch_time_split(engine, seconds=0.02, repeats=3)
    assert set(split) == SPLIT_KEYS
    assert split["step_ns"] == pytest.approx(0.5e6)  # finished games are reset before a step
    assert all(split[k] == 0 for k in SPLIT_KEYS - {"step_ns"})


def test_bench_one_game_without_openspiel(tmp_path):
    out, json_path = tmp_path / "four_aces.md", tmp_path / "four_aces.json"
    argv = ["bench", "--game", "four_aces", "--seconds", "0.02", "--repeats", "2"]
    argv += ["--batch", "4", "--out", str(out), "--no-openspiel", "--no-memory"]
    argv += ["--no-compile-cost"]
    argv += ["--obs", "int8", "--json", str(json_path)]
    assert cli.main(argv) == 0
    text = out.read_text()
    assert "four_aces" in text and "abracadabra" not in text
    assert "OpenSpiel rows skipped (--no-openspiel)" in text
    assert "--obs int8" in text and "--no-compile-cost" in text
    assert "## Compilation" not in text
    batch_rows = [r for r in json.loads(json_path.read_text()) if r["engine"] == "batch"]
    assert batch_rows and all(r["obs"] == "int8" for r in batch_rows)


def test_bench_help_and_bad_batch(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--help"])
    assert exit_info.value.code == 0
    assert "--seconds" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--batch", "1,x"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["bench", "--obs", "float16"])
    assert exit_info.value.code == 2


#: OpenSpiel's three rows of a run: 300 steps/s bare, 100 with information_state_tensor(),
#: 200 with the preallocated observer
OPENSPIEL_RECORDS = [
    Record("openspiel_bare", "oh_hell", "players=4", 1, 300.0, 6.0, "none", [300.0]),
    Record("openspiel_obs", "oh_hell", "players=4", 1, 100.0, 2.0, "list", [100.0]),
    Record("openspiel_observer", "oh_hell", "players=4", 1, 200.0, 4.0, "float32", [200.0]),
]
REPORT_INFO = {"platform": "p", "cpu": "c", "cores": 2, "usable_cores": 2, "date": "d",
               "python": "3", "numpy": "2", "pettingzoo": "1", "open_spiel": "2"}


def test_report_targets_per_observation_dtype():
    R = Record
    records = [
        R("batch", "four_aces", "3p", 1024, 900.0, 30.0, "float32", [900.0]),
        R("batch", "four_aces", "3p", 1024, 1200.0, 40.0, "int8", [1200.0]),
        R("aec", "four_aces", "3p", 1, 110.0, 3.0, "float32", [110.0]),
    ]
    text = render_markdown(records + OPENSPIEL_RECORDS, [], REPORT_INFO, "cardrl bench", [],
                           None)
    assert ("`3p` batch engine, float32 observations, best at batch ≥ 1024: 3.0× OpenSpiel "
            "bare (batch 1024); target ≥ 8×: NOT met") in text
    assert ("`3p` batch engine, int8 observations, best at batch ≥ 1024: 4.0× OpenSpiel "
            "bare (batch 1024); target ≥ 12×: NOT met") in text
    assert "`3p` AEC: 1.10× OpenSpiel obs (target ≥ 3×: NOT met)" in text
    assert "| batch | four_aces | 3p | 1024 | int8 | 1,200 |" in text


def test_report_says_met_at_the_goals_of_the_throughput_issue():
    """The goals of #17: 12×/20× (Abracadabra float32/int8) and 8×/12× (Four Aces) bare,
    AEC 3× OpenSpiel obs, the batch-1 step 0.5× its preallocated observer."""
    R = Record
    records = [
        R("batch", "abracadabra", "four", 1, 100.0, 2.0, "float32", [100.0]),
        R("batch", "abracadabra", "four", 8192, 3600.0, 60.0, "float32", [3600.0]),
        R("batch", "abracadabra", "four", 8192, 5900.0, 90.0, "int8", [5900.0]),
        R("batch", "four_aces", "3p", 8192, 2400.0, 60.0, "float32", [2400.0]),
        R("batch", "four_aces", "3p", 8192, 3600.0, 90.0, "int8", [3600.0]),
        R("aec", "four_aces", "3p", 1, 300.0, 3.0, "float32", [300.0]),
    ]
    text = render_markdown(records + OPENSPIEL_RECORDS, [], REPORT_INFO, "cardrl bench", [],
                           None)
    assert "abracadabra `four` batch engine, float32 observations" in text
    assert "12.0× OpenSpiel bare (batch 8192); target ≥ 12×: met" in text
    assert "19.7× OpenSpiel bare (batch 8192); target ≥ 20×: NOT met" in text
    assert "8.0× OpenSpiel bare (batch 8192); target ≥ 8×: met" in text
    assert "12.0× OpenSpiel bare (batch 8192); target ≥ 12×: met" in text
    assert "`3p` AEC: 3.00× OpenSpiel obs (target ≥ 3×: met)" in text
    assert ("abracadabra `four` single-game step (batch engine, batch 1, float32): 0.50× "
            "OpenSpiel's preallocated observer (target ≥ 0.5×: met)") in text
    assert text.count("NOT met") == 1  # only the int8 row just under 20×


def test_each_timed_run_follows_a_run_of_every_reference():
    """measure pairs every timed run (not the warm-up) with a run of each reference just
    before it; the paired ratio of a row is its rate over theirs at that moment."""
    calls = []

    def fake(name, rate):
        def run(seconds):
            calls.append(name)
            return int(rate * seconds), 0, seconds
        return run

    rows = [fake("ours", 1000.0), fake("slow", 10.0)]
    refs = [fake("ref_a", 100.0), fake("ref_b", 60.0)]
    results = measure(rows, 0.5, 2, ["ours", "slow"], refs)  # references: 0.15 s
    # pass 1: warm-up then refs + timed run, per row; pass 2: refs + timed run, per row
    assert calls == ["ours", "ref_a", "ref_b", "ours", "slow", "ref_a", "ref_b", "slow",
                     "ref_a", "ref_b", "ours", "ref_a", "ref_b", "slow"]
    (ours_rates, _, ours_pairs), (_, _, slow_pairs) = results
    assert ours_rates == [1000.0, 1000.0]
    assert ours_pairs == [[100.0, 60.0], [100.0, 60.0]] == slow_pairs


def test_report_ratios_are_the_paired_ones_where_measured():
    """A row measured while the machine ran at half speed: its paired ratios hold, the
    ratio of medians would halve it."""
    row = Record("batch", "four_aces", "3p", 8192, 1200.0, 40.0, "int8", [1200.0])
    row.paired = {"openspiel_bare": 13.0, "openspiel_obs": 24.0, "openspiel_observer": 7.0}
    text = render_markdown([row, *OPENSPIEL_RECORDS], [], REPORT_INFO, "cardrl bench", [],
                           None)
    assert "| 1,200 | 40.0 | — | 13.00× | 24.00× | 7.00× |" in text
    assert "13.0× OpenSpiel bare (batch 8192); target ≥ 12×: met" in text
    assert "They are paired" in text


@pytest.mark.parametrize("game, variant, batch", [("four_aces", "3p", 1), ("four_aces", "5p", 7),
                                                  ("abracadabra", "four", 3)])
def test_the_batch_loop_counts_each_live_game_once_a_step(game, variant, batch):
    """The loop's agent-steps are the live games of every step it played, its deals the
    deals that ended (counted by the engine's own step here), and it stops at a game's end
    once its clock has run the time (a clock that ticks once a read)."""
    engine = make_batch_engine(game, variant, batch)
    live, ended = [], []
    step = engine.step

    def counted_step(actions, active=None):
        live.append(batch - int(engine.game_over.sum()))
        rewards = step(actions, active)
        ended.append(int(engine.deal_over.sum()))
        return rewards

    engine.step = counted_step
    ticks = iter(range(10**6))
    run = loops.batch_loop(engine, seed=3, clock=lambda: float(next(ticks)))
    steps, deals, elapsed = run(4.0)
    assert elapsed >= 4.0 and deals >= 4
    assert (steps, deals) == (sum(live), sum(ended))
    assert min(live) == batch  # every game is live at every step: ended ones are reset


def test_the_split_table_sets_the_goal_budget_beside_the_total_at_the_observe_floor():
    """Abracadabra float32 at 1024 games, 3,600 steps/s against OpenSpiel bare's 300: the
    12× goal allows 1e9 / 3,600 ns; with observe at its floor (fill) the step takes
    total - observe + fill."""
    row = Record("batch", "abracadabra", "four", 1024, 3600.0, 60.0, "float32", [3600.0])
    row.detail = {"observe_ns": 150.0, "mask_ns": 20.0, "sample_ns": 40.0, "step_ns": 70.0,
                  "reset_ns": 30.0, "other_ns": 5.0, "fill_ns": 100.0}
    text = render_markdown([row, *OPENSPIEL_RECORDS], [], REPORT_INFO, "cardrl bench", [],
                           None)
    assert "| observe floor | total at the floor |" in text
    # total 315; budget 1e9 / 3,600 = 277,778 ns (12× of 300 steps/s is 3,600); floor
    # total 315 - 150 + 100 = 265
    assert ("| abracadabra | four | 1024 | float32 | 150 | 20.0 | 40.0 | 70.0 | 30.0 | 5.0 "
            "| 315 | 277,778 | 277,778 | — | 100 | 265 |") in text
