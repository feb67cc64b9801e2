"""The state of a batch of Four Aces games: fixed-shape numpy arrays, one row per game.

:class:`FourAcesState` is everything the engine knows about its games; the engine
(:mod:`envs.four_aces.engine`) changes it, the observation encoder
(:mod:`envs.four_aces.observation`), rendering and game records read it. Shapes use B for
the batch size and P for the number of players; cards are counted by card index
(:mod:`envs.cards`, C = 53 types: the joker, 52, may count 2), places in the deck by
D = 54.

The fields are declared once, in groups by the part of the rules they belong to
(:class:`Match`, :class:`Round`, :class:`Result`), each with its dtype, axes and start
value (:class:`~envs.compiled.StateArray`); :class:`FourAcesState` holds them flat and by
group (:class:`~envs.compiled.GroupedState`), and the compiled kernels take the groups
they read and write.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from envs.cards import NUM_CARDS
from envs.compiled import GroupedState, StateArray
from envs.four_aces.rules import DECK_SIZE


class Match(NamedTuple):
    """The match, and the seat each game waits for (G2, H1, H2, K4)."""

    keys: np.ndarray = StateArray(np.uint64)  # each game's 64-bit key; round r's dealer draw
    #   is ``shuffled(key, 2r)`` and its deal ``shuffled(key, 2r + 1)`` of the full deck
    #   (envs.core; G2, G3)
    rounds_played: np.ndarray = StateArray(np.int32)  # rounds finished in this match (K4)
    totals: np.ndarray = StateArray(np.int32, "BP")  # match points of each seat so far (K4)
    current_player: np.ndarray = StateArray(np.int8, fill=-1)  # the seat to act; -1 once the
    #   game is over (H1, H2)
    game_over: np.ndarray = StateArray(bool, fill=True)  # the episode (a round or a match)
    #   has ended


class Round(NamedTuple):
    """This round: the deal (G2–G4) and the cards' places as the turns move them (G6, G7,
    H2–H4)."""

    dealer: np.ndarray = StateArray(np.int8)  # this round's dealer (G2)
    deal_order: np.ndarray = StateArray(np.int8, "BD")  # this round's deal, card indices: the
    #   hands (3 per seat, seat 0 first), the tables (3 per seat), then the stock, top first
    #   (G3)
    stock_top: np.ndarray = StateArray(np.int16)  # index in ``deal_order`` of the stock's top
    #   card; 54 when it is empty (H3)
    hand: np.ndarray = StateArray(np.int8, "BPC")  # each seat's hidden hand, counts by card
    #   (the joker up to 2; G3, G7)
    hand_size: np.ndarray = StateArray(np.int8, "BP")  # cards in each hand
    hand_limit: np.ndarray = StateArray(np.int8, "BP")  # each seat's hand limit L = 3 +
    #   jokers that entered its hand (G7)
    table: np.ndarray = StateArray(np.int8, "BPC")  # each seat's face-up table cards, counts
    #   by card (G3, G4)
    discard: np.ndarray = StateArray(np.int8, "BD", -1)  # the discard pile, bottom first,
    #   card indices; -1 past its top (H2)
    discard_size: np.ndarray = StateArray(np.int16)  # cards on the discard pile
    discard_counts: np.ndarray = StateArray(np.int8, "BC")  # the discard pile, counts by card
    four_aces_now: np.ndarray = StateArray(np.int8, fill=-1)  # the seat whose hand reached
    #   all four aces during this round, -1 if none: the round ends at the end of that turn,
    #   or at once during the deal's fill (H4, G4)


class Result(NamedTuple):
    """The results of the last step and of the last finished round (the engine's
    ``result()``, ``info["result"]``)."""

    deal_over: np.ndarray = StateArray(bool)  # a round ended during the last step
    last_points: np.ndarray = StateArray(np.int32, "BP")  # the last finished round's points
    #   (K2, K3); after four aces the winner has ``target_points`` and the others 0 (H4, K1)
    four_aces_winner: np.ndarray = StateArray(np.int8, fill=-1)  # the seat that won the last
    #   finished round by four aces (H4, K1); -1 none
    winners: np.ndarray = StateArray(bool, "BP")  # the winners of the episode, set when it is
    #   over (K4; a round episode: the highest round points)
    match_over: np.ndarray = StateArray(bool)  # the match has ended (K4; every round in a
    #   round episode)
    has_result: np.ndarray = StateArray(bool)  # a round has finished in this episode
    #   (``result`` has something to say)


#: the groups of :class:`FourAcesState`, by the attribute that holds each
GROUPS = {"match": Match, "round": Round, "result": Result}


@dataclass(eq=False, frozen=True)
class FourAcesState(GroupedState, groups=GROUPS):
    """The games of a :class:`~envs.four_aces.engine.FourAcesEngine` (see module doc).

    Every field has a leading batch axis of length B. A field is public to read; only the
    engine writes. The fields are those of the groups, in their order: ``state.hand`` is
    ``state.round.hand``, the same array. The kernels take the groups
    (:mod:`envs.four_aces.kernels`, :mod:`envs.four_aces.observation`).
    """

    @classmethod
    def allocate(cls, batch_size: int, num_players: int) -> FourAcesState:
        """The state of ``batch_size`` games of ``num_players``, every game over (the
        engine's ``reset`` starts them)."""
        return cls.allocate_arrays(B=batch_size, P=num_players, C=NUM_CARDS, D=DECK_SIZE)

    @property
    def batch_size(self) -> int:
        return len(self.keys)

    @property
    def num_players(self) -> int:
        return self.hand.shape[1]

    def arrays(self) -> dict[str, np.ndarray]:
        """Every field by name (the arrays themselves, not copies)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    # flat views of the per-seat arrays, one row per (game, seat) pair ``game * P + seat``:
    # made on use (a reshape is cheap), so copies of a state stay
    # consistent
    @property
    def hand_rows(self) -> np.ndarray:
        """int8 [B * P, 53]: ``hand`` with one row per (game, seat)."""
        return self.hand.reshape(-1, NUM_CARDS)

    @property
    def table_rows(self) -> np.ndarray:
        """int8 [B * P, 53]: ``table`` with one row per (game, seat)."""
        return self.table.reshape(-1, NUM_CARDS)

    @property
    def hand_size_flat(self) -> np.ndarray:
        """int8 [B * P]: ``hand_size`` with one entry per (game, seat)."""
        return self.hand_size.reshape(-1)

    @property
    def hand_limit_flat(self) -> np.ndarray:
        """int8 [B * P]: ``hand_limit`` with one entry per (game, seat)."""
        return self.hand_limit.reshape(-1)
