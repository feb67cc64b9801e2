"""Four Aces scoring fast path (envs.four_aces.scoring) against an independent exact
algorithm, a bitmask DP over every subset of card positions, kept here as the reference.

The fast path splits a set into by-rank and by-suit combinations with static tables (see
the scoring module doc); these tests compare it with the DP on many random and dense sets,
in both K3 modes, through score_batch, score_presence and score_cards.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

import numpy as np
import pytest

from envs.cards import NUM_RANKS
from envs.four_aces.scoring import (
    RANK_POINTS,
    RUN_POINTS,
    SUIT_POINTS,
    score_batch,
    score_cards,
    score_presence,
)
from envs.four_aces.scoring_tables import rank_value_table, suit_full_table

_NEG = np.int16(-1000)


# -- reference: a bitmask DP over every subset of card positions -----------------------
class _Tables:
    """Static index tables for card sets of exactly n cards."""

    def __init__(self, n: int):
        self.n = n
        self.full = (1 << n) - 1
        pairs = list(combinations(range(n), 2))
        pair_id = {p: i for i, p in enumerate(pairs)}
        self.pair_i = np.array([p[0] for p in pairs], dtype=np.intp)
        self.pair_j = np.array([p[1] for p in pairs], dtype=np.intp)
        # per subset size k = 2..5: positions [k, S], pair ids [k(k-1)/2, S], masks [S]
        # (member-major, so reductions over members are elementwise)
        self.by_size: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        for k in range(2, min(5, n) + 1):
            subsets = list(combinations(range(n), k))
            pos = np.array(subsets, dtype=np.intp).T
            pids = np.array(
                [[pair_id[p] for p in combinations(s, 2)] for s in subsets], dtype=np.intp
            ).T
            masks = np.array([sum(1 << i for i in s) for s in subsets], dtype=np.intp)
            rank_lut = np.full(k * (k - 1) // 2 + 1, _NEG, dtype=np.int16)
            for (size, eq), points in RANK_POINTS.items():
                if size == k:
                    rank_lut[eq] = points
            self.by_size[k] = (pos, pids, masks, rank_lut)
        # DP layers: for every mask m of popcount p, every combination-sized C ⊆ m holding
        # m's lowest bit. Every m of one popcount has the same number c of such C, so a
        # layer is two index arrays [c, T] (candidate j of target t) and the max over
        # axis 0 of the gathered candidates is elementwise (fast, contiguous).
        all_combos = [int(m) for k in self.by_size for m in self.by_size[k][2]]
        self.layers: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for p in range(2, n + 1):
            targets, cs, rests = [], [], []
            for m in range(1, 1 << n):
                if bin(m).count("1") != p:
                    continue
                low = m & -m
                mine = [c for c in all_combos if c & low and c & m == c]
                targets.append(m)
                cs.append(mine)
                rests.append([m ^ c for c in mine])
            cs_arr = np.array(cs, dtype=np.intp).T  # [c, T]
            self.layers.append(
                (
                    np.array(targets, dtype=np.intp),
                    cs_arr.reshape(-1),
                    np.array(rests, dtype=np.intp).T.reshape(-1),
                )
            )
        self.num_pairs = sum(len(layer[1]) for layer in self.layers)


@cache
def _tables(n: int) -> _Tables:
    return _Tables(n)


def _score_group(cards: np.ndarray, strict: bool) -> np.ndarray:
    """Scores of N sets of distinct non-joker cards: cards int [N, n], each row's cards
    first, then -1 padding. A padding position gets a rank and suit of its own, so it is
    in no combination: a split is valid only if the padding is loose (see below)."""
    num, n = cards.shape
    if n <= 1:
        return np.zeros(num, dtype=np.int32)
    t = _tables(n)
    cards_t = cards.T.astype(np.int16)  # [n, N], mask-major layout throughout
    pad = cards_t < 0
    dummy = (100 + np.arange(n, dtype=np.int16))[:, None]
    ranks = np.where(pad, dummy, cards_t % NUM_RANKS)
    suits = np.where(pad, dummy, cards_t // NUM_RANKS)
    padded = bool(pad.any())
    rank_eq = (ranks[t.pair_i] == ranks[t.pair_j]).astype(np.int8)  # [pairs, N]
    suit_eq = (suits[t.pair_i] == suits[t.pair_j]).astype(np.int8)

    val = np.full((1 << n, num), _NEG, dtype=np.int16)  # combination value of each mask
    independent: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    for k, (pos, pids, masks, rank_lut) in t.by_size.items():
        n_pairs = pids.shape[0]
        req = rank_eq[pids].sum(axis=0, dtype=np.int8)  # [S, N] equal-rank pairs inside
        seq = suit_eq[pids].sum(axis=0, dtype=np.int8)  # [S, N] equal-suit pairs inside
        same_suit = seq == n_pairs
        sub_ranks = ranks[pos]  # [k, S, N]
        is_run = same_suit & (sub_ranks.max(axis=0) - sub_ranks.min(axis=0) == k - 1)
        v = rank_lut[req]
        v = np.where(same_suit, np.int16(SUIT_POINTS[k]), v)
        v = np.where(is_run, np.int16(RUN_POINTS[k]), v)
        val[masks] = v
        if strict and k <= 4:
            independent[k] = (masks, (req + seq) == 0)

    best = np.full((1 << n, num), _NEG, dtype=np.int16)  # best split of m into combinations
    best[0] = 0
    for targets, cs, rests in t.layers:
        cand = (val[cs] + best[rests]).reshape(-1, len(targets), num)
        best[targets] = np.maximum(cand.max(axis=0), _NEG)

    if not strict:  # masks holding padding are never fully split: they stay NEG
        return best.max(axis=0).astype(np.int32)
    # strict: the loose set L is empty, one card, or 2..4 cards of distinct ranks and
    # suits; the real cards of each row minus L must split fully into combinations. With
    # padding, ``real ^ L`` holds a padding bit whenever L does, and that mask is NEG.
    if padded:
        real = ((1 << (~pad).sum(axis=0)) - 1).astype(np.intp)  # [N]
        cols = np.arange(num)

        def lookup(masks: np.ndarray) -> np.ndarray:
            return best[masks[:, None] ^ real[None, :], cols]

    else:

        def lookup(masks: np.ndarray) -> np.ndarray:
            return best[masks ^ t.full]

    out = best[real, cols] if padded else best[t.full].copy()
    np.maximum(out, lookup(1 << np.arange(n)).max(axis=0), out=out)
    for masks, ok in independent.values():
        cand = np.where(ok, lookup(masks), _NEG)
        np.maximum(out, cand.max(axis=0), out=out)
    return out.astype(np.int32)


def reference_scores(cards: np.ndarray, scoring: str) -> np.ndarray:
    """Scores of rows of card indices (-1 padding, no jokers) by the bitmask DP."""
    valid = cards >= 0
    counts = valid.sum(axis=1)
    order = np.argsort(~valid, axis=1, kind="stable")
    packed = np.take_along_axis(cards, order, axis=1)
    out = np.zeros(len(cards), dtype=np.int32)
    for n in np.unique(counts):
        if n > 1:
            rows = np.flatnonzero(counts == n)
            out[rows] = _score_group(packed[rows, :n], scoring == "strict")
    return out


def _random_rows(rng: np.random.Generator) -> np.ndarray:
    rows = []
    for _ in range(3000):  # uniform random sets of 0..10 cards
        rows.append(rng.choice(52, size=int(rng.integers(0, 11)), replace=False))
    for _ in range(1500):  # dense: few ranks in few suits (pairs, trips, quads, runs)
        low = int(rng.integers(0, 9))
        suits = rng.choice(4, size=int(rng.integers(1, 5)), replace=False)
        pool = [s * NUM_RANKS + r for s in suits for r in range(low, low + 5)]
        size = int(rng.integers(2, min(10, len(pool)) + 1))
        rows.append(rng.choice(pool, size=size, replace=False))
    for _ in range(500):  # every shared-rank pattern up to 10 cards: 2 to 5 ranks, all suits
        ranks = rng.choice(NUM_RANKS, size=int(rng.integers(2, 6)), replace=False)
        pool = [s * NUM_RANKS + r for s in range(4) for r in ranks]
        rows.append(rng.choice(pool, size=min(10, len(pool)), replace=False))
    out = np.full((len(rows), 10), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


@pytest.mark.parametrize("scoring", ["strict", "free"])
def test_fast_path_equals_bitmask_dp(scoring):
    rows = _random_rows(np.random.default_rng(7 + (scoring == "free")))
    expected = reference_scores(rows, scoring)
    assert np.array_equal(score_batch(rows, scoring), expected)
    present = np.zeros((len(rows), 53), dtype=bool)
    present[np.arange(len(rows))[:, None], np.where(rows >= 0, rows, 52)] = True
    assert np.array_equal(score_presence(present[:, :52], scoring), expected)
    for i in range(0, len(rows), 7):  # the single-set Python path
        cards = [int(c) for c in rows[i] if c >= 0]
        assert score_cards(cards, scoring) == expected[i], cards
    # small batches and single rows give the same answers as one big batch
    for size in (1, 3, 50):
        assert np.array_equal(score_batch(rows[:size], scoring), expected[:size])


def test_score_presence_checks_its_input():
    with pytest.raises(ValueError, match="52"):
        score_presence(np.zeros((2, 53), dtype=bool))
    with pytest.raises(ValueError, match="scoring"):
        score_presence(np.zeros((2, 52), dtype=bool), "loose")
    assert score_presence(np.zeros((0, 52), dtype=bool)).shape == (0,)


def test_static_tables():
    full = suit_full_table()
    assert full[0] == 0 and full[0b1] < -100  # one card alone is no combination
    assert full[0b11111] == RUN_POINTS[5] and full[0b10101] == SUIT_POINTS[3]
    assert full[0b111111] == RUN_POINTS[4] + RUN_POINTS[2]  # 6-run: 4 + 2 beats 3 + 3
    assert full[(1 << 13) - 1] == 2 * RUN_POINTS[5] + RUN_POINTS[3]
    rank = rank_value_table()
    assert rank[0, 0, 0] == 0 and rank[1, 0, 0] == RANK_POINTS[(2, 1)]
    assert rank[2, 0, 0] == RANK_POINTS[(4, 2)] and rank[1, 1, 0] == RANK_POINTS[(5, 4)]
    assert rank[0, 0, 1] == RANK_POINTS[(4, 6)]
    assert rank[2, 0, 1] == RANK_POINTS[(4, 6)] + RANK_POINTS[(4, 2)]
