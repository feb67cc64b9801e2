"""The fast engine paths equal the plain ones: bit sets, combined hash draws, the fresh
mask, and a batch of one against game 0 of a larger batch, field for field of the state
(one compiled code path serves both: envs/abracadabra/kernels.py)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents.base import sample_legal
from envs.abracadabra import AbracadabraConfig, AbracadabraEngine, AbracadabraState
from envs.abracadabra.engine import _DEALER_COUNTER
from envs.abracadabra.rules import CARD_BIT
from envs.abracadabra.state import unpack_cards
from envs.core import hashed_uniform, shuffled


@pytest.mark.parametrize("variant", ["four", "three", "two_dummy", "two"])
def test_deals_and_first_dealer_are_the_documented_functions_of_the_key(variant):
    """reset draws the dealer and the first shuffle in one hash call: same as separately."""
    cfg = AbracadabraConfig(variant=variant, episode="match", target_points=15)
    keys = np.array([3, 99, 2**40 + 7, 2**62 + 1], dtype=np.uint64)
    engine = AbracadabraEngine(cfg, len(keys))
    engine.reset(game_seeds=keys)
    H, E, P = engine.num_hands, engine.cards_each, engine.num_players
    u = hashed_uniform(keys, np.full(len(keys), _DEALER_COUNTER), 1)[:, 0]
    assert (engine.state.dealer == np.minimum((u * P).astype(int), P - 1)).all()
    assert (engine.state.key == keys).all()
    rng = np.random.default_rng(0)
    seen_deals = 0
    for _ in range(300):  # later deals of the match come from shuffled() too
        fresh = (engine.state.num_bids == 0) & ~engine.game_over
        cards = shuffled(keys, engine.state.deal_index, engine.deck)
        for g in np.flatnonzero(fresh):
            for h in range(H):
                assert engine.hand_cards(g, h) == sorted(cards[g, h * E : (h + 1) * E])
            seen_deals += 1
        mask = engine.legal_action_mask()
        engine.step(np.argmax(rng.random(mask.shape) * mask, axis=1))
    assert seen_deals > len(keys)


def test_card_bit_sets_and_their_bool_views():
    assert CARD_BIT.dtype == np.uint64 and int(CARD_BIT[52]) == 1 << 52
    sets = np.array([0, 1, 2**52, 2**53 - 1], dtype=np.uint64)
    bools = unpack_cards(sets)
    assert bools.shape == (4, 53) and bools.dtype == bool
    assert bools.sum(axis=1).tolist() == [0, 1, 1, 53] and bools[2, 52] and bools[1, 0]
    assert unpack_cards(np.uint64(2**5)).nonzero()[0].tolist() == [5]

    engine = AbracadabraEngine(AbracadabraConfig(variant="two_dummy"), 3)
    engine.reset(seed=2)
    hands = engine.state.hands()
    assert hands.shape == (3, 3, 53) and (hands.sum(axis=2) == engine.cards_each).all()
    with pytest.raises(ValueError):
        hands[0, 0, 0] = True  # read-only: the bit sets are the state
    assert set(engine.snapshot()) >= {"hands", "played", "shown", "hand_bits"}


def test_state_fields_have_a_leading_batch_axis_and_the_driver_api_reads_them():
    B, cfg = 3, AbracadabraConfig(variant="two_dummy")
    engine = AbracadabraEngine(cfg, B)
    state = engine.state
    assert isinstance(state, AbracadabraState)
    for field in dataclasses.fields(state):
        array = getattr(state, field.name)
        assert isinstance(array, np.ndarray) and array.shape[0] == B, field.name
    for name in ("current_player", "game_over", "deal_over", "totals", "winners", "pot",
                 "last_points", "last_chips"):
        assert getattr(engine, name) is getattr(state, name), name
        with pytest.raises(AttributeError):
            setattr(engine, name, getattr(state, name))


def test_legal_action_mask_is_a_fresh_array_every_call():
    engine = AbracadabraEngine(AbracadabraConfig(), 2)
    engine.reset(seed=0)
    mask = engine.legal_action_mask()
    mask[:] = False
    assert engine.legal_action_mask().any(axis=1).all()


@pytest.mark.parametrize("options", [
    dict(variant=v, episode=ep, call_mode=c)
    for v in ("four", "three", "two_dummy", "two")
    for ep, c in (("deal", "manual"), ("match", "manual"), ("deal", "auto"))])
def test_a_batch_of_one_equals_game_0_of_a_batch_field_for_field(options):
    """Game 0 of a batch of one stays identical, in every state field, to game 0 of a
    batch of three given the same key and actions; observations from every seat and the
    masks agree too. (The engine's single-game fast paths that this test once checked are
    gone: a batch of one runs the same compiled kernels as any batch.)"""
    cfg = AbracadabraConfig(**options)
    one, many = AbracadabraEngine(cfg, 1), AbracadabraEngine(cfg, 3)
    one.reset(game_seeds=[11])
    many.reset(game_seeds=[11, 22, 33])
    rng = np.random.default_rng(3)
    row = np.empty(one.observation_size, np.float32)
    resets = 0
    for _ in range(800):
        mask = one.legal_action_mask()
        assert np.array_equal(mask, many.legal_action_mask()[:1])
        for seat in range(one.num_players):
            one.observe_one(seat, row)
            assert np.array_equal(row, many.observe(np.full(3, seat))[0])
        actions = sample_legal(rng, np.where(many.game_over[:, None], True,
                                             many.legal_action_mask()))
        actions[0] = sample_legal(rng, mask)[0]
        assert np.array_equal(one.step(actions[:1]), many.step(actions)[:1])
        for name, value in one.state.arrays().items():
            assert np.array_equal(value, getattr(many.state, name)[:1]), name
        if one.game_over[0]:
            resets += 1
            one.reset(games=np.ones(1, bool), game_seeds=[100 + resets])
            many.reset(games=np.array([True, False, False]), game_seeds=[100 + resets])
        if many.game_over[1:].any():
            many.reset(games=np.r_[False, many.game_over[1:]])
    assert resets > 0 or options["episode"] == "match"
