"""Static tables of the Four Aces scoring algorithm (see :mod:`envs.four_aces.scoring`).

Built once, on first use:

- ``suit_full[m]``: best split of one suit's ranks ``m`` (13-bit mask) entirely into
  by-suit combinations; ``NEG`` when impossible. ``suit_free[m]``: max over sub-masks.
- ``rank_value[n2, n3, n4]``: best split into by-rank combinations of n2 ranks held twice,
  n3 three times and n4 four times.
- per pattern of shared-rank counts, the option tables (:class:`Options`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations, product

import numpy as np

from envs.cards import NUM_RANKS

#: the most scoring cards one set may hold (a player never holds more than 8: L <= 5
#: hand cards plus 3 table cards)
MAX_CARDS = 10

# K2 values by combination size (index = number of cards)
SUIT_POINTS = {2: -2, 3: 0, 4: 2, 5: 6}
RUN_POINTS = {2: -1, 3: 2, 4: 6, 5: 14}
#: by-rank combinations by (size, number of equal-rank pairs among the cards):
#: pair (2, 1), three of a kind (3, 3), two pairs (4, 2), four of a kind (4, 6),
#: three of a kind + a pair (5, 3 + 1 = 4). Other patterns are no combination.
RANK_POINTS = {(2, 1): -1, (3, 3): 2, (4, 2): 3, (4, 6): 10, (5, 4): 10}

#: value of "impossible" (sums of a few stay far from overflow in int32)
NEG = -1000
#: "impossible" in the int8 table suit_loose: one such suit outweighs anything the other
#: suits and the by-rank side can add with at most MAX_CARDS cards (under +60)
LOOSE_NEG = -128

# fate of a card in one option (Options.fate)
SUIT_SIDE = 0  #: by-suit combinations (strict: never loose; free: or loose)
RANK_SIDE = 1  #: in a by-rank combination
LOOSE_OK = 2  #: by suit, or the one loose card of its rank (strict)
UNIQUE = 3  #: a card whose rank occurs once in the set: by suit or loose
UNIQUE_SLOT = MAX_CARDS  #: Options.fate column of unique cards (and of padding)

#: pattern key of a row = sum over its ranks of PATTERN_WEIGHT[count of that rank]
#: (= n2 + 6 n3 + 36 n4: n2 <= 5, n3 <= 3, n4 <= 2 with at most 10 cards)
PATTERN_WEIGHT = np.array([0, 0, 1, 6, 36], dtype=np.int16)
NUM_PATTERN_KEYS = 36 * 3


def suit_full_table() -> np.ndarray:
    """int32 [8192]: best split of a one-suit rank mask into by-suit combinations (each
    2..5 cards, a run if consecutive), NEG if impossible. DP by popcount layers: the best
    over the combinations C holding the mask's lowest rank of value(C) + best(mask - C)."""
    size = 1 << NUM_RANKS
    masks = np.arange(size)
    has = (masks[:, None] >> np.arange(NUM_RANKS) & 1).astype(bool)  # [8192, 13]
    popcount = has.sum(axis=1)
    low = np.argmax(has, axis=1)
    high = NUM_RANKS - 1 - np.argmax(has[:, ::-1], axis=1)
    run = high - low + 1 == popcount
    combo = np.full(size, NEG, dtype=np.int32)  # value of a mask as one combination
    for k in range(2, 6):
        combo[(popcount == k) & run] = RUN_POINTS[k]
        combo[(popcount == k) & ~run] = SUIT_POINTS[k]
    best = np.full(size, NEG, dtype=np.int32)
    best[0] = 0
    for p in range(2, NUM_RANKS + 1):
        layer = masks[popcount == p]  # [T]
        bit_val = np.where(has[layer], 1 << np.arange(NUM_RANKS), 0)
        bit_val = -np.sort(-bit_val, axis=1)[:, ::-1][:, -p:]  # [T, p] ascending
        value = np.full(len(layer), NEG, dtype=np.int32)
        for k in range(2, min(5, p) + 1):
            others = np.array(list(combinations(range(1, p), k - 1)))  # [Q, k - 1]
            c = bit_val[:, :1] + bit_val[:, others].sum(axis=2)  # [T, Q] combinations
            value = np.maximum(value, (combo[c] + best[layer[:, None] ^ c]).max(axis=1))
        best[layer] = np.maximum(value, NEG)
    return best


def ternary_table() -> np.ndarray:
    """int32 [8192]: sum of 3**r over the ranks r of a mask, so that ``t[m] + t[c]`` (c a
    sub-mask of m) indexes :func:`suit_loose_table`."""
    masks = np.arange(1 << NUM_RANKS)
    return (
        ((masks[:, None] >> np.arange(NUM_RANKS) & 1) * 3 ** np.arange(NUM_RANKS))
        .sum(axis=1)
        .astype(np.int32)
    )


def suit_loose_table(full: np.ndarray) -> np.ndarray:
    """int8 [3**13]: strict value of one suit's ranks m of which the sub-mask c may be
    loose, at index ``ternary[m] + ternary[c]``: max(full[m], full[m - r] for r in c);
    ``LOOSE_NEG`` if impossible. int8 keeps the table small (1.6 MB: cache misses are
    much of its cost); a row's total is summed in int32."""
    masks = np.zeros(1, dtype=np.int32)  # the m of every index (digit 1 or 2: r in m)
    for r in range(NUM_RANKS):
        masks = np.concatenate([masks, masks | 1 << r, masks | 1 << r])
    out = full[masks]
    for r in range(NUM_RANKS):  # entries whose digit r is 2: rank r may be loose
        view = out.reshape(3 ** (NUM_RANKS - 1 - r), 3, 3**r)[:, 2, :]
        dropped = masks.reshape(view.shape[0], 3, 3**r)[:, 2, :] ^ 1 << r
        np.maximum(view, full[dropped], out=view)
    valid = out > NEG
    assert out[valid].min() > LOOSE_NEG and out.max() <= 127
    return np.where(valid, out, LOOSE_NEG).astype(np.int8)


def suit_free_table(full: np.ndarray) -> np.ndarray:
    """int32 [8192]: max of ``full`` over the sub-masks of each mask (the rest loose)."""
    out = full.copy()
    masks = np.arange(len(full))
    for r in range(NUM_RANKS):
        has = (masks >> r & 1).astype(bool)
        out[has] = np.maximum(out[has], out[masks[has] ^ (1 << r)])
    return out


def _rank_units_value(units: list[tuple[str, int]]) -> int:
    """Best value of by-rank units (kind, rank): 'P' pair, 'T' trips, 'Q' quads, each
    alone or a pair joined with another pair (two pairs) or trips (full house) of another
    rank."""
    if not units:
        return 0
    (kind, rank), rest = units[0], units[1:]
    alone = {"P": RANK_POINTS[(2, 1)], "T": RANK_POINTS[(3, 3)], "Q": RANK_POINTS[(4, 6)]}
    best = alone[kind] + _rank_units_value(rest)
    for i, (kind2, rank2) in enumerate(rest):
        if rank2 == rank:
            continue
        pair = {kind, kind2}
        if kind == kind2 == "P":
            value = RANK_POINTS[(4, 2)]
        elif pair == {"P", "T"}:
            value = RANK_POINTS[(5, 4)]
        else:
            continue
        best = max(best, value + _rank_units_value(rest[:i] + rest[i + 1 :]))
    return best


def rank_value_table() -> np.ndarray:
    """int32 [6, 4, 3]: best by-rank split of n2 ranks x2, n3 x3 and n4 x4 (four cards of
    a rank are four of a kind or two pairs of that rank)."""
    out = np.full((6, 4, 3), NEG, dtype=np.int32)
    for n2, n3, n4 in product(range(6), range(4), range(3)):
        if 2 * n2 + 3 * n3 + 4 * n4 > MAX_CARDS:
            continue
        base = [("P", r) for r in range(n2)] + [("T", n2 + r) for r in range(n3)]
        best = NEG
        for split in product((False, True), repeat=n4):  # quads, or two pairs
            units = list(base)
            for j, two_pairs in enumerate(split):
                rank = n2 + n3 + j
                units += [("P", rank), ("P", rank)] if two_pairs else [("Q", rank)]
            best = max(best, _rank_units_value(units))
        out[n2, n3, n4] = best
    return out


def _group_options(count: int, strict: bool) -> list[tuple[tuple[int, ...], int]]:
    """(fates of the rank's cards, cards put by rank) for one shared rank held ``count``
    times: any 0, 2, 3 or 4 of its cards by rank; strict also names which one of the
    others may be loose (naming none is never better, so some card is named)."""
    out = []
    for size in (0, 2, 3, 4):
        for chosen in combinations(range(count), size):
            fates = [RANK_SIDE if i in chosen else SUIT_SIDE for i in range(count)]
            rest = [i for i in range(count) if i not in chosen]
            if not strict or not rest:
                out.append((tuple(fates), size))
                continue
            for named in rest:
                named_fates = list(fates)
                named_fates[named] = LOOSE_OK
                out.append((tuple(named_fates), size))
    return out


@dataclass(frozen=True)
class Options:
    """For every pattern key: its options ``start[key] .. start[key] + count[key]`` in
    ``fate`` (int8 [options, MAX_CARDS + 1]: the fate of each slot, shared cards in the
    order (count desc, rank, suit); column UNIQUE_SLOT = UNIQUE) and ``rank_value``
    (int32 [options], the by-rank value of the cards with fate RANK_SIDE)."""

    start: np.ndarray
    count: np.ndarray
    fate: np.ndarray
    rank_side: np.ndarray
    loose_ok: np.ndarray
    rank_value: np.ndarray


def build_options(strict: bool, rank_value: np.ndarray) -> Options:
    start = np.zeros(NUM_PATTERN_KEYS, dtype=np.intp)
    count = np.zeros(NUM_PATTERN_KEYS, dtype=np.intp)
    fates: list[tuple[int, ...]] = []
    values: list[int] = []
    for n4, n3, n2 in product(range(3), range(4), range(6)):
        if 2 * n2 + 3 * n3 + 4 * n4 > MAX_CARDS:
            continue
        key = n2 + 6 * n3 + 36 * n4
        groups = [4] * n4 + [3] * n3 + [2] * n2  # slot order: count desc
        start[key] = len(fates)
        for choice in product(*[_group_options(c, strict) for c in groups]):
            slots = [f for group_fates, _ in choice for f in group_fates]
            used = [size for _, size in choice]
            row = slots + [SUIT_SIDE] * (MAX_CARDS - len(slots)) + [UNIQUE]
            fates.append(tuple(row))
            values.append(int(rank_value[used.count(2), used.count(3), used.count(4)]))
        count[key] = len(fates) - start[key]
    return Options(
        start=start,
        count=count,
        fate=np.array(fates, dtype=np.int8),
        # 0/1 as int64: the scorer takes dot products of them with int64 card bits
        rank_side=(np.array(fates, dtype=np.int8)[:, :MAX_CARDS] == RANK_SIDE).astype(np.int64),
        loose_ok=(np.array(fates, dtype=np.int8)[:, :MAX_CARDS] == LOOSE_OK).astype(np.int64),
        rank_value=np.array(values, dtype=np.int32),
    )


@dataclass(frozen=True)
class Tables:
    suit_full: np.ndarray
    suit_free: np.ndarray
    suit_loose: np.ndarray
    ternary: np.ndarray
    rank_value: np.ndarray
    strict: Options
    free: Options


@cache
def tables() -> Tables:
    full = suit_full_table()
    free = suit_free_table(full)
    rank_value = rank_value_table()
    return Tables(
        suit_full=full,
        suit_free=free,
        suit_loose=suit_loose_table(full),
        ternary=ternary_table(),
        rank_value=rank_value,
        strict=build_options(True, rank_value),
        free=build_options(False, rank_value),
    )
