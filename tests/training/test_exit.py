"""Expert iteration (training/exit.py) and the network-guided search it trains with, on
tiny budgets: one generation writes its record, network and curve; a run killed midway
(in a generation's search or between generations) resumes to the same records and the
same network; the Ray backend plays the same records as the local one; the policy
rollout plays as stepping the policy agent game by game."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

import agents
from agents.policy.checkpoint import load_checkpoint
from agents.search.rollouts import make_rollout, play_out
from envs.registry import make_engine
from training import distill
from training.config import config_from_dict
from training.distill import TeacherData, generate
from training.exit import generation_dir
from training.resume import Interrupted
from training.train import train

FOUR = {"variant": "four"}


def exit_config(generations: int = 1, **exit_fields) -> dict:
    """An Abracadabra ``four`` expert iteration from the committed policy, PIMC with one
    world and the network's rollouts, two deals a generation."""
    return {
        "game": "abracadabra", "options": {**FOUR, "reward": "points"}, "algo": "exit",
        "init": "policy", "ppo": {"features": "abracadabra_cards"},
        "eval": {"deals": 1, "baselines": ["heuristic"]},
        "distill": {"teacher_kwargs": {"worlds": 1, "rollout": "policy"}, "deals": 2,
                    "num_games": 1, "epochs": 1, "holdout": 0.0, "fallback": "heuristic",
                    "margin": 1.0},
        "exit": {"generations": generations, "search_eval_deals": 1, **exit_fields},
    }  # fmt: skip


def weights(path) -> dict[str, torch.Tensor]:
    return load_checkpoint(path)["state_dict"]


def assert_same_weights(a, b) -> None:
    wa, wb = weights(a), weights(b)
    assert wa.keys() == wb.keys()
    for key in wa:
        torch.testing.assert_close(wa[key], wb[key], rtol=0, atol=0)


@pytest.fixture(scope="module")
def two_generations(tmp_path_factory):
    """A run of two generations, never stopped: the reference of the resume tests."""
    run_dir = tmp_path_factory.mktemp("exit") / "run"
    summary = train(config_from_dict(exit_config(2)), run_dir, progress=False)
    return run_dir, summary


def test_a_generation_writes_its_record_network_and_curve(two_generations):
    run_dir, summary = two_generations
    rows = pd.read_csv(run_dir / "exit.csv")
    assert list(rows["generation"]) == [0, 1]
    assert (rows["labels"] > 0).all() and (rows["labels_per_second"] > 0).all()
    # both the network and the search were scored against the heuristic
    assert rows[["policy_diff", "search_diff"]].notna().all().all()
    assert (rows["wall_seconds"].diff().dropna() > 0).all()
    assert summary["steps"] == rows["labels"].sum()
    for g in (0, 1):
        record = TeacherData.load(generation_dir(run_dir, g) / "teacher.npz")
        assert len(record) == rows["labels"][g] and record.values is not None
        assert not (generation_dir(run_dir, g) / "parts").exists()
    assert (run_dir / "exit_curve.png").stat().st_size > 0
    assert_same_weights(run_dir / "policy.pt", generation_dir(run_dir, 1) / "policy.pt")


def test_the_generations_search_with_the_network_before_them(two_generations, monkeypatch):
    """Generation 1's teacher rolls out with generation 0's network."""
    run_dir, _ = two_generations
    seen = []
    real = distill.generate

    def spy(*args, **kwargs):
        seen.append(args[4] if len(args) > 4 else kwargs["teacher_kwargs"])
        raise KeyboardInterrupt

    monkeypatch.setattr(distill, "generate", spy)
    cfg = config_from_dict(exit_config(3))
    with pytest.raises(Interrupted):
        train(cfg, run_dir, resume=True, progress=False)
    monkeypatch.setattr(distill, "generate", real)
    network = seen[0]["checkpoint"]
    gen1 = weights(generation_dir(run_dir, 1) / "policy.pt")
    for key, value in gen1.items():
        torch.testing.assert_close(network["state_dict"][key], value, rtol=0, atol=0)
    assert seen[0]["rollout"] == "policy" and seen[0]["worlds"] == 1


def test_a_run_stopped_between_generations_resumes_to_the_same_network(two_generations,
                                                                       tmp_path):
    run_dir, _ = two_generations
    first = tmp_path / "run"
    # without the search's evaluation, which changes neither the records nor the network
    train(config_from_dict(exit_config(1, search_eval_deals=0)), first, progress=False)
    with pytest.raises(ValueError, match="another config"):
        train(config_from_dict(exit_config(2, window=3, search_eval_deals=0)), first,
              resume=True, progress=False)
    train(config_from_dict(exit_config(2, search_eval_deals=0)), first, resume=True,
          progress=False)
    for g in (0, 1):
        assert (generation_dir(first, g) / "teacher.npz").read_bytes() == (
            generation_dir(run_dir, g) / "teacher.npz").read_bytes()
    assert_same_weights(first / "policy.pt", run_dir / "policy.pt")
    assert list(pd.read_csv(first / "exit.csv")["generation"]) == [0, 1]


def test_a_generation_killed_in_its_search_resumes_to_the_same_record(tmp_path, monkeypatch):
    """Kill after the first of two batches: the resumed search plays only the second."""
    arguments = dict(game="abracadabra", options=FOUR, deals=2, teacher="pimc",
                     teacher_kwargs={"worlds": 1}, num_games=1, seed=5, progress=False)
    whole = generate(**arguments)
    real, played = distill._play_batch, []

    def dies_on_the_second(*args, **kwargs):
        if len(played) == 1:
            raise KeyboardInterrupt
        played.append(args[3])
        return real(*args, **kwargs)

    monkeypatch.setattr(distill, "_play_batch", dies_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        generate(**arguments, parts_dir=tmp_path / "parts")
    assert sorted(p.name for p in (tmp_path / "parts").iterdir()) == ["part_00000.npz"]
    monkeypatch.setattr(distill, "_play_batch", lambda *a, **k: (played.append(a[3]),
                                                                 real(*a, **k))[1])
    resumed = generate(**arguments, parts_dir=tmp_path / "parts")
    assert played == [0, 1]  # batch 0 once, before the kill; batch 1 after it
    for name in ("observations", "masks", "actions", "values", "rewards", "next", "keys"):
        np.testing.assert_array_equal(getattr(whole, name), getattr(resumed, name))


def test_parts_of_another_generation_are_refused(tmp_path):
    arguments = dict(game="abracadabra", options=FOUR, deals=1, teacher="heuristic",
                     num_games=1, progress=False, parts_dir=tmp_path)
    generate(**arguments, seed=1)
    with pytest.raises(ValueError, match="other episodes"):
        generate(**arguments, seed=2)


def test_records_are_the_same_bytes_for_the_same_seed(tmp_path):
    """Two plays of the same seed save the same bytes once their play time (the one field
    that is measured, not played) is the same."""
    arguments = dict(game="abracadabra", options=FOUR, deals=2, teacher="pimc",
                     teacher_kwargs={"worlds": 1}, num_games=1, seed=9, progress=False)
    for name in ("a", "b"):
        record = generate(**arguments)
        record.seconds = 0.0
        record.save(tmp_path / f"{name}.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


@pytest.mark.xdist_group("ray")  # one worker shares the session's Ray (tests/conftest.py)
def test_the_ray_backend_plays_the_same_record(local_ray, tmp_path):
    """Two batches as two Ray tasks (a seeded random teacher: the backend is what is
    tested; the search's determinism is the other tests')."""
    arguments = dict(game="abracadabra", options={"variant": "two"}, deals=2,
                     teacher="random", num_games=1, seed=9, progress=False)
    local = generate(**arguments)
    remote = generate(**arguments, backend="ray")
    local.seconds = remote.seconds = 0.0
    local.save(tmp_path / "local.npz")
    remote.save(tmp_path / "ray.npz")
    assert (tmp_path / "local.npz").read_bytes() == (tmp_path / "ray.npz").read_bytes()


def test_policy_rollouts_play_as_the_policy_agent_game_by_game():
    """The batched network rollout of every world ends each deal with the points that
    stepping ``agents.make("policy")`` on each world alone gives."""
    engine = make_engine("abracadabra", 3, **FOUR)
    engine.reset(seed=11)
    seats = engine.current_player.astype(np.int64)
    worlds = engine.resample_many(np.arange(3), seats, 2, np.arange(3, dtype=np.int64))
    batched = play_out(worlds.clone(np.arange(6)), make_rollout("abracadabra", "policy"))
    agent = agents.make("policy", "abracadabra")
    for row in range(6):
        world = worlds.clone(np.array([row]))
        while not (world.deal_over[0] or world.game_over[0]):
            action = agent.act(world.observe()[0], world.legal_action_mask()[0])
            world.step(np.array([action], np.int64))
        np.testing.assert_array_equal(batched[row], world.last_points[0])


def test_the_guided_search_is_a_named_agent_and_refuses_a_network_without_its_rollout():
    guided = agents.make("pimc_policy", "abracadabra", worlds=1, seed=0)
    assert guided.rollout_name == "policy" and guided.needs_engine
    assert "pimc_policy" in agents.available("four_aces")
    with pytest.raises(ValueError, match="rollout='policy'"):
        agents.make("pimc", "abracadabra", rollout="heuristic", path="x.pt")


def test_algo_exit_needs_its_sections():
    broken = exit_config()
    del broken["exit"]
    with pytest.raises(ValueError, match="algo: exit needs exit"):
        config_from_dict(broken)
    with pytest.raises(ValueError, match="exit.backend"):
        config_from_dict(exit_config(backend="spark"))
    stray = exit_config()
    stray["algo"] = "batch_ppo"
    with pytest.raises(ValueError, match="the section of algo: exit"):
        config_from_dict(stray)


def test_records_are_deflated(tmp_path):
    """A record's int8 observations compress: the file is much smaller than its arrays."""
    import zipfile

    record = generate("abracadabra", FOUR, 2, "heuristic", num_games=2, seed=1,
                      progress=False)
    record.save(tmp_path / "r.npz")
    with zipfile.ZipFile(tmp_path / "r.npz") as archive:
        assert {i.compress_type for i in archive.infolist()} == {zipfile.ZIP_DEFLATED}
    assert (tmp_path / "r.npz").stat().st_size < record.observations.nbytes / 4
