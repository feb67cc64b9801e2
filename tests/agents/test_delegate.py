"""A network that only bids (C1) and delegates showing, card play and calls (D1, E, F1)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agents
from agents.policy.agent import PolicyAgent, make_checkpoint
from agents.policy.delegate import NETWORK_ACTIONS, check_delegate, delegated, network_rows
from agents.policy.net import PolicyNet
from envs.abracadabra import BID_OFFSET, CALL, NO_CALL, PLAY_OFFSET, STOP
from envs.registry import make_engine
from training.config import config_from_dict
from training.ppo_batch import collect
from training.seat_env import make_pool


def _bidder_checkpoint(seed: int = 0) -> dict:
    torch.manual_seed(seed)
    net = PolicyNet(755, 123, [32], "tanh", delegate="heuristic")
    return make_checkpoint(net, "abracadabra", {"variant": "four"})


def _play_to_phases(batch: int = 64, seed: int = 3):
    """Observations and masks collected over random deals: every phase appears."""
    engine = make_engine("abracadabra", batch, variant="four")
    engine.reset(seed=seed)
    random = agents.make("random", "abracadabra", seed=seed)
    obs, masks = [], []
    while not engine.game_over.all():
        o, m = engine.observe(), engine.legal_action_mask()
        live = engine.current_player >= 0
        obs.append(o[live].copy())
        masks.append(m[live].copy())
        actions = np.zeros(batch, dtype=np.int64)
        actions[live] = random.act_batch(o[live], m[live])
        engine.step(actions, active=live)
    return np.concatenate(obs), np.concatenate(masks)


def test_the_network_decides_exactly_the_bidding_decisions():
    obs, masks = _play_to_phases()
    rows = network_rows("abracadabra", masks)
    bids = masks[:, BID_OFFSET:BID_OFFSET + 14].any(axis=1)
    plays = masks[:, PLAY_OFFSET:PLAY_OFFSET + 53].any(axis=1)
    later = plays | masks[:, [STOP, CALL, NO_CALL]].any(axis=1)
    assert rows.any() and (~rows).any()
    np.testing.assert_array_equal(rows, bids)
    assert not (rows & later).any()  # a bid never shares a decision with play, show or call
    np.testing.assert_array_equal(NETWORK_ACTIONS["abracadabra"], np.arange(14))


def test_bidder_policy_bids_with_its_net_and_plays_like_the_heuristic():
    obs, masks = _play_to_phases()
    checkpoint = _bidder_checkpoint()
    agent = PolicyAgent("abracadabra", checkpoint=checkpoint, seed=1)
    plain = dict(checkpoint, model={**checkpoint["model"], "delegate": None})
    net_only = PolicyAgent("abracadabra", checkpoint=plain, seed=1)
    heuristic = agents.make("heuristic", "abracadabra", seed=1)
    actions = agent.act_batch(obs, masks)
    assert masks[np.arange(len(actions)), actions].all()
    bids = network_rows("abracadabra", masks)
    np.testing.assert_array_equal(actions[bids], net_only.act_batch(obs[bids], masks[bids]))
    np.testing.assert_array_equal(actions[~bids],
                                  heuristic.act_batch(obs[~bids], masks[~bids]))


def test_delegated_calls_each_side_once_with_its_rows():
    masks = np.zeros((4, 123), dtype=bool)
    masks[[0, 2], 5] = True  # bid rows
    masks[[1, 3], PLAY_OFFSET] = True
    calls = []

    def net(o, m):
        calls.append(("net", len(m)))
        return np.full(len(m), 5)

    def other(o, m):
        calls.append(("other", len(m)))
        return np.full(len(m), PLAY_OFFSET)

    act = delegated("abracadabra", net, other)
    np.testing.assert_array_equal(act(np.zeros((4, 755)), masks), [5, PLAY_OFFSET, 5, PLAY_OFFSET])
    assert calls == [("net", 2), ("other", 2)]


@pytest.mark.parametrize(
    "game, delegate, match",
    [("four_aces", "heuristic", "only"), ("abracadabra", "nobody", "registered"),
     ("abracadabra", "policy", "not a network"), ("abracadabra", "bidder", "not a network")],
)
def test_bad_delegates_are_named(game, delegate, match):
    with pytest.raises(ValueError, match=match):
        check_delegate(game, delegate)


def test_delegate_config_needs_batch_ppo():
    with pytest.raises(ValueError, match="batch_ppo"):
        config_from_dict({"game": "abracadabra", "algo": "sb3",
                          "ppo": {"delegate": "heuristic"}})
    assert config_from_dict({"game": "abracadabra",
                             "ppo": {"delegate": "heuristic"}}).ppo.delegate == "heuristic"


def test_rollout_holds_only_bids_and_each_learner_seat_gets_its_whole_deal_reward():
    """Credit: the delegate's moves are not trained on, and the seat's points of
    the whole deal reach the bid it made — nobody else's points."""
    batch = 32
    engine = make_engine("abracadabra", batch, variant="four", reward="points")
    pool = make_pool("abracadabra", [{"name": "heuristic"}], seed=0)
    torch.manual_seed(0)
    net = PolicyNet(755, 123, [16], delegate="heuristic")
    heuristic = agents.make("heuristic", "abracadabra", seed=2)
    buf, stats = collect(engine, pool, net, rollout_index=1, seed=11, train_self_seats=False,
                         reward_scale=1.0, delegate=heuristic)
    assert buf.n == batch  # one learner seat per game, one bid each
    assert network_rows("abracadabra", buf.masks[:buf.n]).all()
    assert (buf.actions[:buf.n] <= 13).all()
    # the learner's points per game, summed, equal the credited rewards
    np.testing.assert_allclose(buf.rewards[:buf.n].sum(), stats["learner_return"] * batch,
                               rtol=1e-5)
    assert (buf.next[:buf.n] == -1).all()  # the bid is the stream's only (terminal) decision


def test_policy_path_specs_enter_tournaments_and_the_bidding_benchmark(tmp_path):
    from agents.policy.agent import save_checkpoint
    from arena.tournament import run_tournament
    from cli.main import main

    path = save_checkpoint(_bidder_checkpoint(), tmp_path / "bidder.pt")
    agent = agents.make_from_spec(f"policy:{path}", "abracadabra", seed=0)
    assert agent.delegates[0] is not None
    with pytest.raises(ValueError, match="policy:PATH"):
        agents.make_from_spec("heuristic:x", "abracadabra")
    with pytest.raises(ValueError, match="policy:PATH"):
        agents.make_from_spec("policy:", "abracadabra")
    result = run_tournament("abracadabra", [f"bidder=policy:{path}", "heuristic"], 2, seed=0,
                            options={"variant": "four"}, progress=False)
    assert set(result.games["agent"]) == {"bidder", "heuristic"}
    assert main(["bidbench", "--deals", "4", "--bidders", f"policy:{path},expected_tricks",
                 "--out", str(tmp_path / "bb"), "--no-progress"]) == 0
    assert f"policy:{path}" in (tmp_path / "bb" / "bidbench.md").read_text()


def test_the_bidder_agent_is_the_committed_bid_only_network():
    """`bidder` loads agents/checkpoints/bidder/abracadabra_four.pt: a network that bids (C1)
    and leaves showing, card play and calls (D1, E, F1) to the heuristic."""
    bidder = agents.make("bidder", "abracadabra", seed=0)
    assert bidder.sources[0].endswith("bidder/abracadabra_four.pt")
    assert bidder.nets[0].delegate == "heuristic"
    obs, masks = _play_to_phases()
    heuristic = agents.make("heuristic", "abracadabra")
    plays = ~network_rows("abracadabra", masks)
    np.testing.assert_array_equal(bidder.act_batch(obs[plays], masks[plays]),
                                  heuristic.act_batch(obs[plays], masks[plays]))


def test_the_bidder_refuses_what_it_does_not_have_or_is_not_bid_only(tmp_path):
    with pytest.raises(ValueError, match="no bid-only network for abracadabra variant='two'"):
        agents.make("bidder", "abracadabra", variant="two")
    torch.manual_seed(0)
    full = PolicyNet(755, 123, [8], "tanh")  # makes every decision
    path = tmp_path / "full.pt"
    from agents.policy.checkpoint import save_checkpoint

    save_checkpoint(make_checkpoint(full, "abracadabra", {"variant": "four"}), path)
    with pytest.raises(ValueError, match="makes every decision"):
        agents.make("bidder", "abracadabra", path=path)
