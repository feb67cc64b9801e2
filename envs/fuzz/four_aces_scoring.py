"""An independent reading of Four Aces' scoring (docs/rules.md K2, K3) for the fuzz and the
tests: plain Python that tries every split of a player's scoring cards, sharing no code
or table with the engine's compiled scorer (:func:`envs.four_aces.scoring.score_set`), so
that a fault in either shows as a difference.

K2 lists the combinations and their points (by rank, by suit, suited runs; 2 to 5 cards,
each card in at most one); K3 takes the best total over every way to split the scoring
cards into combinations and loose cards (``strict``: no two loose cards share a rank or a
suit; ``free``: loose cards unrestricted).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import combinations

from envs.cards import NUM_RANKS

#: K2: points of a by-rank combination by its rank counts (sorted)
BY_RANK = {(2,): -1, (3,): 2, (2, 2): 3, (2, 3): 10, (4,): 10}
#: K2: points of cards of one suit (any ranks), and of a suited run, by size
BY_SUIT = {2: -2, 3: 0, 4: 2, 5: 6}
RUN = {2: -1, 3: 2, 4: 6, 5: 14}


def combination_points(cards: tuple[int, ...]) -> int | None:
    """K2: the points of ``cards`` as one combination, None when they are none. A set of
    one suit counts as a suited run when its ranks are consecutive (ace high, no wrap)."""
    if not 2 <= len(cards) <= 5:
        return None
    ranks = sorted(c % NUM_RANKS for c in cards)
    if len({c // NUM_RANKS for c in cards}) == 1:
        run = ranks == list(range(ranks[0], ranks[0] + len(ranks)))
        return RUN[len(cards)] if run else BY_SUIT[len(cards)]
    return BY_RANK.get(tuple(sorted(Counter(ranks).values())))


def brute_force(cards: list[int], strict: bool) -> int:
    """K3: the best total over every split of ``cards`` into combinations (K2) and loose
    cards; ``strict``: no two loose cards of one rank or one suit."""

    def best(rest: list[int], loose: list[int]) -> int | None:
        if not rest:
            clash = strict and any(a % NUM_RANKS == b % NUM_RANKS
                                   or a // NUM_RANKS == b // NUM_RANKS
                                   for a, b in combinations(loose, 2))
            return None if clash else 0
        first, others = rest[0], rest[1:]
        found = best(others, loose + [first])  # the first card loose
        for size in range(1, 5):  # or in a combination with 1 to 4 others
            for partners in combinations(others, size):
                points = combination_points((first, *partners))
                if points is None:
                    continue
                left = best([c for c in others if c not in partners], loose)
                if left is not None and (found is None or points + left > found):
                    found = points + left
        return found

    return best(sorted(cards), [])


@lru_cache(maxsize=65536)
def reference_points(cards: tuple[int, ...], strict: bool) -> int:
    """:func:`brute_force` of the sorted non-joker ``cards``, cached (a fuzz run meets the
    same sets often)."""
    return brute_force(list(cards), strict)
