"""The state of a batch of Four Aces games: fixed-shape numpy arrays, one row per game.

:class:`FourAcesState` is everything the engine knows about its games; the engine
(:mod:`envs.four_aces.engine`) changes it, the observation encoder
(:mod:`envs.four_aces.observation`), rendering and game records read it. Shapes use B for
the batch size and P for the number of players; cards are counted by card index
(:mod:`envs.cards`, 53 types: the joker, 52, may count 2).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from envs.cards import NUM_CARDS
from envs.compiled import KernelState
from envs.four_aces.rules import DECK_SIZE


@dataclass(eq=False, frozen=True)
class FourAcesState(KernelState):
    """The games of a :class:`~envs.four_aces.engine.FourAcesEngine` (see module doc).

    Every field has a leading batch axis of length B. A field is public to read; only the
    engine writes.
    """

    # -- the match -------------------------------------------------------------------------
    #: uint64 [B]: each game's 64-bit key; round r's dealer draw is ``shuffled(key, 2r)``
    #: and its deal ``shuffled(key, 2r + 1)`` of the full deck (envs.core; G2, G3)
    keys: np.ndarray
    #: int32 [B]: rounds finished in this match (K4)
    rounds_played: np.ndarray
    #: int32 [B, P]: match points of each seat so far (K4)
    totals: np.ndarray
    #: int8 [B]: the seat to act; -1 once the game is over (H1, H2)
    current_player: np.ndarray
    #: bool [B]: the episode (a round or a match) has ended
    game_over: np.ndarray

    # -- this round ------------------------------------------------------------------------
    #: int8 [B]: this round's dealer (G2)
    dealer: np.ndarray
    #: int8 [B, 54]: this round's deal, card indices: the hands (3 per seat, seat 0 first),
    #: the tables (3 per seat), then the stock, top first (G3)
    deal_order: np.ndarray
    #: int16 [B]: index in ``deal_order`` of the stock's top card; 54 when it is empty (H3)
    stock_top: np.ndarray
    #: int8 [B, P, 53]: each seat's hidden hand, counts by card (the joker up to 2; G3, G7)
    hand: np.ndarray
    #: int8 [B, P]: cards in each hand
    hand_size: np.ndarray
    #: int8 [B, P]: each seat's hand limit L = 3 + jokers that entered its hand (G7)
    hand_limit: np.ndarray
    #: int8 [B, P, 53]: each seat's face-up table cards, counts by card (G3, G4)
    table: np.ndarray
    #: int8 [B, 54]: the discard pile, bottom first, card indices; -1 past its top (H2)
    discard: np.ndarray
    #: int16 [B]: cards on the discard pile
    discard_size: np.ndarray
    #: int8 [B, 53]: the discard pile, counts by card
    discard_counts: np.ndarray
    #: int8 [B]: the seat whose hand reached all four aces during this round, -1 if none:
    #: the round ends at the end of that turn, or at once during the deal's fill (H4, G4)
    four_aces_now: np.ndarray

    # -- results of the last step and the last finished round ------------------------------
    #: bool [B]: a round ended during the last step
    deal_over: np.ndarray
    #: int32 [B, P]: the last finished round's points (K2, K3); after four aces the winner
    #: has ``target_points`` and the others 0 (H4, K1)
    last_points: np.ndarray
    #: int8 [B]: the seat that won the last finished round by four aces (H4, K1); -1 none
    four_aces_winner: np.ndarray
    #: bool [B, P]: the winners of the episode, set when it is over (K4; a round episode:
    #: the highest round points)
    winners: np.ndarray
    #: bool [B]: the match has ended (K4; every round in a round episode)
    match_over: np.ndarray
    #: bool [B]: a round has finished in this episode (``result`` has something to say)
    has_result: np.ndarray

    @classmethod
    def allocate(cls, batch_size: int, num_players: int) -> FourAcesState:
        """The state of ``batch_size`` games of ``num_players``, every game over (the
        engine's ``reset`` starts them)."""
        B, P = batch_size, num_players
        return cls(
            keys=np.zeros(B, dtype=np.uint64),
            rounds_played=np.zeros(B, dtype=np.int32),
            totals=np.zeros((B, P), dtype=np.int32),
            current_player=np.full(B, -1, dtype=np.int8),
            game_over=np.ones(B, dtype=bool),
            dealer=np.zeros(B, dtype=np.int8),
            deal_order=np.zeros((B, DECK_SIZE), dtype=np.int8),
            stock_top=np.zeros(B, dtype=np.int16),
            hand=np.zeros((B, P, NUM_CARDS), dtype=np.int8),
            hand_size=np.zeros((B, P), dtype=np.int8),
            hand_limit=np.zeros((B, P), dtype=np.int8),
            table=np.zeros((B, P, NUM_CARDS), dtype=np.int8),
            discard=np.full((B, DECK_SIZE), -1, dtype=np.int8),
            discard_size=np.zeros(B, dtype=np.int16),
            discard_counts=np.zeros((B, NUM_CARDS), dtype=np.int8),
            four_aces_now=np.full(B, -1, dtype=np.int8),
            deal_over=np.zeros(B, dtype=bool),
            last_points=np.zeros((B, P), dtype=np.int32),
            four_aces_winner=np.full(B, -1, dtype=np.int8),
            winners=np.zeros((B, P), dtype=bool),
            match_over=np.zeros(B, dtype=bool),
            has_result=np.zeros(B, dtype=bool),
        )

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
