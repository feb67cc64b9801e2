"""Four Aces' rounds in the game-record form (:mod:`records.format`), and back.

A round is ``{"dealer": seat, "hands": [[card name] * 3 per seat], "tables": [[card name]
* 3 per seat], "stock": [card name, ...] top first}``: the arguments of the engine's
``reset_with_deal``. The later rounds of a match are shuffled and dealt from the game's
key (G2, G3), so :data:`next_deal` is None: a replay keys the engine with the record's key
and checks the rounds it deals. :func:`deal_layout` tells a stored round's checker
(:mod:`records.checks`) that form.
"""

from __future__ import annotations

import numpy as np

from envs.cards import names
from envs.four_aces.rules import FULL_DECK, HAND_CARDS

#: later rounds are dealt from the key, not laid out from the record
next_deal = None


def game_key(engine, game: int) -> int:
    """The 64-bit key of ``game``: its rounds are a pure function of it."""
    return int(engine.state.keys[game])


def deal_of(engine, game: int) -> dict:
    """The current round of ``game`` in record form (its deal order: three cards per
    hand, three per table, then the stock)."""
    P = engine.num_players
    row = engine.state.deal_order[game]
    return {
        "dealer": int(engine.state.dealer[game]),
        "hands": [names(row[3 * p : 3 * p + 3]) for p in range(P)],
        "tables": [names(row[3 * P + 3 * p : 3 * P + 3 * p + 3]) for p in range(P)],
        "stock": names(row[6 * P :]),
    }


def deal_layout(config) -> tuple[dict[str, tuple], np.ndarray]:
    """The form of a round of ``config``'s table and its deck (card indices): the dealer a
    seat (G2), three cards per hand and per table, the rest of the 54 cards in the stock
    (G1, G3)."""
    P = config.num_players
    layout = {
        "dealer": ("seat", P),
        "hands": ("rows", P, HAND_CARDS),
        "tables": ("rows", P, HAND_CARDS),
        "stock": ("cards", len(FULL_DECK) - 2 * HAND_CARDS * P),
    }
    return layout, FULL_DECK


def start_record(engine, record: dict) -> None:
    """Lay out ``record``'s first round in game 0 of ``engine`` (a fresh episode), keyed
    by the record's ``game_key`` when it has one so that later rounds follow."""
    deal = record["deal"]
    if record.get("game_key") is not None:  # later rounds of a match come from the key
        engine.reset(game_seeds=np.array([record["game_key"]], dtype=np.uint64))
    engine.reset_with_deal(0, deal["dealer"], deal["hands"], deal["tables"], deal["stock"])
