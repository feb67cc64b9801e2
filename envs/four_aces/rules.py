"""Four Aces rule constants (docs/rules.md G–K): the deck, the deal, the hand limit, the actions.

The one home of the game's fixed numbers: the engine, the observation encoder and the
agents import them from here. Cards use the project's canonical index (:mod:`envs.cards`:
``suit * 13 + rank``, the joker 52).

Actions (one flat discrete space, H2):

=========  ============  ==============================================================
id         name          meaning
=========  ============  ==============================================================
0 .. 51    discard:<c>   discard card c from the hand, then fill to L (H2 a, G6)
52         discard:JK    discard a joker (L stays raised, G7), then fill
53         draw          turn up the stock's top card (H2 b)
=========  ============  ==============================================================

The engine has no phases: every decision is a turn (H2); dealing (G2–G4) and scoring
(K1–K4) are automatic, and a finished game is marked by ``game_over``.
"""

from __future__ import annotations

import numpy as np

from envs.cards import CARD_NAMES, NUM_CARDS, card_index, deck

# -- players (G1) ------------------------------------------------------------------------
MIN_PLAYERS = 3  #: G1
MAX_PLAYERS = 5  #: G1

# -- cards (G1, G2) ----------------------------------------------------------------------
NUM_JOKERS = 2  #: G1
DECK_SIZE = 52 + NUM_JOKERS  #: 52 cards and two jokers (G1)
FULL_DECK = deck(jokers=NUM_JOKERS)  #: int8 [54], the 54 cards in index order (G1)
ACES = np.array([card_index(12, s) for s in range(4)], dtype=np.intp)  #: the four aces (H4, K1)
ACE_OF_SPADES = card_index(12, 3)  #: its drawer deals (G2)
IS_ACE = np.zeros(NUM_CARDS, dtype=bool)  #: bool [53], by card index (H4)
IS_ACE[ACES] = True
#: position of the ace of spades in FULL_DECK (the G2 draw)
AS_POSITION = int(np.flatnonzero(FULL_DECK == ACE_OF_SPADES)[0])

# -- the deal and the hand (G3, G7) ------------------------------------------------------
HAND_CARDS = 3  #: cards dealt into each hand (G3)
TABLE_CARDS = 3  #: face-up table cards dealt to each player (G3)
BASE_LIMIT = 3  #: the hand limit L before any joker (G7)
MAX_HAND = BASE_LIMIT + NUM_JOKERS  #: the largest L: 3 + both jokers (G7)

# -- actions (H2) ------------------------------------------------------------------------
DISCARD_OFFSET = 0  #: discard:<card> is DISCARD_OFFSET + card index (joker: 52), H2 a
DRAW = 53  #: turn up the stock's top card (H2 b)
NUM_ACTIONS = 54
ACTION_NAMES: tuple[str, ...] = tuple(f"discard:{n}" for n in CARD_NAMES) + ("draw",)

# -- bounds of one round's points (K2, K3) -----------------------------------------------
#: an upper bound: at most 8 scoring cards (K1), at most 14/5 points a card (a 5-card run)
MAX_ROUND_POINTS = 22
#: a lower bound: no combination is worth less than -1 a card
MIN_ROUND_POINTS = -8

assert DISCARD_OFFSET + NUM_CARDS == DRAW and DRAW + 1 == NUM_ACTIONS == len(ACTION_NAMES)
assert len(FULL_DECK) == DECK_SIZE
