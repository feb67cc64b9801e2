"""Engineered input features (agents/<game>/features.py, registered by each game with
agents/policy/features.py) and networks that use them."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agents
from agents.abracadabra.features import (
    ABRACADABRA_ADVICE_SIZE,
    ABRACADABRA_SIZE,
    CARD_FEATURES,
    abracadabra_advice_features,
    abracadabra_cards_features,
    abracadabra_features,
)
from agents.four_aces.features import (
    FOUR_ACES_COLUMNS,
    FOUR_ACES_LOOKAHEAD_SIZE,
    FOUR_ACES_SIZE,
    LOOKAHEAD_INNER,
    LOOKAHEAD_SAMPLES,
    SCALE,
    four_aces_features,
    four_aces_lookahead_features,
    four_aces_refill_turns_features,
)
from agents.four_aces.heuristics import LookaheadDiscarder
from agents.four_aces.view import FourAcesView
from agents.policy.agent import PolicyAgent, load_checkpoint, make_checkpoint, save_checkpoint
from agents.policy.features import (
    FEATURES,
    check_features,
    check_symmetry,
    feature_size,
    register,
    with_features,
)
from agents.policy.net import PolicyNet
from envs.abracadabra.observation import slot_tables
from envs.abracadabra.rules import EFFECTIVE_SUIT, TRICK_STRENGTH
from envs.cards import JOKER, NUM_CARDS, RANK_OF, parse_card
from envs.four_aces.engine import LAYOUT
from envs.four_aces.rules import DRAW
from envs.four_aces.scoring import score_cards
from envs.registry import make_engine
from tests.helpers.policy_checks import assert_same_legal_actions
from training.config import config_from_dict, load_config
from training.train import train


def played_observations(n_steps: int = 12, batch: int = 64, seed: int = 3) -> np.ndarray:
    """Observations of live seats from random play."""
    engine = make_engine("four_aces", batch, num_players=4)
    engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_steps):
        if engine.game_over.all():
            break
        obs, masks = engine.observe(), engine.legal_action_mask()
        live = ~engine.game_over
        out.append(obs[live])
        actions = np.zeros(batch, dtype=np.int64)
        for g in np.flatnonzero(live):
            actions[g] = rng.choice(np.flatnonzero(masks[g]))
        engine.step(actions, active=live)
    return np.concatenate(out)


def hand_built_observation(hand: list[str], table: list[str], jokers: int = 0) -> np.ndarray:
    obs = np.zeros(LAYOUT.size, dtype=np.float32)
    hand_seg = obs[LAYOUT["hand"]]
    for c in hand:
        hand_seg[parse_card(c)] += 1
    hand_seg[JOKER] = jokers
    own_table = obs[LAYOUT["tables"]][:53]
    for c in table:
        own_table[parse_card(c)] = 1
    obs[LAYOUT["hand"]] = hand_seg
    tables = obs[LAYOUT["tables"]]
    tables[:53] = own_table
    tables[53 + parse_card("2c")] = 1  # another seat's table: must not count
    obs[LAYOUT["tables"]] = tables
    return obs


def random_play_decisions(engine, rng: np.random.Generator):
    """Yield ``(live, observations, masks)`` of the games with a seat to act (bool [B]) at
    every step of uniformly random play, until every game of ``engine`` is over."""
    while not engine.game_over.all():
        live = engine.current_player >= 0
        obs, masks = engine.observe()[live], engine.legal_action_mask()[live]
        yield live, obs, masks
        actions = np.zeros(engine.batch_size, dtype=np.int64)
        actions[live] = [rng.choice(np.flatnonzero(m)) for m in masks]
        engine.step(actions, active=live)


def test_features_are_a_function_of_the_observation():
    obs = played_observations()
    f1 = four_aces_features(obs)
    assert f1.shape == (len(obs), FOUR_ACES_SIZE) == (len(obs), len(FOUR_ACES_COLUMNS))
    assert f1.dtype == np.float32 and np.isfinite(f1).all()
    # same observation -> same features, in any batch order and batch size
    order = np.random.default_rng(0).permutation(len(obs))
    np.testing.assert_array_equal(four_aces_features(obs[order]), f1[order])
    np.testing.assert_array_equal(four_aces_features(obs[5]), f1[5:6])
    np.testing.assert_array_equal(four_aces_features(obs.copy()), f1)
    assert np.abs(f1).max() <= 3.0  # scaled to roughly [-1, 1]
    # the ace one-hot sums to one; discard values vanish where the card is not held
    np.testing.assert_array_equal(f1[:, -5:].sum(axis=1), 1.0)
    held = obs[:, LAYOUT["hand"]] > 0
    assert (f1[:, 1:54][~held] == 0).all()


def test_discard_values_match_score_cards_on_a_hand_built_observation():
    hand = ["Ah", "Ad", "Kd", "Qd", "5s"]
    table = ["Jd", "As", "7c"]
    obs = hand_built_observation(hand, table, jokers=1)
    f = four_aces_features(obs)[0]
    names = FOUR_ACES_COLUMNS
    now = score_cards(hand + table)
    assert f[names.index("score_now")] == pytest.approx(now / SCALE)
    expected = np.zeros(53)
    for c in hand:
        rest = [h for h in hand if h != c] + table
        expected[parse_card(c)] = score_cards(rest) / SCALE
    expected[JOKER] = now / SCALE  # a joker scores nothing: discarding it changes nothing
    np.testing.assert_allclose(f[1:54], expected, rtol=0, atol=1e-6)
    gain = expected[[parse_card(c) for c in hand] + [JOKER]].max() - now / SCALE
    assert f[names.index("best_discard_gain")] == pytest.approx(gain, abs=1e-6)
    aces = np.zeros(5)
    aces[3] = 1  # Ah, Ad in hand, As on the table
    np.testing.assert_array_equal(f[-5:], aces)
    # free scoring is never below 0 and uses the other rule
    free = four_aces_features(obs, "free")[0]
    assert free[0] == pytest.approx(score_cards(hand + table, "free") / SCALE)


def test_empty_hand_and_none_features():
    obs = hand_built_observation([], ["2h", "3h"])
    f = four_aces_features(obs)[0]
    assert f[0] == pytest.approx(score_cards(["2h", "3h"]) / SCALE)
    assert (f[1:55] == 0).all()
    assert feature_size("none") == 0 and feature_size("four_aces") == FOUR_ACES_SIZE
    raw = played_observations(2)
    np.testing.assert_array_equal(with_features("none", raw), raw)
    with pytest.raises(ValueError, match="features"):
        feature_size("cards")


def test_each_game_registers_its_own_sets_and_symmetries():
    """The sets are registered from agents/<game>/registration.py, the games in registry
    order, each fitting only the game that registered it; the names are those checkpoints
    store, so the table is the same whichever game's agents were asked for first."""
    abracadabra = ("abracadabra", "abracadabra_advice", "abracadabra_cards")
    four_aces = ("four_aces", "four_aces_free", "four_aces_refill", "four_aces_turns",
                 "four_aces_refill_turns", "four_aces_lookahead")
    assert tuple(FEATURES) == ("none", *abracadabra, *four_aces)
    for game, names in (("abracadabra", abracadabra), ("four_aces", four_aces)):
        other = "four_aces" if game == "abracadabra" else "abracadabra"
        for name in names:
            assert check_features(name, game) == name
            with pytest.raises(ValueError, match=f"{name!r} does not fit game {other!r}"):
                check_features(name, other)
    assert check_symmetry("four_aces", "suits") == "suits"
    with pytest.raises(ValueError, match=r"expected one of \('none',\) \('suits' is a "
                                         r"symmetry of four_aces only\)"):
        check_symmetry("abracadabra", "suits")


def test_a_feature_name_is_registered_once():
    register("four_aces", "four_aces_free", "agents.four_aces.features:four_aces_features",
             "agents.four_aces.features:FOUR_ACES_SIZE", kwargs={"scoring": "free"},
             computed_for={"scoring": "free"})  # the same registration again: nothing
    for name in ("four_aces", "none"):
        with pytest.raises(ValueError, match=f"feature set {name!r} is registered already"):
            register("four_aces", name, "agents.four_aces.features:four_aces_features",
                     "agents.four_aces.features:FOUR_ACES_SIZE", kwargs={"scoring": "free"})


def test_reading_the_feature_names_imports_no_features_module():
    """The registrations name their functions as strings: reading the names (a config's
    check) imports no game's feature module; a set is imported when used."""
    import subprocess
    import sys

    code = ("import sys; from agents.policy.features import FEATURES, check_features; "
            "names = tuple(FEATURES); check_features('four_aces_refill', 'four_aces'); "
            "print(sorted(m for m in sys.modules if m.endswith('.features')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "['agents.policy.features']", (
        done.stdout + done.stderr)


def test_config_field_is_checked():
    base = {"game": "four_aces", "ppo": {"features": "four_aces"}}
    assert config_from_dict(base).ppo.features == "four_aces"
    assert config_from_dict({"game": "four_aces"}).ppo.features == "none"
    with pytest.raises(ValueError, match="features"):
        config_from_dict({"game": "four_aces", "ppo": {"features": "bogus"}})
    with pytest.raises(ValueError, match="does not fit"):
        config_from_dict({"game": "abracadabra", "ppo": {"features": "four_aces"}})
    with pytest.raises(ValueError, match="four_aces_free"):
        config_from_dict({**base, "options": {"scoring": "free"}})
    with pytest.raises(ValueError, match="batch_ppo"):
        config_from_dict({**base, "algo": "sb3"})


def test_network_with_features_trains_and_checkpoints_round_trip(tmp_path):
    cfg = load_config("configs/four_aces_4p.yaml")
    assert cfg.ppo.features == "four_aces_refill_turns"
    cfg.total_steps = 300
    cfg.max_minutes = None
    cfg.num_games = 8
    cfg.snapshot_interval = 100
    cfg.checkpoint_interval = 100
    cfg.ppo.minibatch_size = 128
    cfg.ppo.hidden = [32]
    cfg.opponents = [{"name": "self", "weight": 0.5}, {"name": "snapshot", "weight": 0.5}]
    cfg.eval.deals = 2
    cfg.eval.interval = 0
    cfg.eval.opponent = "random"
    cfg.eval.baselines = ["random"]
    summary = train(cfg, tmp_path / "run", progress=False)
    assert summary["steps"] >= 300
    checkpoint = load_checkpoint(tmp_path / "run" / "policy.pt")
    assert checkpoint["model"]["features"] == "four_aces_refill_turns"
    net = PolicyAgent("four_aces", checkpoint=checkpoint).nets[0]
    assert net.input_size == (checkpoint["observation_size"]
                              + feature_size("four_aces_refill_turns"))
    assert feature_size("four_aces_turns") == FOUR_ACES_SIZE + 8  # the turns-left one-hot
    assert net.actor[0].in_features == net.input_size

    # save -> load -> identical actions (the features are recomputed from the observation)
    torch.manual_seed(0)
    net = PolicyNet(LAYOUT.size, 54, [16], features="four_aces")
    with torch.no_grad():
        net.actor_head.weight.mul_(100.0)
    original = make_checkpoint(net, "four_aces", {"num_players": 4})
    path = save_checkpoint(original, tmp_path / "feat.pt")
    in_memory = PolicyAgent("four_aces", checkpoint=original)
    from_file = PolicyAgent("four_aces", path=path)
    engine = make_engine("four_aces", 32, num_players=4)
    engine.reset(seed=9)
    assert_same_legal_actions(engine, in_memory, from_file, steps=8)


def test_old_checkpoints_without_features_still_load():
    net = PolicyNet(LAYOUT.size, 54, [8])
    checkpoint = make_checkpoint(net, "four_aces", {})
    del checkpoint["model"]["features"]  # as written before the field existed
    agent = PolicyAgent("four_aces", checkpoint=checkpoint)
    assert agent.nets[0].features == "none"
    obs = played_observations(1, batch=4)
    masks = np.ones((len(obs), 54), dtype=bool)
    assert agent.act_batch(obs, masks).shape == (len(obs),)


@pytest.mark.parametrize("variant", ["four", "three", "two_dummy", "two"])
def test_abracadabra_bid_features_are_the_heuristic_bids_and_the_bidding_so_far(variant):
    """C1-C3: at every bid, the one-hot bids equal what each heuristic bidder does, the top
    bid is the highest bid already made and bids_made counts them."""
    from agents.abracadabra.features import ABRACADABRA_COLUMNS, abracadabra_features

    engine = make_engine("abracadabra", 128, variant=variant)
    engine.reset(seed=4)
    bidders = {name: agents.make(name, "abracadabra") for name in
               ("expected_tricks", "sure_tricks", "control")}
    made = np.zeros(128, dtype=np.int64)
    top = np.full(128, -1)
    checked = 0
    while (engine.legal_action_mask()[:, :14].any(axis=1)).any():
        obs, masks = engine.observe(), engine.legal_action_mask()
        bidding = masks[:, :14].any(axis=1)
        features = abracadabra_features(obs[bidding])
        assert features.shape[1] == len(ABRACADABRA_COLUMNS)
        blocks = np.split(features[:, 1:], np.cumsum([14, 14, 14, 15]), axis=1)
        for block in blocks:
            np.testing.assert_array_equal(block.sum(axis=1), 1.0)  # one-hot
        for block, name in zip(blocks[:3], bidders, strict=True):
            acts = bidders[name].act_batch(obs[bidding], masks[bidding])
            legal_max = masks[bidding, :14].sum(axis=1) - 1
            np.testing.assert_array_equal(np.minimum(block.argmax(axis=1), legal_max), acts)
        np.testing.assert_array_equal(blocks[3].argmax(axis=1) - 1, top[bidding])
        np.testing.assert_array_equal(blocks[4].argmax(axis=1), made[bidding])
        actions = bidders["control"].act_batch(obs, masks)
        top = np.where(bidding, np.maximum(top, actions), top)
        made += bidding
        checked += int(bidding.sum())
        engine.step(actions, active=engine.current_player >= 0)
    assert checked >= 128 * 2


def test_refill_features_are_the_greedy_discarders_option_values():
    """G6/H2: refill_value:c is greedy's expected value of discarding c (after one refill),
    turn_up_value its value of turning up; so greedy's choice is their maximum."""
    from agents.four_aces.features import (
        FOUR_ACES_REFILL_SIZE,
        REFILL_COLUMNS,
        four_aces_refill_features,
    )

    engine = make_engine("four_aces", 64, num_players=4)
    engine.reset(seed=9)
    greedy = agents.make("greedy", "four_aces")
    for _ in range(12):
        obs, masks = engine.observe(), engine.legal_action_mask()
        live = engine.current_player >= 0
        features = four_aces_refill_features(obs[live])
        assert features.shape == (int(live.sum()), FOUR_ACES_REFILL_SIZE)
        np.testing.assert_array_equal(features[:, :FOUR_ACES_SIZE], four_aces_features(obs[live]))
        refill = features[:, FOUR_ACES_SIZE:]
        assert refill.shape[1] == len(REFILL_COLUMNS) == 54
        held = np.rint(obs[live][:, LAYOUT["hand"]]) > 0  # [n, 53]
        assert (refill[:, :53][~held] == 0).all()
        options = np.where(masks[live] & np.concatenate([held, np.ones((len(held), 1), bool)],
                                                       axis=1), refill, -np.inf)
        chosen = greedy.act_batch(obs[live], masks[live])  # ties may break either way
        np.testing.assert_allclose(options[np.arange(len(chosen)), chosen],
                                   options.max(axis=1), atol=1e-6)
        actions = np.zeros(64, dtype=np.int64)
        actions[live] = greedy.act_batch(obs[live], masks[live])
        engine.step(actions, active=live)


def test_turns_left_counts_the_movers_remaining_turns():
    """H3: the round ends with the turn that empties the stock; each turn takes one card
    (H2, G6), so the estimate is exact unless a joker makes someone draw again (G7)."""
    from agents.four_aces.features import (
        FOUR_ACES_TURNS_SIZE,
        MAX_TURNS,
        four_aces_turns_features,
        turns_left,
    )

    batch = 64
    engine = make_engine("four_aces", batch, num_players=4)
    engine.reset(seed=5)
    rng = np.random.default_rng(0)
    taken = np.zeros((batch, 4), dtype=np.int64)
    records = []  # (game, seat, predicted turns left, turns the seat had taken)
    while not engine.game_over.all():
        live = engine.current_player >= 0
        obs, masks = engine.observe(), engine.legal_action_mask()
        predicted = turns_left(obs)
        features = four_aces_turns_features(obs[live])
        assert features.shape == (int(live.sum()), FOUR_ACES_TURNS_SIZE)
        onehot = features[:, -MAX_TURNS:]
        np.testing.assert_array_equal(onehot.sum(axis=1), 1.0)
        np.testing.assert_array_equal(onehot.argmax(axis=1) + 1,
                                      np.clip(predicted[live], 1, MAX_TURNS))
        actions = np.zeros(batch, dtype=np.int64)
        for g in np.flatnonzero(live):
            seat = engine.current_player[g]
            records.append((g, seat, predicted[g], taken[g, seat]))
            taken[g, seat] += 1
            actions[g] = rng.choice(np.flatnonzero(masks[g]))
        engine.step(actions, active=live)
    error = np.array([p - (taken[g, s] - before) for g, s, p, before in records])
    assert error.min() == 0  # never fewer turns than the seat really gets
    assert error.max() <= 1 and (error == 0).mean() > 0.85


def test_refill_turns_features_are_the_refill_and_the_turns_columns():
    """four_aces_refill_turns = the greedy one-refill values (G6, H2) then the turns-left
    one-hot (H3), column for column; a policy can train on them."""
    from agents.four_aces.features import (
        FOUR_ACES_REFILL_TURNS_SIZE,
        MAX_TURNS,
        four_aces_refill_features,
        four_aces_refill_turns_features,
        four_aces_turns_features,
    )
    from agents.policy.features import feature_size

    engine = make_engine("four_aces", 32, num_players=5)
    engine.reset(seed=3)
    obs = engine.observe()
    both = four_aces_refill_turns_features(obs)
    assert both.shape == (32, FOUR_ACES_REFILL_TURNS_SIZE)
    assert feature_size("four_aces_refill_turns") == FOUR_ACES_REFILL_TURNS_SIZE
    np.testing.assert_array_equal(both[:, :-MAX_TURNS], four_aces_refill_features(obs))
    np.testing.assert_array_equal(both[:, -MAX_TURNS:],
                                  four_aces_turns_features(obs)[:, -MAX_TURNS:])


@pytest.mark.parametrize("variant", ["four", "two_dummy"])
def test_abracadabra_advice_is_the_heuristics_choice_of_every_decision(variant):
    """C1, D1, E1-E4, F1: the advice columns are a one-hot of the action BestHeuristic takes
    in the row, a legal one, in every phase; the columns before them are the bid features."""
    engine = make_engine("abracadabra", 64, variant=variant)
    engine.reset(seed=6)
    heuristic = agents.make("heuristic", "abracadabra")
    rng = np.random.default_rng(6)
    phases = set()
    for _, obs, masks in random_play_decisions(engine, rng):  # it reaches every phase
        features = abracadabra_advice_features(obs, masks)
        assert features.shape == (len(obs), ABRACADABRA_ADVICE_SIZE)
        np.testing.assert_array_equal(features[:, :ABRACADABRA_SIZE], abracadabra_features(obs))
        advice = features[:, ABRACADABRA_SIZE:]
        np.testing.assert_array_equal(advice.sum(axis=1), 1.0)
        chosen = advice.argmax(axis=1)
        np.testing.assert_array_equal(chosen, heuristic.act_batch(obs, masks))
        assert masks[np.arange(len(obs)), chosen].all()
        # bid 0-13, show 14-66 / stop 67, play 68-120, call 121-122 (envs/abracadabra/rules.py)
        phases.update(np.searchsorted([14, 68, 121], chosen, side="right").tolist())
    assert phases == {0, 1, 2, 3}


def test_advice_features_need_the_masks():
    """The advice reads the legal actions: without masks, or with masks of another shape,
    it is a ValueError saying what was expected."""
    engine = make_engine("abracadabra", 2, variant="four")
    engine.reset(seed=0)
    obs, masks = engine.observe(), engine.legal_action_mask()
    with pytest.raises(ValueError, match="read the legal-action masks"):
        with_features("abracadabra_advice", obs)
    with pytest.raises(ValueError, match=r"expected \[2, 123\]"):
        abracadabra_advice_features(obs, masks[:, :100])
    assert with_features("abracadabra_advice", obs, masks).shape == (
        2, obs.shape[1] + feature_size("abracadabra_advice"))
    with pytest.raises(ValueError, match="read the legal-action masks"):
        with_features("abracadabra_cards", obs)
    assert with_features("abracadabra_cards", obs, masks).shape == (
        2, obs.shape[1] + feature_size("abracadabra_cards"))


@pytest.mark.parametrize("variant", ["four", "three", "two_dummy", "two"])
def test_abracadabra_card_features_match_the_engines_state(variant):
    """E2, E3, B3, F2: the card columns of ``abracadabra_cards``, decoded from the
    observation, equal what the engine's own state and rule tables say at every decision
    of random play: a card of the acting hand wins the trick now iff its E3 strength
    (``TRICK_STRENGTH``) beats every card in the trick; the cards out above it are those
    of its effective suit (B3: the joker in the trump suit, on top) in the other hands;
    the race columns are the target minus each hand's tricks, by relative slot."""
    engine = make_engine("abracadabra", 32, variant=variant)
    engine.reset(seed=11)
    cfg = engine.config
    P, H = cfg.num_players, cfg.num_hands
    hand_at_slot, slot_of_hand = slot_tables(P, H)
    rng = np.random.default_rng(11)
    k = len(CARD_FEATURES)
    checked = won = 0
    for live, obs, masks in random_play_decisions(engine, rng):
        features = abracadabra_cards_features(obs, masks)
        np.testing.assert_array_equal(features[:, :ABRACADABRA_ADVICE_SIZE],
                                      abracadabra_advice_features(obs, masks))
        added = features[:, ABRACADABRA_ADVICE_SIZE:]
        per_card = added[:, :NUM_CARDS * k].reshape(-1, NUM_CARDS, k)
        race = added[:, NUM_CARDS * k:]
        s = engine.state
        hands = s.hands()
        for row, g in enumerate(np.flatnonzero(live)):
            seat = engine.current_player[g]
            hand = s.to_play[g] if s.to_play[g] >= 0 else seat
            trump = int(s.trump[g])
            suit = EFFECTIVE_SUIT[trump + 1]
            trick = [c for c in s.trick[g] if c >= 0]
            led = s.trick[g, s.leader[g]] if trick else -1
            strength = TRICK_STRENGTH[trump + 1, led] if trick else None
            best = max(strength[c] for c in trick) if trick else None
            others = np.zeros(NUM_CARDS, bool)
            for h in range(H):
                if h != hand:
                    others |= hands[g, h]
            for c in np.flatnonzero(hands[g, hand]):
                above = 0 if c == JOKER else int(sum(
                    1 for o in np.flatnonzero(others)
                    if suit[o] == suit[c] and (o == JOKER or RANK_OF[o] > RANK_OF[c])))
                wins = bool(trick) and strength[c] > best
                won += wins
                expected = [wins, above == 0, min(above, 13) / 13, trump >= 0 and suit[c] == trump]
                np.testing.assert_allclose(per_card[row, c], expected, atol=1e-6,
                                           err_msg=f"card {c}, game {g}")
            assert not per_card[row][~hands[g, hand]].any()
            each = cfg.cards_each
            for slot in range(4):
                if slot < H and s.target[g] >= 0:
                    need = s.target[g] - s.tricks_won[g, hand_at_slot[seat, slot]]
                    left = each - s.tricks_done[g]
                    assert race[row, slot] == pytest.approx(need / each)
                    assert race[row, 4 + slot] == (0 <= need <= left)
                else:
                    assert race[row, slot] == 0 and race[row, 4 + slot] == 0
            assert race[row, 8] == pytest.approx((each - s.tricks_done[g]) / each)
            winning = np.zeros(4)
            if trick:
                strongest = max(range(H), key=lambda h: strength[s.trick[g, h]]
                                if s.trick[g, h] >= 0 else -1)
                winning[slot_of_hand[seat, strongest]] = 1
            np.testing.assert_array_equal(race[row, 9:], winning)
            checked += 1
    assert checked > 500 and won > 50  # the play phase was reached and cards did win


def test_lookahead_features_are_the_searchs_option_values_of_the_row_alone():
    """four_aces_lookahead = four_aces_refill_turns, then the look-ahead discarder's value
    of each option placed by card (G6, H2, H3): its best legal column is the action the
    look-ahead with the same fixed draws takes; a row's values do not depend on the batch
    around it or on earlier calls (the draws restart at every row)."""
    engine = make_engine("four_aces", 48, num_players=4)
    engine.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(6):
        engine.step(np.array([rng.choice(np.flatnonzero(m))
                              for m in engine.legal_action_mask()]))
    obs, masks = engine.observe(), engine.legal_action_mask()
    features = four_aces_lookahead_features(obs)
    assert features.shape == (48, FOUR_ACES_LOOKAHEAD_SIZE)
    assert feature_size("four_aces_lookahead") == FOUR_ACES_LOOKAHEAD_SIZE
    width = FOUR_ACES_LOOKAHEAD_SIZE - (NUM_CARDS + 1)
    np.testing.assert_array_equal(features[:, :width], four_aces_refill_turns_features(obs))

    again = four_aces_lookahead_features(obs[::-1][:20])  # other rows around, a later call
    np.testing.assert_array_equal(again, features[::-1][:20])

    searched = features[:, width:]  # column c: discard card c; the last: turn up (DRAW)
    values = np.full(masks.shape, -np.inf)
    hand = FourAcesView(obs).hand
    rows, slots = np.nonzero(hand >= 0)
    values[rows, hand[rows, slots]] = searched[rows, hand[rows, slots]]
    values[:, DRAW] = searched[:, NUM_CARDS]
    chosen = np.where(masks, values, -np.inf).argmax(axis=1)
    look = LookaheadDiscarder("four_aces", seed=0, samples=LOOKAHEAD_SAMPLES,
                              inner=LOOKAHEAD_INNER, fixed_draws=True)
    unique = np.sort(values, axis=1)[:, -1] > np.sort(values, axis=1)[:, -2]  # no tie
    assert unique.mean() > 0.9
    np.testing.assert_array_equal(chosen[unique], look.act_batch(obs, masks)[unique])
