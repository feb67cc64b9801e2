"""Four Aces engine hot paths against plain references: the observation (the compiled
kernel of envs.four_aces.kernels, for a batch of one and of many) against a per-game
observation, a batch of one against game 0 of a larger batch (step, mask, observation,
every state field), the G2 dealer shortcut against the full shuffled draw, and copies of
an engine staying consistent (its flat views are made on use)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from envs.cards import JOKER, NUM_CARDS
from envs.core import shuffled
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.observation import LAYOUT
from envs.four_aces.rules import ACE_OF_SPADES, DECK_SIZE, FULL_DECK


def reference_observation(e: FourAcesEngine, game: int, seat: int) -> np.ndarray:
    """The observation of one game for one seat, written out per slot (build_layout)."""
    P = e.num_players
    st = e.state
    seg = LAYOUT.segments
    out = np.zeros(LAYOUT.size, dtype=np.float64)
    out[seg["num_players"].start + P - 3] = 1
    out[seg["hand"].slice] = st.hand[game, seat]
    for r in range(P):
        other = (seat + r) % P
        start = seg["tables"].start + r * NUM_CARDS
        out[start : start + NUM_CARDS] = st.table[game, other]
        out[seg["hand_sizes"].start + r] = st.hand_size[game, other] / 5
        out[seg["hand_limits"].start + r] = st.hand_limit[game, other] / 5
        out[seg["scores"].start + r] = st.totals[game, other] / e.config.target_points
    out[seg["discard_pile"].slice] = st.discard_counts[game]
    if st.discard_size[game]:
        out[seg["last_discard"].start + int(st.discard[game, st.discard_size[game] - 1])] = 1
    out[seg["stock_size"].start] = (DECK_SIZE - st.stock_top[game]) / DECK_SIZE
    jokers = st.hand[game, seat, JOKER] + st.table[game, :, JOKER].sum()
    out[seg["jokers_seen"].start] = (jokers + st.discard_counts[game, JOKER]) / 2
    out[seg["dealer"].start + (int(st.dealer[game]) - seat) % P] = 1
    out[seg["round_number"].start] = st.rounds_played[game] / e.config.round_limit
    return out.astype(np.float32)


@pytest.mark.parametrize("num_players", [3, 4, 5])
@pytest.mark.parametrize("batch_size", [1, 16])
def test_observation_matches_per_game_reference(num_players, batch_size):
    """Batch 16 and batch 1 (``observe`` and ``observe_one``) against the reference."""
    B = batch_size
    e = FourAcesEngine(FourAcesConfig(num_players=num_players, episode="match"), B)
    e.reset(seed=num_players)
    rng = np.random.default_rng(num_players)
    one = np.empty(LAYOUT.size, np.float32)
    for step in range(120 if B > 1 else 600):
        seats = rng.integers(0, num_players, B)
        for obs, who in ((e.observe(), np.maximum(e.current_player, 0)), (e.observe(seats), seats)):
            for g in range(0, B, 3):
                assert np.array_equal(obs[g], reference_observation(e, g, int(who[g]))), step
        if B == 1:
            e.observe_one(int(seats[0]), one)
            assert np.array_equal(one, reference_observation(e, 0, int(seats[0]))), step
        mask = e.legal_action_mask()
        scores = np.where(mask, rng.random(mask.shape), -1.0)
        e.step(scores.argmax(axis=1))
        if e.game_over.any():
            e.reset(games=e.game_over)


@pytest.mark.parametrize("options", [
    dict(num_players=p, episode=ep, reward=r, dealer=d)
    for p in (3, 5) for ep, r, d in (("round", "points", "ace_of_spades"),
                                     ("match", "win", "rotate"),
                                     ("match", "relative", "ace_of_spades"))])
def test_batch_of_one_equals_game_zero_of_a_batch(options):
    """A batch of one leaves every state field and gives every output (step, mask,
    observation, result) exactly as game 0 of a batch of three does."""
    cfg = FourAcesConfig(**options)
    one, many = FourAcesEngine(cfg, 1), FourAcesEngine(cfg, 3)
    one.reset(game_seeds=[7])
    many.reset(game_seeds=[7, 8, 9])
    rng = np.random.default_rng(1)
    for _ in range(800):
        mask = one.legal_action_mask()
        assert np.array_equal(mask, many.legal_action_mask()[:1])
        for seat in range(cfg.num_players):
            assert np.array_equal(one.observe(np.array([seat])),
                                  many.observe(np.full(3, seat))[:1])
        actions = np.where(many.game_over, 0, many.legal_action_mask().argmax(axis=1))
        actions[0] = rng.choice(np.flatnonzero(mask[0])) if mask[0].any() else 0  # (H4 dealt)
        assert np.array_equal(one.step(actions[:1]), many.step(actions)[:1])
        for name, value in one.state.arrays().items():
            assert np.array_equal(value, getattr(many.state, name)[:1]), name
        assert one.result(0) == many.result(0)
        if one.game_over[0]:
            one.reset(games=np.ones(1, bool), game_seeds=[int(rng.integers(1 << 40))])
            many.reset(games=np.array([True, False, False]), game_seeds=one.state.keys)
        if many.game_over[1:].any():
            many.reset(games=np.r_[False, many.game_over[1:]])


def test_dealer_draw_and_deal_equal_the_shuffled_decks():
    """G2/G3: the dealer is found without sorting; it must be where the full shuffled draw
    ``shuffled(key, 2r, deck)`` shows the ace of spades (seat 0 draws first), and the deal
    must be ``shuffled(key, 2r + 1, deck)`` (envs.core)."""
    for num_players in (3, 4, 5):
        e = FourAcesEngine(FourAcesConfig(num_players=num_players), 200)
        e.reset(seed=11)
        draw = shuffled(e.state.keys, np.zeros(200, dtype=np.int64), FULL_DECK)
        position = np.argmax(draw == ACE_OF_SPADES, axis=1)
        assert np.array_equal(e.state.dealer, position % num_players)
        deal = shuffled(e.state.keys, np.ones(200, dtype=np.int64), FULL_DECK)
        assert np.array_equal(e.state.deal_order, deal)


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_copies_of_an_engine_are_independent_and_consistent(clone):
    e = FourAcesEngine(FourAcesConfig(num_players=4), 4)
    e.reset(seed=2)
    other = clone(e)
    seat = int(other.current_player[0])
    card = int(np.flatnonzero(other.state.hand[0, seat, :JOKER])[0])
    other.state.hand[0, seat, card] -= 1  # edit the copy's public state directly
    other.state.hand[0, seat, JOKER] += 1
    assert not other.legal_action_mask()[0, card] and other.legal_action_mask()[0, JOKER]
    assert other.observe()[0, LAYOUT.segments["hand"].start + JOKER] >= 1
    assert e.legal_action_mask()[0, card]  # the original is untouched
    actions = np.full(4, 53)  # draw everywhere: both engines step alike elsewhere
    e.step(actions)
    other.step(actions)
    assert np.array_equal(e.observe()[1:], other.observe()[1:])
