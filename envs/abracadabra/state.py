"""The state of a batch of Abracadabra games: fixed-shape numpy arrays, one row per game.

Shapes use B (games in the batch), P (bidding players, the seats) and H (hands dealt: P,
plus the dummy's hand in ``two_dummy``, hand index P). A seat or hand of -1 means "none".
Card sets are ``uint64`` bit sets, bit ``c`` for card index ``c``
(:data:`~envs.abracadabra.rules.CARD_BIT`); :meth:`AbracadabraState.hands`,
:meth:`~AbracadabraState.played`, :meth:`~AbracadabraState.voids` and
:meth:`~AbracadabraState.shown` give them as read-only bool arrays. Rule ids are those of
docs/rules.md sections A–M.

The fields are declared once, in groups by the part of the rules they belong to
(:class:`Episode`, :class:`Deal`, :class:`Bidding`, :class:`Play`, :class:`Match`,
:class:`LastDeal`), each with its dtype, axes and start value
(:class:`~envs.compiled.StateArray`); :class:`AbracadabraState` holds them flat and by
group (:class:`~envs.compiled.GroupedState`), and the
compiled kernels take the groups they read and write.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from envs.cards import NUM_CARDS
from envs.compiled import GroupedState, StateArray

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


class Episode(NamedTuple):
    """The episode and the decision each game waits for (B1, B2, M1–M3)."""

    key: np.ndarray = StateArray(np.uint64)  # the game's 64-bit key; deals are f(key, k)
    deal_index: np.ndarray = StateArray(np.int64)  # k of the current deal (the shuffle counter)
    deals_done: np.ndarray = StateArray(np.int32)  # deals finished this episode (M1, M3)
    game_over: np.ndarray = StateArray(bool, fill=True)  # the episode has ended (M1–M3)
    deal_over: np.ndarray = StateArray(bool)  # a deal ended during the last step
    current_player: np.ndarray = StateArray(np.int8, fill=-1)  # seat to act, -1 once over
    phase: np.ndarray = StateArray(np.int8, fill=Phase.OVER.value)  # the Phase value


class Deal(NamedTuple):
    """The cards dealt (B)."""

    dealer: np.ndarray = StateArray(np.int8)  # seat dealing this deal (B1)
    hand_bits: np.ndarray = StateArray(np.uint64, "BH")  # cards held, per hand (bit set, B2)
    leftover: np.ndarray = StateArray(np.int8, fill=-1)  # turned-up leftover card, -1 none (B2)
    trump: np.ndarray = StateArray(np.int8, fill=-1)  # trump suit 0..3 (C, D, H, S), -1 none
    #   (B2, B3)


class Bidding(NamedTuple):
    """Bidding (C) and showing (D)."""

    bids: np.ndarray = StateArray(np.int8, "BP", -1)  # bid per seat, -1 not yet (C1)
    num_bids: np.ndarray = StateArray(np.int8)  # bids made this deal (C1)
    declarer: np.ndarray = StateArray(np.int8, fill=-1)  # seat of the declarer, -1 (C3)
    target: np.ndarray = StateArray(np.int8, fill=-1)  # the target T, -1 during bidding (C3)
    shown_bits: np.ndarray = StateArray(np.uint64)  # cards shown and still held by the
    #   declarer (D1)
    num_shown: np.ndarray = StateArray(np.int8)  # cards shown this deal (D2)
    stakes: np.ndarray = StateArray(np.int32, "BP")  # chips staked this deal per seat (C2, D2)
    pot: np.ndarray = StateArray(np.int64)  # chips in the pot, carry-over included (C2, D2, S4)


class Play(NamedTuple):
    """Play (E) and the calls (F)."""

    played_bits: np.ndarray = StateArray(np.uint64, "BH")  # cards played this deal, per
    #   hand (bit set, E1)
    void_bits: np.ndarray = StateArray(np.uint64, "BH")  # the public void record: cards each
    #   hand is known not to hold, the union of the led effective suits it did not follow
    #   this deal (E2; the joker counts as a trump, B3); may include cards already played
    trick: np.ndarray = StateArray(np.int8, "BH", -1)  # each hand's card in the current
    #   trick, -1 none (E1)
    trick_size: np.ndarray = StateArray(np.int8)  # cards in the current trick (E1)
    leader: np.ndarray = StateArray(np.int8, fill=-1)  # hand leading the current trick, -1
    #   before play (E1, E3)
    to_play: np.ndarray = StateArray(np.int8, fill=-1)  # hand whose card is next, -1 outside
    #   play (E1)
    dummy_ctrl: np.ndarray = StateArray(np.int8, fill=-1)  # seat playing the dummy's cards
    #   this trick, -1 (E4)
    tricks_won: np.ndarray = StateArray(np.int8, "BH")  # tricks taken per hand, the dummy's
    #   too (E3)
    tricks_done: np.ndarray = StateArray(np.int8)  # tricks completed this deal (E3)
    rank_cards: np.ndarray = StateArray(np.int8, "BH")  # taken cards of bid-rank value T,
    #   per hand (A3, S3)
    called: np.ndarray = StateArray(bool, "BP")  # said "Abracadabra" this deal (F1)


class Match(NamedTuple):
    """The match (M)."""

    totals: np.ndarray = StateArray(np.int64, "BP")  # match points (M1)
    winners: np.ndarray = StateArray(bool, "BP")  # the highest totals, set at episode end (M1)


class LastDeal(NamedTuple):
    """The last finished deal (the engine's ``result()``, ``info["result"]``)."""

    has_result: np.ndarray = StateArray(bool)  # a deal has finished this episode
    last_deal: np.ndarray = StateArray(np.int32)  # index of that deal in the episode
    last_declarer: np.ndarray = StateArray(np.int8)  # its declarer (C3)
    last_target: np.ndarray = StateArray(np.int8)  # its target T (C3)
    last_tricks: np.ndarray = StateArray(np.int8, "BH")  # its tricks per hand (E3)
    last_called: np.ndarray = StateArray(bool, "BP")  # who said "Abracadabra" (F1)
    last_hitters: np.ndarray = StateArray(bool, "BP")  # who hit (F2)
    last_points: np.ndarray = StateArray(np.int64, "BP")  # points of each seat (S1–S3)
    last_stakes: np.ndarray = StateArray(np.int32, "BP")  # stake of each seat (C2, D2)
    last_share: np.ndarray = StateArray(np.float64, "BP")  # share of the pot of each seat (S4)
    last_final_share: np.ndarray = StateArray(np.float64, "BP")  # share of the carry-over at
    #   episode end (M2)
    last_carry: np.ndarray = StateArray(np.int64)  # pot carried over after the deal (S4)
    last_chips: np.ndarray = StateArray(np.float64, "BP")  # net chips, share + final share -
    #   stake


#: the groups of :class:`AbracadabraState`, by the attribute that holds each
GROUPS = {"episode": Episode, "deal": Deal, "bidding": Bidding, "play": Play, "match": Match,
          "last": LastDeal}


@dataclass(eq=False, frozen=True)
class AbracadabraState(GroupedState, groups=GROUPS):
    """Every per-game array of a batch of Abracadabra games (leading axis: the game).

    The fields are those of the groups, in their order: ``state.phase`` is
    ``state.episode.phase``, the same array. The kernels take the groups
    (:mod:`.kernels`, :mod:`.observation`)."""

    @classmethod
    def allocate(cls, batch_size: int, num_players: int, num_hands: int) -> AbracadabraState:
        """The state of ``batch_size`` games that have not started (every episode over)."""
        return cls.allocate_arrays(B=batch_size, P=num_players, H=num_hands)

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
