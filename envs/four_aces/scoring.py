"""Four Aces round scoring (docs/rules.md K1–K3): exact, vectorised over many card sets.

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

Algorithm (exact, :mod:`envs.four_aces.scoring_tables` builds the static tables). Every
combination is either *by rank* (cards of at most two ranks, each rank at least twice) or
*by suit* (cards of one suit). So a split is: a set A of cards put into by-rank
combinations, and per suit the rest of that suit's cards, split into by-suit combinations
and loose cards.

- By rank only the number of cards of each rank in A matters (0, 2, 3 or 4; a rank is
  never in a by-rank combination alone): ``RANK_VALUE[n2, n3, n4]`` is the best split of
  n2 ranks twice, n3 three times and n4 four times.
- By suit, ``SUIT_FULL[m]`` is the best split of one suit's ranks ``m`` (a 13-bit mask)
  entirely into by-suit combinations (−inf when impossible, e.g. one card), found once by
  a DP over all 8192 masks. ``free``: ``SUIT_FREE[m]`` = max over sub-masks (the rest
  loose). ``strict``: at most one loose card per suit, so a suit scores
  ``max(SUIT_FULL[m], SUIT_FULL[m - c] for each c that may be loose)``, a lookup in
  ``SUIT_LOOSE`` (:func:`suit_value`).
- Only *shared* cards (whose rank occurs more than once in the set) can be in A, and only
  they can break strict's "distinct ranks" rule. A row's *pattern* is how often each
  shared rank occurs (e.g. 2, 2: two pairs' worth); for each pattern an option table lists
  every choice of A and, per shared rank left out of A, the one card of that rank allowed
  to be loose (strict). A random 8-card set has 1 to 9 options; the worst 10-card pattern
  (4, 4, 2) has 1 323.

So a set is scored by a loop over its pattern's options, each a few table lookups, and
the best option wins. :func:`score_set` runs it compiled on one set (a 52-bit mask): the
one K2/K3 scorer of the project. Everything that scores calls it: :func:`score_presence`
(many sets, :func:`_score_rows`), :func:`score_cards` (one set, cached), the engine's
compiled round end (:func:`envs.four_aces.kernels.end_rounds`, K1–K4) and the agents'
compiled kernels (the heuristics' set values, the ``greedy_known`` rollout). The tests
compare it with an exhaustive partition search and with a bitmask DP over every subset
(``tests/envs/four_aces/test_scoring.py``, ``test_scoring_fast_paths.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, lru_cache
from typing import NamedTuple

import numpy as np

from envs.cards import JOKER, NUM_RANKS, parse_card
from envs.compiled import inlined_kernel, kernel, popcount
from envs.core import check_choice
from envs.four_aces.scoring_tables import (
    MAX_CARDS,
    PATTERN_WEIGHT,
    RANK_POINTS,
    RUN_POINTS,
    SUIT_POINTS,
    tables,
)

SCORINGS = ("strict", "free")

__all__ = [
    "MAX_CARDS",
    "RANK_POINTS",
    "RUN_POINTS",
    "SCORINGS",
    "SUIT_POINTS",
    "ScorerTables",
    "score_batch",
    "score_cards",
    "score_presence",
    "score_set",
    "scorer_tables",
    "suit_value",
]

_RANK_MASK = np.int64((1 << NUM_RANKS) - 1)
#: rank 0 of every suit: ``ranks * _SUIT_COLUMN`` is the rank mask ``ranks`` in all 4 suits
_SUIT_COLUMN = np.int64(sum(1 << (suit * NUM_RANKS) for suit in range(4)))


def score_presence(present: np.ndarray, scoring: str = "strict") -> np.ndarray:
    """K2/K3 scores of N card sets given as presence rows (the engine's entry point).

    Args:
        present: bool (or 0/1) array [N, 52], ``present[i, c]`` = card c is in set i
            (``c = suit * 13 + rank``, envs.cards). At most :data:`MAX_CARDS` per row.
        scoring: ``"strict"`` or ``"free"`` (K3).

    Returns:
        int32 [N], the best total of each row.
    """
    check_choice("scoring", scoring, SCORINGS)
    present = np.asarray(present)
    if present.ndim != 2 or present.shape[1] != 4 * NUM_RANKS:
        raise ValueError(f"present must be an array [N, 52], got shape {present.shape}")
    if not len(present):
        return np.zeros(0, dtype=np.int32)
    present = np.ascontiguousarray(present, dtype=np.int8)
    out = np.empty(len(present), dtype=np.int32)
    bad = _score_rows(present, scorer_tables(scoring), np.empty(MAX_CARDS, np.int64), out)
    if bad >= 0:
        row = present[bad]
        raise ValueError(f"present row {bad} holds {np.count_nonzero(row)} cards with values "
                         f"{sorted(set(row.tolist()))}: expected 0/1 entries and at most "
                         f"{MAX_CARDS} cards per set")
    return out


class ScorerTables(NamedTuple):
    """What :func:`score_set` reads besides the set: the K3 mode and the static tables of
    :func:`~envs.four_aces.scoring_tables.tables` (:func:`scorer_tables`)."""

    #: K3: ``strict`` (True) or ``free``
    strict: bool
    #: intp [pattern keys]: the first option of each pattern of shared-rank counts, and
    #: how many it has
    start: np.ndarray
    count: np.ndarray
    #: int64 [options, MAX_CARDS]: 1 where the option puts the shared card of that slot in
    #: a by-rank combination; 1 where it lets it be the one loose card of its rank (strict)
    rank_side: np.ndarray
    loose_ok: np.ndarray
    #: int32 [options]: the value of the option's by-rank combinations
    rank_value: np.ndarray
    #: int8 [3**13]: ``strict``, the best split of one suit's rank mask m into by-suit
    #: combinations with at most one card of its sub-mask c loose, at ``ternary[m] +
    #: ternary[c]`` (``LOOSE_NEG`` when there is none)
    suit_loose: np.ndarray
    #: int32 [8192]: the index part of a rank mask in ``suit_loose``
    ternary: np.ndarray
    #: int32 [8192]: the best split of one suit's rank mask, any cards loose (``free``)
    suit_free: np.ndarray
    #: int16 [5]: a row's pattern key is the sum of these over its ranks' counts
    pattern_weight: np.ndarray


@cache
def scorer_tables(scoring: str) -> ScorerTables:
    """The :class:`ScorerTables` of ``scoring`` (``"strict"`` or ``"free"``, K3, not
    checked), built once per mode: what every caller of :func:`score_set` hands it."""
    t = tables()
    options = t.strict if scoring == "strict" else t.free
    return ScorerTables(scoring == "strict", options.start, options.count, options.rank_side,
                        options.loose_ok, options.rank_value, t.suit_loose, t.ternary,
                        t.suit_free, PATTERN_WEIGHT)


@inlined_kernel
def suit_value(kept: int, loose: int, t: ScorerTables) -> int:
    """K3 ``strict``: the value of one suit's cards ``kept`` (a rank mask) of which at
    most one, and only one of ``loose`` (a sub-mask of ``kept``), stays out of the by-suit
    combinations (``t.suit_loose``; ``LOOSE_NEG`` when no split is possible)."""
    return t.suit_loose[t.ternary[kept] + t.ternary[loose]]


@kernel
def score_set(bits: int, t: ScorerTables, slot_cards: np.ndarray) -> int:
    """The K2/K3 score of one set of cards, ``bits`` (int64, bit c = card c of 0..51),
    by the algorithm of the module doc, with the tables ``t`` (:func:`scorer_tables`); it
    must hold at most ``len(slot_cards)`` (:data:`MAX_CARDS`) cards, else the tables are
    read out of bounds (the callers check). The one scorer of the project: the engine's
    round end (:func:`envs.four_aces.kernels.end_rounds`), :func:`score_presence` and
    :func:`score_cards`, and the agents' compiled set values call it.

    Per rank, the number of suits holding it comes from a bitwise adder of the four
    13-bit suit masks: the ranks held once (their cards are unique), twice, three and four
    times, hence the pattern. The shared cards fill ``slot_cards`` (int64 [MAX_CARDS],
    scratch) in slot order: by count descending, then rank, then suit. Every option of the
    pattern is then scored and the best kept: its by-rank value plus each suit's value,
    ``strict`` by :func:`suit_value` (the unique cards and the option's named ones may be
    loose), ``free`` by ``suit_free``."""
    a = bits & _RANK_MASK
    b = (bits >> NUM_RANKS) & _RANK_MASK
    c = (bits >> 2 * NUM_RANKS) & _RANK_MASK
    d = (bits >> 3 * NUM_RANKS) & _RANK_MASK
    # a rank's count = ones + 2 (carry + carry_ab + carry_cd); carry excludes the others
    ab, cd = a ^ b, c ^ d
    ones, carry, carry_ab, carry_cd = ab ^ cd, ab & cd, a & b, c & d
    twos = carry ^ carry_ab ^ carry_cd
    held4 = carry_ab & carry_cd
    held3 = twos & ones
    held2 = twos & ~ones
    held1 = ones & ~twos
    weight = t.pattern_weight
    pattern = (weight[0] * (NUM_RANKS - popcount(a | b | c | d))
               + weight[1] * popcount(held1) + weight[2] * popcount(held2)
               + weight[3] * popcount(held3) + weight[4] * popcount(held4))
    unique_bits = bits & (held1 * _SUIT_COLUMN)
    shared = 0
    for held in (held4, held3, held2):
        r = 0
        while held:
            if held & 1:
                for suit in range(4):
                    card = suit * NUM_RANKS + r
                    if (bits >> card) & 1:
                        slot_cards[shared] = card
                        shared += 1
            held >>= 1
            r += 1
    best = np.int64(-(1 << 30))
    for option in range(t.start[pattern], t.start[pattern] + t.count[pattern]):
        kept = bits
        loose = unique_bits
        for k in range(shared):
            bit = np.int64(1) << slot_cards[k]
            kept -= bit * t.rank_side[option, k]
            loose += bit * t.loose_ok[option, k]
        value = np.int64(t.rank_value[option])
        for suit in range(4):
            shift = suit * NUM_RANKS
            ranks = (kept >> shift) & _RANK_MASK
            if t.strict:
                value += suit_value(ranks, (loose >> shift) & _RANK_MASK, t)
            else:
                value += t.suit_free[ranks]
        best = max(best, value)
    return best


@kernel
def _score_rows(present, t, slot_cards, out):
    """``out[i]``: the K2/K3 score of the set of 0/1 row ``present[i]`` (int8 [N, 52]),
    :func:`score_set` of its cards with the tables ``t`` and the scratch ``slot_cards``.
    Returns the first row that is not a set of at most MAX_CARDS cards (entries other
    than 0/1), or -1; nothing is read or written out of bounds for it."""
    for i in range(present.shape[0]):
        # checked first: a row that is not a set would index past the tables
        bits = np.int64(0)
        other = 0  # not 0 when an entry is neither 0 nor 1
        for card in range(4 * NUM_RANKS):
            v = present[i, card]
            bits |= np.int64(v != 0) << card
            other |= v & ~1
        if other != 0 or popcount(bits) > slot_cards.shape[0]:
            return i
        out[i] = score_set(bits, t, slot_cards)
    return -1


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
    num = len(cards)
    if not cards.size:
        return np.zeros(num, dtype=np.int32)
    # presence rows; padding (-1) lands in column 53 and jokers in 52, both dropped
    present = np.zeros((num, JOKER + 2), dtype=np.int8)
    present[np.arange(num)[:, None], cards] = 1
    present = np.ascontiguousarray(present[:, :JOKER])
    counts = present.sum(axis=1)
    if counts.max() > MAX_CARDS:
        raise ValueError(f"at most {MAX_CARDS} scoring cards per set, got {counts.max()}")
    return score_presence(present, scoring)


@lru_cache(maxsize=65536)
def _score_cached(cards: tuple[int, ...], scoring: str) -> int:
    """:func:`score_set` of the distinct non-joker ``cards`` (at most MAX_CARDS)."""
    bits = np.int64(sum(1 << c for c in cards))
    return int(score_set(bits, scorer_tables(scoring), np.empty(MAX_CARDS, np.int64)))


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
