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
scored by table lookup (:mod:`agents.four_aces.set_scores`); only the averages and maxima
over draws are taken per row, on arrays of fixed shape.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.four_aces.set_scores import (
    ACE_BITS,
    CARD_BIT,
    TABLE_CARDS_MAX,
    score_bits,
    score_plus_one,
)
from agents.four_aces.view import FourAcesView
from envs.cards import JOKER, NUM_CARDS
from envs.four_aces.rules import ACES, DRAW, IS_ACE, MAX_HAND, TABLE_CARDS
from envs.four_aces.scoring import score_batch

_NEG = -1.0e9
#: a hand and own table as one card list: MAX_HAND hand slots, then the table cards
_SET = MAX_HAND + TABLE_CARDS


def _premium(aces: np.ndarray, aces_out: np.ndarray) -> np.ndarray:
    """Premium for kept aces while the missing ones are still out: 2 -> 0.3, 3 -> 1.5
    (``aces`` in the set, ``aces_out`` unseen; arrays of one shape)."""
    reachable = aces + aces_out >= 4
    return np.where(reachable, np.select([aces == 2, aces == 3], [0.3, 1.5], 0.0), 0.0)


#: float [6 * 5]: :func:`_premium` of (aces in the set 0..5, aces unseen 0..4) at
#: aces * 5 + unseen (5 "aces" only where a card is counted twice: a value not used)
_PREMIUM = _premium(np.arange(6)[:, None], np.arange(5)[None, :]).reshape(-1)


def _value_of(score: np.ndarray, aces: np.ndarray, aces_out: np.ndarray,
              four_aces_value: float) -> np.ndarray:
    """float [...]: the value of sets with K3 ``score`` and ``aces`` aces (at most 4, and
    ``aces_out`` unseen): the score, or ``four_aces_value`` with all four aces (K1), plus
    the ace premium."""
    value = np.where(aces == 4, four_aces_value, score.astype(np.float64))
    return value + _PREMIUM.take(aces * 5 + aces_out)


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


def _score(cards: np.ndarray, four_aces_value: float) -> np.ndarray:
    """float [...]: value of card lists [..., n] (-1 padded, a card may repeat): the K3
    strict score, or ``four_aces_value`` when the list holds four aces (K1)."""
    shape = cards.shape[:-1]
    flat = cards.reshape(-1, cards.shape[-1])
    if flat.shape[0] == 0:
        return np.zeros(shape)
    score = score_batch(flat, "strict").astype(np.float64)
    aces = np.isin(flat, ACES).sum(axis=1)
    return np.where(aces == 4, four_aces_value, score).reshape(shape)


def _ace_premium(sets: np.ndarray, aces_out: np.ndarray) -> np.ndarray:
    """:func:`_premium` of card lists ``sets`` [..., n] (aces counted with repeats)."""
    aces = np.isin(sets, ACES).sum(axis=-1)
    return _premium(aces, aces_out.reshape(aces_out.shape + (1,) * (aces.ndim - 1)))


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
    """Two-step sampled expectimax over the unseen cards (see module doc)."""

    summary = "look-ahead: samples unseen cards, two-step expectimax on discards/turn-up"

    def __init__(self, game: str, seed: int | None = None, samples: int = 12, inner: int = 4):
        super().__init__(game, seed)
        self.samples = int(samples)
        self.inner = int(inner)

    def draws(self, s: FourAcesView) -> tuple[np.ndarray, np.ndarray]:
        """The sampled refills (one generator call per batch): ``u`` [N, S], the card
        each sample draws first, and ``u2`` [N, S, M], the ``inner`` cards drawn after
        it, without replacement from the unseen cards; a row with fewer unseen cards than
        ``M + 1`` repeats its first draw in the missing places."""
        n, S, M = s.n, self.samples, self.inner
        keys = self.rng.random((n, S, NUM_CARDS))
        keys = np.where(s.pool[:, None, :] > 0, keys, 2.0)
        perm = np.argsort(keys, axis=2)[:, :, : M + 1]  # [N, S, M+1]
        avail = s.pool.sum(axis=1)  # rows with fewer cards out than M+1 reuse draws
        short = np.arange(M + 1)[None, :] >= avail[:, None]
        perm = np.where(short[:, None, :], perm[:, :, :1], perm)
        return perm[:, :, 0], perm[:, :, 1:]

    def option_values(self, s: FourAcesView) -> np.ndarray:
        """Values of discarding each slot (``_NEG`` for empty slots) and of turning up."""
        n, S = s.n, self.samples
        present = s.hand >= 0  # [N, 5]
        K = int(present.sum(axis=1).max())  # hand slots in use (3 unless a joker came)
        ok_slot = present[:, :K]
        u, u2 = self.draws(s)  # [N, S], [N, S, M]
        # v1 [N, K+1, S]: option o < K replaces slot o by u, option K keeps the hand;
        # step2 [N, K+1, S]: the best second step after it (rows with another turn)
        v1 = np.zeros((n, K + 1, S))
        step2 = np.full((n, K + 1, S), _NEG)
        # rows with fewer unseen cards than draws may meet a card twice: card lists
        exact = s.pool.sum(axis=1) >= self.inner + 1
        for rows, method in ((np.flatnonzero(exact), self._by_bits),
                             (np.flatnonzero(~exact), self._by_lists)):
            if len(rows):
                v1[rows], step2[rows] = method(s, rows, K, u[rows], u2[rows])
        value = v1
        more = np.flatnonzero(s.more_turns)
        if len(more):
            value = value.copy()
            value[more] = np.maximum(v1[more], step2[more])
        out = np.full((n, MAX_HAND + 1), _NEG)
        out[:, :K] = np.where(ok_slot, value[:, :K].mean(axis=2), _NEG)
        # turning up: a joker (G7) adds a slot (worth about half a point)
        out[:, MAX_HAND] = value[:, K].mean(axis=1) + s.joker_chance * 0.5
        return out

    def _by_bits(
        self, s: FourAcesView, rows: np.ndarray, K: int, u: np.ndarray, u2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(v1, step2) of ``rows`` (see :meth:`option_values`), whose draws are distinct
        unseen cards. The second step after option o plays the best of keeping (slot o
        then holds u) and replacing one slot j by each inner draw, averaged over the draws:
        the set with one slot replaced (j = o, or after turning up) comes from the table of
        one-card replacements, the set with two (j != o) is scored here."""
        S = self.samples
        r = len(rows)
        fv = self.four_aces_value
        present = s.hand[rows, :K] >= 0  # [r, K]
        more = s.more_turns[rows]
        one = _replace_one(s, rows, K, fv)  # [r, K, 53]
        slots, own = _own_bits(s)
        slots, own = slots[rows, :K], own[rows]
        aces_out = s.aces_out[rows]
        line = np.arange(r)[:, None, None]
        v1 = np.zeros((r, K + 1, S))
        v1[:, :K] = one[line, np.arange(K)[None, :, None], u[:, None, :]]
        v1[:, K] = _bits_value(own, aces_out, fv)[:, None]
        step2 = np.full((r, K + 1, S), _NEG)
        live = np.flatnonzero(more)
        if not len(live):
            return v1, step2
        # means over the inner draws, exactly as a mean over the last axis of the draws
        single = one[live[:, None, None, None], np.arange(K)[None, :, None, None],
                     u2[live][:, None, :, :]].mean(axis=3)  # [m, K, S]: slot j replaced
        ub, u2b = CARD_BIT[u[live]], CARD_BIT[u2[live]]  # [m, S], [m, S, M]
        ok = present[live]  # [m, K]
        best = np.full((len(live), K + 1, S), _NEG)
        for j in range(K):
            okj = ok[:, j, None]
            best[:, K] = np.maximum(best[:, K], np.where(okj, single[:, j], _NEG))
            best[:, j] = np.maximum(best[:, j], np.where(okj, single[:, j], _NEG))
        for o in range(K):
            for j in range(o + 1, K):
                both = np.flatnonzero(ok[:, o] & ok[:, j])
                i = live[both]
                rest = own[i] & ~slots[i, o] & ~slots[i, j]
                bits = rest[:, None, None] | ub[both][:, :, None] | u2b[both]
                double = _bits_value(bits, aces_out[i, None, None], fv).mean(axis=2)
                best[both, o] = np.maximum(best[both, o], double)
                best[both, j] = np.maximum(best[both, j], double)
        step2[live] = best
        return v1, step2

    def _by_lists(
        self, s: FourAcesView, rows: np.ndarray, K: int, u: np.ndarray, u2: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """(v1, step2) of ``rows`` (see :meth:`option_values`) on explicit card lists,
        where a card may occur twice (rows with fewer unseen cards than draws)."""
        S, M = self.samples, self.inner
        r = len(rows)
        base = np.concatenate([s.hand[rows, :K], s.table[rows]], axis=1)  # [r, K + 3]
        W = base.shape[1]
        aces_out = s.aces_out[rows]
        O = K + 1
        h1 = np.broadcast_to(base[:, None, None, :], (r, O, S, W)).copy()
        for i in range(K):
            h1[:, i, :, i] = u
        v1 = _score(h1, self.four_aces_value) + _ace_premium(h1, aces_out)
        h2 = np.broadcast_to(h1[:, :, :, None, None, :], (r, O, S, K, M, W)).copy()
        for j in range(K):
            h2[:, :, :, j, :, j] = u2[:, None, :, :]
        v2 = _score(h2, self.four_aces_value) + _ace_premium(h2, aces_out)
        ok = (s.hand[rows, :K] >= 0)[:, None, None, :]
        return v1, np.where(ok, v2.mean(axis=4), _NEG).max(axis=3)


class HeuristicDiscarder(LookaheadDiscarder):
    """The strongest Four Aces heuristic (the look-ahead discarder)."""

    summary = "the strongest heuristic: the look-ahead discarder (default)"
