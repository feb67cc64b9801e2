"""High Card's deal in the game-record form (:mod:`records.format`), and back: ``{"hands":
[[card name] * hand_size per seat]}``. An episode is one deal, so :data:`next_deal` is
None."""

from __future__ import annotations

import numpy as np

from envs.cards import names

from .engine import DECK

#: one deal per episode: no later deal to lay out
next_deal = None


def game_key(engine, game: int) -> int:
    """The 64-bit key of ``game`` (its deal is a function of it, HC1)."""
    return int(engine.state.keys[game])


def deal_of(engine, game: int) -> dict:
    """The deal of ``game`` in record form."""
    return {"hands": [names(row) for row in engine.state.dealt[game]]}


def deal_layout(config) -> tuple[dict[str, tuple], np.ndarray]:
    """The form of a deal of ``config``'s table and its deck (HC1)."""
    return {"hands": ("rows", config.num_players, config.hand_size)}, np.arange(DECK)


def start_record(engine, record: dict) -> None:
    """Deal ``record``'s hands in game 0 of ``engine``, keyed by its ``game_key``."""
    if record.get("game_key") is not None:
        engine.reset(game_seeds=np.array([record["game_key"]], dtype=np.uint64))
    engine.reset_with_deal(0, record["deal"]["hands"])
