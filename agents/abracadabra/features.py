"""Abracadabra input features of policy networks, computed from the observation (and the
legal-action mask).

:func:`abracadabra_features` gives a network that learns to bid the heuristic bidders'
hand evaluation (expected and sure tricks, their bids) and the bidding so far;
:func:`abracadabra_advice_features` adds the heuristic's own choice of every decision, so
a network that makes every decision starts from the heuristic's card play.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from agents.abracadabra.heuristics import (
    BestHeuristic,
    ControlAgent,
    _Table,
    expected_tricks,
    sure_tricks,
)
from envs.abracadabra.rules import ACTION_NAMES, MAX_BID, NUM_ACTIONS
from envs.cards import NUM_CARDS

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
    return _bid_features(_Table(np.asarray(observations, dtype=np.float32)))


def _bid_features(table: _Table) -> np.ndarray:
    """:func:`abracadabra_features` of an observation batch already decoded."""
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


#: the columns :func:`abracadabra_advice_features` adds to :data:`ABRACADABRA_COLUMNS`
ADVICE_COLUMNS = [f"heuristic:{name}" for name in ACTION_NAMES]
ABRACADABRA_ADVICE_SIZE = ABRACADABRA_SIZE + len(ADVICE_COLUMNS)


@lru_cache(maxsize=1)
def _heuristic() -> BestHeuristic:
    return BestHeuristic("abracadabra")


def abracadabra_advice_features(observations: np.ndarray,
                                masks: np.ndarray | None) -> np.ndarray:
    """:func:`abracadabra_features` plus a one-hot of the action the default heuristic
    (:class:`~agents.abracadabra.heuristics.BestHeuristic`: expected-tricks bid, show,
    exact-target card play, call) takes in every row. A network that makes every decision
    (bids C1, shows D1, plays E1-E4, calls F1) then starts from the heuristic's play, which
    it cannot learn in an hour from the cards alone, and learns where to depart from it.
    The heuristic is deterministic (it never draws from its generator), so the features
    are a function of the observation and the legal ``masks`` alone.

    Returns float32 [N, ``ABRACADABRA_ADVICE_SIZE``], the added columns
    :data:`ADVICE_COLUMNS` (one per action, in the game's action order).
    """
    obs = np.asarray(observations, dtype=np.float32)
    return np.concatenate([abracadabra_features(obs), _advice(obs, masks)], axis=1)


def _advice(obs: np.ndarray, masks: np.ndarray | None) -> np.ndarray:
    """float32 [N, NUM_ACTIONS]: the one-hot :data:`ADVICE_COLUMNS` of float32 ``obs``."""
    if masks is None:
        raise ValueError("features 'abracadabra_advice' and 'abracadabra_cards' read the "
                         "legal-action masks: expected with_features(name, observations, "
                         "masks)")
    masks = np.asarray(masks, dtype=bool)
    if masks.shape != (len(obs), NUM_ACTIONS):
        raise ValueError(f"masks of shape {list(masks.shape)}: expected [{len(obs)}, "
                         f"{NUM_ACTIONS}], one legal-action mask per observation row")
    advice = np.zeros((len(obs), NUM_ACTIONS), dtype=np.float32)
    advice[np.arange(len(obs)), _heuristic().act_batch(obs, masks)] = 1.0
    return advice


#: per card, the columns :func:`abracadabra_cards_features` adds (53 blocks of these)
CARD_FEATURES = ("wins_now", "master", "higher_out", "trump")
#: per relative hand slot, then the trick
SITUATION_COLUMNS = (
    [f"need:{s}" for s in range(4)]  # (target - tricks taken) / cards_each, 0 before a target
    + [f"can_hit:{s}" for s in range(4)]  # 0 <= target - tricks taken <= tricks left
    + ["tricks_left"]  # tricks still to play / cards_each
    + [f"winning:{s}" for s in range(4)]  # one-hot: the hand slot winning the current trick
)
#: the columns :func:`abracadabra_cards_features` adds to :data:`ABRACADABRA_COLUMNS`
CARDS_COLUMNS = ADVICE_COLUMNS + [
    f"{name}:{card}" for card in range(NUM_CARDS) for name in CARD_FEATURES
] + SITUATION_COLUMNS
ABRACADABRA_CARDS_SIZE = ABRACADABRA_SIZE + len(CARDS_COLUMNS)


def abracadabra_cards_features(observations: np.ndarray,
                               masks: np.ndarray | None) -> np.ndarray:
    """:func:`abracadabra_advice_features` plus what a card player reads off the table
    for every card of the acting hand (E2, E3) and of the race to the target (F2: a hit
    takes exactly T tricks):

    - per card (53 blocks of :data:`CARD_FEATURES`): it beats the trick's best card so far
      (0 when leading); no card still out ranks above it in its effective suit (a master;
      the joker belongs to the trump suit, B3); how many do (/13); it is a trump;
    - per relative hand slot: tricks still needed to hit the target (/cards_each) and
      whether that is still possible (zeros before the target is set and for slots the
      variant has no hand at); the tricks left; which hand slot wins the trick now.

    An MLP over one-hot cards would have to learn these comparisons itself: with them,
    imitating the PIMC search's sure departures from the heuristic beats the heuristic
    (without them it is level: the advice inputs, docs/training.md). Returns float32
    [N, ``ABRACADABRA_CARDS_SIZE``], columns :data:`ABRACADABRA_COLUMNS` then
    :data:`CARDS_COLUMNS`."""
    obs = np.asarray(observations, dtype=np.float32)
    t = _Table(obs)  # decoded once for the bid and the card columns
    base = np.concatenate([_bid_features(t), _advice(obs, masks)], axis=1)
    n = t.n
    rows = np.arange(n)
    cards = t.cards
    higher, _ = t.threats(cards)
    power = t.power(t.led)  # led is -1 (nothing led) when the hand leads
    per_card = np.zeros((n, NUM_CARDS, len(CARD_FEATURES)), np.float32)
    per_card[:, :, 0] = cards & ~t.leading[:, None] & (power > t.best[:, None])
    per_card[:, :, 1] = cards & (higher == 0)
    per_card[:, :, 2] = np.where(cards, np.minimum(higher, 13) / 13.0, 0.0)
    per_card[:, :, 3] = cards & t.trumpish
    situation = np.zeros((n, len(SITUATION_COLUMNS)), np.float32)
    racing = (t.target[:, None] >= 0) & (np.arange(4) < t.H[:, None])  # a target, a hand
    need = t.target[:, None] - t.tricks
    each = t.E[:, None].astype(np.float32)
    situation[:, :4] = np.where(racing, need / each, 0.0)
    situation[:, 4:8] = racing & (need >= 0) & (need <= t.remaining[:, None])
    situation[:, 8] = t.remaining / t.E
    winning = t.winner >= 0
    situation[rows[winning], 9 + t.winner[winning]] = 1.0
    return np.concatenate([base, per_card.reshape(n, -1), situation], axis=1)
