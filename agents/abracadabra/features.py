"""Abracadabra input features of policy networks, computed from the observation alone.

:func:`abracadabra_features` gives a network that learns to bid the heuristic bidders'
hand evaluation (expected and sure tricks, their bids) and the bidding so far.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from agents.abracadabra.heuristics import ControlAgent, _Table, expected_tricks, sure_tricks
from envs.abracadabra.rules import MAX_BID

#: the columns of :func:`abracadabra_features`, in order
ABRACADABRA_COLUMNS = (
    ["expected_tricks"]  # the card-strength model's expected tricks of own hand, / MAX_BID
    + [f"expected_bid:{k}" for k in range(MAX_BID + 1)]  # one-hot: expected_tricks' bid
    + [f"sure_bid:{k}" for k in range(MAX_BID + 1)]  # one-hot: sure_tricks' bid
    + [f"control_bid:{k}" for k in range(MAX_BID + 1)]  # one-hot: control's bid
    + [f"top_bid:{k}" for k in range(-1, MAX_BID + 1)]  # one-hot: highest bid so far (-1 none)
    + [f"bids_made:{k}" for k in range(4)]  # one-hot: bids before this one (bidding order)
)
ABRACADABRA_SIZE = len(ABRACADABRA_COLUMNS)


@lru_cache(maxsize=1)
def _control_bidder() -> ControlAgent:
    return ControlAgent("abracadabra")


def _control_bids(table) -> np.ndarray:
    """The ``control`` heuristic's bids (deterministic: its generator is never used)."""
    return _control_bidder().bid_values(table)


def abracadabra_features(observations: np.ndarray) -> np.ndarray:
    """Abracadabra bidding features of an observation batch: what the heuristic bidders
    (:mod:`agents.abracadabra.heuristics`) read from the hand, so a network that learns to
    bid starts from their hand evaluation and learns when to depart from it.

    Returns float32 [N, ``ABRACADABRA_SIZE``], columns :data:`ABRACADABRA_COLUMNS`: the
    expected tricks of own hand (/13); one-hot bids of ``expected_tricks``, ``sure_tricks``
    and ``control`` (clipped to 0..13); the highest bid so far (-1: none) and how many
    players have bid (C1–C3). Outside bidding the bids are those the hand would make now.
    """
    obs = np.asarray(observations, dtype=np.float32)
    table = _Table(obs)
    n = table.n
    rows = np.arange(n)
    expected = expected_tricks(table, table.hand)
    out = np.zeros((n, ABRACADABRA_SIZE), dtype=np.float32)
    out[:, 0] = expected / MAX_BID
    column = 1
    bids = (np.rint(expected), sure_tricks(table, table.hand), _control_bids(table))
    for values in bids:
        out[rows, column + np.clip(values, 0, MAX_BID).astype(np.int64)] = 1.0
        column += MAX_BID + 1
    top = np.clip(table.bids.max(axis=1), -1, MAX_BID)
    out[rows, column + 1 + top] = 1.0
    column += MAX_BID + 2
    made = np.clip((table.bids >= 0).sum(axis=1), 0, 3)
    out[rows, column + made] = 1.0
    return out
