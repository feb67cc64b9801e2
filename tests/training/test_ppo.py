"""Training runs with tiny budgets (seconds): every config, both algorithms, resume, the
checkpoint format and ``agents.make("policy", ...)``."""

from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

import agents
from agents.policy import agent as policy_mod
from agents.policy.agent import PolicyAgent
from agents.policy.checkpoint import load_checkpoint, make_checkpoint, save_checkpoint
from agents.policy.net import PolicyNet
from envs.registry import make_engine
from tests.helpers.policy_checks import assert_same_legal_actions
from training.config import (
    config_from_dict,
    load_config,
    merge_overrides,
)
from training.train import train

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"
CONFIGS = sorted(glob.glob(str(CONFIG_DIR / "*.yaml")))
#: a config whose network makes every decision from the raw observation (what sb3 trains)
FULL_PLAY = str(CONFIG_DIR / "abracadabra_four_full.yaml")


def tiny(cfg, steps: int = 300):
    """The config on a budget of seconds."""
    cfg.total_steps = steps
    cfg.max_minutes = None
    cfg.num_games = 8
    cfg.snapshot_interval = 100
    cfg.checkpoint_interval = 100
    cfg.ppo.minibatch_size = 128
    cfg.ppo.n_steps = 8
    if cfg.init is None:  # a run from a checkpoint keeps its network
        cfg.ppo.hidden = [32]
    cfg.eval.deals = 3
    cfg.eval.interval = 0
    cfg.eval.baselines = ["random"]
    if cfg.distill is not None:  # the teacher plays two deals (a search: with one world)
        cfg.distill.deals = cfg.distill.num_games = cfg.distill.workers = 2
        cfg.distill.epochs = 1
        if cfg.distill.teacher == "pimc":
            cfg.distill.teacher_kwargs = {**cfg.distill.teacher_kwargs, "worlds": 1}
    if cfg.exit is not None:  # one generation, in this process, the network scored alone
        cfg.exit.generations = 1
        cfg.exit.search_eval_deals = 0
        cfg.distill.workers = 1
    return cfg


def test_overrides_are_merged_before_validation(tmp_path):
    assert merge_overrides({"seed": 1, "ppo": {"gamma": 0.9}},
                           {"seed": None, "algo": "sb3", "ppo.hidden": [8]}) == {
        "seed": 1, "algo": "sb3", "ppo": {"gamma": 0.9, "hidden": [8]}}
    delegating = CONFIG_DIR / "abracadabra_four.yaml"
    assert load_config(delegating, {"total_steps": 7}).total_steps == 7
    with pytest.raises(ValueError, match="ppo.delegate needs algo: batch_ppo"):
        load_config(delegating, {"algo": "sb3"})
    with pytest.raises(ValueError, match=r"with total_steps=0: total_steps: found 0 "):
        load_config(delegating, {"total_steps": 0})


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: Path(p).stem)
def test_smoke_train_every_config(path, tmp_path):
    cfg = tiny(load_config(path))
    summary = train(cfg, tmp_path / "run", progress=False)
    run = tmp_path / "run"
    if cfg.algo == "exit":  # expert iteration: one generation (tests/training/test_exit.py)
        assert summary["steps"] > 0
        for name in ("policy.pt", "exit.csv", "exit_curve.png", "config.yaml"):
            assert (run / name).exists(), name
        assert pd.read_csv(run / "exit.csv")["policy_diff"].notna().all()
    else:
        assert summary["steps"] >= 300
        for name in ("policy.pt", "train_state.pt", "eval.csv", "baselines.json",
                     "learning_curve.png", "config.yaml"):
            assert (run / name).exists(), name
        assert list((run / "tb").iterdir())
        evals = pd.read_csv(run / "eval.csv")
        assert {"steps", "points", "diff", "diff_low", "diff_high"} <= set(evals.columns)
    agent = agents.make("policy", cfg.game, path=run / "policy.pt")
    engine = make_engine(cfg.game, 4, **cfg.options)
    engine.reset(seed=0)
    masks = engine.legal_action_mask()
    actions = agent.act_batch(engine.observe(), masks)
    assert masks[np.arange(4), actions].all()


def test_smoke_train_sb3(tmp_path):
    cfg = tiny(load_config(FULL_PLAY))
    cfg.algo = "sb3"
    summary = train(cfg, tmp_path / "run", progress=False)
    assert summary["steps"] >= 300
    assert (tmp_path / "run" / "sb3_model.zip").exists()
    checkpoint = load_checkpoint(tmp_path / "run" / "policy.pt")
    assert checkpoint["algo"] == "sb3"
    # the SB3 zip converts to the same network as policy.pt
    from_zip = PolicyAgent(cfg.game, path=tmp_path / "run" / "sb3_model.zip", trust_pickle=True)
    from_pt = PolicyAgent(cfg.game, path=tmp_path / "run" / "policy.pt")
    engine = make_engine(cfg.game, 16, **cfg.options)
    engine.reset(seed=1)
    obs, masks = engine.observe(), engine.legal_action_mask()
    np.testing.assert_array_equal(from_zip.act_batch(obs, masks), from_pt.act_batch(obs, masks))


@pytest.mark.parametrize("algo", ["batch_ppo", "sb3"])
def test_resume_continues_the_step_count(algo, tmp_path):
    cfg = tiny(load_config(FULL_PLAY), steps=200)
    cfg.algo = algo
    cfg.opponents = [{"name": "random", "weight": 1.0}]
    cfg.eval.opponent = "random"
    first = train(cfg, tmp_path / "run", progress=False)
    with pytest.raises(ValueError, match="already holds a run .* --resume"):
        train(cfg, tmp_path / "run", progress=False)
    cfg.total_steps = first["steps"] + 1
    second = train(cfg, tmp_path / "run", resume=True, progress=False)
    # one more rollout on top of the first run's steps, not a fresh start from 0
    assert first["steps"] < second["steps"] <= 2 * first["steps"] + 64
    evals = pd.read_csv(tmp_path / "run" / "eval.csv")
    assert evals["steps"].tolist() == [first["steps"], second["steps"]]
    name = "train_state.pt" if algo == "batch_ppo" else "sb3_state.pt"
    state = torch.load(tmp_path / "run" / name, weights_only=True)  # plain data only
    assert state["steps"] == second["steps"] and state["format"] == "cardrl-train-state"


def test_batch_ppo_is_seeded(tmp_path):
    cfg = tiny(load_config(CONFIGS[0]), steps=150)
    runs = []
    for name in ("a", "b"):
        train(cfg, tmp_path / name, progress=False)
        runs.append(load_checkpoint(tmp_path / name / "policy.pt")["state_dict"])
    for key in runs[0]:
        torch.testing.assert_close(runs[0][key], runs[1][key])


def test_bad_config_fields_are_named():
    with pytest.raises(ValueError, match="ppo.learning_rat: unknown field; did you mean "
                                         "'learning_rate'"):
        config_from_dict({"game": "four_aces", "ppo": {"learning_rat": 1}})
    with pytest.raises(ValueError, match="algo"):
        config_from_dict({"game": "four_aces", "algo": "dqn"})


# -- checkpoints and PolicyAgent --------------------------------------------------------------
def random_checkpoint(game: str, options: dict, seed: int = 0) -> dict:
    torch.manual_seed(seed)
    engine = make_engine(game, 1, **options)
    net = PolicyNet(engine.observation_size, engine.num_actions, [16, 16])
    with torch.no_grad():  # sharpen the logits so that ties are impossible
        net.actor_head.weight.mul_(100.0)
    return make_checkpoint(net, game, options, trained_steps=7)


def test_checkpoint_save_load_gives_identical_actions(tmp_path):
    for game, options in [("abracadabra", {"variant": "four"}), ("four_aces", {})]:
        checkpoint = random_checkpoint(game, options)
        path = save_checkpoint(checkpoint, tmp_path / f"{game}.pt")
        loaded = load_checkpoint(path)
        assert loaded["format"] == "cardrl-policy" and loaded["trained_steps"] == 7
        assert loaded["game"] == game and loaded["options"] == options
        engine = make_engine(game, 64, **options)
        engine.reset(seed=5)
        in_memory = PolicyAgent(game, checkpoint=checkpoint)
        from_file = agents.make("policy", game, path=path)
        assert_same_legal_actions(engine, in_memory, from_file, steps=10)


def test_sampling_policy_is_legal_and_seeded():
    checkpoint = random_checkpoint("four_aces", {})
    engine = make_engine("four_aces", 32)
    engine.reset(seed=2)
    obs, masks = engine.observe(), engine.legal_action_mask()
    a = PolicyAgent("four_aces", checkpoint=checkpoint, sample=True, seed=3)
    b = PolicyAgent("four_aces", checkpoint=checkpoint, sample=True, seed=3)
    x = a.act_batch(obs, masks)
    np.testing.assert_array_equal(x, b.act_batch(obs, masks))
    assert masks[np.arange(32), x].all()


def test_default_policy_missing_tells_how_to_train(tmp_path, monkeypatch):
    monkeypatch.setattr(policy_mod, "CHECKPOINT_DIR", tmp_path)
    with pytest.raises(ValueError, match="cardrl train --config configs/four_aces_4p.yaml"):
        agents.make("policy", "four_aces")


def test_default_policies_are_routed_by_variant(tmp_path, monkeypatch):
    monkeypatch.setattr(policy_mod, "CHECKPOINT_DIR", tmp_path)
    four = random_checkpoint("abracadabra", {"variant": "four"}, seed=1)
    two = random_checkpoint("abracadabra", {"variant": "two"}, seed=2)
    save_checkpoint(four, tmp_path / "abracadabra_four.pt")
    save_checkpoint(two, tmp_path / "abracadabra_two.pt")
    agent = agents.make("policy", "abracadabra")
    obs, masks = [], []
    for variant in ("four", "two"):
        engine = make_engine("abracadabra", 8, variant=variant)
        engine.reset(seed=0)
        obs.append(engine.observe())
        masks.append(engine.legal_action_mask())
    both = agent.act_batch(np.concatenate(obs), np.concatenate(masks))
    np.testing.assert_array_equal(both[:8], PolicyAgent("abracadabra", checkpoint=four)
                                  .act_batch(obs[0], masks[0]))
    np.testing.assert_array_equal(both[8:], PolicyAgent("abracadabra", checkpoint=two)
                                  .act_batch(obs[1], masks[1]))
    assert agents.make("policy", "abracadabra", variant="two").routes == {"two": 0}
    (tmp_path / "abracadabra_two.pt").unlink()
    save_checkpoint(random_checkpoint("abracadabra", {"variant": "three"}),
                    tmp_path / "abracadabra_three.pt")
    with pytest.raises(ValueError, match="variant 'two'"):
        agents.make("policy", "abracadabra").act_batch(obs[1], masks[1])


def test_policy_module_does_not_import_torch():
    import subprocess
    import sys

    code = ("import sys, agents, agents.policy.agent; agents.available('four_aces'); "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
