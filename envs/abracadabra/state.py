"""The state of a batch of Abracadabra games: fixed-shape numpy arrays, one row per game.

Shapes use B (games in the batch), P (bidding players, the seats) and H (hands dealt: P,
plus the dummy's hand in ``two_dummy``, hand index P). A seat or hand of -1 means "none".
Card sets are ``uint64`` bit sets, bit ``c`` for card index ``c``
(:data:`~envs.abracadabra.rules.CARD_BIT`); :meth:`AbracadabraState.hands`,
:meth:`~AbracadabraState.played`, :meth:`~AbracadabraState.voids` and
:meth:`~AbracadabraState.shown` give them as read-only bool arrays. Rule ids are those of
docs/rules.md sections A–M.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields

import numpy as np

from envs.cards import NUM_CARDS
from envs.compiled import KernelState

from .rules import Phase

# the uint64 card sets are unpacked through a uint8 view, least significant byte first
assert sys.byteorder == "little", "the card bit sets assume a little-endian machine"


def unpack_cards(card_sets: np.ndarray) -> np.ndarray:
    """bool [..., 53] from uint64 card bit sets [...] (bit c set: card c is in the set);
    a view of one flat ``np.unpackbits`` (unpacking along a short axis is much slower)."""
    words = np.asarray(card_sets, np.uint64)
    flat = np.ascontiguousarray(words).reshape(-1).view(np.uint8)
    bits = np.unpackbits(flat, bitorder="little").reshape(*words.shape, 64)
    return bits[..., :NUM_CARDS].view(bool)


@dataclass(eq=False, frozen=True)
class AbracadabraState(KernelState):
    """Every per-game array of a batch of Abracadabra games (leading axis: the game)."""

    # -- the episode ----------------------------------------------------------------------
    key: np.ndarray  # uint64 [B]: the game's 64-bit key; its deals are f(key, k) (B1, B2)
    deal_index: np.ndarray  # int64 [B]: k of the current deal (the shuffle counter, B2)
    deals_done: np.ndarray  # int32 [B]: deals finished this episode (M1, M3)
    game_over: np.ndarray  # bool [B]: the episode has ended (M1–M3)
    deal_over: np.ndarray  # bool [B]: a deal ended during the last step
    current_player: np.ndarray  # int8 [B]: seat to act, -1 once the episode is over
    phase: np.ndarray  # int8 [B]: the Phase value, the decision the game waits for
    # -- the deal (B) ---------------------------------------------------------------------
    dealer: np.ndarray  # int8 [B]: seat dealing this deal (B1)
    hand_bits: np.ndarray  # uint64 [B, H]: cards held, per hand (bit set, B2)
    leftover: np.ndarray  # int8 [B]: the turned-up leftover card, -1 if none (B2)
    trump: np.ndarray  # int8 [B]: trump suit 0..3 (C, D, H, S), -1 for no trump (B2, B3)
    # -- bidding (C) and showing (D) ------------------------------------------------------
    bids: np.ndarray  # int8 [B, P]: bid per seat, -1 not yet (C1)
    num_bids: np.ndarray  # int8 [B]: bids made this deal (C1)
    declarer: np.ndarray  # int8 [B]: seat of the declarer, -1 during bidding (C3)
    target: np.ndarray  # int8 [B]: the target T, -1 during bidding (C3)
    shown_bits: np.ndarray  # uint64 [B]: cards shown and still held by the declarer (D1)
    num_shown: np.ndarray  # int8 [B]: cards shown this deal (D2)
    stakes: np.ndarray  # int32 [B, P]: chips staked this deal per seat (C2, D2)
    pot: np.ndarray  # int64 [B]: chips in the pot, carry-over included (C2, D2, S4)
    # -- play (E) and calls (F) -----------------------------------------------------------
    played_bits: np.ndarray  # uint64 [B, H]: cards played this deal, per hand (bit set, E1)
    void_bits: np.ndarray  # uint64 [B, H]: the public void record: cards each hand is known
    #   not to hold, the union of the led effective suits it did not follow this deal (E2;
    #   the joker counts as a trump, B3); may include cards already played
    trick: np.ndarray  # int8 [B, H]: card of each hand in the current trick, -1 none (E1)
    trick_size: np.ndarray  # int8 [B]: cards in the current trick (E1)
    leader: np.ndarray  # int8 [B]: hand leading the current trick, -1 before play (E1, E3)
    to_play: np.ndarray  # int8 [B]: hand whose card is next, -1 outside play (E1)
    dummy_ctrl: np.ndarray  # int8 [B]: seat playing the dummy's cards this trick, -1 (E4)
    tricks_won: np.ndarray  # int8 [B, H]: tricks taken per hand, the dummy's too (E3)
    tricks_done: np.ndarray  # int8 [B]: tricks completed this deal (E3)
    rank_cards: np.ndarray  # int8 [B, H]: taken cards of bid-rank value T, per hand (A3, S3)
    called: np.ndarray  # bool [B, P]: said "Abracadabra" this deal (F1)
    # -- the match (M) --------------------------------------------------------------------
    totals: np.ndarray  # int64 [B, P]: match points (M1)
    winners: np.ndarray  # bool [B, P]: the highest totals, set at episode end (M1)
    # -- the last finished deal (info["result"]) ------------------------------------------
    has_result: np.ndarray  # bool [B]: a deal has finished this episode
    last_deal: np.ndarray  # int32 [B]: index of that deal in the episode
    last_declarer: np.ndarray  # int8 [B]: its declarer (C3)
    last_target: np.ndarray  # int8 [B]: its target T (C3)
    last_tricks: np.ndarray  # int8 [B, H]: its tricks per hand (E3)
    last_called: np.ndarray  # bool [B, P]: who said "Abracadabra" (F1)
    last_hitters: np.ndarray  # bool [B, P]: who hit (F2)
    last_points: np.ndarray  # int64 [B, P]: points of each seat (S1–S3)
    last_stakes: np.ndarray  # int32 [B, P]: stake of each seat (C2, D2)
    last_share: np.ndarray  # float64 [B, P]: share of the pot of each seat (S4)
    last_final_share: np.ndarray  # float64 [B, P]: share of the carry-over at episode end (M2)
    last_carry: np.ndarray  # int64 [B]: pot carried over after the deal (S4)
    last_chips: np.ndarray  # float64 [B, P]: net chips, share + final share - stake

    @classmethod
    def allocate(cls, batch_size: int, num_players: int, num_hands: int) -> AbracadabraState:
        """The state of ``batch_size`` games that have not started (every episode over)."""
        B, P, H = batch_size, num_players, num_hands
        return cls(
            key=np.zeros(B, np.uint64),
            deal_index=np.zeros(B, np.int64),
            deals_done=np.zeros(B, np.int32),
            game_over=np.ones(B, bool),
            deal_over=np.zeros(B, bool),
            current_player=np.full(B, -1, np.int8),
            phase=np.full(B, Phase.OVER, np.int8),
            dealer=np.zeros(B, np.int8),
            hand_bits=np.zeros((B, H), np.uint64),
            leftover=np.full(B, -1, np.int8),
            trump=np.full(B, -1, np.int8),
            bids=np.full((B, P), -1, np.int8),
            num_bids=np.zeros(B, np.int8),
            declarer=np.full(B, -1, np.int8),
            target=np.full(B, -1, np.int8),
            shown_bits=np.zeros(B, np.uint64),
            num_shown=np.zeros(B, np.int8),
            stakes=np.zeros((B, P), np.int32),
            pot=np.zeros(B, np.int64),
            played_bits=np.zeros((B, H), np.uint64),
            void_bits=np.zeros((B, H), np.uint64),
            trick=np.full((B, H), -1, np.int8),
            trick_size=np.zeros(B, np.int8),
            leader=np.full(B, -1, np.int8),
            to_play=np.full(B, -1, np.int8),
            dummy_ctrl=np.full(B, -1, np.int8),
            tricks_won=np.zeros((B, H), np.int8),
            tricks_done=np.zeros(B, np.int8),
            rank_cards=np.zeros((B, H), np.int8),
            called=np.zeros((B, P), bool),
            totals=np.zeros((B, P), np.int64),
            winners=np.zeros((B, P), bool),
            has_result=np.zeros(B, bool),
            last_deal=np.zeros(B, np.int32),
            last_declarer=np.zeros(B, np.int8),
            last_target=np.zeros(B, np.int8),
            last_tricks=np.zeros((B, H), np.int8),
            last_called=np.zeros((B, P), bool),
            last_hitters=np.zeros((B, P), bool),
            last_points=np.zeros((B, P), np.int64),
            last_stakes=np.zeros((B, P), np.int32),
            last_share=np.zeros((B, P), np.float64),
            last_final_share=np.zeros((B, P), np.float64),
            last_carry=np.zeros(B, np.int64),
            last_chips=np.zeros((B, P), np.float64),
        )

    # -- bool views of the card bit sets (read-only copies) -------------------------------
    def hands(self) -> np.ndarray:
        """bool [B, H, 53]: the cards each hand holds."""
        return _read_only(unpack_cards(self.hand_bits))

    def played(self) -> np.ndarray:
        """bool [B, H, 53]: the cards each hand has played this deal."""
        return _read_only(unpack_cards(self.played_bits))

    def voids(self) -> np.ndarray:
        """bool [B, H, 53]: the cards each hand is known not to hold (the void record)."""
        return _read_only(unpack_cards(self.void_bits))

    def shown(self) -> np.ndarray:
        """bool [B, 53]: the cards the declarer has shown and still holds (D1)."""
        return _read_only(unpack_cards(self.shown_bits))

    def arrays(self) -> dict[str, np.ndarray]:
        """Every field by name (the arrays themselves, not copies)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array
