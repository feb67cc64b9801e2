"""Abracadabra's deals in the game-record form (:mod:`records.format`), and back.

A deal is ``{"dealer": seat, "hands": [[card name, ...] per hand, the dummy last],
"leftover": card name or None}``: the arguments of the engine's ``reset_with_deal``. Every
deal of a match is stored, since :func:`next_deal` lays each later one out again (B1, B2).
:func:`deal_layout` tells a stored deal's checker (:mod:`records.checks`) that form.
"""

from __future__ import annotations

import numpy as np

from envs.cards import names


def game_key(engine, game: int) -> int:
    """The 64-bit key of ``game``: its deals are a pure function of it."""
    return int(engine.state.key[game])


def deal_of(engine, game: int) -> dict:
    """The current deal of ``game`` in record form."""
    leftover = int(engine.state.leftover[game])
    return {
        "dealer": int(engine.state.dealer[game]),
        "hands": [names(engine.hand_cards(game, h)) for h in range(engine.num_hands)],
        "leftover": names([leftover])[0] if leftover >= 0 else None,
    }


def deal_layout(config) -> tuple[dict[str, tuple], np.ndarray]:
    """The form of a deal of ``config``'s table and its deck (card indices): the dealer a
    bidding seat (B1), one hand of ``cards_each`` cards per hand (the dummy's last), the
    leftover card or null (B2); the deck of the variant (A)."""
    layout = {
        "dealer": ("seat", config.num_players),
        "hands": ("rows", config.num_hands, config.cards_each),
        "leftover": ("card_or_none",),
    }
    return layout, config.deck


def start_record(engine, record: dict) -> None:
    """Lay out ``record``'s first deal in game 0 of ``engine`` (a fresh episode)."""
    deal = record["deal"]
    engine.reset_with_deal(0, deal["dealer"], deal["hands"], deal["leftover"])


def next_deal(engine, deal: dict) -> None:
    """Lay out a later ``deal`` of a match in game 0, just after it was dealt: the dealer
    has already passed left (B1), the cards are replaced."""
    engine.set_deal(0, deal["hands"], deal["leftover"])
