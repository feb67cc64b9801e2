"""One K2/K3 scorer: :func:`envs.four_aces.scoring.score_set` against a brute-force
reading of the rules (docs/rules.md K1–K3), directly and through every compiled caller.

The brute force reads the rules as written: K2 lists the combinations and their points
(by rank, by suit, suited runs; 2 to 5 cards, each card in at most one), K3 takes the best
total over every way to split the scoring cards into combinations and loose cards
(``strict``: no two loose cards share a rank or a suit; ``free``: loose cards
unrestricted). It tries every split. The callers checked are the engine's round end (a
round played to its end, K1–K4), the heuristics' set values (table lookups and the
scorer itself, with the lone suits set apart) and the ``greedy_known`` rollout's set
value (H4/K1: all four aces are the match).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from agents.four_aces import lookahead_kernel, set_scores
from agents.search.four_aces_kernel import set_value
from envs.cards import JOKER, NUM_RANKS
from envs.core import sample_uniform_legal
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.scoring import MAX_CARDS, score_set, scorer_tables
from envs.fuzz.four_aces_scoring import brute_force


def random_hands(seed: int, count: int) -> list[list[int]]:
    """Scoring cards of a hand and table (K1, at most 8 of them): random, and dense ones
    of few ranks and suits (many pairs, suits and runs)."""
    rng = np.random.default_rng(seed)
    hands = [list(rng.choice(52, size=int(rng.integers(0, 9)), replace=False))
             for _ in range(count)]
    for _ in range(count // 2):
        ranks = rng.choice(NUM_RANKS, size=3, replace=False)
        low = int(rng.integers(0, NUM_RANKS - 4))
        pool = sorted({s * NUM_RANKS + r for s in range(4) for r in ranks}
                      | {int(rng.integers(4)) * NUM_RANKS + r for r in range(low, low + 5)})
        hands.append(list(rng.choice(pool, size=int(rng.integers(2, 9)), replace=False)))
    return [[int(c) for c in h] for h in hands]


def to_bits(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


@numba.njit
def _score_sets(bits, scorer):
    out = np.empty(len(bits), dtype=np.int64)
    slots = np.empty(MAX_CARDS, dtype=np.int64)
    for i in range(len(bits)):
        out[i] = score_set(bits[i], scorer, slots)
    return out


@pytest.mark.parametrize("scoring", ["strict", "free"])
def test_the_scorer_is_the_brute_force_reading_of_k2_k3(scoring):
    """K2/K3 on random and dense hands: score_set, score_presence's and score_cards' one
    scorer, equals the best split over every split."""
    hands = random_hands(38 + (scoring == "free"), 300)
    bits = np.array([to_bits(h) for h in hands], dtype=np.int64)
    got = _score_sets(bits, scorer_tables(scoring))
    for hand, score in zip(hands, got, strict=True):
        assert score == brute_force(hand, scoring == "strict"), hand
    if scoring == "free":
        assert got.min() >= 0  # K3 free: never below 0


@pytest.mark.parametrize("scoring", ["strict", "free"])
def test_the_engine_scores_a_round_by_the_brute_force_reading(scoring):
    """K1–K3 at the round's end (H3): every seat's points are the brute-force score of
    his scoring cards, the non-joker cards of his hand and table (K1), unless someone
    holds four aces (H4/K1)."""
    engine = FourAcesEngine(FourAcesConfig(num_players=4, scoring=scoring), batch_size=24)
    engine.reset(seed=38)
    rng = np.random.default_rng(38)
    while not engine.game_over.all():
        live = ~engine.game_over
        actions = np.zeros(engine.batch_size, np.int64)
        actions[live] = sample_uniform_legal(rng, engine.legal_action_mask()[live])
        engine.step(actions, live)
    st = engine.state
    for g in np.flatnonzero(st.four_aces_winner < 0):
        for seat in range(engine.num_players):
            cards = np.flatnonzero(st.hand[g, seat, :JOKER] + st.table[g, seat, :JOKER])
            assert engine.last_points[g, seat] == brute_force(cards.tolist(),
                                                              scoring == "strict")


@numba.njit
def _set_values(bits, t):
    w = lookahead_kernel.workspace(10, 10)  # room for 1 000 sets
    for i in range(len(bits)):
        w.bits[i] = bits[i]
        w.aces[i] = 0
    lookahead_kernel.set_values(len(bits), 0, 20.0, t, w)
    return w.values[:len(bits)].copy()


@pytest.mark.parametrize("with_table", [False, True])
def test_the_heuristics_set_values_are_the_brute_force_scores(with_table):
    """K2/K3 strict through the heuristics' set values: a lookup in the table of small
    sets (built by the scorer) or the scorer, after the lone suits are set apart."""
    hands = random_hands(40 + with_table, 300)
    bits = np.array([to_bits(h) for h in hands], dtype=np.int64)
    table = set_scores.score_table() if with_table else np.zeros(0, np.int8)
    values = _set_values(bits, lookahead_kernel.score_tables(table))
    for hand, value in zip(hands, values, strict=True):  # (no aces counted: no premium)
        assert value == brute_force(hand, True), hand


def test_greedy_known_values_sets_by_the_scorer():
    """The greedy_known rollout's set value: the K2/K3 score, or the match
    (``target_points``) with all four aces among the scoring cards (H4/K1)."""
    scorer = scorer_tables("strict")
    slots = np.empty(MAX_CARDS, np.int64)
    for hand in random_hands(42, 100):
        assert set_value(to_bits(hand), 20.0, scorer, slots) == brute_force(hand, True)
    aces = [s * NUM_RANKS + NUM_RANKS - 1 for s in range(4)]
    assert set_value(to_bits(aces + [0, 14]), 20.0, scorer, slots) == 20.0
