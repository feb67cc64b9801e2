"""Four Aces scoring (docs/rules.md K2, K3): a table of worked cases and a brute-force check."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from envs.cards import RANK_OF, SUIT_OF, parse_card
from envs.four_aces.scoring import score_batch, score_cards, score_presence

# (cards, strict score, free score, why)
CASES = [
    # K2 by rank
    ("2C 2D", -1, 0, "one pair -1; strict forbids two loose cards of one rank"),
    ("5C 5D 5H", 2, 2, "three of a kind +2"),
    ("5C 5D 9H 9S", 3, 3, "two pairs +3 (one 4-card combination), not -1 + -1"),
    ("5C 5D 5H 9H 9S", 10, 10, "three of a kind + a pair +10, not +2 - 1"),
    ("5C 5D 5H 5S", 10, 10, "four of a kind +10"),
    # K2 by suit (any ranks)
    ("2H 9H", -2, 0, "2 of one suit -2"),
    ("2H 9H KH", 0, 0, "3 of one suit 0 (better than -2 + a loose card)"),
    ("2H 6H 9H KH", 2, 2, "4 of one suit +2"),
    ("2H 6H 9H JH KH", 6, 6, "5 of one suit +6"),
    # K2 suited runs (ace high, no wrap)
    ("9H TH", -1, 0, "2 in sequence -1 (better than the 2-suit -2)"),
    ("9H TH JH", 2, 2, "3 in sequence +2"),
    ("9H TH JH QH", 6, 6, "4 in sequence +6"),
    ("9H TH JH QH KH", 14, 14, "5 in sequence +14"),
    ("QH KH AH", 2, 2, "the ace is high: Q-K-A is a run"),
    ("AH 2H", -2, 0, "no A-2 wrap: only a 2-card suit"),
    ("AH 2H 3H", 0, 0, "3 of one suit 0 (2-3 run -1 with the ace loose is worse)"),
    ("9H TH JH QH KH AH", 14, 14, "a 6-card run: 5-run +14 and one loose card"),
    ("2H 3H 4H 5H 6H 7H 8H 9H TH JH", 28, 28, "10-card run: two 5-runs (at most 5 each)"),
    # K3 composition
    ("2C 5D 9H KS", 0, 0, "four loose cards of distinct ranks and suits"),
    ("2C 2D 5C", -1, 0, "strict: pair 2C 2D -1 + 5C loose (2C 5C suit -2 is worse)"),
    ("2C 3D 2H", -1, 0, "strict: pair 2C 2H -1 + 3D loose"),
    ("2C 9C 5D 7D", -4, 0, "strict: two 2-card suits -2 -2; no other split is allowed"),
    ("AS AH KS QS JS", 6, 6, "A-K-Q-J of spades +6, AH loose (beats pair -1 + run +2)"),
    ("AS AH KS QS JS TS", 14, 14, "5-run T-A of spades +14, AH loose"),
    # 7C 7D 7H 8H 9H: trips (+2) + 8H 9H run (-1) = +1, or run 7H 8H 9H (+2) + pair
    # 7C 7D (-1) = +1; no second rank twice, so no full house. free: run +2, rest loose.
    ("7C 7D 7H 8H 9H", 1, 2, "trips + 2-run, or 3-run + pair; free: the run alone"),
    ("JK JK", 0, 0, "jokers score nothing (G7)"),
    ("AC JK 5D", 0, 0, "jokers are ignored: AC and 5D are loose"),
    ("", 0, 0, "no cards"),
]


@pytest.mark.parametrize(("cards", "strict", "free", "why"), CASES)
def test_k2_k3_worked_cases(cards, strict, free, why):
    """K2 every row of the table; K3 strict vs free."""
    hand = cards.split()
    assert score_cards(hand, "strict") == strict, why
    assert score_cards(hand, "free") == free, why
    assert score_cards(hand) == strict  # strict is the default (K3)


def test_score_cards_accepts_indices_and_rejects_bad_input():
    assert score_cards([parse_card("9H"), parse_card("TH"), parse_card("JH")]) == 2
    with pytest.raises(ValueError, match="duplicate"):
        score_cards(["AS", "AS"])
    with pytest.raises(ValueError, match="unknown card"):
        score_cards(["ZZ"])
    with pytest.raises(ValueError, match="scoring"):
        score_cards(["AS"], scoring="loose")
    with pytest.raises(ValueError, match="at most"):
        score_cards([f"{r}H" for r in "23456789TJQ"])



@pytest.mark.parametrize("cards, value, what", [(11, 1, "11 cards"),
                                                 (2, 2, r"2 cards with values \[0, 2\]")])
def test_score_presence_refuses_what_is_not_a_set_of_at_most_ten_cards(cards, value, what):
    """K1: a player scores at most MAX_CARDS (10) cards, each once; a row beyond that is a
    ValueError naming the row (the compiled scorer never reads past its tables)."""
    present = np.zeros((3, 52), dtype=np.int8)
    present[2, :cards] = value
    with pytest.raises(ValueError, match=f"present row 2 holds {what}.*expected 0/1 entries"):
        score_presence(present)

def test_score_batch_padding_and_grouping():
    """score_batch rows padded with -1 (anywhere) and jokers agree with score_cards."""
    rows = [["9H", "TH", "JH"], ["2C", "2D"], ["JK", "AS"], [], ["5C", "5D", "9H", "9S"]]
    expected = [score_cards(r) for r in rows]
    arr = np.full((len(rows), 6), -1)
    for i, r in enumerate(rows):
        arr[i, 6 - len(r) :] = [parse_card(c) for c in r]  # right-aligned padding
    assert score_batch(arr).tolist() == expected
    # many rows take the grouped path, few rows the single padded call: same answers
    big = np.repeat(arr, 100, axis=0)
    assert (score_batch(big) == np.repeat(expected, 100)).all()


# -- brute force: an independent exhaustive partition search ---------------------------
RUN = {2: -1, 3: 2, 4: 6, 5: 14}
SUIT = {2: -2, 3: 0, 4: 2, 5: 6}
BY_RANK = {(2,): -1, (3,): 2, (2, 2): 3, (2, 3): 10, (4,): 10}


def block_value(block):
    """K2 value of a block of (rank, suit) cards, or None if it is no combination."""
    if not 2 <= len(block) <= 5:
        return None
    ranks = sorted(r for r, _ in block)
    if len({s for _, s in block}) == 1:
        consecutive = ranks == list(range(ranks[0], ranks[0] + len(ranks)))
        return RUN[len(block)] if consecutive else SUIT[len(block)]
    return BY_RANK.get(tuple(sorted(Counter(ranks).values())))


def brute_force(cards, strict):
    """Every partition into combination blocks and loose singletons (K3 rule on loose)."""
    best = None

    def rec(rest, loose, total):
        nonlocal best
        if not rest:
            if strict:
                for (r1, s1), (r2, s2) in combinations(loose, 2):
                    if r1 == r2 or s1 == s2:
                        return
            best = total if best is None else max(best, total)
            return
        first, others = rest[0], rest[1:]
        rec(others, loose + [first], total)
        for size in range(1, 5):
            for partners in combinations(range(len(others)), size):
                block = [first] + [others[i] for i in partners]
                value = block_value(block)
                if value is not None:
                    left = [o for i, o in enumerate(others) if i not in partners]
                    rec(left, loose, total + value)

    rec(list(cards), [], 0)
    return best


NUM_RANDOM_SETS = 2500


def _random_sets(rng):
    sets = []
    for _ in range(NUM_RANDOM_SETS):
        n = int(rng.integers(1, 9))
        sets.append(rng.choice(52, size=n, replace=False))
    # adversarial dense sets: few ranks in few suits (many pairs, suits and runs)
    for _ in range(400):
        low = int(rng.integers(0, 9))
        suits = rng.choice(4, size=int(rng.integers(1, 5)), replace=False)
        pool = [s * 13 + r for s in suits for r in range(low, low + 5)]
        n = int(rng.integers(2, min(8, len(pool)) + 1))
        sets.append(rng.choice(pool, size=n, replace=False))
    for _ in range(200):  # many pairs: 4 ranks in all suits
        ranks = rng.choice(13, size=4, replace=False)
        pool = [s * 13 + r for s in range(4) for r in ranks]
        sets.append(rng.choice(pool, size=8, replace=False))
    return sets


@pytest.mark.parametrize("scoring", ["strict", "free"])
def test_score_batch_matches_brute_force(scoring):
    """K2/K3: the DP equals an exhaustive partition search on thousands of sets."""
    rng = np.random.default_rng(20240601 + (scoring == "free"))
    sets = _random_sets(rng)
    arr = np.full((len(sets), 8), -1)
    for i, s in enumerate(sets):
        arr[i, : len(s)] = s
    got = score_batch(arr, scoring)
    for i, s in enumerate(sets):
        cards = [(int(RANK_OF[c]), int(SUIT_OF[c])) for c in s]
        assert got[i] == brute_force(cards, scoring == "strict"), [int(c) for c in s]
        if i % 4 == 0:  # the single-set path of score_cards (plain Python search)
            assert score_cards([int(c) for c in s], scoring) == got[i]
    if scoring == "free":
        assert got.min() >= 0  # K3 free: never below 0
    # small batches take the single padded call: same answers
    assert (score_batch(arr[:50], scoring) == got[:50]).all()
