"""Compiled kernels of the Four Aces look-ahead discarder (numba, one row at a time).

:class:`agents.four_aces.heuristics.LookaheadDiscarder` values each option of a decision
(discard a hand slot's card, or turn up, H2) by a two-step expectimax on sampled refills
(see that module's doc). It hands its batch here as plain arrays; each row is worked out
by loops compiled once (``cache=True``), one function per step:

1. :func:`sample_draws` (:func:`pick_draws` of given keys) — the sampled refills: per
   sample, the unseen cards in the order of their random keys (G6: a refill is a uniform
   draw from them);
2. :func:`set_values` — the value of many card sets at once: the K2/K3 strict score, or
   the match with all four aces (H4/K1), plus the premium for kept aces
   (:data:`ACE_PREMIUM`);
3. :func:`replace_one_values` and :func:`first_step_values` — the own set with one slot's
   card replaced by each card drawn, and each option's set after its first refill;
4. :func:`second_step_values` — where the player has another turn (H3), the best of his
   next discards, each averaged over the inner refills;
5. :func:`option_values` — the batch: per row the mean over the samples of each option.

Card sets are 52-bit masks (bit ``c`` for card ``c``, :mod:`agents.four_aces.set_scores`;
jokers have no bit, K1). A set of at most six cards is scored by one lookup in the table
of every such set, when the caller passes it; other sets by the engine's scorer
(:func:`envs.four_aces.scoring.score_set`), after their lone suits are set apart
(:func:`set_apart_lone_suits`).

The values are the same floats as a numpy computation of the same expectimax: a set's
value is ``score + premium``, and sums over samples follow numpy's pairwise order
(:func:`numpy_sum`), so choices that hang on near-ties do not change. A card drawn twice
(a row with fewer unseen cards than draws) counts twice among a set's aces. Inputs are
C-contiguous int64, float64 and bool arrays, so one signature of each kernel is compiled.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from agents.four_aces.set_scores import (
    ACE_BITS,
    OFFSET,
    TABLE_CARDS_MAX,
    table_index,
)
from agents.pcg64 import STATE_HIGH, STATE_LOW, advance, jumps, random_bits
from envs.cards import NUM_CARDS, NUM_RANKS
from envs.compiled import popcount
from envs.four_aces.rules import MAX_HAND
from envs.four_aces.scoring import MAX_CARDS, ScorerTables, score_set, scorer_tables, suit_value

#: the value given to an option that does not exist (a hand slot without a card)
NO_OPTION = -1.0e9
_SUIT_MASK = (1 << NUM_RANKS) - 1
#: the most aces one set can count: every scoring card (MAX_HAND hand and three table
#: cards), a card drawn twice counted twice
_MAX_ACES = 8
_ACES_OUT_MAX = 4


def _ace_premium_table() -> np.ndarray:
    """float64 [9, 5]: the premium of keeping ``a`` aces (row) while ``o`` are unseen
    (column): 0.3 for two and 1.5 for three, while all four can still be had
    (``a + o >= 4``); nothing otherwise."""
    aces = np.arange(_MAX_ACES + 1)[:, None]
    unseen = np.arange(_ACES_OUT_MAX + 1)[None, :]
    premium = np.select([aces == 2, aces == 3], [0.3, 1.5], 0.0)
    return np.where(aces + unseen >= 4, premium, 0.0)


#: float64 [9, 5]: the premium for kept aces, by (aces in the set, aces unseen)
ACE_PREMIUM = _ace_premium_table()


class ScoreTables(NamedTuple):
    """The tables card sets are scored with (K2/K3 strict), from :func:`score_tables`."""

    #: int8 [OFFSET[-1]]: score of every set of at most six cards
    #: (:func:`~agents.four_aces.set_scores.score_table`), or empty: no table
    by_set: np.ndarray
    #: int64 [8]: first table position of the sets of each size (``OFFSET``)
    offset: np.ndarray
    #: the engine's scorer's tables, ``strict``
    #: (:func:`~envs.four_aces.scoring.scorer_tables`)
    scorer: ScorerTables


def score_tables(by_set: np.ndarray) -> ScoreTables:
    """The tables of :func:`set_values`, with ``by_set`` the table of every set of at
    most six cards or an empty int8 array (then every set is scored by the engine's
    scorer)."""
    by_set = np.asarray(by_set)
    if by_set.dtype != np.int8 or by_set.ndim != 1 or by_set.size not in (0, OFFSET[-1]):
        raise ValueError(f"by_set: expected an empty int8 array or score_table() (int8 "
                         f"[{OFFSET[-1]}]), got {by_set.dtype} {by_set.shape}")
    return ScoreTables(by_set, OFFSET, scorer_tables("strict"))


class Workspace(NamedTuple):
    """Scratch arrays of one row, made once per batch (:func:`workspace`)."""

    #: int64 / float64 [sets]: the card sets valued together, their aces, the value of
    #: their lone suits, their table positions, the sets left to score by their options,
    #: and the values (:func:`set_values`)
    bits: np.ndarray
    aces: np.ndarray
    apart: np.ndarray
    position: np.ndarray
    index: np.ndarray
    values: np.ndarray
    #: int64 [MAX_CARDS]: scratch of the scorer (:func:`~envs.four_aces.scoring.score_set`)
    slots: np.ndarray
    #: int64 [53]: the row that last listed each card, and the cards listed
    listed: np.ndarray
    cards: np.ndarray
    #: float64 [MAX_HAND, 53]: ``one[j, c]``, the own set with slot j's card replaced by c
    one: np.ndarray
    #: float64 [MAX_HAND + 1, S]: each option's value per sample (row MAX_HAND: turn up)
    value: np.ndarray
    #: float64 [M]: one sample's values over the inner refills
    inner: np.ndarray


@numba.njit(cache=True)
def workspace(samples: int, inner: int) -> Workspace:
    """The :class:`Workspace` of ``samples`` samples of ``inner`` refills after the first."""
    pairs = MAX_HAND * (MAX_HAND - 1) // 2
    sets = max(MAX_HAND * NUM_CARDS + 1, pairs * samples * inner)
    return Workspace(
        np.empty(sets, dtype=np.int64), np.empty(sets, dtype=np.int64),
        np.empty(sets, dtype=np.int64), np.empty(sets, dtype=np.int64),
        np.empty(sets, dtype=np.int64), np.empty(sets),
        np.empty(MAX_CARDS, dtype=np.int64),
        np.full(NUM_CARDS, -1, dtype=np.int64), np.empty(NUM_CARDS, dtype=np.int64),
        np.empty((MAX_HAND, NUM_CARDS)), np.empty((MAX_HAND + 1, samples)),
        np.empty(inner))


# ------------------------------------------------------------------------------------
# bits of a card set
# ------------------------------------------------------------------------------------
@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring ``array[index]`` (a 1-d array) into its caches, without
    waiting for it (LLVM's ``llvm.prefetch``: a read, kept in every cache level); an
    index out of bounds is harmless (a prefetch never faults)."""
    if not isinstance(array, types.Array) or array.ndim != 1 or not isinstance(
            index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]],
                                           wraparound=False)
        byte_pointer = ir.IntType(8).as_pointer()
        int32 = ir.IntType(32)
        function_type = ir.FunctionType(ir.VoidType(), [byte_pointer, int32, int32, int32])
        function = cgutils.get_or_insert_function(builder.module, function_type,
                                                  "llvm.prefetch.p0")
        # (read, locality 3: keep in all levels, data cache)
        builder.call(function, [builder.bitcast(pointer, byte_pointer),
                                ir.Constant(int32, 0), ir.Constant(int32, 3),
                                ir.Constant(int32, 1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@numba.njit(cache=True, inline="always")
def card_bit(card: int) -> int:
    """The bit of ``card`` in a set; none (0) for the joker (52) and padding (-1)."""
    if card < 0 or card >= NUM_CARDS - 1:
        return 0
    return 1 << card


# ------------------------------------------------------------------------------------
# step 1: the sampled refills
# ------------------------------------------------------------------------------------
#: 2**53: a key drawn by ``rng.random()`` is a whole multiple of 1 / 2**53
_KEY_SCALE = 9007199254740992.0
#: a packed key above every real one (:func:`_keep_smallest`)
_NO_KEY = np.int64(1) << 62
#: bits of a packed key that hold the card
_CARD_BITS = 6
_CARD_MASK = (1 << _CARD_BITS) - 1


@numba.njit(cache=True, inline="always")
def _keep_smallest(candidates: np.ndarray, found: int, count: int, out: np.ndarray,
                   top: np.ndarray) -> None:
    """``out[:count]``: the cards of the ``count`` smallest packed keys of
    ``candidates[:found]`` in increasing order; with fewer than ``count`` candidates the
    first is repeated in the missing places, with none it is card 0. A packed key is the
    key's 53-bit integer (``rng.random()`` is it over 2**53) above the card's six bits,
    so equal keys order by card. They are kept sorted in ``top`` [count] by a min/max
    insertion without branches (a sort's branches mispredict on random keys)."""
    for i in range(count):
        top[i] = _NO_KEY
    for a in range(found):
        packed = candidates[a]
        for i in range(count - 1, 0, -1):
            top[i] = min(top[i], max(top[i - 1], packed))
        top[0] = min(top[0], packed)
    for i in range(count):
        if i < found:
            out[i] = top[i] & _CARD_MASK
        else:  # no card left: repeat the first draw
            out[i] = out[0] if i else 0


@numba.njit(cache=True, inline="always")
def _key_bound(pool: np.ndarray, count: int) -> float:
    """The ``count`` smallest keys of the unseen cards (``pool`` [53]) lie below this
    bound but for a small chance (then every unseen card's key competes)."""
    return (count + 5.0) / max(pool.sum(), 1)


@numba.njit(cache=True)
def pick_draws(keys: np.ndarray, pool: np.ndarray, count: int) -> np.ndarray:
    """int64 [N, S, count]: per row and sample, the first ``count`` unseen cards
    (``pool`` [N, 53] > 0) in increasing order of their ``keys`` [N, S, 53] (float64 in
    [0, 1), whole multiples of 2**-53 as ``rng.random`` draws them), equal keys by card
    index: ``np.argsort`` of the keys with every other card's key raised above 1, cut to
    ``count``. A row with fewer unseen cards than ``count`` repeats its first draw in the
    missing places; one with none draws card 0 (the first of equal keys)."""
    n, samples, cards = keys.shape
    out = np.empty((n, samples, count), dtype=np.int64)
    candidates = np.empty(cards, dtype=np.int64)
    top = np.empty(count, dtype=np.int64)
    for r in range(n):
        bound = _key_bound(pool[r], count)
        for s in range(samples):
            found = 0
            for limit in (bound, 2.0):  # the keys below the bound; all if they are too few
                found = 0
                for c in range(cards):  # (no branch: every card written, kept if it counts)
                    key = keys[r, s, c]
                    candidates[found] = (np.int64(key * _KEY_SCALE) << _CARD_BITS) | c
                    found += (key < limit) & (pool[r, c] > 0)
                if found >= count:
                    break
            _keep_smallest(candidates, found, count, out[r, s], top)
    return out


@numba.njit(cache=True)
def sample_draws(words: np.ndarray, pool: np.ndarray, samples: int,
                 count: int, restart: bool) -> np.ndarray:
    """:func:`pick_draws` of keys drawn here from the PCG64 state ``words``
    (:func:`agents.pcg64.state_words`, stepped in place): the numbers of
    ``rng.random((N, samples, 53))`` in that order, without building that array. Each
    sample's key of card c is the (c + 1)-th number from the sample's first state, made
    directly (:func:`agents.pcg64.advance`), and only for the unseen cards.

    With ``restart`` every row draws from ``words`` itself (the numbers of
    ``rng.random((samples, 53))``, left unstepped): a row's draws then depend on that
    row alone, not on the rows before it."""
    n, cards = pool.shape
    out = np.empty((n, samples, count), dtype=np.int64)
    jump = jumps(words, cards)
    unseen = np.empty(cards, dtype=np.int64)
    candidates = np.empty(cards, dtype=np.int64)
    top = np.empty(count, dtype=np.int64)
    high, low = words[STATE_HIGH], words[STATE_LOW]
    for r in range(n):
        if restart:
            high, low = words[STATE_HIGH], words[STATE_LOW]
        listed = 0
        for c in range(cards):
            unseen[listed] = c
            listed += pool[r, c] > 0
        bound = _key_bound(pool[r], count) * _KEY_SCALE  # (exact: a power of two)
        for s in range(samples):
            found = 0
            for limit in (bound, _KEY_SCALE):  # as pick_draws: all if too few are below
                found = 0
                for i in range(listed):
                    c = unseen[i]
                    state_high, state_low = advance(high, low, jump, c + 1)
                    key = random_bits(state_high, state_low)
                    candidates[found] = (key << _CARD_BITS) | c
                    found += key < limit
                if found >= count:
                    break
            _keep_smallest(candidates, found, count, out[r, s], top)
            high, low = advance(high, low, jump, cards)  # the next sample's first state
    if not restart:
        words[STATE_HIGH], words[STATE_LOW] = high, low
    return out


# ------------------------------------------------------------------------------------
# step 2: the value of card sets
# ------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def set_apart_lone_suits(bits: int, scorer: ScorerTables) -> tuple[int, int]:
    """(the set ``bits`` without its lone suits, their value). A suit is lone when each
    of its cards has a rank held once in the set: none of them is in a by-rank
    combination (K2), at most one is loose (K3 strict), and that one shares neither suit
    nor rank with any other card; so the suit scores apart from the rest, its best
    by-suit split with at most one card loose
    (:func:`~envs.four_aces.scoring.suit_value`). (A card alone in its suit and of a rank
    held once is loose and worth 0.)"""
    m0 = bits & _SUIT_MASK
    m1 = (bits >> NUM_RANKS) & _SUIT_MASK
    m2 = (bits >> (2 * NUM_RANKS)) & _SUIT_MASK
    m3 = (bits >> (3 * NUM_RANKS)) & _SUIT_MASK
    twice = (m0 & m1) | (m0 & m2) | (m0 & m3) | (m1 & m2) | (m1 & m3) | (m2 & m3)
    value = 0
    for s in range(4):
        mask = (bits >> (s * NUM_RANKS)) & _SUIT_MASK
        if mask and not (mask & twice):
            value += suit_value(mask, mask, scorer)
            bits &= ~(mask << (s * NUM_RANKS))
    return bits, value


@numba.njit(cache=True)
def set_values(count: int, aces_out: int, four_aces_value: float, t: ScoreTables,
               w: Workspace) -> None:
    """``w.values[:count]``: the value of each set ``w.bits[:count]`` holding
    ``w.aces[:count]`` aces (a card drawn twice counted twice) while ``aces_out`` are
    unseen: ``four_aces_value`` with four aces (H4/K1), else the K2/K3 strict score; plus
    the premium for kept aces (:data:`ACE_PREMIUM`).

    With the table ``t.by_set``, a set of more than six cards has its lone suits set
    apart first (:func:`set_apart_lone_suits`); the sets then of at most six cards are
    looked up in one pass over their positions, each fetched ahead (:func:`prefetch`) as
    soon as it is known, so that many lookups are under way at once (the table is
    bigger than the caches). The others are scored by the engine's scorer
    (:func:`~envs.four_aces.scoring.score_set`). ``w.bits`` is overwritten."""
    table = t.by_set
    sets, apart, position, index, values = w.bits, w.apart, w.position, w.index, w.values
    aces = w.aces
    big = 0  # the sets left to score by their options, listed in index
    if table.size:
        offset = t.offset
        for i in range(count):
            bits = sets[i]
            apart[i] = 0
            if popcount(bits) > TABLE_CARDS_MAX:
                bits, apart[i] = set_apart_lone_suits(bits, t.scorer)
                sets[i] = bits
            small = popcount(bits) <= TABLE_CARDS_MAX
            index[big] = i
            big += not small
            # (a big set looks up the empty set's entry: it is scored below)
            position[i] = table_index(bits if small else 0, offset)
            # the table is bigger than the caches: its entries are fetched while the
            # next positions are worked out, and read in the pass below
            prefetch(table, position[i])
        for i in range(count):
            values[i] = table[position[i]] + apart[i]
    else:
        for i in range(count):
            index[i] = i
            apart[i] = 0
        big = count
    for k in range(big):
        i = index[k]
        values[i] = score_set(sets[i], t.scorer, w.slots) + apart[i]
    for i in range(count):
        score = four_aces_value if aces[i] == 4 else values[i]
        values[i] = score + ACE_PREMIUM[aces[i], aces_out]


@numba.njit(cache=True, inline="always")
def _pairwise_block(values: np.ndarray, start: int, n: int) -> float:
    """numpy's pairwise sum of ``values[start:start + n]`` for ``n <= 128``: fewer than 8
    values one after another; else eight interleaved partial sums joined as
    ((0+1)+(2+3))+((4+5)+(6+7)), then the rest one by one."""
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = start + 8
    end = start + n
    while i < end - n % 8:
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < end:
        total += values[i]
        i += 1
    return total


@numba.njit(cache=True, inline="always")
def numpy_sum(values: np.ndarray, start: int, n: int) -> float:
    """The sum of ``values[start:start + n]`` (float64) in the order numpy sums a
    contiguous axis (pairwise summation): blocks of at most 128 by
    :func:`_pairwise_block`; a longer run is the sum of its two halves (cut at a multiple
    of 8), each summed alike. So a mean is ``numpy_sum(values, 0, n) / n``, bit for bit
    ``values[:n].mean()``."""
    if n <= 128:
        return _pairwise_block(values, start, n)
    return _halves_sum(values, start, n)


@numba.njit(cache=True)
def _halves_sum(values: np.ndarray, start: int, n: int) -> float:
    """:func:`numpy_sum` of more than 128 values: the halves are walked with an explicit
    stack (a recursive function does not load back from numba's cache)."""
    depth_max = 64
    starts = np.empty(depth_max, dtype=np.int64)
    sizes = np.empty(depth_max, dtype=np.int64)
    stage = np.empty(depth_max, dtype=np.int64)  # 0: left half next, 1: right, 2: done
    left = np.empty(depth_max)
    starts[0], sizes[0], stage[0] = start, n, 0
    depth = 0
    result = 0.0  # the sum of the run last finished
    while depth >= 0:
        size = sizes[depth]
        if size <= 128:
            result = _pairwise_block(values, starts[depth], size)
            depth -= 1
            continue
        half = size // 2
        half -= half % 8
        if stage[depth] == 0:
            stage[depth] = 1
            starts[depth + 1], sizes[depth + 1] = starts[depth], half
        elif stage[depth] == 1:
            left[depth] = result
            stage[depth] = 2
            starts[depth + 1], sizes[depth + 1] = starts[depth] + half, size - half
        else:
            result = left[depth] + result
            depth -= 1
            continue
        depth += 1
        stage[depth] = 0
    return result


# ------------------------------------------------------------------------------------
# step 3: the first step
# ------------------------------------------------------------------------------------
@numba.njit(cache=True)
def list_drawn_cards(row: int, draws: np.ndarray, first_only: bool, w: Workspace) -> int:
    """List in ``w.cards`` each card that the row's ``draws`` [S, M + 1] hold (only the
    first of each sample with ``first_only``), once; returns how many."""
    count = 0
    for s in range(draws.shape[0]):
        for m in range(1 if first_only else draws.shape[1]):
            card = draws[s, m]
            if w.listed[card] != row:
                w.listed[card] = row
                w.cards[count] = card
                count += 1
    return count


@numba.njit(cache=True)
def replace_one_values(hand: np.ndarray, own: int, n_cards: int, aces_out: int,
                       four_aces_value: float, t: ScoreTables, w: Workspace) -> float:
    """Fill ``w.one[j, c]`` for each slot j of ``hand`` holding a card and each listed
    card c (``w.cards[:n_cards]``): the value of the set ``own`` (hand + own table) with
    slot j's card replaced by c (a discard and its refill, H2 a, G6). Returns the value
    of ``own`` itself (the hand kept, H2 b)."""
    count = 0
    for j in range(MAX_HAND):
        if hand[j] < 0:
            continue
        rest = own & ~card_bit(hand[j])
        rest_aces = popcount(rest & ACE_BITS)
        for i in range(n_cards):
            drawn = card_bit(w.cards[i])
            w.bits[count] = rest | drawn
            w.aces[count] = rest_aces + popcount(drawn & ACE_BITS)
            count += 1
    w.bits[count] = own
    w.aces[count] = popcount(own & ACE_BITS)
    set_values(count + 1, aces_out, four_aces_value, t, w)
    count = 0
    for j in range(MAX_HAND):
        if hand[j] < 0:
            continue
        for i in range(n_cards):
            w.one[j, w.cards[i]] = w.values[count]
            count += 1
    return w.values[count]


@numba.njit(cache=True)
def first_step_values(hand: np.ndarray, draws: np.ndarray, kept: float,
                      w: Workspace) -> None:
    """Fill ``w.value`` [MAX_HAND + 1, S]: row o < MAX_HAND (a slot holding a card) the
    own set with slot o's card replaced by the first refill ``draws[s, 0]`` of each
    sample (``w.one``); row MAX_HAND the hand kept (``kept``)."""
    for s in range(draws.shape[0]):
        for o in range(MAX_HAND):
            if hand[o] >= 0:
                w.value[o, s] = w.one[o, draws[s, 0]]
        w.value[MAX_HAND, s] = kept


# ------------------------------------------------------------------------------------
# step 4: the second step
# ------------------------------------------------------------------------------------
@numba.njit(cache=True)
def second_step_values(hand: np.ndarray, own: int, draws: np.ndarray, aces_out: int,
                       four_aces_value: float, t: ScoreTables, w: Workspace) -> None:
    """Raise ``w.value`` (from :func:`first_step_values`) to the best second step, for a
    player who has another turn (H3): after option o he discards the card of a slot j and
    refills from the inner draws ``draws[s, 1:]`` (the mean over them), or keeps (the
    value already there). After turning up, and for j = o (the first refill thrown
    again), that is the own set with slot j replaced by the inner refill (``w.one``);
    j != o leaves the own set without slots o and j plus both refills (the same set for
    option j and second discard o)."""
    samples, width = draws.shape
    inner = width - 1
    # the sets of j != o: [pair (o < j), sample, inner refill]
    count = 0
    for j in range(MAX_HAND):
        for o in range(j):
            if hand[o] < 0 or hand[j] < 0:
                continue
            rest = own & ~card_bit(hand[o]) & ~card_bit(hand[j])
            rest_aces = popcount(rest & ACE_BITS)
            for s in range(samples):
                first = card_bit(draws[s, 0])
                for m in range(inner):
                    drawn = card_bit(draws[s, 1 + m])
                    w.bits[count] = rest | first | drawn
                    w.aces[count] = (rest_aces + popcount(first & ACE_BITS)
                                     + popcount(drawn & ACE_BITS))
                    count += 1
    set_values(count, aces_out, four_aces_value, t, w)
    for s in range(samples):
        best_after_turn_up = NO_OPTION
        for j in range(MAX_HAND):
            if hand[j] < 0:
                continue
            for m in range(inner):
                w.inner[m] = w.one[j, draws[s, 1 + m]]
            single = numpy_sum(w.inner, 0, inner) / inner
            best_after_turn_up = max(best_after_turn_up, single)
            w.value[j, s] = max(w.value[j, s], single)
        w.value[MAX_HAND, s] = max(w.value[MAX_HAND, s], best_after_turn_up)
    pair = 0
    for j in range(MAX_HAND):
        for o in range(j):
            if hand[o] < 0 or hand[j] < 0:
                continue
            for s in range(samples):
                double = numpy_sum(w.values, (pair * samples + s) * inner, inner) / inner
                w.value[o, s] = max(w.value[o, s], double)
                w.value[j, s] = max(w.value[j, s], double)
            pair += 1


# ------------------------------------------------------------------------------------
# step 5: the batch
# ------------------------------------------------------------------------------------
@numba.njit(cache=True)
def option_values(hand: np.ndarray, table: np.ndarray, draws: np.ndarray,
                  aces_out: np.ndarray, more_turns: np.ndarray, joker_chance: np.ndarray,
                  four_aces_value: float, t: ScoreTables) -> np.ndarray:
    """float64 [N, MAX_HAND + 1]: per row the value of discarding each hand slot's card
    (:data:`NO_OPTION` for a slot without one), then of turning up: the mean over the
    samples of the option's value, the better of its first step and (with
    ``more_turns``, H3) its best second step; turning up adds half a point times
    ``joker_chance`` (a joker adds a slot, G7).

    ``hand`` [N, MAX_HAND] and ``table`` [N, 3]: card indices (jokers 52, -1 padded);
    ``draws`` [N, S, M + 1]: the sampled refills (:func:`sample_draws`); ``aces_out`` [N]:
    aces unseen; ``t``: :func:`score_tables`."""
    n, samples, width = draws.shape
    if hand.shape[1] != MAX_HAND or width < 2:
        raise ValueError("option_values: expected hand [N, MAX_HAND] and draws [N, S, M + 1]"
                         " with M >= 1")
    out = np.empty((n, MAX_HAND + 1))
    w = workspace(samples, width - 1)
    for r in range(n):
        own = 0
        for i in range(MAX_HAND):
            own |= card_bit(hand[r, i])
        for i in range(table.shape[1]):
            own |= card_bit(table[r, i])
        n_cards = list_drawn_cards(r, draws[r], not more_turns[r], w)
        kept = replace_one_values(hand[r], own, n_cards, aces_out[r], four_aces_value, t, w)
        first_step_values(hand[r], draws[r], kept, w)
        if more_turns[r]:
            second_step_values(hand[r], own, draws[r], aces_out[r], four_aces_value, t, w)
        for o in range(MAX_HAND):
            out[r, o] = (numpy_sum(w.value[o], 0, samples) / samples if hand[r, o] >= 0
                         else NO_OPTION)
        turn_up = numpy_sum(w.value[MAX_HAND], 0, samples) / samples
        out[r, MAX_HAND] = turn_up + joker_chance[r] * 0.5
    return out
