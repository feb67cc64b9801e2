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
    makes a pair now may block a run that the next draw completes. ``score_batch`` scores
    all sets of a batch in one call.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.four_aces.view import FourAcesView
from envs.cards import NUM_CARDS
from envs.four_aces.rules import ACES, DRAW, MAX_HAND, TABLE_CARDS
from envs.four_aces.scoring import score_batch

_NEG = -1.0e9
#: a hand and own table as one card list: MAX_HAND hand slots, then the table cards
_SET = MAX_HAND + TABLE_CARDS


def _score(cards: np.ndarray, four_aces_value: float) -> np.ndarray:
    """float [...]: value of card sets [..., n] (-1 padded): the K3 strict score, or
    ``four_aces_value`` when the set holds all four aces (K1)."""
    shape = cards.shape[:-1]
    flat = cards.reshape(-1, cards.shape[-1])
    if flat.shape[0] == 0:
        return np.zeros(shape)
    score = score_batch(flat, "strict").astype(np.float64)
    aces = np.isin(flat, ACES).sum(axis=1)
    return np.where(aces == 4, four_aces_value, score).reshape(shape)


def _ace_premium(sets: np.ndarray, aces_out: np.ndarray) -> np.ndarray:
    """Premium for kept aces while the missing ones are still out: 2 -> 0.3, 3 -> 1.5."""
    aces = np.isin(sets, ACES).sum(axis=-1)
    reachable = aces + aces_out.reshape(aces_out.shape + (1,) * (aces.ndim - 1)) >= 4
    return np.where(reachable, np.select([aces == 2, aces == 3], [0.3, 1.5], 0.0), 0.0)


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
        raise NotImplementedError


class GreedyDiscarder(_FourAcesAgent):
    """One step deep, exact: each discard's expected value after one uniform refill from
    the unseen cards, against turning up the stock card (hand kept). See module doc."""

    summary = "greedy: exact expected K3 value after one refill vs turning up; keeps aces"

    def option_values(self, s: FourAcesView) -> np.ndarray:
        n = s.n
        pool_cards = np.arange(NUM_CARDS)
        weights = s.pool / np.maximum(s.pool.sum(axis=1, keepdims=True), 1)  # [N, 53]
        base = np.concatenate([s.hand, s.table], axis=1)  # [N, _SET]
        # discarding slot i and drawing card u: sets [N, MAX_HAND, 53, _SET]
        sets = np.broadcast_to(base[:, None, None, :], (n, MAX_HAND, NUM_CARDS, _SET)).copy()
        for i in range(MAX_HAND):
            sets[:, i, :, i] = pool_cards[None, :]
        useful = (weights > 0)[:, None, :] & (s.hand >= 0)[:, :, None]  # [N, 5, 53]
        values = np.zeros((n, MAX_HAND, NUM_CARDS))
        idx = np.nonzero(useful)
        values[idx] = _score(sets[idx], self.four_aces_value) + _ace_premium(
            sets[idx], s.aces_out[idx[0]]
        )
        discard = (values * weights[:, None, :]).sum(axis=2)  # [N, 5]
        # turning up keeps the hand; a joker (G7) adds a slot: one more card next turn
        keep = _score(base, self.four_aces_value) + _ace_premium(base, s.aces_out)
        extra = np.concatenate([base, np.full((n, 1), -1)], axis=1)
        extra_sets = np.broadcast_to(extra[:, None, :], (n, NUM_CARDS, _SET + 1)).copy()
        extra_sets[:, :, _SET] = pool_cards[None, :]
        ok = np.nonzero(weights > 0)
        gain = np.zeros((n, NUM_CARDS))
        gain[ok] = _score(extra_sets[ok], self.four_aces_value)
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

    def option_values(self, s: FourAcesView) -> np.ndarray:
        n, S, M = s.n, self.samples, self.inner
        present = s.hand >= 0  # [N, 5]
        K = int(present.sum(axis=1).max())  # hand slots in use (3 unless a joker came)
        hand = s.hand[:, :K]
        base = np.concatenate([hand, s.table], axis=1)  # [N, K + 3]
        W = base.shape[1]
        ok_slot = present[:, :K]
        # draws without replacement per sample: u = perm[0], inner u' = perm[1 .. M]
        keys = self.rng.random((n, S, NUM_CARDS))
        keys = np.where(s.pool[:, None, :] > 0, keys, 2.0)
        perm = np.argsort(keys, axis=2)[:, :, : M + 1]  # [N, S, M+1]
        avail = s.pool.sum(axis=1)  # rows with fewer cards out than M+1 reuse draws
        short = np.arange(M + 1)[None, :] >= avail[:, None]
        perm = np.where(short[:, None, :], perm[:, :, :1], perm)
        u, u2 = perm[:, :, 0], perm[:, :, 1:]  # [N, S], [N, S, M]
        O = K + 1
        # first step: option o < K replaces slot o by u; option K (turn up) keeps the hand
        h1 = np.broadcast_to(base[:, None, None, :], (n, O, S, W)).copy()
        for i in range(K):
            h1[:, i, :, i] = u
        v1 = _score(h1, self.four_aces_value) + _ace_premium(h1, s.aces_out)
        value = v1
        more = np.flatnonzero(s.more_turns)
        if len(more):
            # second step (rows with another turn to come): the best of keep / discards
            h = h1[more]  # [m, O, S, W]
            h2 = np.broadcast_to(h[:, :, :, None, None, :], h.shape[:3] + (K, M, W)).copy()
            for j in range(K):
                h2[:, :, :, j, :, j] = u2[more][:, None, :, :]
            ok = ok_slot[more][:, None, None, :]  # [m, 1, 1, K]
            idx = np.nonzero(np.broadcast_to(ok[..., None], h2.shape[:-1]))
            v2 = np.zeros(h2.shape[:-1])
            v2[idx] = _score(h2[idx], self.four_aces_value) + _ace_premium(
                h2[idx], s.aces_out[more][idx[0]]
            )
            step2 = np.where(ok, v2.mean(axis=4), _NEG).max(axis=3)
            value = value.copy()
            value[more] = np.maximum(v1[more], step2)
        out = np.full((n, MAX_HAND + 1), _NEG)
        out[:, :K] = value[:, :K].mean(axis=2)
        # turning up: a joker (G7) adds a slot (worth about half a point)
        out[:, MAX_HAND] = value[:, K].mean(axis=1) + s.joker_chance * 0.5
        return out


class HeuristicDiscarder(LookaheadDiscarder):
    """The strongest Four Aces heuristic (the look-ahead discarder)."""

    summary = "the strongest heuristic: the look-ahead discarder (default)"
