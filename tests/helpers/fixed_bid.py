"""A deliberately exploitable Abracadabra agent for the exploitability tests.

:class:`FixedBid` always bids the same number (C1), shows no card (D1: it stops at
once), never says "Abracadabra" (F1) and plays its lowest legal card (E2). It never hits
(F2), so it never earns a bonus (S1) nor the pot (S4). At a table of copies bidding 0 the
highest bid is the other seat's (C3): a player in that seat chooses the target T, may
call, and alone can hit it for the one-hitter bonus (40 in the ``four`` variant, table A)
and the pot — a large, known exploitability.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from envs.abracadabra.rules import BID_OFFSET, MAX_BID, NO_CALL, STOP

#: the agent name it is registered under in the tests
NAME = "fixed_bid"
#: where the tests register it (agents.registry's "module:Class")
TARGET = "tests.helpers.fixed_bid:FixedBid"


class FixedBid(Agent):
    """Bids ``bid`` (the lowest legal bid above it if it is not legal), stops showing,
    never calls, plays the lowest legal card."""

    summary = "always bids the same, never calls, plays its lowest card (test agent)"

    def __init__(self, game: str, seed: int | None = None, bid: int = 0):
        super().__init__(game, seed)
        self.bid = int(bid)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        actions = masks.argmax(axis=1).astype(np.int64)  # the lowest legal action: a card
        bids = masks[:, BID_OFFSET:BID_OFFSET + MAX_BID + 1]
        bidding = bids.any(axis=1)
        allowed = bids & (np.arange(MAX_BID + 1) >= self.bid)
        actions[bidding] = BID_OFFSET + np.where(allowed.any(axis=1), allowed.argmax(axis=1),
                                                 bids.argmax(axis=1))[bidding]
        actions[masks[:, STOP]] = STOP  # D1: show nothing
        actions[masks[:, NO_CALL]] = NO_CALL  # F1: let every chance to call pass
        return actions
