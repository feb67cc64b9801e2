"""Four Aces engine hot path: the vectorised observation against a plain per-game
reference, the G2 dealer shortcut against the full shuffled draw, and copies of an engine
staying consistent (its flat views are made on use)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from envs.cards import JOKER, NUM_CARDS
from envs.core import shuffled
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import ACE_OF_SPADES, DECK_SIZE, FULL_DECK, LAYOUT, FourAcesEngine


def reference_observation(e: FourAcesEngine, game: int, seat: int) -> np.ndarray:
    """The observation of one game for one seat, written out per slot (build_layout)."""
    P = e.num_players
    seg = LAYOUT.segments
    out = np.zeros(LAYOUT.size, dtype=np.float64)
    out[seg["num_players"].start + P - 3] = 1
    out[seg["hand"].slice] = e.hand[game, seat]
    for r in range(P):
        other = (seat + r) % P
        start = seg["tables"].start + r * NUM_CARDS
        out[start : start + NUM_CARDS] = e.table[game, other]
        out[seg["hand_sizes"].start + r] = e.hand_size[game, other] / 5
        out[seg["hand_limits"].start + r] = e.hand_limit[game, other] / 5
        out[seg["scores"].start + r] = e.totals[game, other] / e.config.target_points
    out[seg["discard_pile"].slice] = e.discard_counts[game]
    if e.discard_size[game]:
        out[seg["last_discard"].start + int(e.discard[game, e.discard_size[game] - 1])] = 1
    out[seg["stock_size"].start] = (DECK_SIZE - e.stock_top[game]) / DECK_SIZE
    jokers = e.hand[game, seat, JOKER] + e.table[game, :, JOKER].sum()
    out[seg["jokers_seen"].start] = (jokers + e.discard_counts[game, JOKER]) / 2
    out[seg["dealer"].start + (int(e.dealer[game]) - seat) % P] = 1
    out[seg["round_number"].start] = e.rounds_played[game] / e.config.round_limit
    return out.astype(np.float32)


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_observation_matches_per_game_reference(num_players):
    e = FourAcesEngine(FourAcesConfig(num_players=num_players, episode="match"), 16)
    e.reset(seed=num_players)
    rng = np.random.default_rng(num_players)
    for step in range(120):
        seats = rng.integers(0, num_players, 16)
        for obs, who in ((e.observe(), np.maximum(e.current_player, 0)), (e.observe(seats), seats)):
            for g in range(0, 16, 3):
                assert np.array_equal(obs[g], reference_observation(e, g, int(who[g]))), step
        mask = e.legal_action_mask()
        scores = np.where(mask, rng.random(mask.shape), -1.0)
        e.step(scores.argmax(axis=1))
        if e.game_over.any():
            e.reset(games=e.game_over)


def test_dealer_draw_and_deal_equal_the_shuffled_decks():
    """G2/G3: the dealer is found without sorting; it must be where the full shuffled draw
    ``shuffled(key, 2r, deck)`` shows the ace of spades (seat 0 draws first), and the deal
    must be ``shuffled(key, 2r + 1, deck)`` (envs.core)."""
    for num_players in (3, 4, 5):
        e = FourAcesEngine(FourAcesConfig(num_players=num_players), 200)
        e.reset(seed=11)
        draw = shuffled(e.keys, np.zeros(200, dtype=np.int64), FULL_DECK)
        position = np.argmax(draw == ACE_OF_SPADES, axis=1)
        assert np.array_equal(e.dealer, position % num_players)
        assert np.array_equal(e.deck, shuffled(e.keys, np.ones(200, dtype=np.int64), FULL_DECK))


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_copies_of_an_engine_are_independent_and_consistent(clone):
    e = FourAcesEngine(FourAcesConfig(num_players=4), 4)
    e.reset(seed=2)
    other = clone(e)
    seat = int(other.current_player[0])
    card = int(np.flatnonzero(other.hand[0, seat, :JOKER])[0])
    other.hand[0, seat, card] -= 1  # edit the copy's public state directly
    other.hand[0, seat, JOKER] += 1
    assert not other.legal_action_mask()[0, card] and other.legal_action_mask()[0, JOKER]
    assert other.observe()[0, LAYOUT.segments["hand"].start + JOKER] >= 1
    assert e.legal_action_mask()[0, card]  # the original is untouched
    actions = np.full(4, 53)  # draw everywhere: both engines step alike elsewhere
    e.step(actions)
    other.step(actions)
    assert np.array_equal(e.observe()[1:], other.observe()[1:])
