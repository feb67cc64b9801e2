"""Where the limit is (copy bandwidth, bytes per step) and the entry-point rows of
``cardrl bench`` (seat view, tournament, PPO), on tiny budgets.

No timing assertions: only the counting, the arithmetic and the report's layout.
"""

from __future__ import annotations

import itertools
import json

import pytest

from bench.bandwidth import achieved_bandwidth, copy_bandwidth, step_bytes
from bench.entry_points import (
    PPOLoop,
    linear_macs,
    seat_loop,
    table_label,
    tournament_loop,
    update_flops_per_sample,
)
from bench.report import Record, render_markdown
from cli import main as cli

INFO = {"platform": "p", "cpu": "c", "cores": 2, "usable_cores": 2, "date": "d",
        "python": "3", "numpy": "2", "pettingzoo": "1", "open_spiel": "2"}


def fake_clock(tick: float):
    """A clock that advances ``tick`` seconds at every read."""
    counter = itertools.count()
    return lambda: tick * next(counter)


def test_step_bytes_by_hand():
    # Abracadabra `four`: 771 observation entries, 123 actions
    assert step_bytes(771, 123, "float32") == 771 * 4 + 123  # 3,207
    assert step_bytes(771, 123, "int8") == 771 + 123  # 894
    # Four Aces: 450 entries, 54 actions
    assert step_bytes(450, 54, "float32") == 1854
    assert achieved_bandwidth(3143, 1_000_000) == 3.143e9
    with pytest.raises(ValueError, match="observation_size=0"):
        step_bytes(0, 54, "float32")


def test_copy_bandwidth_counts_read_and_written_bytes():
    # each copy is timed by two reads of a clock that advances 0.25 s per read
    result = copy_bandwidth(1, repeats=3, clock=fake_clock(0.25))
    assert result["bytes"] == 2**20 and result["repeats"] == 3
    assert result["seconds"] == pytest.approx(0.25)
    assert result["bytes_per_s"] == pytest.approx(2 * 2**20 / 0.25)
    with pytest.raises(ValueError, match="copy size"):
        copy_bandwidth(0)
    with pytest.raises(ValueError, match="copy repeats"):
        copy_bandwidth(1, repeats=0)


def test_report_bandwidth_columns_and_training_split():
    records = [
        Record("batch", "abracadabra", "four", 1024, 1_000_000.0, 15_000.0, "float32",
               [1e6], bytes_per_step=3143),
        Record("aec", "abracadabra", "four", 1, 20_000.0, 300.0, "float32", [2e4]),
        Record("ppo", "four_aces", "four_aces_4p.yaml", 256, 5_000.0, 170.0, "float32",
               [5e3], detail={"config": "four_aces_4p.yaml", "num_games": 256,
                              "torch_threads": 1, "iterations": 2,
                              "decisions_per_iteration": 7360.0, "env_s": 0.2,
                              "features_s": 0.1, "forward_s": 0.3, "update_s": 1.4,
                              "total_s": 2.0}),
    ]
    info = dict(INFO, copy_bandwidth={"bytes": 256 * 2**20, "repeats": 5, "seconds": 0.05,
                                      "bytes_per_s": 1e10})
    text = render_markdown(records, [], info, "cardrl bench", [], None)
    assert "Copy bandwidth: 10.00 GB/s (`np.copyto` of a 256 MiB array" in text
    # 3,143 bytes × 1e6 steps/s = 3.143 GB/s, 31.4% of 10 GB/s
    assert "| 3,143 | 3.14 (31.4%) |" in text
    assert "| aec | abracadabra | four | 1 | float32 | 20,000 |" in text
    assert text.count("| — | — |") >= 2  # aec and ppo rows: no bytes/step
    assert "## Training throughput (batch PPO)" in text
    assert ("| four_aces_4p.yaml | 256 | 1 | 5,000 | 7,360 | 2.00 | 0.20 s (10%) "
            "| 0.10 s (5%) | 0.30 s (15%) | 1.40 s (70%) | — | — | — | — | — |") in text
    records[2].detail.update(update_flops=41.26e9, matmul_flops=90.04e9, update_profile={
        "matmul": 0.65, "activation": 0.1, "optimizer": 0.05, "other": 0.2})
    text = render_markdown(records, [], info, "cardrl bench", [], None)
    # matmul bound: 2.0 s / (2.0 s − 1.4 s × 0.35) = 1.32×;
    # ceiling: 2.0 s / (0.6 s + 1.4 s × 41.26 / 90.04) = 1.61×
    assert "| 1.40 s (70%) | 41.3 | 90.0 | 65% / 10% / 5% / 20% | 1.32× | 1.61× |" in text


def test_linear_macs_counts_the_weights_of_linear_layers():
    torch = pytest.importorskip("torch")
    net = torch.nn.Sequential(torch.nn.Linear(10, 4), torch.nn.ReLU(), torch.nn.Linear(4, 3))
    assert linear_macs(net) == 10 * 4 + 4 * 3


def test_seat_loop_counts_learner_steps():
    steps, deals, elapsed = seat_loop("four_aces", {"num_players": 3})(0.0)
    assert (steps, deals) == (1, 0) and elapsed >= 0  # one learner step, then time is up
    steps, deals, _ = seat_loop("abracadabra", {"variant": "four"}, seed=3)(0.3)
    assert steps > 0 and deals >= 0


def test_tournament_loop_counts_games_and_decisions():
    assert table_label("abracadabra") == "four" and table_label("four_aces") == "4p"
    steps, games, _ = tournament_loop("abracadabra", deals=1)(0.0)
    # one dealt key, played in each of the 4 seat rotations
    assert games == 4
    # every Abracadabra `four` deal has at least 4 bids and 13 tricks of 4 cards (C1)
    assert steps >= 4 * (4 + 13 * 4)
    with pytest.raises(ValueError, match="tournament deals 0"):
        tournament_loop("four_aces", deals=0)


def test_ppo_loop_split_adds_up():
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    loop = PPOLoop("configs/four_aces_4p.yaml", seed=0, num_games=4)
    warm = loop(0.0)
    decisions, episodes, elapsed = loop(0.0)
    assert torch.get_num_threads() == threads  # restored after each iteration
    assert warm[0] > 0 and decisions > 0 and episodes == 4 and elapsed > 0
    detail = loop.detail()
    assert detail["iterations"] == 1  # the warm-up call is left out
    assert detail["decisions_per_iteration"] == decisions
    assert detail["num_games"] == 4 and detail["torch_threads"] == 1
    parts = sum(detail[k] for k in ("env_s", "features_s", "forward_s", "update_s"))
    assert parts == pytest.approx(detail["total_s"])
    assert min(detail[k] for k in ("env_s", "forward_s", "update_s")) > 0
    # every epoch passes each decision once through the net (no target_kl in the config)
    samples = decisions * loop.cfg.ppo.update_epochs
    assert loop.cfg.ppo.target_kl is None
    # 6 FLOPs a weight, 4 in the two layers reading the input (no input gradient)
    first = loop.net.actor[0].weight.numel() + loop.net.critic[0].weight.numel()
    assert update_flops_per_sample(loop.net) == 6 * linear_macs(loop.net) - 2 * first
    assert detail["update_flops"] == pytest.approx(
        update_flops_per_sample(loop.net) * samples / detail["update_s"])
    assert detail["matmul_flops"] > 0
    shares = detail["update_profile"]
    assert set(shares) == {"matmul", "activation", "optimizer", "other"}
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares["matmul"] > 0 and shares["optimizer"] > 0  # both found by their names
    with pytest.raises(ValueError, match="torch threads 0"):
        PPOLoop("configs/four_aces_4p.yaml", num_games=4, threads=0)


def test_bench_entry_points_end_to_end(tmp_path):
    pytest.importorskip("torch")
    out, json_path = tmp_path / "bench.md", tmp_path / "bench.json"
    argv = ["bench", "--game", "four_aces", "--seconds", "0.01", "--repeats", "1",
            "--batch", "2", "--obs", "int8", "--no-openspiel", "--no-memory", "--no-compile-cost",
            "--copy-mib", "1", "--entry-points", "--tournament-deals", "1",
            "--ppo-games", "4", "--out", str(out), "--json", str(json_path)]
    assert cli.main(argv) == 0
    records = json.loads(json_path.read_text())
    tournament = [r for r in records if r["engine"] == "tournament"]
    ppo = [r for r in records if r["engine"] == "ppo"]
    assert [(r["game"], r["variant"]) for r in tournament] == [("four_aces", "4p")]
    assert [(r["variant"], r["batch"]) for r in ppo] == [("four_aces_4p.yaml", 4)]
    assert ppo[0]["detail"]["config"] == "four_aces_4p.yaml"
    text = out.read_text()
    assert "--entry-points --tournament-deals 1 --ppo-games 4" in text
    assert "## Training throughput (batch PPO)" in text
    assert "| tournament | four_aces | 4p |" in text
