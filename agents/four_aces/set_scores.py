"""Exact K2/K3 ``strict`` scores of many small card sets given as 52-bit masks (K1–K3).

The Four Aces heuristics (:mod:`agents.four_aces.heuristics`) value many sets per decision
that differ from the player's hand and table by one or two cards. Here a set of scoring
cards is one int64, bit ``c`` for card ``c = suit * 13 + rank`` (:mod:`envs.cards`;
jokers score nothing, K1, and have no bit), and its score is found as follows:

- at most :data:`TABLE_CARDS_MAX` (6) cards: one lookup in a table holding the score of
  every such set (23.3 million int8 entries, built once, on first use). The
  table is indexed by the set's combinatorial number (``sum of binom(c_i, i + 1)`` over
  its cards in increasing order, plus an offset per set size). It is filled from
  :func:`envs.four_aces.scoring.score_presence` on one set per class of sets that differ
  only by a permutation of the suits (the score does not depend on which suit is which),
  copied to the other members of the class;
- 7 or 8 cards: a card alone in its suit whose rank occurs once is in no combination
  and may always be loose, so it is dropped first (:func:`_drop_singletons`); at most 6
  cards left: a table lookup;
- otherwise two *pivots*, cards of one suit whose ranks occur once in the set, cannot
  both be loose (K3 strict) and can only belong to a by-suit combination (a rank occurring
  once forms no by-rank one, K2). So the score is the best, over the one-suit
  combinations Y (2 to 5 cards, K2) holding a pivot, of ``value(Y) + score(set - Y)``,
  where ``set - Y`` has at most 6 cards (a table lookup);
- 7 or 8 cards without such pivots but with a rank held exactly twice: the two cards of
  that rank cannot both be loose either, and the combinations holding them are the pair,
  the pair with two or three cards of another rank and the one-suit combinations holding
  one of them (:func:`_score_pair_pivot`);
- anything else (more than 8 cards, or none of the above) is scored by
  :func:`~envs.four_aces.scoring.score_presence`, and so is a call with fewer than
  :data:`DIRECT_MAX` sets while the table is not built yet (a decision at a time never
  waits for the table).

:func:`score_bits` is exact: it returns what ``score_presence(..., "strict")`` returns.
"""

from __future__ import annotations

from functools import cache
from itertools import permutations
from math import comb

import numpy as np

from envs.cards import JOKER, NUM_RANKS
from envs.four_aces.scoring import score_presence
from envs.four_aces.scoring_tables import NEG, RANK_POINTS, RUN_POINTS, SUIT_POINTS

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
POP13 = np.bitwise_count(_MASKS).astype(np.int64)
_SHIFTS = np.arange(NUM_SUITS, dtype=np.int64) * NUM_RANKS
#: first table entry of the sets of each size 0..TABLE_CARDS_MAX, then the table's length
OFFSET = np.cumsum([0] + [comb(JOKER, k) for k in range(TABLE_CARDS_MAX + 1)]).astype(np.int64)


def _suit_index_table() -> np.ndarray:
    """int64 [4, 8192, 7]: ``[s, m, b]`` = the part of a set's combinatorial number that
    the cards of suit ``s`` with rank mask ``m`` contribute when ``b`` cards of the set lie
    in lower suits: ``sum over the j-th rank r of m of binom(13 s + r, b + j + 1)``."""
    ranks = np.arange(NUM_RANKS)
    has = (_MASKS[:, None] >> ranks) & 1  # [8192, 13]
    below = np.cumsum(has, axis=1) - has  # cards of m under rank r
    binom = np.array(
        [[comb(n, k) for k in range(2 * NUM_RANKS + 2)] for n in range(JOKER)], dtype=np.int64
    )
    out = np.zeros((NUM_SUITS, len(_MASKS), TABLE_CARDS_MAX + 1), dtype=np.int64)
    for s in range(NUM_SUITS):
        for b in range(TABLE_CARDS_MAX + 1):
            terms = binom[s * NUM_RANKS + ranks[None, :], b + below + 1]  # [8192, 13]
            out[s, :, b] = (terms * has).sum(axis=1)
    return out


_SUIT_FLAT = _suit_index_table().reshape(-1)  # [s, m, b] at (s * 8192 + m) * 7 + b
_M = 1 << NUM_RANKS
_B = TABLE_CARDS_MAX + 1


def suit_masks(bits: np.ndarray) -> np.ndarray:
    """int64 [4, N]: the 13-bit rank mask of each suit (row) of the sets ``bits`` [N]."""
    return (np.asarray(bits, dtype=np.int64)[None, :] >> _SHIFTS[:, None]) & _SUIT_BITS


def _index(masks: np.ndarray) -> np.ndarray:
    """int64 [N]: table positions of sets of at most 6 cards given as suit masks [4, N]."""
    pc = POP13.take(masks)
    b1 = pc[0]
    b2 = b1 + pc[1]
    b3 = b2 + pc[2]
    index = OFFSET.take(b3 + pc[3])
    index += _SUIT_FLAT.take(masks[0] * _B)
    index += _SUIT_FLAT.take((masks[1] + _M) * _B + b1)
    index += _SUIT_FLAT.take((masks[2] + 2 * _M) * _B + b2)
    index += _SUIT_FLAT.take((masks[3] + 3 * _M) * _B + b3)
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


@cache
def score_table() -> np.ndarray:
    """int8 [OFFSET[-1]]: the strict score of every set of at most 6 cards, at
    ``OFFSET[size] + combinatorial number`` (built on first use, see the module doc)."""
    canonical = _canonical_masks().T  # [4, T]
    bits = (canonical << _SHIFTS[:, None]).sum(axis=0)
    scores = np.concatenate(
        [score_presence(_presence(chunk), "strict") for chunk in np.array_split(bits, 16)]
    ).astype(np.int8)
    table = np.zeros(OFFSET[-1], dtype=np.int8)
    for perm in permutations(range(NUM_SUITS)):
        table[_index(canonical[list(perm)])] = scores
    return table


def _combo_table() -> np.ndarray:
    """int64 [8192]: value of a one-suit rank mask as ONE by-suit combination (a run if
    its ranks are consecutive, K2), NEG unless it has 2 to 5 cards."""
    has = ((_MASKS[:, None] >> np.arange(NUM_RANKS)) & 1).astype(bool)
    low = np.argmax(has, axis=1)
    high = NUM_RANKS - 1 - np.argmax(has[:, ::-1], axis=1)
    run = high - low + 1 == POP13
    out = np.full(len(_MASKS), NEG, dtype=np.int64)
    for k in range(2, 6):
        size_k = np.equal(POP13, k)
        out[size_k & run] = RUN_POINTS[k]
        out[size_k & ~run] = SUIT_POINTS[k]
    return out


def _submask_table() -> np.ndarray:
    """int64 [8192, 64]: ``[m, j]`` = the j-th sub-mask of m (bit i of j kept or not the
    i-th lowest set bit of m, j < 2 ** popcount(m); used for masks of at most 6 bits)."""
    has = ((_MASKS[:, None] >> np.arange(NUM_RANKS)) & 1).astype(bool)
    # the i-th lowest set bit of each mask (0 where it has fewer bits)
    order = np.argsort(~has, axis=1, kind="stable")[:, :6]
    bit = np.where(np.take_along_axis(has, order, axis=1), 1 << order, 0)  # [8192, 6]
    j = np.arange(64)
    out = np.zeros((len(_MASKS), 64), dtype=np.int64)
    for i in range(6):
        out += ((j >> i) & 1)[None, :] * bit[:, i : i + 1]
    return out


_COMBO = _combo_table()
_SUBMASKS_FLAT = _submask_table().reshape(-1)


def _pivot_choices() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The one-suit combinations Y holding a pivot, for a pivot suit with ``q`` other
    cards: Y = (pivot part: first, second or both pivots) + (sub-mask j of the others),
    kept when Y has 2 to 5 cards. Returns (start [8], count [8], part [T], j [T]): the
    choices for ``q`` are entries ``start[q] .. start[q] + count[q] - 1``."""
    parts, subs, counts = [], [], []
    for q in range(7):
        n = 0
        for j in range(1 << q):
            for part, size in ((0, 1), (1, 1), (2, 2)):
                if 2 <= size + bin(j).count("1") <= 5:
                    parts.append(part)
                    subs.append(j)
                    n += 1
        counts.append(n)
    counts = np.array(counts + [0], dtype=np.int64)
    return np.cumsum(counts) - counts, counts, np.array(parts), np.array(subs, dtype=np.int64)


_CHOICE_START, _CHOICE_COUNT, _CHOICE_PART, _CHOICE_SUB = _pivot_choices()


def _score_pivots(masks: np.ndarray, table: np.ndarray) -> np.ndarray:
    """int64 [N]: scores of 7- or 8-card sets (suit masks [4, N]) that have two
    unique-rank cards in one suit (module doc); NEG where they have none (the caller
    scores those another way). The pivot suit is swapped with the last suit (the score
    does not depend on which suit is which), so removing Y changes only the last suit's
    part of the combinatorial number."""
    m0, m1, m2, m3 = masks
    shared = (m0 & m1) | (m0 & m2) | (m0 & m3) | (m1 & m2) | (m1 & m3) | (m2 & m3)
    unique = masks & ~shared  # [4, N] cards of ranks occurring once
    ok = POP13.take(unique) >= 2
    found = ok.any(axis=0)
    best = np.full(masks.shape[1], NEG, dtype=np.int64)
    if not found.any():
        return best
    where = np.flatnonzero(found)
    masks = np.ascontiguousarray(masks[:, where])  # (rows are written below)
    unique, ok = unique[:, where], ok[:, where]
    pc = np.ascontiguousarray(POP13.take(masks))
    # the pivot suit: the shortest suit with two unique-rank cards (fewest choices)
    suit = np.where(ok, pc, 99).argmin(axis=0)
    n = len(where)
    rows = np.arange(n)
    at = suit * n + rows  # the pivot suit's entries of the [4, n] arrays, flat
    u = unique.reshape(-1).take(at)
    low1 = u & -u
    u2 = u ^ low1
    low2 = u2 & -u2
    pivot_mask = masks.reshape(-1).take(at)
    others = pivot_mask & ~(low1 | low2)
    # swap the pivot suit with suit 3; the other three suits' part is then fixed
    masks.reshape(-1)[at] = masks[3]
    pc.reshape(-1)[at] = pc[3]
    b1 = pc[0]
    b2 = b1 + pc[1]
    b3 = b2 + pc[2]
    fixed = (
        _SUIT_FLAT.take(masks[0] * _B)
        + _SUIT_FLAT.take((masks[1] + _M) * _B + b1)
        + _SUIT_FLAT.take((masks[2] + 2 * _M) * _B + b2)
    )
    size = b3 + POP13.take(pivot_mask)
    # per set: the pivot parts, and the fixed part of the number per size of Y (2..5)
    pivot_parts = np.stack([low1, low2, low1 | low2], axis=1).reshape(-1)
    fixed_by_size = (OFFSET.take(np.clip(size[:, None] - np.arange(6), 0, 7))
                     + fixed[:, None]).reshape(-1)
    last = 3 * _M * _B + b3
    # the (set, choice) pairs
    q = POP13.take(others)
    count = _CHOICE_COUNT.take(q)
    first = np.cumsum(count) - count
    e = np.repeat(rows, count)
    choice = np.arange(len(e)) + np.repeat(_CHOICE_START.take(q) - first, count)
    y = _SUBMASKS_FLAT.take(others.take(e) * 64 + _CHOICE_SUB.take(choice))
    y |= pivot_parts.take(e * 3 + _CHOICE_PART.take(choice))
    rest = pivot_mask.take(e) & ~y
    index = fixed_by_size.take(e * 6 + POP13.take(y)) + _SUIT_FLAT.take(rest * _B + last.take(e))
    value = _COMBO.take(y) + table.take(index)
    best[where] = np.maximum.reduceat(value, first)
    return best


def _single_choices() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sub-masks j (1 to 4 bits) of ``q`` other cards, for one-suit combinations holding
    one given card: (start [8], count [8], j [T]), as :func:`_pivot_choices`."""
    subs, counts = [], []
    for q in range(7):
        chosen = [j for j in range(1, 1 << q) if bin(j).count("1") <= 4]
        subs += chosen
        counts.append(len(chosen))
    counts = np.array(counts + [0], dtype=np.int64)
    return np.cumsum(counts) - counts, counts, np.array(subs, dtype=np.int64)


_SINGLE_START, _SINGLE_COUNT, _SINGLE_SUB = _single_choices()
_POP4 = np.bitwise_count(np.arange(16)).astype(np.int64)


def _suit_subsets() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per 4-bit suit pattern of one rank: its sub-patterns of 2 and 3 suits with the
    value of that many cards of the rank joined to a pair in one by-rank combination
    (two pairs +3, three of a kind and a pair +10, K2). (start [16], count [16],
    sub [T], value [T])."""
    subs, values, counts = [], [], []
    for pattern in range(16):
        chosen = [t for t in range(1, 16) if t & ~pattern == 0 and bin(t).count("1") in (2, 3)]
        subs += chosen
        values += [RANK_POINTS[(4, 2)] if bin(t).count("1") == 2 else RANK_POINTS[(5, 4)]
                   for t in chosen]
        counts.append(len(chosen))
    counts = np.array(counts, dtype=np.int64)
    return np.cumsum(counts) - counts, counts, np.array(subs), np.array(values, dtype=np.int64)


_SUBPAT_START, _SUBPAT_COUNT, _SUBPAT, _SUBPAT_VALUE = _suit_subsets()
_RANK_BITS = np.array(  # [13, 16]: the card bits of rank r in the suits of a pattern
    [[sum(1 << (s * NUM_RANKS + r) for s in range(NUM_SUITS) if t >> s & 1) for t in range(16)]
     for r in range(NUM_RANKS)], dtype=np.int64
)


def _score_pair_pivot(masks: np.ndarray, table: np.ndarray) -> np.ndarray:
    """int64 [N]: scores of 7- or 8-card sets (suit masks [4, N]) holding a
    rank exactly twice; NEG where none is. The two cards a, b of the lowest such rank
    cannot both be loose (K3 strict), so the score is the best, over the combinations Y
    holding a or b, of ``value(Y) + score(set - Y)``: the pair itself (-1), the pair with
    two or three cards of another rank (two pairs +3, three of a kind and a pair +10), and
    the one-suit combinations holding a or b (K2)."""
    best = np.full(masks.shape[1], NEG, dtype=np.int64)
    ranks = np.arange(NUM_RANKS, dtype=np.int64)[:, None]
    pattern = sum(((masks[s] >> ranks) & 1) << s for s in range(NUM_SUITS))  # [13, N]
    count = _POP4.take(pattern)
    pair = count == 2
    found = pair.any(axis=0)
    if not found.any():
        return best
    rows = np.flatnonzero(found)
    r = pair[:, rows].argmax(axis=0)  # the lowest rank held twice
    pat = pattern[r, rows]
    sa = np.argmax((pat[:, None] >> np.arange(NUM_SUITS)) & 1, axis=1)
    sb = NUM_SUITS - 1 - np.argmax((pat[:, None] >> np.arange(3, -1, -1)) & 1, axis=1)
    bit_a = np.int64(1) << (sa * NUM_RANKS + r)
    bit_b = np.int64(1) << (sb * NUM_RANKS + r)
    set_bits = (masks[:, rows] << _SHIFTS[:, None]).sum(axis=0)
    entries = []  # (row position, removed bits, combination value)
    # the pair alone
    pos = np.arange(len(rows))
    entries.append((pos, bit_a | bit_b, np.full(len(rows), RANK_POINTS[(2, 1)])))
    # the pair with two or three cards of another rank
    other, where = np.nonzero((count[:, rows] >= 2) & (ranks != r[None, :]))
    other_pat = pattern[other, rows[where]]
    k = _SUBPAT_COUNT.take(other_pat)
    e = np.repeat(where, k)
    first = np.cumsum(k) - k
    choice = np.arange(len(e)) + np.repeat(_SUBPAT_START.take(other_pat) - first, k)
    removed = _RANK_BITS[np.repeat(other, k), _SUBPAT[choice]] | bit_a[e] | bit_b[e]
    entries.append((e, removed, _SUBPAT_VALUE[choice]))
    # one-suit combinations holding a (in suit sa) or b (in suit sb)
    for suit in (sa, sb):
        mask = masks[suit, rows]
        others = mask & ~(np.int64(1) << r)
        q = POP13.take(others)
        k = np.where(q <= 6, _SINGLE_COUNT.take(np.minimum(q, 7)), 0)
        e = np.repeat(pos, k)
        first = np.cumsum(k) - k
        choice = np.arange(len(e)) + np.repeat(_SINGLE_START.take(np.minimum(q, 7)) - first, k)
        y = _SUBMASKS_FLAT.take(others.take(e) * 64 + _SINGLE_SUB.take(choice))
        y |= np.int64(1) << r.take(e)
        entries.append((e, y << (suit.take(e) * NUM_RANKS), _COMBO.take(y)))
    e = np.concatenate([x[0] for x in entries])
    removed = np.concatenate([x[1] for x in entries])
    value = np.concatenate([x[2] for x in entries])
    value = value + table.take(_index(suit_masks(set_bits.take(e) & ~removed)))
    order = np.argsort(e, kind="stable")
    e, value = e[order], value[order]
    starts = np.flatnonzero(np.r_[True, e[1:] != e[:-1]])
    best[rows[e[starts]]] = np.maximum.reduceat(value, starts)
    return best


def score_bits(bits: np.ndarray) -> np.ndarray:
    """int32 [N]: the K2/K3 ``strict`` score of each set ``bits`` [N] (int64 52-bit masks,
    bit ``c`` = card ``c`` is in the set); equal to
    ``score_presence(presence, "strict")`` (see the module doc for how)."""
    bits = np.asarray(bits, dtype=np.int64).reshape(-1)
    if len(bits) < DIRECT_MAX and not score_table.cache_info().currsize:
        return score_presence(_presence(bits), "strict")  # small: not worth the table
    table = score_table()
    size = np.bitwise_count(bits).astype(np.int64)
    out = np.empty(len(bits), dtype=np.int32)
    small = size <= TABLE_CARDS_MAX
    if small.all():
        out[:] = table.take(_index(suit_masks(bits)))
        return out
    out[small] = table.take(_index(suit_masks(bits[small])))
    big = np.flatnonzero(~small)
    masks = _drop_singletons(suit_masks(bits[big]))
    size = POP13.take(masks).sum(axis=0)
    now_small = size <= TABLE_CARDS_MAX
    out[big[now_small]] = table.take(_index(masks[:, now_small]))
    mid = np.flatnonzero(~now_small & (size <= 8))
    if len(mid):
        out[big[mid]] = _score_pivots(masks[:, mid], table)
        left = mid[out[big[mid]] == NEG]
        if len(left):
            out[big[left]] = _score_pair_pivot(masks[:, left], table)
    rest = big[~now_small & ((size > 8) | (out[big] == NEG))]
    if len(rest):
        out[rest] = score_presence(_presence(bits[rest]), "strict")
    return out


def _drop_singletons(masks: np.ndarray) -> np.ndarray:
    """Suit masks [4, N] without the cards that are alone in their suit and of a rank
    occurring once: such a card is in no combination (K2) and may always be loose (no
    other card shares its suit or rank, K3), so it changes no score."""
    m0, m1, m2, m3 = masks
    shared = (m0 & m1) | (m0 & m2) | (m0 & m3) | (m1 & m2) | (m1 & m3) | (m2 & m3)
    alone = (POP13.take(masks) == 1) & ((masks & shared) == 0)
    return np.where(alone, 0, masks)


def _table_ready(count: int) -> bool:
    """Whether ``count`` sets go through the table (see :data:`DIRECT_MAX`)."""
    return count >= DIRECT_MAX or bool(score_table.cache_info().currsize)


def score_table_for(count: int) -> np.ndarray:
    """:func:`score_table` when ``count`` sets are about to be scored and the table pays
    (or is built already, see :data:`DIRECT_MAX`); otherwise an empty int8 array, which
    tells the caller to score directly (a decision at a time never waits for the table)."""
    return score_table() if _table_ready(count) else np.zeros(0, dtype=np.int8)


def _suit_parts(masks: np.ndarray, extra: int) -> tuple[np.ndarray, np.ndarray]:
    """(cards in lower suits [4, R], parts [extra + 1, 4, R]): part ``[d, s]`` is what
    suit s of the sets (suit masks [4, R]) adds to the combinatorial number when ``d``
    more cards come in lower suits."""
    pc = POP13.take(masks)
    before = np.cumsum(pc, axis=0) - pc
    flat = (masks + (np.arange(NUM_SUITS) * _M)[:, None]) * _B + before
    return before, np.stack([_SUIT_FLAT.take(flat + d) for d in range(extra + 1)])


_RANK_OF_CARD = np.tile(np.arange(NUM_RANKS, dtype=np.int64), NUM_SUITS)
_SUIT_OF_CARD = np.repeat(np.arange(NUM_SUITS, dtype=np.int64), NUM_RANKS)


def score_plus_one(bits: np.ndarray) -> np.ndarray:
    """int32 [R, 52]: the score of set r (``bits`` [R], at most 5 cards each) with card
    c added, for every card c (entries of cards already in the set mean nothing).

    One table lookup each: adding card c (suit t, rank q) changes suit t's part of the
    combinatorial number and moves the parts of the suits above t by one card."""
    bits = np.asarray(bits, dtype=np.int64).reshape(-1)
    if not _table_ready(len(bits) * JOKER):
        both = bits[:, None] | CARD_BIT[None, :JOKER]
        return score_bits(both.reshape(-1)).reshape(len(bits), JOKER)
    table = score_table()
    masks = suit_masks(bits)
    before, parts = _suit_parts(masks, 1)  # parts [2, 4, R]
    size = POP13.take(masks).sum(axis=0)
    if size.max(initial=0) > TABLE_CARDS_MAX - 1:
        raise ValueError(f"score_plus_one: sets of at most {TABLE_CARDS_MAX - 1} cards, "
                         f"got {size.max()}")
    below = np.cumsum(parts[0], axis=0) - parts[0]  # suits under t, unmoved
    above = parts[1].sum(axis=0) - np.cumsum(parts[1], axis=0)  # suits over t, moved
    fixed = OFFSET.take(size + 1) + below + above  # [4, R]: all but suit t's own part
    t, q = _SUIT_OF_CARD, _RANK_OF_CARD
    own = ((masks[t] | (1 << q)[:, None]) + (t * _M)[:, None]) * _B + before[t]  # [52, R]
    index = fixed[t] + _SUIT_FLAT.take(own)
    return table.take(index.T).astype(np.int32)


def cards_to_bits(cards: np.ndarray) -> np.ndarray:
    """int64 [...]: the set of each card list ``cards`` [..., n] (card indices, -1 padding
    and jokers ignored) as a 52-bit mask."""
    cards = np.asarray(cards)
    return np.bitwise_or.reduce(CARD_BIT[np.where(cards < 0, JOKER + 1, cards)], axis=-1)
