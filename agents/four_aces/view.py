"""What a Four Aces player knows at a decision, read from his observation alone.

The heuristics (:mod:`agents.four_aces.heuristics`) and the input features
(:mod:`agents.four_aces.features`) both start here: the observation is decoded through the
engine's layout (:data:`envs.four_aces.observation.LAYOUT`), never from engine state.
"""

from __future__ import annotations

import numba
import numpy as np

from agents.view import ObsView
from envs.cards import JOKER, NUM_CARDS
from envs.four_aces.observation import LAYOUT, MAX_SLOTS, STOCK_DIVISOR
from envs.four_aces.rules import ACES, FULL_DECK, MAX_HAND, MIN_PLAYERS, TABLE_CARDS

#: copies of each card in the deck (the joker: 2), G1
DECK_COUNTS = np.bincount(FULL_DECK, minlength=NUM_CARDS).astype(np.int64)


def turns_left(observations: np.ndarray) -> np.ndarray:
    """int [N]: the turns the player to move has left in the round, this one included.

    Every turn takes one card from the stock (the turned-up card, H2 b, or the refill,
    G6) and the round ends with the turn that empties it (H3), so with ``s`` cards in the
    stock and ``P`` players the mover has ``ceil(s / P)`` turns — fewer when a joker makes
    someone draw again (G7). 0 with an empty stock (no decision is asked then).
    """
    view = ObsView(LAYOUT, observations)
    stock = np.rint(view.scalar("stock_size") * STOCK_DIVISOR).astype(np.int64)
    players = np.argmax(view["num_players"], axis=1) + MIN_PLAYERS
    return -(-stock // players)


_HAND = LAYOUT.segments["hand"].start
_TABLES = LAYOUT.segments["tables"].start  # relative slot 0 (own table) first
_PILE = LAYOUT.segments["discard_pile"].start
_STOCK = LAYOUT.segments["stock_size"].start
_NUM_PLAYERS = LAYOUT.segments["num_players"].start
_PLAYER_COUNTS = LAYOUT.segments["num_players"].size


@numba.njit(cache=True)
def _decode(obs: np.ndarray, hand: np.ndarray, table: np.ndarray, pool: np.ndarray,
            joker_chance: np.ndarray, aces_out: np.ndarray, more_turns: np.ndarray) -> None:
    """Fill the :class:`FourAcesView` arrays from ``obs`` (float32 [N, D]), row by row:
    the cards of the rounded counts in increasing index order (a card as often as
    counted, padded with -1), the deck minus what is seen, and :func:`turns_left`
    ``> 1``."""
    for r in range(obs.shape[0]):
        unseen_total = 0
        filled = 0
        for c in range(NUM_CARDS):
            held = np.int64(np.rint(obs[r, _HAND + c]))
            for _ in range(max(held, 0)):
                if filled < MAX_HAND:
                    hand[r, filled] = c
                    filled += 1
            seen = held + np.int64(np.rint(obs[r, _PILE + c]))
            for slot in range(MAX_SLOTS):
                seen += np.int64(np.rint(obs[r, _TABLES + slot * NUM_CARDS + c]))
            unseen = max(DECK_COUNTS[c] - seen, 0)
            unseen_total += unseen
            pool[r, c] = unseen
        hand[r, filled:] = -1
        filled = 0
        for c in range(NUM_CARDS):
            for _ in range(max(np.int64(np.rint(obs[r, _TABLES + c])), 0)):
                if filled < TABLE_CARDS:
                    table[r, filled] = c
                    filled += 1
        table[r, filled:] = -1
        joker_chance[r] = pool[r, JOKER] / max(unseen_total, 1)
        pool[r, JOKER] = 0  # refills: non-joker cards (a joker would refill again)
        aces_out[r] = 0
        for ace in ACES:
            aces_out[r] += pool[r, ace]
        stock = np.int64(np.rint(obs[r, _STOCK] * np.float32(STOCK_DIVISOR)))
        players = MIN_PLAYERS + np.argmax(obs[r, _NUM_PLAYERS:_NUM_PLAYERS + _PLAYER_COUNTS])
        more_turns[r] = -(-stock // players) > 1


class FourAcesView:
    """The decision-relevant part of a Four Aces observation batch [N, D].

    Attributes:
        n: number of observations N.
        hand: int64 [N, MAX_HAND]: own hand as card indices (jokers as 52), -1 padded.
        table: int64 [N, TABLE_CARDS]: own table cards, -1 padded (G3).
        pool: int64 [N, 53]: unseen non-joker cards, counts: what a refill can bring (G6).
        joker_chance: float [N]: the share of jokers among the unseen cards (G7).
        aces_out: int64 [N]: aces among the unseen cards (H4).
        more_turns: bool [N]: the mover has another turn before the stock runs out (H3).
    """

    def __init__(self, observations: np.ndarray):
        obs = ObsView(LAYOUT, observations).obs  # float32 [N, D], columns checked
        self.n = n = len(obs)
        self.hand = np.empty((n, MAX_HAND), np.int64)
        self.table = np.empty((n, TABLE_CARDS), np.int64)
        self.pool = np.empty((n, NUM_CARDS), np.int64)
        self.joker_chance = np.empty(n)
        self.aces_out = np.empty(n, np.int64)
        self.more_turns = np.empty(n, np.bool_)
        _decode(np.ascontiguousarray(obs), self.hand, self.table, self.pool,
                self.joker_chance, self.aces_out, self.more_turns)
