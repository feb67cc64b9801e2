"""Reference copy of the Four Aces heuristics as they were before their fast batch
versions (:mod:`agents.four_aces.heuristics`): per-set scoring with
:func:`envs.four_aces.scoring.score_batch` and a per-row observation decoder.

Kept unchanged as the yardstick of ``tests/agents/test_heuristics_fast.py``: the fast
agents must choose exactly the actions these choose, random tie-breaks included.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.view import ObsView
from envs.cards import JOKER, NUM_CARDS
from envs.four_aces.observation import LAYOUT, MAX_SLOTS, STOCK_DIVISOR
from envs.four_aces.rules import (
    ACES,
    DRAW,
    FULL_DECK,
    MAX_HAND,
    MIN_PLAYERS,
    TABLE_CARDS,
)
from envs.four_aces.scoring import score_batch

#: copies of each card in the deck (the joker: 2), G1
DECK_COUNTS = np.bincount(FULL_DECK, minlength=NUM_CARDS).astype(np.int64)


def turns_left(observations: np.ndarray) -> np.ndarray:
    """int [N]: the turns the player to move has left in the round, this one included.

    Every turn takes one card from the stock (the turned-up card, H2 b, or the refill,
    G6) and the round ends with the turn that empties it (H3), so with ``s`` cards in the
    stock and ``P`` players the mover has ``ceil(s / P)`` turns — fewer when a joker makes
    someone draw again (G7). 0 with an empty stock (no decision is asked then).
    """
    view = ObsView(LAYOUT, observations)
    stock = np.rint(view.scalar("stock_size") * STOCK_DIVISOR).astype(np.int64)
    players = np.argmax(view["num_players"], axis=1) + MIN_PLAYERS
    return -(-stock // players)


class FourAcesView:
    """The decision-relevant part of a Four Aces observation batch [N, D].

    Attributes:
        n: number of observations N.
        hand: int64 [N, MAX_HAND]: own hand as card indices (jokers as 52), -1 padded.
        table: int64 [N, TABLE_CARDS]: own table cards, -1 padded (G3).
        pool: int64 [N, 53]: unseen non-joker cards, counts: what a refill can bring (G6).
        joker_chance: float [N]: the share of jokers among the unseen cards (G7).
        aces_out: int64 [N]: aces among the unseen cards (H4).
        more_turns: bool [N]: the mover has another turn before the stock runs out (H3).
    """

    def __init__(self, observations: np.ndarray):
        v = ObsView(LAYOUT, observations)
        self.n = n = v.n
        hand = np.rint(v["hand"]).astype(np.int64)  # counts, the joker up to 2
        tables = np.rint(v.blocks("tables", MAX_SLOTS)).astype(np.int64)  # [N, 5, 53]
        pile = np.rint(v["discard_pile"]).astype(np.int64)
        # hand and own table as padded card lists (jokers kept as 52 in the hand)
        self.hand = np.full((n, MAX_HAND), -1, np.int64)
        self.table = np.full((n, TABLE_CARDS), -1, np.int64)
        for r in range(n):
            cards = np.repeat(np.arange(NUM_CARDS), hand[r])[:MAX_HAND]
            self.hand[r, : len(cards)] = cards
            own = np.repeat(np.arange(NUM_CARDS), tables[r, 0])[:TABLE_CARDS]
            self.table[r, : len(own)] = own
        # unseen cards: the deck (52 + 2 jokers) minus everything seen (stock + others' hands)
        seen = hand + tables.sum(axis=1) + pile
        unseen = np.maximum(DECK_COUNTS[None, :] - seen, 0)
        self.joker_chance = unseen[:, JOKER] / np.maximum(unseen.sum(axis=1), 1)
        self.pool = unseen.copy()
        self.pool[:, JOKER] = 0  # refills: non-joker cards (a joker would refill again)
        # aces still out (the four-aces premium needs them)
        self.aces_out = self.pool[:, ACES].sum(axis=1)
        # will the player have another turn before the stock runs out (H3)?
        self.more_turns = turns_left(observations) > 1


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
