"""The canonical card index shared by every game in this package.

One index for all games and variants, so that actions, observations and decks agree:

=========  =====================================================
index      card
=========  =====================================================
0 .. 51    ``suit * 13 + rank`` with rank 0..12 = 2..A and suit 0..3 = C, D, H, S
52         the joker (``JK``)
=========  =====================================================

A card string is a rank from ``23456789TJQKA`` plus a suit from ``CDHS`` (``TH`` is the
ten of hearts); the joker is ``JK``. Parsing also accepts ``10`` for ``T`` and lower case.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

RANKS = "23456789TJQKA"
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
NUM_RANKS = 13
NUM_SUITS = 4
JOKER = 52
NUM_CARDS = 53  # card *types*: 52 standard cards and the joker
NO_CARD = -1
NO_SUIT = -1

CARD_NAMES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + ("JK",)

#: rank index (0 = deuce .. 12 = ace) of every card index; -1 for the joker
RANK_OF = np.array([i % NUM_RANKS for i in range(52)] + [-1], dtype=np.int8)
#: suit index (0..3 = C, D, H, S) of every card index; -1 for the joker
SUIT_OF = np.array([i // NUM_RANKS for i in range(52)] + [-1], dtype=np.int8)

_BY_NAME = {name: i for i, name in enumerate(CARD_NAMES)}


def card_index(rank: int, suit: int) -> int:
    """Index of the card of ``rank`` (0 = deuce .. 12 = ace) and ``suit`` (0..3 = CDHS)."""
    return suit * NUM_RANKS + rank


def card_name(card: int) -> str:
    """The card string of a card index (``"TH"``, ``"JK"``)."""
    if not 0 <= int(card) < NUM_CARDS:
        raise ValueError(f"card index {card} is out of range: expected 0..{NUM_CARDS - 1}")
    return CARD_NAMES[int(card)]


def pretty_card(card: int) -> str:
    """A card with its suit symbol for display (``"10♥"``, ``"A♠"``, ``"🃏"``)."""
    if int(card) == JOKER:
        return "JK"
    rank = RANKS[RANK_OF[card]]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[SUIT_OF[card]]


def parse_card(text: str) -> int:
    """The card index of a card string; raises ``ValueError`` for anything else."""
    if not isinstance(text, str):
        raise ValueError(f"a card must be a string like 'TH' or 'JK', got {text!r}")
    key = text.strip().upper().replace("10", "T")
    if key in ("JK", "JOKER"):
        return JOKER
    if key not in _BY_NAME:
        raise ValueError(
            f"unknown card {text!r}: expected a rank from {RANKS} and a suit from {SUITS} "
            "(e.g. 'TH', 'AS') or 'JK' for the joker"
        )
    return _BY_NAME[key]


def parse_cards(cards: Iterable[str]) -> list[int]:
    """Parse several card strings (see :func:`parse_card`)."""
    return [parse_card(c) for c in cards]


def names(cards: Sequence[int] | np.ndarray) -> list[str]:
    """Card strings of several card indices."""
    return [card_name(int(c)) for c in cards]


def deck(lowest_rank: str = "2", jokers: int = 0) -> np.ndarray:
    """Card indices of a deck holding every rank from ``lowest_rank`` to the ace, in every
    suit, plus ``jokers`` jokers (the joker's index repeated)."""
    low = RANKS.index(lowest_rank)
    cards = [card_index(r, s) for s in range(NUM_SUITS) for r in range(low, NUM_RANKS)]
    return np.array(cards + [JOKER] * jokers, dtype=np.int8)


def sort_key(card: int, trump_suit: int = NO_SUIT) -> tuple[int, int]:
    """Display order: by suit (trumps last), then by rank; the joker last of all."""
    if card == JOKER:
        return (9, 99)
    suit = int(SUIT_OF[card])
    return (5 if suit == trump_suit else suit, int(RANK_OF[card]))
