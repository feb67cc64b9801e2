"""Abracadabra's rules as constants: phases, the action space and the rule lookup tables.

Read by the engine and its compiled kernels, the observation encoder, the renderers and
the agents, among others; nothing here changes during a game, and the tables are
read-only. Rule ids are those of docs/rules.md sections A–M.

- :class:`Phase`: the decision a game waits for (C1 bid, D1 show, F1 call, E play, over);
- the one flat action space of every variant, by named offsets: bids ``0..13``
  (:data:`BID_OFFSET`), ``show:<card>`` (:data:`SHOW_OFFSET`), :data:`STOP`,
  ``play:<card>`` (:data:`PLAY_OFFSET`), :data:`CALL`, :data:`NO_CALL`;
  :data:`ACTION_NAMES` names each id;
- card tables that turn a rule into one lookup: :data:`BID_VALUE` (A3),
  :data:`EFFECTIVE_SUIT` (B3), :data:`FOLLOW_BITS` (E2), :data:`TRICK_STRENGTH` (E3).

Card sets are ``uint64`` bit sets (bit ``c`` for card index ``c``, :data:`CARD_BIT`), so a
follow-suit constraint is one AND with a :data:`FOLLOW_BITS` entry.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np

from envs.cards import CARD_NAMES, JOKER, NUM_CARDS, RANK_OF, SUIT_OF


class Phase(IntEnum):
    """The decision a game waits for (the values are stored in ``AbracadabraState.phase``
    and are the positions of the observation's ``phase`` one-hot)."""

    BID = 0  #: C1: the bidder bids 0..cards_each
    SHOW = 1  #: D1: the declarer shows a card or stops
    CALL = 2  #: F1: say "Abracadabra" or not
    PLAY = 3  #: E1–E4: the hand to act plays a card
    OVER = 4  #: the episode has ended (no actions)


#: lower-case phase names, by phase value
PHASE_NAMES: tuple[str, ...] = tuple(p.name.lower() for p in Phase)

# -- actions ------------------------------------------------------------------------------
MAX_BID = 13  #: C1: bids are 0..cards_each, and cards_each is at most 13 (A)
BID_OFFSET = 0  #: C1: bid:0 .. bid:13
SHOW_OFFSET = BID_OFFSET + MAX_BID + 1  #: D1: 14 + card, show:<card> for the 53 cards
STOP = SHOW_OFFSET + NUM_CARDS  #: D1: 67, stop showing
PLAY_OFFSET = STOP + 1  #: E1: 68 + card, play:<card> for the 53 cards
CALL = PLAY_OFFSET + NUM_CARDS  #: F1: 121, say "Abracadabra"
NO_CALL = CALL + 1  #: F1: 122, let the chance go
NUM_ACTIONS = NO_CALL + 1  #: 123, one action space for every variant

#: one name per action id
ACTION_NAMES: tuple[str, ...] = (
    tuple(f"bid:{n}" for n in range(MAX_BID + 1))
    + tuple(f"show:{c}" for c in CARD_NAMES)
    + ("stop",)
    + tuple(f"play:{c}" for c in CARD_NAMES)
    + ("call", "no_call")
)
assert len(ACTION_NAMES) == NUM_ACTIONS

# -- card tables --------------------------------------------------------------------------
#: A3 bid-rank value of every card: A = 1, 2..10 face value, J = 11, Q = 12, K = 13;
#: -1 for the joker (it has none).
BID_VALUE = np.where(RANK_OF == 12, 1, RANK_OF + 2).astype(np.int8)
BID_VALUE[JOKER] = -1
#: B3 effective suit of every card for each trump (row = trump + 1, trump -1 = none):
#: the joker belongs to the trump suit.
EFFECTIVE_SUIT = np.tile(SUIT_OF, (5, 1)).astype(np.int8)
EFFECTIVE_SUIT[:, JOKER] = np.arange(-1, 4)
#: the bit of every card in a uint64 card set
CARD_BIT = np.left_shift(np.uint64(1), np.arange(NUM_CARDS, dtype=np.uint64))
#: E2 follow-suit sets: FOLLOW_BITS[trump + 1, led card + 1] = the cards of the led card's
#: effective suit; the first column (led card -1: leading the trick) is empty, no constraint
FOLLOW_BITS = np.zeros((5, NUM_CARDS + 1), np.uint64)
#: E3 strength of every card in a trick: TRICK_STRENGTH[trump + 1, led card, card] is 100
#: for the joker, 50 + rank for a trump, 20 + rank for the suit led, else 0 (the highest
#: wins; the cards of a trick are distinct, so there are no ties)
TRICK_STRENGTH = np.zeros((5, NUM_CARDS, NUM_CARDS), np.int8)
for _row in range(5):
    _suit, _trump = EFFECTIVE_SUIT[_row], _row - 1
    for _led in range(NUM_CARDS):
        _same = _suit == _suit[_led]
        FOLLOW_BITS[_row, _led + 1] = CARD_BIT[_same].sum()  # distinct bits: sum == union
        TRICK_STRENGTH[_row, _led] = np.where(
            np.arange(NUM_CARDS) == JOKER, 100,
            np.where((_suit == _trump) & (_trump >= 0), 50 + RANK_OF,
                     np.where(_same, 20 + RANK_OF, 0)))
del _row, _suit, _trump, _led, _same
for _table in (BID_VALUE, EFFECTIVE_SUIT, CARD_BIT, FOLLOW_BITS, TRICK_STRENGTH):
    _table.flags.writeable = False
del _table
