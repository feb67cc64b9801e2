"""Which combinations make a Four Aces score (docs/rules.md K2, K3), for people to read.

:mod:`envs.four_aces.scoring` computes the best total fast without naming its split;
:func:`best_split` finds a split with that total by an exhaustive search over the
partitions of the scoring cards (at most 8 of them, K1), so a result can be shown
"by combination". The loose cards obey K3 (``strict``: no two share a rank or a suit).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import combinations

from envs.cards import CARD_NAMES, JOKER, RANK_OF, SUIT_OF, parse_card, pretty_card
from envs.four_aces.scoring import RANK_POINTS, RUN_POINTS, SUIT_POINTS, score_cards

_BY_RANK_NAMES = {(2,): "one pair", (3,): "three of a kind", (2, 2): "two pairs",
                  (2, 3): "three of a kind + a pair", (4,): "four of a kind"}


def combination(cards: Iterable[int]) -> tuple[str, int] | None:
    """(name, points) of ``cards`` (indices) as one K2 combination, or None if they are
    none: a suited run, cards of one suit, or a by-rank combination."""
    cards = list(cards)
    if not 2 <= len(cards) <= 5:
        return None
    ranks = sorted(int(RANK_OF[c]) for c in cards)
    n = len(cards)
    if len({int(SUIT_OF[c]) for c in cards}) == 1:
        if ranks == list(range(ranks[0], ranks[0] + n)):
            return f"{n} in sequence", RUN_POINTS[n]
        return f"{n} of one suit", SUIT_POINTS[n]
    pattern = tuple(sorted(Counter(ranks).values()))
    if pattern not in _BY_RANK_NAMES:
        return None
    pairs = sum(k * (k - 1) // 2 for k in pattern)
    return _BY_RANK_NAMES[pattern], RANK_POINTS[(n, pairs)]


def best_split(cards: Iterable[str | int], scoring: str = "strict") -> dict:
    """A best split of a player's scoring cards (jokers ignored) into combinations and
    loose cards: ``{"combinations": [{"name", "cards", "points"}], "loose": [...],
    "total"}``, cards as strings; ``total`` equals :func:`score_cards`."""
    real = sorted(c for c in (_index(c) for c in cards) if c != JOKER)
    strict = scoring == "strict"
    best: tuple[int, list, list] | None = None

    def loose_ok(loose: list[int]) -> bool:
        return not strict or all(RANK_OF[a] != RANK_OF[b] and SUIT_OF[a] != SUIT_OF[b]
                                 for a, b in combinations(loose, 2))

    def search(rest: list[int], blocks: list, loose: list[int], total: int) -> None:
        nonlocal best
        if not rest:
            if loose_ok(loose) and (best is None or total > best[0]):
                best = (total, list(blocks), list(loose))
            return
        first, others = rest[0], rest[1:]
        search(others, blocks, [*loose, first], total)
        for size in range(1, min(4, len(others)) + 1):
            for partners in combinations(range(len(others)), size):
                block = [first, *(others[i] for i in partners)]
                combo = combination(block)
                if combo is not None:
                    left = [o for i, o in enumerate(others) if i not in partners]
                    search(left, [*blocks, (combo, block)], loose, total + combo[1])

    search(real, [], [], 0)
    total, blocks, loose = best if best is not None else (0, [], [])
    expected = score_cards(real, scoring)
    if total != expected:  # the two searches disagree: a bug, not a user error
        raise AssertionError(f"best_split found {total}, score_cards {expected}: {real}")
    return {
        "combinations": [{"name": name, "points": points,
                          "cards": [CARD_NAMES[c] for c in block]}
                         for (name, points), block in blocks],
        "loose": [CARD_NAMES[c] for c in loose],
        "total": total,
    }


def describe_split(split: dict) -> str:
    """A split of :func:`best_split` in one line: "one pair 7♥ 7♣ (−1), …"."""
    parts = [f"{c['name']} {' '.join(pretty_card(parse_card(x)) for x in c['cards'])} "
             f"({c['points']:+d})" for c in split["combinations"]]
    if split["loose"]:
        parts.append("loose " + " ".join(pretty_card(parse_card(x)) for x in split["loose"]))
    return ", ".join(parts) or "no cards"


def _index(card: str | int) -> int:
    return int(card) if not isinstance(card, str) else parse_card(card)
