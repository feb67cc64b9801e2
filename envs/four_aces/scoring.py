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
  ``max(SUIT_FULL[m], SUIT_FULL[m - c] for each c that may be loose)``.
- Only *shared* cards (whose rank occurs more than once in the set) can be in A, and only
  they can break strict's "distinct ranks" rule. A row's *pattern* is how often each
  shared rank occurs (e.g. 2, 2: two pairs' worth); for each pattern an option table lists
  every choice of A and, per shared rank left out of A, the one card of that rank allowed
  to be loose (strict). A random 8-card set has 1 to 9 options; the worst 10-card pattern
  (4, 4, 2) has 1 323.

So a set is scored by a loop over its pattern's options, each a few table lookups, and
the best option wins: :func:`score_presence` runs it compiled, a set at a time
(:func:`_score_rows`; 50 times faster than the earlier vectorised numpy version of the
same algorithm at every batch size, with identical scores). :func:`score_cards` (one
set) runs it again in plain Python, written independently, and caches its results. The
tests compare both with an exhaustive partition search and with a bitmask DP over every
subset (``tests/envs/four_aces/test_scoring_fast_paths.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from envs.cards import JOKER, NUM_RANKS, parse_card
from envs.compiled import kernel
from envs.core import check_choice
from envs.four_aces.scoring_tables import (
    LOOSE_OK,
    MAX_CARDS,
    NEG,
    PATTERN_WEIGHT,
    RANK_POINTS,
    RANK_SIDE,
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
    "score_batch",
    "score_cards",
    "score_presence",
]

_RANK_MASK = np.int64((1 << NUM_RANKS) - 1)


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
    t = tables()
    options = t.strict if scoring == "strict" else t.free
    out = np.empty(len(present), dtype=np.int32)
    bad = _score_rows(present, scoring == "strict", options.start, options.count,
                      options.rank_side, options.loose_ok, options.rank_value, t.suit_loose,
                      t.ternary, t.suit_free, PATTERN_WEIGHT, np.empty(NUM_RANKS, np.int64),
                      np.empty(MAX_CARDS, np.int64), out)
    if bad >= 0:
        row = present[bad]
        raise ValueError(f"present row {bad} holds {np.count_nonzero(row)} cards with values "
                         f"{sorted(set(row.tolist()))}: expected 0/1 entries and at most "
                         f"{MAX_CARDS} cards per set")
    return out


@kernel
def _score_rows(present, strict, start, count, rank_side, loose_ok, rank_value, suit_loose,
                ternary, suit_free, pattern_weight, per_rank, slot_keys, out):
    """``out[i]``: the K2/K3 score of the set of 0/1 row ``present[i]`` (int8 [N, 52]), by
    the algorithm of the module doc, one row at a time. The shared cards' slot keys
    ``(4 - count) * 1024 + rank * 64 + card`` are kept sorted by insertion; every option
    of the row's pattern is then scored with the option tables (``start`` .. ``suit_free``
    from :func:`~envs.four_aces.scoring_tables.tables`) and the best kept. ``per_rank``
    (int64 [13]) and ``slot_keys`` (int64 [MAX_CARDS]) are scratch. Returns the first
    row that is not a set of at most MAX_CARDS cards (entries other than 0/1), or -1;
    nothing is read or written out of bounds for it."""
    for i in range(present.shape[0]):
        # the set as a 52-bit integer, and its cards per rank (checked first: a row that
        # is not a set would index past the tables below)
        per_rank[:] = 0
        all_bits = np.int64(0)
        cards = 0
        for card in range(4 * NUM_RANKS):
            if present[i, card] != 0:
                if present[i, card] != 1:
                    return i
                cards += 1
                per_rank[card % NUM_RANKS] += 1
                all_bits |= np.int64(1) << card
        if cards > slot_keys.shape[0]:
            return i
        pattern = 0
        for r in range(NUM_RANKS):
            pattern += pattern_weight[per_rank[r]]
        unique_bits = np.int64(0)
        shared = 0
        for card in range(4 * NUM_RANKS):
            if present[i, card] == 0:
                continue
            bit = np.int64(1) << card
            r = card % NUM_RANKS
            if per_rank[r] < 2:
                unique_bits |= bit
                continue
            key = (4 - per_rank[r]) * 1024 + r * 64 + card
            k = shared
            while k > 0 and slot_keys[k - 1] > key:
                slot_keys[k] = slot_keys[k - 1]
                k -= 1
            slot_keys[k] = key
            shared += 1
        best = np.int64(-(1 << 30))
        for option in range(start[pattern], start[pattern] + count[pattern]):
            kept = all_bits
            loose = unique_bits
            for k in range(shared):
                bit = np.int64(1) << (slot_keys[k] & 63)
                kept -= bit * rank_side[option, k]
                loose += bit * loose_ok[option, k]
            value = np.int64(rank_value[option])
            for suit in range(4):
                shift = suit * NUM_RANKS
                ranks = (kept >> shift) & _RANK_MASK
                if strict:
                    value += suit_loose[ternary[ranks] + ternary[(loose >> shift) & _RANK_MASK]]
                else:
                    value += suit_free[ranks]
            best = max(best, value)
        out[i] = best
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


def _score_one(cards: tuple[int, ...], strict: bool) -> int:
    """The algorithm of :func:`_score_rows` for one set of distinct non-joker cards, in
    plain Python: a second, independent implementation (its own slot order and fate
    handling), so the fuzzer's check of the engine's points against :func:`score_cards`
    (envs/fuzz/four_aces.py) compares two codes, not one with itself."""
    t = tables()
    full = t.suit_full_list
    free = t.suit_free_list
    count = [0] * NUM_RANKS
    suit_mask = [0, 0, 0, 0]
    for c in cards:
        count[c % NUM_RANKS] += 1
        suit_mask[c // NUM_RANKS] |= 1 << (c % NUM_RANKS)
    # slots of the shared cards: ranks by (count desc, rank), then suits ascending
    slot_cards = [
        (s, 1 << r)
        for r in sorted((r for r in range(NUM_RANKS) if count[r] >= 2), key=lambda r: -count[r])
        for s in range(4)
        if suit_mask[s] >> r & 1
    ]
    # unique cards may be loose in strict: their (suit, bit)
    unique = [(c // NUM_RANKS, 1 << (c % NUM_RANKS)) for c in cards if count[c % NUM_RANKS] == 1]
    options = t.strict if strict else t.free
    key = sum(int(PATTERN_WEIGHT[n]) for n in count)
    start = int(options.start[key])
    best = NEG * 8
    for o in range(start, start + int(options.count[key])):
        fates = options.fate_rows[o]
        masks = list(suit_mask)
        loose_ok = list(unique)
        for (s, bit), fate in zip(slot_cards, fates, strict=False):  # fates: padded
            if fate == RANK_SIDE:
                masks[s] ^= bit
            elif fate == LOOSE_OK:
                loose_ok.append((s, bit))
        if strict:
            per_suit = [full[m] for m in masks]
            for s, bit in loose_ok:
                v = full[masks[s] ^ bit]
                if v > per_suit[s]:
                    per_suit[s] = v
            value = sum(per_suit)
        else:
            value = free[masks[0]] + free[masks[1]] + free[masks[2]] + free[masks[3]]
        value += options.rank_value_list[o]
        if value > best:
            best = value
    return best


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
