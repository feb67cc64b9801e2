"""Four Aces heuristics: a greedy and a look-ahead discarder (RULES.md G–K).

Both value a set of scoring cards (own hand + own table, K1) by its K2/K3 score, except
that all four aces are worth the match (H4/K1: scored as ``target_points``, 20 by
default), and both add a small premium for kept aces while the missing ones are still out
(two aces +0.3, three aces +1.5) — an ace is never thrown away lightly.

``greedy``
    For each card in the hand: the exact expected value of the hand after discarding it
    and refilling one card from the unseen cards (deck minus own hand, every table and
    the discard pile; the refill is a uniform draw from them, G6), versus turning up the
    stock card (H2 b), which keeps the hand (plus the chance that a joker raises L, G7).
    Takes the best. One step deep: it values the open slot by what one draw brings.

``lookahead`` (alias ``heuristic``)
    A two-step expectimax on sampled cards: for each option it draws ``samples`` refills
    (common random numbers across options) and, when the player will have another turn
    before the stock runs out (H3), assumes he then plays the best of {keep, each
    discard} judged on ``inner`` further sampled refills. So it sees that a card which
    makes a pair now may block a run that the next draw completes.

Both work on whole batches: every card set they value differs from the player's hand and
table by one or two cards, so it is built as a 52-bit mask from the row's own set and
scored by table lookup (:mod:`agents.four_aces.set_scores`). The greedy discarder takes
its averages over draws on arrays of fixed shape; the look-ahead discarder works out each
row in compiled loops (:mod:`agents.four_aces.lookahead_kernel`).
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.four_aces import lookahead_kernel as kernel
from agents.four_aces.lookahead_kernel import ACE_PREMIUM, NO_OPTION
from agents.four_aces.set_scores import (
    ACE_BITS,
    CARD_BIT,
    TABLE_CARDS_MAX,
    score_bits,
    score_plus_one,
    score_table_for,
)
from agents.four_aces.view import FourAcesView
from envs.cards import JOKER, NUM_CARDS
from envs.four_aces.rules import DRAW, IS_ACE, MAX_HAND

_NEG = NO_OPTION


def _value_of(score: np.ndarray, aces: np.ndarray, aces_out: np.ndarray,
              four_aces_value: float) -> np.ndarray:
    """float [...]: the value of sets with K3 ``score`` and ``aces`` aces (at most 4, and
    ``aces_out`` unseen): the score, or ``four_aces_value`` with all four aces (K1), plus
    the ace premium (:data:`~agents.four_aces.lookahead_kernel.ACE_PREMIUM`)."""
    value = np.where(aces == 4, four_aces_value, score.astype(np.float64))
    return value + ACE_PREMIUM[aces, aces_out]


def _bits_score(bits: np.ndarray, four_aces_value: float) -> np.ndarray:
    """float [...]: value of the card sets ``bits`` [...] (52-bit masks): the K3 strict
    score, or ``four_aces_value`` when the set holds all four aces (K1)."""
    score = score_bits(bits.reshape(-1)).reshape(bits.shape).astype(np.float64)
    return np.where(np.bitwise_count(bits & ACE_BITS) == 4, four_aces_value, score)


def _bits_value(bits: np.ndarray, aces_out: np.ndarray, four_aces_value: float) -> np.ndarray:
    """float [...]: :func:`_bits_score` plus the ace premium (``aces_out`` broadcast)."""
    aces = np.bitwise_count(bits & ACE_BITS).astype(np.int64)
    score = score_bits(bits.reshape(-1)).reshape(bits.shape)
    return _value_of(score, aces, aces_out, four_aces_value)


class _FourAcesAgent(Agent):
    """Shared plumbing: options are the hand slots (discard) and the turn-up."""

    summary = ""
    #: value of all four aces (H4/K1: the match; scored as the default target_points)
    four_aces_value = 20.0

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        s = FourAcesView(observations)
        values = self.option_values(s)  # [N, MAX_HAND + 1]: hand slots, then turn-up
        legal = np.zeros_like(values, dtype=bool)
        present = s.hand >= 0
        rows = np.arange(s.n)[:, None]
        legal[:, :MAX_HAND] = present & masks[rows, np.maximum(s.hand, 0)]
        legal[:, MAX_HAND] = masks[:, DRAW]
        best = np.where(legal, values, _NEG).argmax(axis=1)
        card = s.hand[np.arange(s.n), np.minimum(best, MAX_HAND - 1)]
        out = np.where(best == MAX_HAND, DRAW, card).astype(np.int64)
        bad = ~legal.any(axis=1) | ~masks[np.arange(s.n), np.maximum(out, 0)]
        if bad.any():  # never illegal: fall back to the first legal action
            out[bad] = masks[bad].argmax(axis=1)
        return out

    def option_values(self, s: FourAcesView) -> np.ndarray:
        """float [N, MAX_HAND + 1]: the value of discarding each hand slot's card, then of
        turning up (H2); slots without a card carry no meaning."""
        raise NotImplementedError


def _own_bits(s: FourAcesView) -> tuple[np.ndarray, np.ndarray]:
    """(bits of each hand slot [N, MAX_HAND], bits of hand + own table [N]); jokers and
    empty slots have no bit (they score nothing, K1)."""
    slots = CARD_BIT[np.where(s.hand < 0, NUM_CARDS, s.hand)]
    table = CARD_BIT[np.where(s.table < 0, NUM_CARDS, s.table)]
    own = np.bitwise_or.reduce(slots, axis=1) | np.bitwise_or.reduce(table, axis=1)
    return slots, own


def _replace_one(
    s: FourAcesView, rows: np.ndarray, width: int, four_aces_value: float
) -> np.ndarray:
    """float [len(rows), width, 53]: for each of ``rows``, the value (with the ace
    premium) of its hand + own table with the card of hand slot i (< width) replaced by
    the unseen card c; 0 where slot i is empty or c is not unseen. An unseen card is
    never in the own set, so every such set is the own set minus one card plus one: when
    that leaves at most 5 cards, all 52 additions are one table lookup each
    (:func:`~agents.four_aces.set_scores.score_plus_one`)."""
    slots, own = _own_bits(s)
    useful = (s.pool[rows] > 0)[:, None, :] & (s.hand[rows, :width] >= 0)[:, :, None]
    out = np.zeros((len(rows), width, NUM_CARDS))
    i, slot = np.nonzero(useful.any(axis=2))  # (row, slot) with a card and cards unseen
    row = rows[i]
    base = own[row] & ~slots[row, slot]
    aces_out = s.aces_out[row]
    small = np.bitwise_count(base) <= TABLE_CARDS_MAX - 1
    if small.any():
        k = np.flatnonzero(small)
        score = score_plus_one(base[k])  # [k, 52]
        aces = (np.bitwise_count(base[k] & ACE_BITS).astype(np.int64)[:, None]
                + IS_ACE[None, :JOKER])
        value = _value_of(score, aces, aces_out[k, None], four_aces_value)
        out[i[k], slot[k], :JOKER] = np.where(useful[i[k], slot[k], :JOKER], value, 0.0)
    big = np.flatnonzero(~small)
    if len(big):
        j, card = np.nonzero(useful[i[big], slot[big]])
        e = big[j]
        bits = base[e] | CARD_BIT[card]
        out[i[e], slot[e], card] = _bits_value(bits, aces_out[e], four_aces_value)
    return out


class GreedyDiscarder(_FourAcesAgent):
    """One step deep, exact: each discard's expected value after one uniform refill from
    the unseen cards, against turning up the stock card (hand kept). See module doc."""

    summary = "greedy: exact expected K3 value after one refill vs turning up; keeps aces"

    def option_values(self, s: FourAcesView) -> np.ndarray:
        n = s.n
        weights = s.pool / np.maximum(s.pool.sum(axis=1, keepdims=True), 1)  # [N, 53]
        _, own = _own_bits(s)
        # discarding slot i and drawing card u: [N, K, 53] (slots from K on are empty)
        K = int((s.hand >= 0).sum(axis=1).max(initial=0))
        values = _replace_one(s, np.arange(n), K, self.four_aces_value)
        discard = np.zeros((n, MAX_HAND))
        discard[:, :K] = (values * weights[:, None, :]).sum(axis=2)
        # turning up keeps the hand; a joker (G7) adds a slot: one more card next turn
        # (rows without an unseen joker add 0 times the gain: it is not computed there)
        keep = _bits_value(own, s.aces_out, self.four_aces_value)
        gain = np.zeros((n, NUM_CARDS))
        row, card = np.nonzero((weights > 0) & (s.joker_chance > 0)[:, None])
        gain[row, card] = _bits_score(own[row] | CARD_BIT[card], self.four_aces_value)
        with_joker = (gain * weights).sum(axis=1)
        turn_up = keep + s.joker_chance * np.maximum(with_joker - keep, 0.0)
        return np.concatenate([discard, turn_up[:, None]], axis=1)


class LookaheadDiscarder(_FourAcesAgent):
    """Two-step sampled expectimax over the unseen cards (see module doc); each row is
    worked out by the compiled kernels of :mod:`agents.four_aces.lookahead_kernel`."""

    summary = "look-ahead: samples unseen cards, two-step expectimax on discards/turn-up"

    def __init__(self, game: str, seed: int | None = None, samples: int = 12, inner: int = 4):
        super().__init__(game, seed)
        self.samples = int(samples)
        self.inner = int(inner)
        if self.samples < 1 or self.inner < 1:
            raise ValueError(f"samples={samples}, inner={inner}: expected both >= 1")
        # the random keys of the largest batch so far: filled in place by the generator
        # (the same numbers as a new array; a new array of that size costs page faults)
        self._keys = np.empty((0, self.samples, NUM_CARDS))

    def draws(self, s: FourAcesView) -> tuple[np.ndarray, np.ndarray]:
        """The sampled refills (one generator call per batch): ``u`` [N, S], the card
        each sample draws first, and ``u2`` [N, S, M], the ``inner`` cards drawn after
        it, without replacement from the unseen cards; a row with fewer unseen cards than
        ``M + 1`` repeats its first draw in the missing places."""
        cards = self._sampled_cards(s)
        return cards[:, :, 0], cards[:, :, 1:]

    def _sampled_cards(self, s: FourAcesView) -> np.ndarray:
        """int64 [N, S, M + 1]: :meth:`draws` as one array. Every unseen card gets a
        uniform random key per sample; the draws are the cards in key order."""
        if len(self._keys) < s.n:
            self._keys = np.empty((s.n, self.samples, NUM_CARDS))
        keys = self.rng.random(out=self._keys[: s.n])
        pool = np.ascontiguousarray(s.pool, dtype=np.int64)
        return kernel.pick_draws(keys, pool, self.inner + 1)

    def option_values(self, s: FourAcesView) -> np.ndarray:
        """Values of discarding each slot (``_NEG`` for empty slots) and of turning up."""
        cards = self._sampled_cards(s)
        # the table of small sets pays from a few hundred rows on (~ S (M + 1) K sets each)
        by_set = score_table_for(s.n * self.samples * (self.inner + 1) * MAX_HAND)
        return kernel.option_values(
            np.ascontiguousarray(s.hand, dtype=np.int64),
            np.ascontiguousarray(s.table, dtype=np.int64),
            cards,
            np.ascontiguousarray(s.aces_out, dtype=np.int64),
            np.ascontiguousarray(s.more_turns, dtype=np.bool_),
            np.ascontiguousarray(s.joker_chance, dtype=np.float64),
            float(self.four_aces_value),
            kernel.score_tables(by_set),
        )


class HeuristicDiscarder(LookaheadDiscarder):
    """The strongest Four Aces heuristic (the look-ahead discarder)."""

    summary = "the strongest heuristic: the look-ahead discarder (default)"
