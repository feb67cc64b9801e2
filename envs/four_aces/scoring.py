"""Four Aces round scoring (RULES.md K1–K3): exact, vectorised over many card sets.

K2 — combinations (each card in at most one; a combination has 2 to 5 cards):

=================================  ======  =====================  ======  ================  ======
by rank                            points  by suit (any ranks)    points  suited run        points
=================================  ======  =====================  ======  ================  ======
one pair                           −1      2 cards of one suit    −2      2 in sequence     −1
three of a kind                    +2      3 of one suit          0       3 in sequence     +2
two pairs (one 4-card combo)       +3      4 of one suit          +2      4 in sequence     +6
three of a kind + a pair (5)       +10     5 of one suit          +6      5 in sequence     +14
four of a kind                     +10
=================================  ======  =====================  ======  ================  ======

Suited runs are consecutive ranks of one suit, ace high, no A-2 wrap. A set of one suit
that is also a run counts as the run (always worth more). Longer runs or suits are split
into combinations of at most 5 cards (K2 Decision).

K3 — composition. The score of a player's scoring cards (the non-joker cards of his hand
and table, K1) is the best total over all ways to split them into combinations and loose
cards (loose cards score 0):

- ``strict`` (default): no two loose cards may share a rank or a suit (two such cards
  would themselves be a pair or a two-card suit), so negative combinations are forced;
- ``free``: loose cards are unrestricted, so the score is never below 0.

Algorithm (exact). For a set of n <= 10 cards (positions 0..n-1), static tables per n list
every position subset of size 2..5. Per batch row each subset gets its combination value
(or -inf) from pairwise rank/suit equalities. A DP over bitmasks by popcount layers gives
``best_full[m]`` = best value of splitting the positions ``m`` entirely into combinations:
the max over combinations C ⊆ m containing m's lowest position of
``val[C] + best_full[m ^ C]``. Then ``strict`` = max over loose sets L with pairwise
distinct ranks and suits (at most 4 cards) of ``best_full[all ^ L]``, and ``free`` = max
over every m of ``best_full[m]`` (the rest loose). Arrays are mask-major ([2^n, N]) so each
DP layer is two contiguous gathers, an add and an elementwise max. Rows are grouped by
card count (or, for a few rows, padded to one call).

:func:`score_cards` (one set) uses an exact memoised search in plain Python instead, over
the combinations actually present (built from rank and suit groups), which is several
times faster than a numpy call for one small set; its results are cached.
``training/bench_scoring.py`` measures both; the tests check both against an exhaustive
partition search.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache
from itertools import combinations

import numpy as np

from envs.cards import JOKER, NUM_RANKS, parse_card
from envs.core import check_choice

SCORINGS = ("strict", "free")
#: the most scoring cards one call handles (a player never holds more than 8: L <= 5
#: hand cards plus 3 table cards)
MAX_CARDS = 10

#: up to this many rows, :func:`score_batch` pads all rows to the widest one and makes one
#: call (numpy call overhead dominates); above it, rows are grouped by card count
SINGLE_GROUP_ROWS = 256

#: value of "not a combination" (int16; sums of two stay far inside the int16 range)
_NEG = np.int16(-1000)

# K2 values by combination size (index = number of cards)
SUIT_POINTS = {2: -2, 3: 0, 4: 2, 5: 6}
RUN_POINTS = {2: -1, 3: 2, 4: 6, 5: 14}
#: by-rank combinations by (size, number of equal-rank pairs among the cards):
#: pair (2, 1), three of a kind (3, 3), two pairs (4, 2), four of a kind (4, 6),
#: three of a kind + a pair (5, 3 + 1 = 4). Other patterns are no combination.
RANK_POINTS = {(2, 1): -1, (3, 3): 2, (4, 2): 3, (4, 6): 10, (5, 4): 10}


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


def score_batch(cards: np.ndarray, scoring: str = "strict") -> np.ndarray:
    """K2/K3 scores of many card sets.

    Args:
        cards: int array [N, n] of card indices padded with -1 (jokers, index 52, are
            ignored: they score nothing, G7). Each row must hold distinct cards, at most
            :data:`MAX_CARDS` non-joker ones.
        scoring: ``"strict"`` or ``"free"`` (K3).

    Returns:
        int32 [N], the best total of each row.
    """
    check_choice("scoring", scoring, SCORINGS)
    cards = np.asarray(cards)
    if cards.ndim != 2:
        raise ValueError(f"cards must be a 2-d array [N, n], got shape {cards.shape}")
    if cards.size and (cards.min() < -1 or cards.max() > JOKER):
        raise ValueError("card indices must be in -1..52 (-1 = padding, 52 = joker)")
    valid = (cards >= 0) & (cards != JOKER)
    counts = valid.sum(axis=1)
    if counts.size and counts.max() > MAX_CARDS:
        raise ValueError(f"at most {MAX_CARDS} scoring cards per set, got {counts.max()}")
    out = np.zeros(len(cards), dtype=np.int32)
    if not cards.size:
        return out
    # compact each row's scoring cards to the front (stable), then group by count
    order = np.argsort(~valid, axis=1, kind="stable")
    packed = np.take_along_axis(cards, order, axis=1)
    strict = scoring == "strict"
    packed = np.where(np.arange(packed.shape[1]) < counts[:, None], packed, -1)
    if len(cards) <= SINGLE_GROUP_ROWS:
        # few rows: numpy call overhead dominates, so one call with padding to the widest
        width = int(counts.max())
        if width > 1:
            out[:] = _score_group(packed[:, :width], strict)
        return out
    for n in np.unique(counts):
        if n <= 1:
            continue
        rows = np.flatnonzero(counts == n)
        out[rows] = _score_group(packed[rows, :n], strict)
    return out


def _combinations_of(cards: tuple[int, ...]) -> list[tuple[int, int]]:
    """(bitmask, value) of every K2 combination among one set of distinct cards, built
    from its rank groups and suit groups (so only real combinations are listed)."""
    by_rank: dict[int, list[int]] = {}
    by_suit: dict[int, list[int]] = {}
    for i, c in enumerate(cards):
        by_rank.setdefault(c % NUM_RANKS, []).append(1 << i)
        by_suit.setdefault(c // NUM_RANKS, []).append(i)
    out = []
    rank_sets: dict[int, list[int]] = {2: [], 3: []}  # same-rank subsets by size
    for bits in by_rank.values():
        for k in range(2, len(bits) + 1):
            for sub in combinations(bits, k):
                mask = sum(sub)
                out.append((mask, RANK_POINTS[(k, k * (k - 1) // 2)]))
                if k in rank_sets:
                    rank_sets[k].append(mask)
    pairs = rank_sets[2]
    for a, b in combinations(pairs, 2):  # two pairs: two different ranks
        if (
            not a & b
            and cards[(a & -a).bit_length() - 1] % NUM_RANKS
            != cards[(b & -b).bit_length() - 1] % NUM_RANKS
        ):
            out.append((a | b, RANK_POINTS[(4, 2)]))
    for t in rank_sets[3]:  # three of a kind + a pair of another rank
        rank = cards[(t & -t).bit_length() - 1] % NUM_RANKS
        for p in pairs:
            if cards[(p & -p).bit_length() - 1] % NUM_RANKS != rank:
                out.append((t | p, RANK_POINTS[(5, 4)]))
    for idx in by_suit.values():
        for k in range(2, min(5, len(idx)) + 1):
            for sub in combinations(idx, k):
                ranks = sorted(cards[i] % NUM_RANKS for i in sub)
                run = ranks[-1] - ranks[0] == k - 1
                mask = sum(1 << i for i in sub)
                out.append((mask, RUN_POINTS[k] if run else SUIT_POINTS[k]))
    return out


def _score_one(cards: tuple[int, ...], strict: bool) -> int:
    """Exact K2/K3 score of one set by a memoised search over the lowest uncovered card
    (plain Python: faster than numpy for a single small set)."""
    n = len(cards)
    combos = _combinations_of(cards)
    by_low: dict[int, list[tuple[int, int]]] = {}
    for mask, value in combos:
        by_low.setdefault(mask & -mask, []).append((mask, value))
    ranks = [c % NUM_RANKS for c in cards]
    suits = [c // NUM_RANKS for c in cards]
    memo: dict[tuple[int, int], int | None] = {}

    def best(rest: int, loose: int) -> int | None:
        # best value of covering ``rest``; ``loose`` = bitmask of loose cards so far
        if not rest:
            return 0
        key = (rest, loose)
        if key in memo:
            return memo[key]
        low = rest & -rest
        i = low.bit_length() - 1
        result = None
        ok = True
        if strict:
            for j in range(n):
                if loose >> j & 1 and (ranks[j] == ranks[i] or suits[j] == suits[i]):
                    ok = False
                    break
        if ok:
            result = best(rest ^ low, loose | low)
        for mask, value in by_low.get(low, ()):
            if mask & rest == mask:
                sub = best(rest ^ mask, loose)
                if sub is not None and (result is None or sub + value > result):
                    result = sub + value
        memo[key] = result
        return result

    return int(best((1 << n) - 1, 0) or 0)


@lru_cache(maxsize=65536)
def _score_cached(cards: tuple[int, ...], scoring: str) -> int:
    if len(cards) <= 1:
        return 0
    return _score_one(cards, scoring == "strict")


def score_cards(cards: Iterable[str | int], scoring: str = "strict") -> int:
    """K2/K3 score of one set of cards: card strings (``"TH"``, ``"JK"``) or indices.

    Jokers are ignored (they score nothing, G7). Raises ``ValueError`` for unknown or
    duplicate cards, more than :data:`MAX_CARDS` scoring cards, or an unknown ``scoring``.
    """
    check_choice("scoring", scoring, SCORINGS)
    parsed = []
    for c in cards:
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if not 0 <= int(c) <= JOKER:
                raise ValueError(f"card index {c} is out of range: expected 0..{JOKER}")
            parsed.append(int(c))
        else:
            parsed.append(parse_card(c))
    real = sorted(c for c in parsed if c != JOKER)
    if len(set(real)) != len(real):
        raise ValueError(f"duplicate cards in {list(cards)!r}: one deck holds each card once")
    if len(real) > MAX_CARDS:
        raise ValueError(f"at most {MAX_CARDS} scoring cards, got {len(real)}")
    return _score_cached(tuple(real), scoring)
