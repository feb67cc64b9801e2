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

So a batch is a flat list of (row, option) pairs, each scored with a few table lookups,
then the best option per row. :func:`score_cards` (one set) runs the same algorithm in
plain Python (no numpy call overhead) and caches its results. The tests compare both with
an exhaustive partition search and with a bitmask DP over every subset
(``tests/envs/four_aces/test_scoring_fast_paths.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np

from envs.cards import JOKER, NUM_RANKS, parse_card
from envs.core import check_choice, popcount64
from envs.four_aces.scoring_tables import (
    LOOSE_OK,
    MAX_CARDS,
    NEG,
    PATTERN_WEIGHT,
    RANK_POINTS,
    RANK_SIDE,
    RUN_POINTS,
    SUIT_POINTS,
    Tables,
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

_CARD_BITS = np.int64(1) << np.arange(4 * NUM_RANKS, dtype=np.int64)  # bit of each card
_SUIT_SHIFT = np.arange(4, dtype=np.int64) * NUM_RANKS
_RANK_MASK = np.int64((1 << NUM_RANKS) - 1)
#: slot sort key of a shared card: (4 - count) * 1024 + rank * 64 + card (card < 64)
_CARD_ORDER = (np.arange(NUM_RANKS) * 64 + np.arange(4 * NUM_RANKS).reshape(4, NUM_RANKS)).astype(
    np.int16
)
_NO_SLOT = 1 << 14


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
    return _score_present(present.astype(np.int8, copy=False), tables(), scoring == "strict")


def _card_bits(rows: np.ndarray) -> np.ndarray:
    """int64 [N]: the 52-bit integer of each 0/1 row of ``rows`` (int8 [N, 52]), bit
    ``c`` for column ``c``: the rows padded to 64 columns and packed by one flat
    ``np.packbits`` (several times faster than a product with the bit values)."""
    padded = np.zeros((len(rows), 64), np.int8)
    padded[:, : rows.shape[1]] = rows
    return np.packbits(padded.reshape(-1), bitorder="little").view("<i8")


def _score_present(present: np.ndarray, t: Tables, strict: bool) -> np.ndarray:
    """Scores of N sets as int8 0/1 rows [N, 52] (see the module doc).

    A set of cards is handled as a 52-bit integer (bit ``suit * 13 + rank``): an option's
    suit masks are then a few integer operations per (row, option) pair."""
    num = len(present)
    grid = present.reshape(num, 4, NUM_RANKS)
    count = grid[:, 0] + grid[:, 1] + grid[:, 2] + grid[:, 3]  # [N, 13] cards per rank
    shared = grid * (count >= 2)[:, None, :]  # [N, 4, 13] cards whose rank is shared
    all_bits = _card_bits(present)
    shared_bits = _card_bits(shared.reshape(num, -1))
    unique_bits = all_bits ^ shared_bits

    # slots: the shared cards ordered by (count desc, rank, suit); sorting a key that
    # encodes that order and the card gives each row's slot cards first
    by_count = (4 - count.astype(np.int16)) * 1024  # [N, 13]
    key = np.where(shared.view(bool), by_count[:, None, :] + _CARD_ORDER, _NO_SLOT)
    num_slots = max(int(popcount64(shared_bits.view(np.uint64)).max()), 1)
    slot_key = np.sort(key.reshape(num, -1), axis=1)[:, :num_slots]
    slot_bits = np.where(slot_key < _NO_SLOT, _CARD_BITS[slot_key & 63], 0)  # [N, slots]

    # the flat list of (row, option) pairs
    options = t.strict if strict else t.free
    pattern = np.einsum("ij->i", PATTERN_WEIGHT.take(count))  # [N] (einsum: a fast sum)
    n_opts = options.count[pattern]
    first = np.cumsum(n_opts) - n_opts  # [N] first pair of each row
    row = np.repeat(np.arange(num), n_opts)
    opt = np.arange(len(row)) - np.repeat(first - options.start[pattern], n_opts)
    bits = slot_bits[row]  # [E, slots]
    # row-wise dot products with the 0/1 fates (einsum: one pass, no [E, slots] product)
    kept = all_bits[row] - np.einsum("ij,ij->i", bits, options.rank_side[opt, :num_slots])
    suit_masks = kept[:, None] >> _SUIT_SHIFT & _RANK_MASK  # [E, 4] by-suit cards
    if strict:
        loose = unique_bits[row] + np.einsum("ij,ij->i", bits, options.loose_ok[opt, :num_slots])
        loose_masks = loose[:, None] >> _SUIT_SHIFT & _RANK_MASK  # [E, 4] may be loose
        per_suit = t.suit_loose[t.ternary[suit_masks] + t.ternary[loose_masks]]
    else:
        per_suit = t.suit_free[suit_masks]
    # (four column adds beat a sum over a short axis)
    value = per_suit[:, 0].astype(np.int32) + per_suit[:, 1] + per_suit[:, 2] + per_suit[:, 3]
    value += options.rank_value[opt]
    return np.maximum.reduceat(value, first)


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
    return _score_present(present, tables(), scoring == "strict")


def _score_one(cards: tuple[int, ...], strict: bool) -> int:
    """The algorithm of :func:`_score_present` for one set of distinct non-joker cards, in
    plain Python (much faster than numpy calls for a single small set)."""
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
