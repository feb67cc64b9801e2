"""Suit symmetry (agents/four_aces/symmetry.py): Four Aces suits are interchangeable (G–K)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.four_aces.symmetry import (
    _tables,
    canonical_suit_order,
    check_symmetry,
    to_canonical,
    to_game_actions,
    to_game_order,
)
from agents.policy.agent import PolicyAgent, load_checkpoint, make_checkpoint, save_checkpoint
from agents.policy.net import PolicyNet
from envs.cards import parse_card
from envs.four_aces.engine import LAYOUT
from envs.registry import make_engine
from tests.agents.test_features import hand_built_observation
from tests.helpers.policy_checks import assert_same_legal_actions
from training.config import config_from_dict, load_config
from training.train import train


def played(batch: int = 48, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every decision of one random-play round per game."""
    engine = make_engine("four_aces", batch, num_players=4)
    engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    while not engine.game_over.all():
        live = engine.current_player >= 0
        o, m = engine.observe(), engine.legal_action_mask()
        obs.append(o[live])
        masks.append(m[live])
        actions = np.zeros(batch, dtype=np.int64)
        for g in np.flatnonzero(live):
            actions[g] = rng.choice(np.flatnonzero(m[g]))
        engine.step(actions, active=live)
    return np.concatenate(obs).astype(np.float32), np.concatenate(masks)


def renamed(obs: np.ndarray, masks: np.ndarray, seed: int = 0):
    """Each row with its suits renamed by a random one of the 24 permutations."""
    columns, actions = _tables(obs.shape[1], masks.shape[1])
    which = np.random.default_rng(seed).integers(len(columns), size=len(obs))
    return (np.take_along_axis(obs, columns[which], axis=1),
            np.take_along_axis(masks, actions[which], axis=1), actions[which])


def test_renaming_the_suits_gives_the_same_canonical_observation():
    """G–K name no suit, so a deal and its suit renaming must look alike to the network."""
    obs, masks = played()
    renamed_obs, renamed_masks, _ = renamed(obs, masks)
    assert not np.array_equal(obs, renamed_obs)  # the renaming did change the rows
    canon, canon_masks, _ = to_canonical(obs, masks)
    canon2, canon_masks2, _ = to_canonical(renamed_obs, renamed_masks)
    np.testing.assert_array_equal(canon, canon2)
    np.testing.assert_array_equal(canon_masks, canon_masks2)


def test_canonical_order_sorts_suits_by_hand_then_table():
    # hand: two hearts and a spade; table: a club, a diamond and a heart
    obs = hand_built_observation(["Qh", "3h", "As"], ["5c", "9d", "Kh"])[None, :]
    masks = np.zeros((1, 54), dtype=bool)
    masks[0, [parse_card("Qh"), parse_card("3h"), parse_card("As"), 53]] = True
    canon, canon_masks, action_map = to_canonical(obs, masks)
    hand = canon[0, LAYOUT["hand"]]
    # the hand ranks read as 13-bit numbers: spades' A (bit 12) above hearts' Q + 3
    assert hand[12] == 1  # canonical suit 0, rank A: the spade ace
    assert hand[13 + 10] == 1 and hand[13 + 1] == 1  # canonical suit 1: the hearts Q, 3
    # then by table: the diamond 9 (bit 7) above the club 5 (bit 3)
    own_table = canon[0, LAYOUT["tables"]][:53]
    assert own_table[26 + 7] == 1 and own_table[39 + 3] == 1
    assert canon_masks.sum() == masks.sum()
    assert to_game_actions(np.array([12]), action_map)[0] == parse_card("As")
    assert to_game_actions(np.array([53]), action_map)[0] == 53  # the turn-up keeps its id
    assert canonical_suit_order(obs).shape == (1,)


def test_action_maps_round_trip():
    obs, masks = played(batch=16)
    _, canon_masks, action_map = to_canonical(obs, masks)
    rows = np.arange(len(obs))
    # a canonical action is legal exactly when its game action is
    for a in range(masks.shape[1]):
        np.testing.assert_array_equal(canon_masks[:, a], masks[rows, action_map[:, a]])
    values = np.random.default_rng(1).random(masks.shape)
    game_order = to_game_order(values, action_map)
    np.testing.assert_array_equal(game_order[rows[:, None], action_map], values)
    np.testing.assert_array_equal(to_game_order(torch.as_tensor(values), action_map).numpy(),
                                  game_order)


def symmetric_net(features: str = "four_aces") -> PolicyNet:
    torch.manual_seed(0)
    net = PolicyNet(LAYOUT.size, 54, [32], features=features, symmetry="suits")
    with torch.no_grad():
        net.actor_head.weight.mul_(100.0)  # decisive argmax
    return net


def test_symmetric_policy_plays_the_renamed_card_on_a_renamed_deal():
    obs, masks = played()
    agent = PolicyAgent("four_aces", checkpoint=make_checkpoint(symmetric_net(), "four_aces",
                                                                {"num_players": 4}))
    plain = PolicyAgent("four_aces", checkpoint=make_checkpoint(
        PolicyNet(LAYOUT.size, 54, [32], features="four_aces"), "four_aces", {}))
    renamed_obs, renamed_masks, action_map = renamed(obs, masks, seed=5)
    # renamed row r holds game card action_map[r, a] where the original held card a
    acts = agent.act_batch(obs, masks)
    np.testing.assert_array_equal(agent.act_batch(renamed_obs, renamed_masks),
                                  np.argsort(action_map, axis=1)[np.arange(len(obs)), acts])
    assert masks[np.arange(len(obs)), acts].all()
    # without the symmetry the same check fails somewhere: the test can tell them apart
    plain_acts = plain.act_batch(obs, masks)
    assert not np.array_equal(plain.act_batch(renamed_obs, renamed_masks),
                              np.argsort(action_map, axis=1)[np.arange(len(obs)), plain_acts])


def test_symmetry_is_checked_and_stored(tmp_path):
    with pytest.raises(ValueError, match="symmetry='suits' does not fit game 'abracadabra'"):
        check_symmetry("abracadabra", "suits")
    with pytest.raises(ValueError, match="symmetry='colours'"):
        PolicyNet(LAYOUT.size, 54, [8], symmetry="colours")
    data = load_config("configs/four_aces_4p.yaml").to_dict()
    data["ppo"]["symmetry"] = "suits"
    data["algo"] = "sb3"
    data["ppo"]["features"] = "none"
    with pytest.raises(ValueError, match="ppo.symmetry needs algo: batch_ppo"):
        config_from_dict(data)
    # save -> load -> identical actions, the symmetry read back from the checkpoint
    original = make_checkpoint(symmetric_net(), "four_aces", {"num_players": 4})
    path = save_checkpoint(original, tmp_path / "sym.pt")
    assert load_checkpoint(path)["model"]["symmetry"] == "suits"
    engine = make_engine("four_aces", 32, num_players=4)
    engine.reset(seed=9)
    assert_same_legal_actions(engine, PolicyAgent("four_aces", checkpoint=original),
                              PolicyAgent("four_aces", path=path), steps=8)


def test_training_with_suit_symmetry(tmp_path):
    data = load_config("configs/four_aces_4p.yaml").to_dict()
    data.update(total_steps=300, num_games=16, max_minutes=None, snapshot_interval=100,
                checkpoint_interval=10**9)
    data["ppo"].update(symmetry="suits", hidden=[32], minibatch_size=128)
    data["eval"].update(deals=2, interval=0, opponent="random", baselines=["random"])
    summary = train(config_from_dict(data), tmp_path / "run", progress=False)
    assert summary["steps"] >= 300
    checkpoint = load_checkpoint(tmp_path / "run" / "policy.pt")
    assert checkpoint["model"]["symmetry"] == "suits"
    obs, masks = played(batch=8)
    agent = PolicyAgent("four_aces", checkpoint=checkpoint)
    assert masks[np.arange(len(obs)), agent.act_batch(obs, masks)].all()
