"""What a Four Aces player knows at a decision, read from his observation alone.

The heuristics (:mod:`agents.four_aces.heuristics`) and the input features
(:mod:`agents.four_aces.features`) both start here: the observation is decoded through the
engine's layout (:data:`envs.four_aces.observation.LAYOUT`), never from engine state.
"""

from __future__ import annotations

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


def card_lists(counts: np.ndarray, width: int) -> np.ndarray:
    """int64 [N, width]: the cards of each row of ``counts`` [N, 53] (how many copies of
    each card index) in increasing index order, a card repeated as often as counted, cut
    to ``width`` and padded with -1."""
    counts = np.maximum(counts, 0)
    n = len(counts)
    rows, cards = np.nonzero(counts)
    copies = counts[rows, cards]
    rows, cards = np.repeat(rows, copies), np.repeat(cards, copies)
    start = np.searchsorted(rows, np.arange(n))  # first entry of each row
    slot = np.arange(len(rows)) - start[rows]
    keep = slot < width
    out = np.full((n, width), -1, np.int64)
    out[rows[keep], slot[keep]] = cards[keep]
    return out


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
        v = ObsView(LAYOUT, observations)
        self.n = v.n
        hand = np.rint(v["hand"]).astype(np.int64)  # counts, the joker up to 2
        tables = np.rint(v.blocks("tables", MAX_SLOTS))  # [N, 5, 53] whole counts
        pile = np.rint(v["discard_pile"]).astype(np.int64)
        # hand and own table as padded card lists (jokers kept as 52 in the hand)
        self.hand = card_lists(hand, MAX_HAND)
        self.table = card_lists(tables[:, 0].astype(np.int64), TABLE_CARDS)
        # unseen cards: the deck (52 + 2 jokers) minus everything seen (stock + others' hands)
        seen = hand + tables.sum(axis=1).astype(np.int64) + pile  # (exact: whole numbers)
        unseen = np.maximum(DECK_COUNTS[None, :] - seen, 0)
        self.joker_chance = unseen[:, JOKER] / np.maximum(unseen.sum(axis=1), 1)
        self.pool = unseen.copy()
        self.pool[:, JOKER] = 0  # refills: non-joker cards (a joker would refill again)
        # aces still out (the four-aces premium needs them)
        self.aces_out = self.pool[:, ACES].sum(axis=1)
        # will the player have another turn before the stock runs out (H3)?
        self.more_turns = turns_left(observations) > 1
