"""The compiled greedy discarder (:mod:`agents.four_aces.greedy_kernel`) gives the same
option values as the reference numpy version, float for float.

The reference (``tests/helpers/four_aces_heuristics_reference.py``) is the greedy
discarder as it was before its fast forms; the committed tournament results depend on its
choices, so every value of every row is compared exactly: the discards of the hand slots
(H2 a, G6; 0 for empty slots) and the turn-up (H2 b, G7), on thousands of positions of
random and heuristic play of each player count, with the rarer kinds (jokers in the hand,
five slots, seven or eight scoring cards, few unseen cards) counted, with and without the
table of small sets (K2/K3 scores by lookup or by the engine's scorer).
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.four_aces import greedy_kernel, set_scores
from agents.four_aces import lookahead_kernel as kernel
from agents.four_aces.view import FourAcesView
from envs.cards import NUM_CARDS
from envs.four_aces.rules import MAX_HAND
from envs.four_aces.scoring import score_cards
from tests.agents.test_heuristics_fast import _rare_rows, _shrink_unseen, positions
from tests.helpers import four_aces_heuristics_reference as fa_ref


@pytest.fixture(scope="module")
def score_table():
    return set_scores.score_table()


def _kernel_values(view: FourAcesView, by_set: np.ndarray) -> np.ndarray:
    """:func:`greedy_kernel.option_values` of ``view`` with the table ``by_set`` (empty:
    every set scored by its options)."""
    return greedy_kernel.option_values(
        np.ascontiguousarray(view.hand, dtype=np.int64),
        np.ascontiguousarray(view.table, dtype=np.int64),
        np.ascontiguousarray(view.pool, dtype=np.int64),
        np.ascontiguousarray(view.aces_out, dtype=np.int64),
        np.ascontiguousarray(view.joker_chance, dtype=np.float64),
        20.0,
        kernel.score_tables(by_set),
    )


def _reference_values(obs: np.ndarray) -> np.ndarray:
    return fa_ref.GreedyDiscarder("four_aces").option_values(fa_ref.FourAcesView(obs))


@pytest.mark.parametrize("num_players", (3, 4, 5))
def test_greedy_option_values_equal_the_reference(score_table, num_players):
    """H2/G6/G7: 3,000 positions of heuristic play and 1,000 of random play, plus 500
    with all but 0 to 4 unseen cards moved to the discard pile: every option value is the
    reference's, through the agent (the table of small sets) and without the table."""
    heuristic, _ = positions("four_aces", 3000, 80 + num_players, "heuristic",
                             num_players=num_players)
    random, _ = positions("four_aces", 1000, 90 + num_players, "random",
                          num_players=num_players)
    few = np.concatenate([_shrink_unseen(heuristic[i : i + 1], i % 5) for i in range(500)])
    obs = np.concatenate([heuristic, random, few])
    view = FourAcesView(obs)
    rare = _rare_rows(view)
    assert all(mask.sum() >= 5 for mask in rare.values()), {k: int(v.sum())
                                                           for k, v in rare.items()}
    expected = _reference_values(obs)
    values = agents.make("greedy", "four_aces").option_values(view)
    assert values.shape == (len(obs), MAX_HAND + 1)
    np.testing.assert_array_equal(values, expected)
    np.testing.assert_array_equal(_kernel_values(view, np.zeros(0, np.int8)), expected)


def test_greedy_option_values_do_not_depend_on_the_batch(score_table):
    """Each row is worked out alone: one row at a time gives the batch's values."""
    obs, _ = positions("four_aces", 64, 7, "heuristic", num_players=4)
    greedy = agents.make("greedy", "four_aces")
    whole = greedy.option_values(FourAcesView(obs))
    for r in range(0, len(obs), 9):
        np.testing.assert_array_equal(greedy.option_values(FourAcesView(obs[r : r + 1]))[0],
                                      whole[r])


def test_greedy_values_of_a_hand_made_row(score_table):
    """K2/G6: a pair of fives kept with three unseen cards, a five among them; no joker
    unseen, so turning up is worth the hand kept (H2 b)."""
    hand = np.array([[3, 16, 40, -1, -1]], np.int64)  # 5C 5D 2S (rank 3, 3, 1)
    table = np.full((1, 3), -1, np.int64)
    pool = np.zeros((1, NUM_CARDS), np.int64)
    pool[0, [29, 42, 50]] = 1  # 5H, 5S, KS
    args = (hand, table, pool, np.zeros(1, np.int64), np.zeros(1))
    values = greedy_kernel.option_values(*args, 20.0, kernel.score_tables(score_table))

    def score(cards):
        return float(score_cards(cards))

    keep = score([3, 16, 40])
    assert values[0, MAX_HAND] == keep
    expected_2s = sum(score([3, 16, c]) / 3 for c in (29, 42, 50))
    assert values[0, 2] == pytest.approx(expected_2s)
    np.testing.assert_array_equal(values[0, 3:MAX_HAND], 0.0)  # empty slots
    # nothing unseen: every discard is worth 0, turning up the hand kept
    pool[:] = 0
    values = greedy_kernel.option_values(hand, table, pool, *args[3:], 20.0,
                                         kernel.score_tables(score_table))
    np.testing.assert_array_equal(values[0], [0, 0, 0, 0, 0, keep])
