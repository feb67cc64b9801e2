"""Invariants the fast engine paths rely on (bit sets, combined hash draws, caches)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.engine import _DEALER_COUNTER, CARD_BIT
from envs.abracadabra.observation import unpack_cards
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
    assert (engine._dealer == np.minimum((u * P).astype(int), P - 1)).all()
    rng = np.random.default_rng(0)
    seen_deals = 0
    for _ in range(300):  # later deals of the match come from shuffled() too
        fresh = (engine._num_bids == 0) & ~engine.game_over
        cards = shuffled(keys, engine._deal_index, engine.deck)
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
    hands = engine._hands
    assert hands.shape == (3, 3, 53) and (hands.sum(axis=2) == engine.cards_each).all()
    with pytest.raises(ValueError):
        hands[0, 0, 0] = True  # read-only: the bit sets are the state
    assert set(engine.snapshot()) >= {"_hands", "_played", "_shown", "_hand_bits"}


def test_legal_action_mask_is_a_fresh_copy_of_the_cached_mask():
    engine = AbracadabraEngine(AbracadabraConfig(), 2)
    engine.reset(seed=0)
    mask = engine.legal_action_mask()
    mask[:] = False
    assert engine.legal_action_mask().any(axis=1).all()
