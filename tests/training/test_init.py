"""``init:`` — a run that starts from a trained network (training/init_net.py): it starts
from the checkpoint's weights exactly, a former-observation network is accepted, every
mismatch is named before anything runs, and a best response can start from it."""

from __future__ import annotations

import pandas as pd
import pytest
import torch

from agents.policy import agent as policy_mod
from agents.policy.agent import CHECKPOINT_DIR
from agents.policy.checkpoint import load_checkpoint
from training.config import config_from_dict
from training.exploit import best_response_config, run_exploit
from training.ppo_batch import build_trainer
from training.train import train

#: a Four Aces run of seconds
TINY = {"game": "four_aces", "total_steps": 300, "num_games": 8, "snapshot_interval": 0,
        "checkpoint_interval": 0,
        "ppo": {"hidden": [16], "minibatch_size": 128},
        "eval": {"deals": 4, "interval": 0, "baselines": ["random"], "opponent": "random"}}


def tiny(**fields) -> dict:
    data = {**TINY, **fields}
    data["ppo"] = {**TINY["ppo"], **fields.get("ppo", {})}
    return data


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny run from random weights: its folder (policy.pt, eval.csv)."""
    run = tmp_path_factory.mktemp("random_start")
    train(config_from_dict(tiny()), run, progress=False)
    return run


def test_a_run_starts_from_the_checkpoints_weights(trained, tmp_path):
    """The network built for a run with init holds the checkpoint's weights, and the run's
    evaluation at step 0 is the checkpoint's: the same points on the same evaluation deals
    as the run that wrote it scored at its end."""
    cfg = config_from_dict(tiny(init=str(trained / "policy.pt")))
    net = build_trainer(cfg, cfg.seed).net
    saved = load_checkpoint(trained / "policy.pt")["state_dict"]
    assert saved.keys() == net.state_dict().keys()
    for key, tensor in net.state_dict().items():
        assert torch.equal(tensor, saved[key]), key
    train(cfg, tmp_path / "run", progress=False)
    first = pd.read_csv(tmp_path / "run" / "eval.csv").iloc[0]
    before = pd.read_csv(trained / "eval.csv").iloc[-1]
    assert first["steps"] == 0
    assert first["points"] == before["points"]
    assert first["opponent_points"] == before["opponent_points"]


def test_the_anchor_may_hold_ppo_to_the_init(trained, tmp_path):
    """ppo.anchor_coef is allowed with init (the anchor is the init network) and logs its
    KL; without init or a distill stage it is refused."""
    cfg = config_from_dict(tiny(init=str(trained / "policy.pt"),
                                ppo={"anchor_coef": 1.0}))
    assert train(cfg, tmp_path / "run", progress=False)["steps"] >= 300
    with pytest.raises(ValueError, match="ppo.anchor_coef anchors PPO to the network it "
                                         "starts from"):
        config_from_dict(tiny(ppo={"anchor_coef": 1.0}))


def test_the_committed_network_of_a_former_observation_can_start_a_run():
    """``init: policy`` is the committed checkpoint of the table; Abracadabra's was trained
    on abracadabra_v0's 755 columns and starts a run of the v1 engine (771)."""
    cfg = best_response_config("abracadabra", "heuristic", 1.0,
                               recipe="configs/abracadabra_four_anchored.yaml", init="policy")
    saved = load_checkpoint(CHECKPOINT_DIR / "abracadabra_four.pt")
    assert cfg.init == "policy" and cfg.distill is None  # the recipe's imitation is dropped
    assert (cfg.ppo.hidden, cfg.ppo.features) == (saved["model"]["hidden"],
                                                  saved["model"]["features"])
    assert cfg.ppo.anchor_coef == 1.0 and cfg.opponents[0]["name"] == "heuristic"
    cfg.num_games = 2
    trainer = build_trainer(cfg, cfg.seed)
    assert trainer.net.config["observation_size"] == 755
    assert trainer.engine.observation_size == 771
    x, _, _ = trainer.net.encode(trainer.engine.observe(), trainer.engine.legal_action_mask())
    assert x.shape == (2, trainer.net.input_size)


@pytest.mark.parametrize(("fields", "expected"), [
    ({"init": "/no/such.pt"}, "init: '/no/such.pt' does not exist; expected a policy "
                              "checkpoint (a run's policy.pt) or 'policy'"),
    ({"init": "policy", "options": {"num_players": 4}, "ppo": {"hidden": [16]}},
     "has model hidden=[256, 256], the config's ppo.hidden is [16]: set ppo.hidden to it"),
    ({"init": "policy", "options": {"num_players": 4}},
     "has model symmetry='suits', the config's ppo.symmetry is 'none'"),
    ({"init": "policy", "algo": "sb3"}, "init needs algo: batch_ppo"),
    ({"init": "policy", "distill": {"teacher": "greedy"}},
     "init and a distill section both set the starting network; keep one"),
])
def test_an_init_that_does_not_fit_is_named(fields, expected):
    with pytest.raises(ValueError) as error:
        config_from_dict(tiny(**fields), "config file x.yaml")
    assert str(error.value).startswith("config file x.yaml: ")
    assert expected in str(error.value)


def test_a_checkpoint_of_another_table_or_game_is_refused(trained):
    path = str(trained / "policy.pt")
    with pytest.raises(ValueError, match=r"was trained for the table '4p', the config plays "
                                         r"'3p'"):
        config_from_dict(tiny(init=path, options={"num_players": 3}))
    with pytest.raises(ValueError, match=r"is a network of 'four_aces', expected one of "
                                         r"'abracadabra'"):
        config_from_dict({"game": "abracadabra", "init": path})


def test_a_missing_committed_checkpoint_says_how_to_train_one(monkeypatch, tmp_path):
    monkeypatch.setattr(policy_mod, "CHECKPOINT_DIR", tmp_path)
    with pytest.raises(ValueError, match=r"init: 'policy' names the committed checkpoint of "
                                         r"four_aces num_players=4, and there is none; train "
                                         r"one with `cardrl train"):
        config_from_dict(tiny(init="policy"))


def test_a_best_response_from_a_network_measures_its_best_evaluation(trained, tmp_path):
    """``run_exploit(init=...)``: the curve starts at step 0 (the init itself) and the
    measured network is the run's best evaluated one."""
    out = tmp_path / "exploit"
    result = run_exploit("four_aces", "greedy", out, minutes=1.0, deals=4, seed=2,
                         total_steps=200, eval_interval=100, eval_deals=2,
                         overrides={"num_games": 8}, progress=False,
                         init=str(trained / "policy.pt"))
    assert result["best_response"] == str(out / "train" / "policy_best.pt")
    assert result["init"] == str(trained / "policy.pt")
    assert result["curve"][0]["steps"] == 0 and len(result["curve"]) >= 2
    assert "starting from the network of init=" in (out / "exploit.md").read_text()
