"""The table of the K2/K3 ``strict`` scores of every set of at most six cards (K1–K3).

The Four Aces heuristics (:mod:`agents.four_aces.heuristics`) value many sets per decision
that differ from the player's hand and table by one or two cards. Here a set of scoring
cards is one int64, bit ``c`` for card ``c = suit * 13 + rank`` (:mod:`envs.cards`;
jokers score nothing, K1, and have no bit). A set of at most :data:`TABLE_CARDS_MAX` (6)
cards is scored by one lookup in :func:`score_table`, which holds the score of every such
set (23.3 million int8 entries, built once, on first use), at the position
:func:`table_index`: the set's combinatorial number (``sum of binom(c_i, i + 1)`` over its
cards in increasing order) plus an offset per set size. The table is filled by the
engine's scorer (:func:`envs.four_aces.scoring.score_presence`) on one set per class of
sets that differ only by a permutation of the suits (the score does not depend on which
suit is which), copied to the other members of the class. Other sets are scored by the
engine's scorer itself (:mod:`agents.four_aces.lookahead_kernel`).

A decision at a time never waits for the table: :func:`score_table_for` hands it out only
for many sets (:data:`DIRECT_MAX`) or once it is built.
"""

from __future__ import annotations

from functools import cache
from itertools import permutations
from math import comb

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from envs.cards import JOKER, NUM_RANKS
from envs.compiled import popcount
from envs.four_aces.scoring import score_presence

NUM_SUITS = 4
#: sets of at most this many cards are scored by one table lookup
TABLE_CARDS_MAX = 6
#: fewer sets than this are scored directly while the table is not built yet
DIRECT_MAX = 50_000
_SUIT_BITS = (1 << NUM_RANKS) - 1
_MASKS = np.arange(1 << NUM_RANKS, dtype=np.int64)
#: int64 [54]: the bit of each card index; the joker (52) and padding (53, i.e. -1) none
CARD_BIT = np.zeros(JOKER + 2, dtype=np.int64)
CARD_BIT[:JOKER] = np.int64(1) << np.arange(JOKER, dtype=np.int64)
#: the four aces' bits (rank 12 of every suit)
ACE_BITS = np.int64(sum(1 << (s * NUM_RANKS + NUM_RANKS - 1) for s in range(NUM_SUITS)))
#: int64 [8192]: number of cards in a one-suit rank mask
POP13 = popcount(_MASKS).astype(np.int64)
_SHIFTS = np.arange(NUM_SUITS, dtype=np.int64) * NUM_RANKS
#: first table entry of the sets of each size 0..TABLE_CARDS_MAX, then the table's length
OFFSET = np.cumsum([0] + [comb(JOKER, k) for k in range(TABLE_CARDS_MAX + 1)]).astype(np.int64)
#: int64 [52, 7]: binom(c, k), the terms of a set's position in the table
BINOMIAL = np.array([[comb(c, k) for k in range(TABLE_CARDS_MAX + 1)] for c in range(JOKER)],
                    dtype=np.int64)


@intrinsic
def lowest_bit(typingctx, x):
    """Index of the lowest set bit of an int64 (64 for 0): LLVM's ``llvm.cttz``, one
    instruction."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        int64 = ir.IntType(64)
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        # the second argument, "0 gives poison", is false: 0 gives 64
        fn = builder.module.declare_intrinsic("llvm.cttz", [int64, ir.IntType(1)])
        return builder.call(fn, [value, ir.Constant(ir.IntType(1), 0)])

    return types.int64(x), codegen


@numba.njit(cache=True, inline="always")
def table_index(bits: int, offset: np.ndarray) -> int:
    """Position of the set ``bits`` (at most six cards) in :func:`score_table`:
    ``offset[size]`` (:data:`OFFSET`) plus the set's combinatorial number,
    ``binom(c_i, i + 1)`` summed over its cards in increasing order."""
    index = offset[popcount(bits)]
    i = 1
    while bits:
        index += BINOMIAL[lowest_bit(bits), i]
        bits &= bits - 1
        i += 1
    return index


def _canonical_masks() -> np.ndarray:
    """int64 [T, 4]: every tuple of suit masks m0 >= m1 >= m2 >= m3 with at most 6 cards
    in all: one set per class of sets equal up to a permutation of the suits."""
    by_count = [_MASKS[np.equal(POP13, p)] for p in range(TABLE_CARDS_MAX + 1)]  # ascending
    prev = np.array([_SUIT_BITS + 1], dtype=np.int64)  # above every mask
    used = np.zeros(1, dtype=np.int64)
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(NUM_SUITS):
        parts_rows, parts_prev, parts_used = [], [], []
        for p, masks in enumerate(by_count):
            ok = np.flatnonzero(used + p <= TABLE_CARDS_MAX)
            n = np.searchsorted(masks, prev[ok], side="right")  # masks <= prev
            src = np.repeat(ok, n)
            first = np.cumsum(n) - n
            pick = np.arange(len(src)) - np.repeat(first, n)
            parts_rows.append(np.concatenate([rows[src], masks[pick][:, None]], axis=1))
            parts_prev.append(masks[pick])
            parts_used.append(used[src] + p)
        rows = np.concatenate(parts_rows)
        prev = np.concatenate(parts_prev)
        used = np.concatenate(parts_used)
    return rows


def _presence(bits: np.ndarray) -> np.ndarray:
    """int8 [N, 52]: presence rows of the sets ``bits`` [N]."""
    cards = np.arange(JOKER, dtype=np.int64)
    return ((np.asarray(bits, dtype=np.int64)[:, None] >> cards) & 1).astype(np.int8)


@numba.njit(cache=True)
def _fill_table(canonical: np.ndarray, scores: np.ndarray, suit_orders: np.ndarray,
                offset: np.ndarray, table: np.ndarray) -> None:
    """``table[table_index(set)] = scores[i]`` for every set whose suit s holds the
    ranks ``canonical[i, suit_orders[p, s]]``, for every class i and suit order p."""
    for i in range(canonical.shape[0]):
        for p in range(suit_orders.shape[0]):
            bits = np.int64(0)
            for s in range(NUM_SUITS):
                bits |= canonical[i, suit_orders[p, s]] << (s * NUM_RANKS)
            table[table_index(bits, offset)] = scores[i]


@cache
def score_table() -> np.ndarray:
    """int8 [OFFSET[-1]]: the strict score of every set of at most 6 cards, at
    :func:`table_index` (built on first use, see the module doc)."""
    canonical = _canonical_masks()  # [T, 4]
    bits = (canonical << _SHIFTS[None, :]).sum(axis=1)
    scores = np.concatenate(
        [score_presence(_presence(chunk), "strict") for chunk in np.array_split(bits, 16)]
    ).astype(np.int8)
    table = np.zeros(OFFSET[-1], dtype=np.int8)
    suit_orders = np.array(list(permutations(range(NUM_SUITS))), dtype=np.int64)
    _fill_table(canonical, scores, suit_orders, OFFSET, table)
    return table


def _table_ready(count: int) -> bool:
    """Whether ``count`` sets go through the table (see :data:`DIRECT_MAX`)."""
    return count >= DIRECT_MAX or bool(score_table.cache_info().currsize)


def score_table_for(count: int) -> np.ndarray:
    """:func:`score_table` when ``count`` sets are about to be scored and the table pays
    (or is built already, see :data:`DIRECT_MAX`); otherwise an empty int8 array, which
    tells the caller to score directly (a decision at a time never waits for the table)."""
    return score_table() if _table_ready(count) else np.zeros(0, dtype=np.int8)


def cards_to_bits(cards: np.ndarray) -> np.ndarray:
    """int64 [...]: the set of each card list ``cards`` [..., n] (card indices, -1 padding
    and jokers ignored) as a 52-bit mask."""
    cards = np.asarray(cards)
    return np.bitwise_or.reduce(CARD_BIT[np.where(cards < 0, JOKER + 1, cards)], axis=-1)
