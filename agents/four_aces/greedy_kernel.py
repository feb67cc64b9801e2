"""Compiled kernels of the Four Aces greedy discarder (numba, one row at a time).

:class:`agents.four_aces.heuristics.GreedyDiscarder` values each option of a decision
exactly, one step deep (see that module's doc): discarding a hand slot's card is worth the
mean, over one uniform refill from the unseen cards (G6), of the own set (hand + own
table, K1) with that card replaced by the refill (H2 a); turning up keeps the hand (H2 b),
plus the chance that the card turned up is a joker, which adds a slot and so one more
card (G7). A set's value is its K2/K3 strict score, or the match with all four aces
(H4/K1), plus the premium for kept aces (:data:`~agents.four_aces.lookahead_kernel.ACE_PREMIUM`).

It hands its batch here as plain arrays; each row is worked out by loops compiled once
(``cache=True``), one function per step, on the functions of
:mod:`agents.four_aces.lookahead_kernel` (the workspace, the sets, their values):

1. :func:`list_unseen_cards` — the cards a refill can bring and their weights
   (``pool / max(pool.sum(), 1)``, G6);
2. :func:`discard_values` — each discard's value: the own set with the slot's card
   replaced by each unseen card (:func:`~agents.four_aces.lookahead_kernel.replace_one_values`),
   times that card's weight, summed (H2 a);
3. :func:`turn_up_value` — the hand kept, raised by the joker chance times what one more
   card adds (H2 b, G7; scored without the ace premium);
4. :func:`option_values` — the batch.

The values are the same floats as the numpy computation this replaced: the products of
value and weight are formed first, zeros for the cards that are not unseen, and the 53 of
a row are summed in numpy's pairwise order
(:func:`~agents.four_aces.lookahead_kernel.numpy_sum`), so choices that hang on near-ties
do not change. Inputs are C-contiguous int64 and float64 arrays, so one signature of each
kernel is compiled.
"""

from __future__ import annotations

import numba
import numpy as np

from agents.four_aces.lookahead_kernel import (
    ScoreTables,
    Workspace,
    card_bit,
    numpy_sum,
    replace_one_values,
    set_values,
    workspace,
)
from agents.four_aces.set_scores import ACE_BITS
from envs.cards import NUM_CARDS
from envs.compiled import popcount
from envs.four_aces.rules import MAX_HAND


@numba.njit(cache=True)
def list_unseen_cards(pool: np.ndarray, weights: np.ndarray, w: Workspace) -> int:
    """List in ``w.cards`` the unseen cards of one row (``pool`` [53] > 0), in increasing
    order, and set ``weights`` [53] to each card's chance to be the refill:
    ``pool / max(pool.sum(), 1)`` (G6; 0 for the others). Returns how many are listed."""
    total = 0
    for c in range(NUM_CARDS):
        total += pool[c]
    total = max(total, 1)
    count = 0
    for c in range(NUM_CARDS):
        weights[c] = pool[c] / total
        if pool[c] > 0:
            w.cards[count] = c
            count += 1
    return count


@numba.njit(cache=True)
def discard_values(hand: np.ndarray, pool: np.ndarray, weights: np.ndarray,
                   out: np.ndarray, w: Workspace, products: np.ndarray) -> None:
    """``out[j]`` for each slot j of ``hand``: with a card, the sum over the 53 card
    indices c of ``w.one[j, c] * weights[c]`` (``w.one`` from
    :func:`~agents.four_aces.lookahead_kernel.replace_one_values`), 0 for the cards that
    are not unseen, in numpy's pairwise order; 0 for a slot without a card (H2 a, G6).
    ``products`` [53] is scratch."""
    for j in range(MAX_HAND):
        if hand[j] < 0:
            out[j] = 0.0
            continue
        for c in range(NUM_CARDS):
            products[c] = w.one[j, c] * weights[c] if pool[c] > 0 else 0.0
        out[j] = numpy_sum(products, 0, NUM_CARDS)


@numba.njit(cache=True)
def turn_up_value(own: int, kept: float, n_cards: int, weights: np.ndarray,
                  joker_chance: float, four_aces_value: float, t: ScoreTables,
                  w: Workspace, products: np.ndarray) -> float:
    """The value of turning up (H2 b): the hand ``kept`` (the own set's value), plus
    ``joker_chance`` times what a joker would add (G7: a slot more, so one more card of
    the unseen ones ``w.cards[:n_cards]``): the mean value of the own set with that card
    (the score or the four-aces value, H4/K1, without the ace premium) less ``kept``,
    when positive. The mean is summed as :func:`discard_values` sums; it is 0 (nothing
    scored) when ``joker_chance`` is 0."""
    for c in range(NUM_CARDS):
        products[c] = 0.0
    if joker_chance > 0:
        own_aces = popcount(own & ACE_BITS)
        for i in range(n_cards):
            drawn = card_bit(w.cards[i])
            w.bits[i] = own | drawn
            w.aces[i] = own_aces + popcount(drawn & ACE_BITS)
        # no ace unseen: the premium is 0 for every count of aces (ACE_PREMIUM[:, 0])
        set_values(n_cards, 0, four_aces_value, t, w)
        for i in range(n_cards):
            c = w.cards[i]
            products[c] = w.values[i] * weights[c]
    with_joker = numpy_sum(products, 0, NUM_CARDS)
    return kept + joker_chance * max(with_joker - kept, 0.0)


@numba.njit(cache=True)
def option_values(hand: np.ndarray, table: np.ndarray, pool: np.ndarray,
                  aces_out: np.ndarray, joker_chance: np.ndarray, four_aces_value: float,
                  t: ScoreTables) -> np.ndarray:
    """float64 [N, MAX_HAND + 1]: per row the value of discarding each hand slot's card
    (:func:`discard_values`; 0 for a slot without one), then of turning up
    (:func:`turn_up_value`).

    ``hand`` [N, MAX_HAND] and ``table`` [N, 3]: card indices (jokers 52, -1 padded);
    ``pool`` [N, 53]: the unseen cards a refill can bring (counts, 0 for the joker);
    ``aces_out`` [N]: aces unseen; ``joker_chance`` [N]: the share of jokers among the
    unseen cards; ``t``: :func:`~agents.four_aces.lookahead_kernel.score_tables`."""
    n = hand.shape[0]
    if hand.shape[1] != MAX_HAND or pool.shape[1] != NUM_CARDS:
        raise ValueError("option_values: expected hand [N, MAX_HAND] and pool [N, 53]")
    out = np.empty((n, MAX_HAND + 1))
    w = workspace(1, 1)
    weights = np.empty(NUM_CARDS)
    products = np.empty(NUM_CARDS)
    for r in range(n):
        own = np.int64(0)  # (not the literal 0: one signature of each callee)
        for i in range(MAX_HAND):
            own |= card_bit(hand[r, i])
        for i in range(table.shape[1]):
            own |= card_bit(table[r, i])
        n_cards = list_unseen_cards(pool[r], weights, w)
        kept = replace_one_values(hand[r], own, n_cards, aces_out[r], four_aces_value, t, w)
        discard_values(hand[r], pool[r], weights, out[r], w, products)
        out[r, MAX_HAND] = turn_up_value(own, kept, n_cards, weights, joker_chance[r],
                                         four_aces_value, t, w, products)
    return out
