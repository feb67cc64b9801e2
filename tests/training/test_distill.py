"""Distillation (training/distill.py) with tiny budgets: the teacher's record replays on
the engine, the fit imitates a deterministic teacher, and a ``cardrl train`` config with a
``distill:`` section writes a full-play checkpoint."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
import torch

import agents
from agents.policy.agent import PolicyAgent
from agents.policy.checkpoint import load_checkpoint, make_checkpoint, save_checkpoint
from agents.policy.net import PolicyNet
from envs.abracadabra import CALL, PLAY_OFFSET
from envs.registry import make_engine
from training import ppo_batch
from training.config import config_from_dict
from training.distill import (
    TeacherData,
    fallback_actions,
    fit,
    generate,
    load_record,
    relabel,
    value_targets,
)
from training.ppo_batch import Rollout, frozen_copy, ppo_update
from training.train import train

FOUR = {"variant": "four"}


@pytest.fixture(scope="module")
def pimc_record() -> TeacherData:
    """PIMC with one world plays two deals, one batch engine of two games."""
    return generate("abracadabra", FOUR, 2, "pimc", {"worlds": 1}, num_games=2, seed=3,
                    progress=False)


@pytest.fixture(scope="module")
def heuristic_record() -> TeacherData:
    """The (deterministic) heuristic plays 24 deals, in batches of 8."""
    return generate("abracadabra", FOUR, 24, "heuristic", num_games=8, seed=1, progress=False)


def _fields(data: TeacherData) -> list[np.ndarray]:
    return [data.observations, data.masks, data.actions, data.seats, data.deals, data.rewards,
            data.next, data.keys]


def test_generation_is_deterministic_per_seed(pimc_record):
    again = generate("abracadabra", FOUR, 2, "pimc", {"worlds": 1}, num_games=2, seed=3,
                     progress=False)
    for mine, theirs in zip(_fields(pimc_record), _fields(again), strict=True):
        np.testing.assert_array_equal(mine, theirs)
    other = generate("abracadabra", FOUR, 2, "pimc", {"worlds": 1}, num_games=2, seed=4,
                     progress=False)
    assert not np.array_equal(other.keys, pimc_record.keys)  # other deals


def test_generation_does_not_depend_on_the_batch_size_or_workers(heuristic_record):
    # a deterministic teacher: episode i is dealt from key i whatever the batches
    single = generate("abracadabra", FOUR, 24, "heuristic", num_games=24, seed=1,
                      progress=False)
    np.testing.assert_array_equal(single.keys, heuristic_record.keys)
    for name in ("actions", "rewards", "seats"):
        for deal in range(24):
            np.testing.assert_array_equal(getattr(single, name)[single.deals == deal],
                                          getattr(heuristic_record, name)[
                                              heuristic_record.deals == deal])
    two = generate("abracadabra", FOUR, 24, "heuristic", num_games=8, seed=1, workers=2,
                   progress=False)
    for mine, theirs in zip(_fields(heuristic_record), _fields(two), strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_the_record_replays_on_the_engine(pimc_record):
    """Every recorded decision is the engine's: same seat, observation and mask (so the
    teacher's action is legal); returns are the seats' points of the deal (S1-S3)."""
    data = pimc_record
    assert data.observations.dtype == np.int8 and data.scale is not None
    assert data.masks[np.arange(len(data)), data.actions].all()
    returns = data.returns(gamma=1.0, reward_scale=0.5)
    for deal in range(data.num_deals):
        rows = np.flatnonzero(data.deals == deal)
        engine = make_engine("abracadabra", 1, **FOUR)
        engine.reset(game_seeds=data.keys[deal:deal + 1])
        first_row = {}
        for row in rows:
            seat = int(engine.current_player[0])
            assert data.seats[row] == seat
            first_row.setdefault(seat, row)
            np.testing.assert_array_equal(data.masks[row], engine.legal_action_mask()[0])
            np.testing.assert_allclose(data.float_observations([row])[0], engine.observe()[0],
                                       rtol=1e-6)
            engine.step(np.array([data.actions[row]]))
        assert engine.game_over[0]
        points = engine.last_points[0]
        for seat, row in first_row.items():  # gamma 1: every decision's return is the deal's
            assert returns[row] == pytest.approx(0.5 * points[seat])
            assert (returns[rows[data.seats[rows] == seat]] == returns[row]).all()
        # each seat's decisions are chained by next, in play order, the last one ending it
        for seat in first_row:
            own = rows[data.seats[rows] == seat]
            np.testing.assert_array_equal(data.next[own], np.r_[own[1:], -1])


def test_a_search_teacher_records_its_action_values(pimc_record, heuristic_record):
    data = pimc_record
    assert data.values.shape == data.masks.shape
    np.testing.assert_array_equal(np.isnan(data.values), ~data.masks)
    choice = data.choice_rows()
    best = np.where(data.masks, data.values, -np.inf).max(axis=1)
    rows = np.arange(len(data))
    assert (data.values[rows, data.actions][choice] == best[choice]).all()
    assert heuristic_record.values is None  # a heuristic reports no values


def test_the_record_is_saved_and_loaded_whole(pimc_record, heuristic_record, tmp_path):
    for name, data in (("pimc", pimc_record), ("heuristic", heuristic_record)):
        data.save(tmp_path / f"{name}.npz")
        again = TeacherData.load(tmp_path / f"{name}.npz")
        for field in ("observations", "scale", "masks", "actions", "seats", "deals",
                      "rewards", "next", "keys", "values"):
            mine, theirs = getattr(data, field), getattr(again, field)
            if mine is None:
                assert theirs is None, field
            else:
                np.testing.assert_array_equal(mine, theirs, err_msg=field)
        assert (again.num_deals, again.seconds) == (data.num_deals, data.seconds)


def values_record(values: np.ndarray, actions: np.ndarray) -> TeacherData:
    """A record of one decision per deal: the search's ``values`` [N, A] (NaN: illegal)
    and its ``actions`` [N]; nothing else of it is read."""
    n = len(values)
    return TeacherData(observations=np.zeros((n, 2), np.float32), scale=None,
                       masks=~np.isnan(values), actions=actions,
                       seats=np.zeros(n, np.int64), deals=np.arange(n),
                       rewards=np.zeros(n, np.float32), next=np.full(n, -1),
                       keys=np.zeros(n, np.uint64), num_deals=n, seconds=0.0, values=values)


def test_relabel_keeps_the_teachers_choice_only_beyond_the_margin():
    """Three decisions: the teacher's choice (action 0) is worth 3, 1 and 0 points more
    than the fallback's (action 1)."""
    values = np.array([[5.0, 2.0, np.nan], [2.0, 1.0, 0.0], [4.0, 4.0, np.nan]], np.float32)
    data = values_record(values, np.zeros(3, np.int64))
    fallback = np.ones(3, np.int64)
    np.testing.assert_array_equal(relabel(data, fallback, 0.0), [0, 0, 1])  # a tie: fallback
    np.testing.assert_array_equal(relabel(data, fallback, 1.0), [0, 1, 1])
    np.testing.assert_array_equal(relabel(data, fallback, 3.0), [1, 1, 1])
    with pytest.raises(ValueError, match="a fallback action is not legal"):
        relabel(data, np.array([1, 1, 2]), 0.0)
    with pytest.raises(ValueError, match="margin=-1.0: expected a number >= 0"):
        relabel(data, fallback, -1.0)
    with pytest.raises(ValueError, match="reported no action values"):
        relabel(TeacherData(**{**data.__dict__, "values": None}), fallback, 0.0)


def test_value_targets_are_a_softmax_of_the_values_over_the_legal_actions():
    """Rows: two legal actions 1 point apart; a tie; one legal action (the search's 0)."""
    values = np.array([[5.0, 4.0, np.nan], [2.0, np.nan, 2.0], [np.nan, 0.0, np.nan]],
                      np.float32)
    data = values_record(values, np.array([0, 0, 1]))
    e = np.exp(1.0)
    np.testing.assert_allclose(value_targets(data, 1.0),
                               [[e / (e + 1), 1 / (e + 1), 0], [0.5, 0, 0.5], [0, 1, 0]],
                               rtol=1e-6)
    sharp = value_targets(data, 0.01)  # the teacher's choice, ties shared
    np.testing.assert_allclose(sharp, [[1, 0, 0], [0.5, 0, 0.5], [0, 1, 0]], atol=1e-6)
    with pytest.raises(ValueError, match="temperature=0: expected a number > 0"):
        value_targets(data, 0)
    with pytest.raises(ValueError, match="reported no action values"):
        value_targets(TeacherData(**{**data.__dict__, "values": None}), 1.0)


def test_soft_targets_reach_the_network_in_its_own_action_order():
    """Four Aces with suit symmetry: the network's actions are the game's with the suits
    renamed per decision; the soft targets are renamed with them, and a fit on sharp
    targets learns the teacher's choices in game order."""
    from agents.four_aces.symmetry import to_game_order
    from training.distill import _network_examples

    data = generate("four_aces", {"num_players": 3}, 6, "pimc", {"worlds": 2}, num_games=6,
                    seed=2, progress=False)
    soft = value_targets(data, 0.5)
    net = PolicyNet(make_engine("four_aces", 1, num_players=3).observation_size, 54, [32],
                    symmetry="suits")
    rows = np.arange(len(data))
    _, masks, actions, renamed = _network_examples(net, data, rows, soft)
    _, _, action_map = net.encode(data.float_observations(rows), data.masks)
    assert (action_map != np.arange(54)).any()  # suits were renamed
    np.testing.assert_array_equal(to_game_order(renamed, action_map), soft)
    assert (renamed[~masks] == 0).all()
    sharp = value_targets(data, 1e-3)  # the teacher's choice; ties shared
    torch.manual_seed(0)
    fit(net, data, epochs=60, learning_rate=1e-2, minibatch_size=64, holdout=0.0,
        soft_targets=sharp)
    x, masks, _, sharp_renamed = _network_examples(net, data, rows, sharp)
    with torch.no_grad():
        chosen = net(torch.as_tensor(x), torch.as_tensor(masks))[0].argmax(dim=1).numpy()
    choice = masks.sum(axis=1) > 1
    # the network's choice is one the targets choose (in the network's order: renamed)
    assert (sharp_renamed[choice, chosen[choice]] > 0).mean() > 0.9


def test_fallback_actions_are_the_agents_choices(heuristic_record):
    """The heuristic teacher's record: the heuristic as fallback chooses what it chose."""
    np.testing.assert_array_equal(
        fallback_actions("abracadabra", "heuristic", heuristic_record, chunk=100),
        heuristic_record.actions)


def test_returns_discount_per_later_decision_of_the_seat():
    # one seat, three decisions; rewards 1 (after the first) and 4 (at the end)
    data = TeacherData(observations=np.zeros((3, 2), np.float32), scale=None,
                       masks=np.ones((3, 2), bool), actions=np.zeros(3, np.int64),
                       seats=np.zeros(3, np.int64), deals=np.zeros(3, np.int64),
                       rewards=np.array([1.0, 0.0, 4.0], np.float32),
                       next=np.array([1, 2, -1]), keys=np.zeros(1, np.uint64), num_deals=1,
                       seconds=0.0)
    # 1 + 0.5 * (0 + 0.5 * 4) = 2;  0 + 0.5 * 4 = 2;  4; all times the scale 0.1
    np.testing.assert_allclose(data.returns(gamma=0.5, reward_scale=0.1), [0.2, 0.2, 0.4])


def test_fit_imitates_a_deterministic_teacher(heuristic_record):
    torch.manual_seed(0)
    net = PolicyNet(755, 123, [64], "tanh", "abracadabra")
    result = fit(net, heuristic_record, epochs=10, learning_rate=3e-3, minibatch_size=64,
                 holdout=0.25, seed=0)
    losses = [epoch["policy_loss"] for epoch in result["epochs"]]
    assert losses[-1] < 0.3 * losses[0]
    assert result["train_accuracy"] > 0.9
    # six deals never trained on: far better than a uniformly random legal pick
    counts = heuristic_record.masks.sum(axis=1)
    assert result["holdout_accuracy"] > np.mean(1 / counts[counts > 1]) + 0.2
    assert result["decisions"] == len(heuristic_record)
    assert 0 < result["holdout_decisions"] == len(heuristic_record) - result["train_decisions"]


def test_fit_refuses_what_it_cannot_fit(heuristic_record):
    net = PolicyNet(755, 123, [8])
    with pytest.raises(ValueError, match="holdout=1.0"):
        fit(net, heuristic_record, holdout=1.0)
    with pytest.raises(ValueError, match="epochs=0"):
        fit(net, heuristic_record, epochs=0)
    with pytest.raises(ValueError, match="no decision to fit"):
        fit(net, heuristic_record, rows=np.zeros(len(heuristic_record), bool))
    with pytest.raises(ValueError, match="deals=0"):
        generate("abracadabra", FOUR, 0, "heuristic", progress=False)


def test_a_checkpoint_of_the_fitted_net_plays_as_the_net(heuristic_record, tmp_path):
    torch.manual_seed(1)
    net = PolicyNet(755, 123, [32], "tanh", "abracadabra")
    fit(net, heuristic_record, epochs=2, holdout=0.0)
    path = save_checkpoint(make_checkpoint(net, "abracadabra", FOUR, len(heuristic_record)),
                           tmp_path / "distilled.pt")
    agent = PolicyAgent("abracadabra", path=path)
    obs = heuristic_record.float_observations()
    masks = heuristic_record.masks
    with torch.no_grad():
        x, net_masks, _ = net.encode(obs, masks)
        expected = net.logits(torch.as_tensor(x), torch.as_tensor(net_masks)).argmax(dim=1)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), expected.numpy())


def play_every_seat(agent, engine, seed: int) -> None:
    """Whole episodes of ``engine``'s games, every seat by ``agent``: each action legal."""
    engine.reset(seed=seed)
    while not engine.game_over.all():
        live = ~engine.game_over
        masks = engine.legal_action_mask()
        actions = agent.act_batch(engine.observe(), masks)
        assert masks[live, actions[live]].all()
        engine.step(actions, active=live)


def tiny_distill_config(teacher: str = "pimc", kwargs: dict | None = None):
    return config_from_dict({
        "game": "abracadabra", "options": FOUR, "total_steps": 400, "num_games": 8,
        "snapshot_interval": 100, "checkpoint_interval": 100,
        "opponents": [{"name": "heuristic", "weight": 0.8}, {"name": "snapshot", "weight": 0.2}],
        "ppo": {"hidden": [32], "minibatch_size": 128},
        "eval": {"deals": 2, "interval": 0, "baselines": ["random"]},
        "distill": {"teacher": teacher, "teacher_kwargs": kwargs or {}, "deals": 3,
                    "num_games": 3, "epochs": 1, "holdout": 0.0}})


def test_train_with_a_distill_section_writes_a_full_play_checkpoint(tmp_path):
    cfg = tiny_distill_config("pimc", {"worlds": 1})
    cfg.distill.fallback, cfg.distill.margin = "heuristic", 2.0
    summary = train(cfg, tmp_path / "run", progress=False)
    record = TeacherData.load(tmp_path / "run" / "teacher.npz")  # kept for a refit
    assert record.num_deals == 3 and record.values is not None
    evals = pd.read_csv(tmp_path / "run" / "eval.csv")
    # the first row right after distillation, at the teacher decisions trained on (3 deals
    # of about 60-75 decisions each); PPO then continues to total_steps
    assert 150 < evals["steps"][0] < 250 and evals["train_seconds"][0] > 0
    assert summary["steps"] >= 400 and evals["steps"].iloc[-1] == summary["steps"]
    checkpoint = load_checkpoint(tmp_path / "run" / "policy.pt")
    assert checkpoint["model"]["delegate"] is None  # the network makes every decision
    agent = agents.make("policy", "abracadabra", path=tmp_path / "run" / "policy.pt")
    play_every_seat(agent, make_engine("abracadabra", 4, **FOUR), seed=5)


def test_the_four_aces_value_imitation_recipe_trains_a_policy(tmp_path):
    """configs/four_aces_4p_pimc_values.yaml (the committed Four Aces 4-player policy's
    recipe) with tiny budgets: PIMC plays every seat and reports its values, the network
    is fitted to their softmax (distill.targets: values) and its checkpoint plays."""
    from training.config import load_config

    cfg = load_config("configs/four_aces_4p_pimc_values.yaml", {
        "total_steps": 300, "num_games": 8, "torch_threads": 1, "ppo.hidden": [16],
        "eval.deals": 2, "eval.interval": 0, "eval.baselines": ["random"],
        "distill.teacher_kwargs": {"worlds": 2}, "distill.deals": 4, "distill.num_games": 4,
        "distill.workers": 1, "distill.epochs": 1, "distill.holdout": 0.0})
    assert (cfg.distill.teacher, cfg.distill.targets) == ("pimc", "values")
    train(cfg, tmp_path / "run", progress=False)
    assert TeacherData.load(tmp_path / "run" / "teacher.npz").values is not None
    agent = agents.make("policy", "four_aces", path=tmp_path / "run" / "policy.pt")
    play_every_seat(agent, make_engine("four_aces", 3, num_players=4), seed=1)


def test_resume_after_distillation_does_not_distil_again(tmp_path, monkeypatch):
    cfg = tiny_distill_config("heuristic")
    first = train(cfg, tmp_path / "run", progress=False)

    def refuse(*args, **kwargs):
        raise AssertionError("distilled again on resume")

    monkeypatch.setattr(ppo_batch, "distill", refuse)
    cfg.total_steps = first["steps"] + 200
    second = train(cfg, tmp_path / "run", resume=True, progress=False)
    assert second["steps"] >= first["steps"] + 200


def test_the_advice_recipe_trains_a_full_play_net_that_starts_as_its_teacher(tmp_path):
    """The advice recipe (docs/training.md) in small: teacher `bidder`, the heuristic's
    choice as an input (features: abracadabra_advice). The fitted network copies the
    advice (the teacher's play is the heuristic's), and its checkpoint plays as the net."""
    cfg = tiny_distill_config("bidder")
    cfg.ppo.features = "abracadabra_advice"
    cfg.distill.deals, cfg.distill.num_games, cfg.distill.epochs = 24, 24, 40
    cfg.distill.learning_rate = 3e-3
    cfg.total_steps = 1
    train(cfg, tmp_path / "run", progress=False)
    checkpoint = load_checkpoint(tmp_path / "run" / "policy.pt")
    assert checkpoint["model"]["features"] == "abracadabra_advice"
    assert checkpoint["model"]["delegate"] is None
    agent = agents.make("policy", "abracadabra", path=tmp_path / "run" / "policy.pt")
    heuristic = agents.make("heuristic", "abracadabra")
    engine = make_engine("abracadabra", 16, **FOUR)
    engine.reset(seed=8)
    same = plays = 0
    while not engine.game_over.all():
        live = ~engine.game_over
        obs, masks = engine.observe(), engine.legal_action_mask()
        actions = agent.act_batch(obs, masks)
        assert masks[live, actions[live]].all()
        card_play = live & masks[:, PLAY_OFFSET:CALL].any(axis=1)
        same += int((actions == heuristic.act_batch(obs, masks))[card_play].sum())
        plays += int(card_play.sum())
        engine.step(actions, active=live)
    assert same / plays > 0.75  # 24 deals teach little else: the advice is what is copied


def test_a_run_fitted_to_a_record_equals_the_run_that_played_it(tmp_path):
    """``distill.record`` (``cardrl train --distill-record``): the fit reads an earlier
    run's teacher.npz instead of playing the teacher, and gives the same network; the
    recorded play counts as training time."""
    cfg = tiny_distill_config("heuristic")
    cfg.total_steps = 1  # the imitation only
    train(cfg, tmp_path / "played", progress=False)
    # the record as saved, but a play time that stands out in the refit's training time
    record = tmp_path / "record.npz"
    replace(TeacherData.load(tmp_path / "played" / "teacher.npz"), seconds=1000.0).save(record)
    cfg.distill.record = str(record)
    train(cfg, tmp_path / "refit", progress=False)
    assert not (tmp_path / "refit" / "teacher.npz").exists()  # not written again
    played = load_checkpoint(tmp_path / "played" / "policy.pt")["state_dict"]
    refit = load_checkpoint(tmp_path / "refit" / "policy.pt")["state_dict"]
    for name, tensor in played.items():
        torch.testing.assert_close(refit[name], tensor, rtol=0, atol=0)
    assert pd.read_csv(tmp_path / "refit" / "eval.csv")["train_seconds"][0] >= 1000.0
    # a record of other episodes, or of another observation, is refused
    cfg.distill.deals = 4
    with pytest.raises(ValueError, match="3 episodes, the config's distill.deals is 4"):
        load_record(cfg, record)
    cfg.distill.deals, cfg.seed = 3, cfg.seed + 1
    with pytest.raises(ValueError, match="not dealt from the config's seed"):
        load_record(cfg, record)
    cfg.seed -= 1
    data = TeacherData.load(record)
    narrow = tmp_path / "v0.npz"
    replace(data, observations=data.observations[:, :755], scale=data.scale[:755]).save(narrow)
    with pytest.raises(ValueError, match="observations of 755 columns, the game's have 771"):
        load_record(cfg, narrow)


def test_the_anchor_keeps_ppo_near_the_imitation(heuristic_record):
    """``ppo.anchor_coef``: the update adds KL(anchor || net); with a large weight the
    updated net stays nearer the anchor than without it, on the same rollout."""
    cfg = config_from_dict({"game": "abracadabra", "options": FOUR,
                "ppo": {"hidden": [32], "minibatch_size": 64, "learning_rate": 3e-3,
                        "update_epochs": 4}})
    torch.manual_seed(0)
    start = PolicyNet(771, 123, [32], "tanh")
    data, rng = heuristic_record, np.random.default_rng(0)
    n = 256
    obs = data.float_observations(slice(0, n))
    buf = Rollout(n, 771, 123)
    with torch.no_grad():
        logits, values = start(torch.as_tensor(obs), torch.as_tensor(data.masks[:n]))
    logp = torch.log_softmax(logits, 1).gather(1, torch.as_tensor(data.actions[:n])[:, None])
    buf.add(obs, data.masks[:n], data.actions[:n], logp.squeeze(1).numpy(), values.numpy())
    adv = rng.normal(size=n).astype(np.float32)  # a strong pull away from the start
    ret = rng.normal(size=n).astype(np.float32)

    def kl_after(coef: float) -> float:
        net = frozen_copy(start, start.state_dict()).train().requires_grad_(True)
        cfg.ppo.anchor_coef = coef
        anchor = frozen_copy(start, start.state_dict()) if coef else None
        optimizer = torch.optim.Adam(net.parameters(), lr=cfg.ppo.learning_rate)
        losses = ppo_update(net, optimizer, buf, adv, ret, cfg, np.random.default_rng(1),
                            anchor)
        assert ("losses/anchor_kl" in losses) == bool(coef)
        with torch.no_grad():
            x, m = torch.as_tensor(obs), torch.as_tensor(data.masks[:n])
            a = torch.log_softmax(start.logits(x, m), 1)
            b = torch.log_softmax(net.logits(x, m), 1)
            return float((a.exp() * (a - b)).sum(1).mean())

    free, anchored = kl_after(0.0), kl_after(50.0)
    assert free > 0.01 and anchored < free / 3
