"""Abracadabra observations: the layout (an interface) and its fast, table-driven encoder.

An observation is seat-relative: the observer is player slot 0, the other players follow
clockwise, the dummy (``two_dummy``) keeps the slot after the players. The encoder writes
one observation per game of the batch with a fixed, small number of numpy calls whatever
the batch size, and no per-game Python loop:

1. every one-hot entry is a column number looked up in a table precomputed per variant
   (indexed by the observer seat and the state value, "none" first so that the state's
   -1 is index 0); entries that are off point at the column ``SINK``; all are set with one
   scatter;
2. card sets (own hand, dummy hand, shown cards, cards played per relative hand) are
   ``uint64`` bit sets in the engine; they are gathered per relative slot and unpacked to
   bools with one ``np.unpackbits``;
3. the 0/1 part is built as bools (a quarter of the bytes of float32) and converted to the
   float32 result in one pass; the few fractional entries are written last.

Gathers use flat indices (``array.reshape(-1).take(row * width + column)``): numpy's
fancy indexing with two index arrays costs several times more.

``tests/test_abracadabra_observation.py`` keeps the plain segment-by-segment encoder as the
reference and checks that both agree entry for entry.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import numpy as np

from envs.cards import NUM_CARDS
from envs.core import ObservationLayout

if TYPE_CHECKING:
    from .engine import AbracadabraEngine

# the uint64 card sets are unpacked through a uint8 view, least significant byte first
assert sys.byteorder == "little", "the card bit sets assume a little-endian machine"

MAX_SLOTS = 4  # player / hand slots in the observation, whatever the variant
VARIANT_ORDER = ("four", "three", "two_dummy", "two")  # the one-hot "variant" segment


def _build_layout() -> ObservationLayout:
    """The observation segments (names are an interface: agents read them by name)."""
    return ObservationLayout(
        [
            ("variant", 4, "one-hot variant: four, three, two_dummy, two"),
            ("hand", 53, "own hand, by card index"),
            ("dummy_hand", 53, "the dummy's face-up hand (two_dummy), else zeros"),
            ("shown", 53, "cards the declarer has shown and still holds (D1)"),
            ("leftover", 53, "one-hot turned-up leftover card (B2), zeros if none"),
            ("trump_suit", 5, "one-hot trump suit: C, D, H, S, none"),
            ("phase", 4, "one-hot phase: bid, show, call, play (zeros when over)"),
            ("dealer", 4, "one-hot dealer, relative player slot"),
            ("bids", 4 * 14, "per relative player slot: one-hot bid 0..13 (zeros: no bid)"),
            ("declarer", 4, "one-hot declarer, relative player slot"),
            ("target", 14, "one-hot target T (zeros during bidding)"),
            ("shown_count", 1, "cards shown by the declarer / cards_each"),
            ("played", 4 * 53, "per relative hand slot: cards played this deal"),
            ("trick", 4 * 53, "per relative hand slot: its card in the current trick"),
            ("trick_leader", 4, "one-hot relative hand slot leading the current trick"),
            ("acting_hand", 4, "one-hot relative hand slot the decision is for"),
            ("tricks_won", 4, "per relative hand slot: tricks taken / cards_each"),
            ("tricks_played", 1, "tricks completed / cards_each"),
            ("called", 4, "per relative player slot: said Abracadabra (F1)"),
            ("scores", 4, "per relative player slot: match totals / target_points"),
            ("pot", 1, "chips in the pot / (10 * ante)"),
            ("deal_number", 1, "deals finished / max deals (match mode), else 0"),
            ("dummy_control", 4, "one-hot relative player slot playing the dummy (E4)"),
        ]
    )


LAYOUT = _build_layout()
assert LAYOUT.size == 755, "the observation layout changed: bump the env version"
_COL = {seg.name: seg.start for seg in LAYOUT}
# hand, dummy_hand and shown are adjacent: one copy writes the three card sets
assert _COL["dummy_hand"] == _COL["hand"] + NUM_CARDS == _COL["shown"] - NUM_CARDS

#: the segments from tricks_won to deal_number: adjacent, all written after the conversion
_TAIL_NAMES = ("tricks_won", "tricks_played", "called", "scores", "pot", "deal_number")
_TAIL, _TAIL_STOP = _COL["tricks_won"], LAYOUT.segments["deal_number"].stop
_T = {name: _COL[name] - _TAIL for name in _TAIL_NAMES}  # offsets inside the tail
assert sum(LAYOUT.segments[n].size for n in _TAIL_NAMES) == _TAIL_STOP - _TAIL

#: Where one-hot entries that are off are written: ``shown_count``, a fractional entry
#: that is always written after the 0/1 part is converted, so whatever lands there is
#: overwritten (the alternative, a spare column past the end, costs a strided copy).
SINK = _COL["shown_count"]
_EMPTY = np.zeros(1, np.uint64)  # the empty card set


def observation_scale(cfg) -> np.ndarray:
    """float32 [755]: the scale of every column of the int8 observation (see
    :attr:`envs.core.BatchEngine.observation_scale`): 1 for the 0/1 entries,
    1 / cards_each for shown_count, tricks_won and tricks_played (their integers are
    counts), 1 / target_points for scores (match totals), 1 / (10 * ante) for pot (chips)
    and 1 / max deals for deal_number (deals finished)."""
    scale = np.ones(LAYOUT.size, np.float64)
    for name in ("shown_count", "tricks_won", "tricks_played"):
        scale[LAYOUT[name]] = 1.0 / cfg.cards_each
    scale[LAYOUT["scores"]] = 1.0 / cfg.target_points
    scale[LAYOUT["pot"]] = 1.0 / (10.0 * cfg.ante)
    scale[LAYOUT["deal_number"]] = 1.0 / cfg.deals_limit
    return scale.astype(np.float32)


def int8_error(cfg) -> str | None:
    """Why ``cfg`` has no exact int8 observation, or None if it has one: every integer
    (counts, points, chips) must stay in -128..127."""
    if cfg.episode != "deal":
        return ("episode='match' carries totals, the pot and the deal count across deals, "
                "beyond int8; use episode='deal' or float32 observations")
    stake = cfg.ante if cfg.raise_mode == "multiple" else cfg.raise_increment
    most_chips = cfg.num_players * cfg.ante + cfg.cards_each * stake  # C2 + D2
    most_points = max(cfg.bonus) + cfg.cards_each + 2 * 4  # S1–S3 (4 cards of a rank)
    if most_chips > 127 or most_points > 127:
        return (f"the pot can reach {most_chips} chips (ante={cfg.ante}, "
                f"{cfg.raise_mode} raises), beyond int8's 127; use float32 observations")
    return None


def slot_tables(num_players: int, num_hands: int) -> tuple[np.ndarray, np.ndarray]:
    """hand_at_slot [P, H]: which hand the observer ``o`` sees at relative slot ``s``;
    slot_of_hand [P, H]: the inverse. Players are rotated (observer = slot 0); the dummy
    keeps the slot after the players."""
    hand_at_slot = np.zeros((num_players, num_hands), np.int64)
    for o in range(num_players):
        for s in range(num_hands):
            hand_at_slot[o, s] = (o + s) % num_players if s < num_players else s
    slot_of_hand = np.argsort(hand_at_slot, axis=1)
    return hand_at_slot, slot_of_hand


def unpack_cards(card_sets: np.ndarray) -> np.ndarray:
    """bool [..., 53] from uint64 card bit sets [...] (bit c set: card c is in the set);
    a view of one flat ``np.unpackbits`` (unpacking along a short axis is much slower)."""
    words = np.asarray(card_sets, np.uint64)
    flat = np.ascontiguousarray(words).reshape(-1).view(np.uint8)
    bits = np.unpackbits(flat, bitorder="little").reshape(*words.shape, 64)
    return bits[..., :NUM_CARDS].view(bool)


def _none_first(table: np.ndarray) -> np.ndarray:
    """``table`` [..., n] with a first entry ``SINK`` along its last axis, flattened: the
    entry of (row, value) is at ``row * (n + 1) + value + 1``, and a value of -1 (the
    state's "none") turns the one-hot entry off."""
    pad = np.full((*table.shape[:-1], 1), SINK, np.int64)
    return np.concatenate([pad, table], axis=-1).reshape(-1)


class ObservationEncoder:
    """Column tables of one variant; :meth:`encode` builds a batch of observations."""

    def __init__(self, engine: AbracadabraEngine):
        from .engine import OVER, PLAY  # the engine module imports this one

        self.over, self.play = OVER, PLAY
        cfg = engine.config
        B, P, H = engine.batch_size, cfg.num_players, cfg.num_hands
        self.num_players, self.num_hands, self.cards_each = P, H, cfg.cards_each
        self.has_dummy = H > P
        self.match = cfg.episode == "match"
        self.target_points = cfg.target_points
        self.pot_scale = 10.0 * cfg.ante
        self.deals_limit = cfg.deals_limit
        hand_at, slot_of = slot_tables(P, H)
        self.hand_at_t = np.ascontiguousarray(hand_at.T)  # [slot, observer]
        rel_seat = (np.arange(P)[None, :] - np.arange(P)[:, None]) % P  # [observer, seat]
        # -- one-hot column tables, "none" first (see _none_first) ----------------------
        self.variant_col = _COL["variant"] + VARIANT_ORDER.index(cfg.variant)
        self.leftover_col = _none_first(_COL["leftover"] + np.arange(NUM_CARDS))  # [card]
        self.trump_col = _COL["trump_suit"] + np.array([4, 0, 1, 2, 3])  # [trump], none: 4
        self.phase_col = _none_first(_COL["phase"] + np.arange(4))[[1, 2, 3, 4, 0]]  # OVER
        self.target_col = _none_first(_COL["target"] + np.arange(14))  # [T]
        # tables by observer seat: [observer, seat] or [observer, hand]
        self.dealer_col = _none_first(_COL["dealer"] + rel_seat)
        self.declarer_col = _none_first(_COL["declarer"] + rel_seat)
        self.dummy_ctrl_col = _none_first(_COL["dummy_control"] + rel_seat)
        self.leader_col = _none_first(_COL["trick_leader"] + slot_of)
        # a seat is also a hand, and for players slot_of[o, s] is the relative player slot
        self.acting_col = _none_first(_COL["acting_hand"] + slot_of)
        # tables by relative slot: [player slot, bid] and [hand slot, card]
        self.bid_col = _none_first(
            _COL["bids"] + 14 * np.arange(P)[:, None] + np.arange(14)[None, :])
        self.trick_col = _none_first(
            _COL["trick"] + NUM_CARDS * np.arange(H)[:, None] + np.arange(NUM_CARDS)[None, :])
        self.bid_row = (14 + 1) * np.arange(P)[:, None] + 1  # + bid: index into bid_col
        self.trick_row = (NUM_CARDS + 1) * np.arange(H)[:, None] + 1  # + card: trick_col
        # flat row offsets of [B, P] and [B, H] state arrays, and of the observation
        rows = np.arange(B)
        self.row_p, self.row_h, self.row_obs = rows * P, rows * H, rows * LAYOUT.size
        # -- the same tables as Python lists, for encode_one (a batch of one) -------------
        self.hand_at_list = hand_at.tolist()  # [observer][slot] -> hand
        self.one_cols = {name: getattr(self, name).tolist() for name in (
            "leftover_col", "trump_col", "phase_col", "target_col", "dealer_col",
            "declarer_col", "dummy_ctrl_col", "leader_col", "acting_col", "bid_col",
            "trick_col")}
        self.bid_row_list = self.bid_row[:, 0].tolist()
        # [observer] -> indices into (hand bits [H], played bits [H], shown, empty set)
        self.one_sets = [np.array([o, P if self.has_dummy else 2 * H + 1, 2 * H]
                                  + [H + h for h in hand_at[o]]) for o in range(P)]
        self.trick_row_list = self.trick_row[:, 0].tolist()

    def encode(self, e: AbracadabraEngine, seats: np.ndarray,
               out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, 755]: the observation of each game from ``seats`` (int [B]), written
        into ``out`` (every entry) when given, else into a fresh array. An int8 ``out``
        gets the integer observation (see :func:`observation_scale`): the 0/1 part is
        written straight into it, the counts after it, and no float32 array is made."""
        B, P, H, E = e.batch_size, self.num_players, self.num_hands, self.cards_each
        int8 = out is not None and out.dtype == np.int8
        # Per-slot quantities are laid out [slot, B] (slot-major): every row is contiguous
        hand_at = self.hand_at_t.take(seats, axis=1)  # [H, B]: hand seen at each slot
        by_hand = hand_at + self.row_h  # [H, B]: flat indices of [B, H] arrays, by slot
        by_player = hand_at[:P] + self.row_p  # [P, B]: flat indices of [B, P] arrays
        by_seat = seats * (P + 1) + 1  # + seat: index into a table by [observer, seat]
        by_hand_of = seats * (H + 1) + 1  # + hand: index into a table by [observer, hand]
        if int8:  # the 0/1 entries, in place (one memset beats clearing column ranges)
            bits = out.view(bool)
            bits.fill(False)
        else:
            bits = np.zeros((B, LAYOUT.size), bool)  # the 0/1 entries

        # -- one-hot entries: one column per entry, then a single scatter -----------------
        always = [
            np.full(B, self.variant_col),
            self.leftover_col.take(e._leftover + 1),
            self.trump_col.take(e._trump + 1),
            self.phase_col.take(e._phase),
            self.dealer_col.take(by_seat + e._dealer),
            self.declarer_col.take(by_seat + e._declarer),
            self.target_col.take(e._target + 1),
        ]
        # the hand acting: in PLAY the hand whose card is next (maybe the dummy), else the
        # seat to act (-1 once over: turned off below with the other live-only entries)
        acting = np.where(e._phase == self.play, e._to_play, e.current_player)
        live_only = [
            self.leader_col.take(by_hand_of + e._leader),
            self.acting_col.take(by_hand_of + acting),
        ]
        if self.has_dummy:
            live_only.append(self.dummy_ctrl_col.take(by_seat + e._dummy_ctrl))
        cols = np.concatenate([
            np.stack(always),
            self.bid_col.take(self.bid_row + e._bids.reshape(-1).take(by_player)),
            self.trick_col.take(self.trick_row + e._trick.reshape(-1).take(by_hand)),
            np.stack(live_only),
        ])  # [K, B]: the column of every one-hot entry
        over = e._phase == self.over
        if over.any():
            cols[-len(live_only):, over] = SINK
        cols += self.row_obs
        bits.reshape(-1)[cols] = True

        # -- card sets: own hand, dummy hand, shown; cards played per relative hand -------
        sets = np.zeros((3 + H, B), np.uint64)
        sets[0] = e._hand_bits.reshape(-1).take(by_hand[0])
        if self.has_dummy:
            sets[1] = e._hand_bits[:, P]
        sets[2] = e._shown_bits
        sets[3:] = e._played_bits.reshape(-1).take(by_hand)
        cards = unpack_cards(sets).transpose(1, 0, 2)  # [B, 3 + H, 53]
        # written through [B, slots, 53] views of the observation (no intermediate copy)
        hand, played = _COL["hand"], _COL["played"]
        bits[:, hand : hand + 3 * NUM_CARDS].reshape(B, 3, NUM_CARDS)[...] = cards[:, :3]
        bits[:, played : played + H * NUM_CARDS].reshape(B, H, NUM_CARDS)[...] = cards[:, 3:]

        if int8:  # the counts whose float32 entries are fractions
            out[:, _COL["shown_count"]] = e._num_shown  # (also clears the SINK)
            tail = out[:, _TAIL:_TAIL_STOP]
            tail[:, _T["tricks_won"] : _T["tricks_won"] + H] = (
                e._tricks_won.reshape(-1).take(by_hand).T)
            tail[:, _T["tricks_played"]] = e._tricks_done
            tail[:, _T["called"] : _T["called"] + P] = e._called.reshape(-1).take(by_player).T
            tail[:, _T["scores"] : _T["scores"] + P] = e.totals.reshape(-1).take(by_player).T
            tail[:, _T["pot"]] = e.pot  # (deal_number: 0, int8 needs episode="deal")
            return out

        # -- float32, then the fractional entries -----------------------------------------
        if out is None:
            out = bits.astype(np.float32)
        else:
            np.copyto(out, bits)
        out[:, _COL["shown_count"]] = e._num_shown / E  # (also clears the SINK)
        # tricks_won .. deal_number are adjacent (one cache line of each row): they are
        # assembled in a small block and copied at once
        tail = np.zeros((B, _TAIL_STOP - _TAIL), np.float32)
        tail[:, _T["tricks_won"] : _T["tricks_won"] + H] = (
            e._tricks_won.reshape(-1).take(by_hand).T / E)
        tail[:, _T["tricks_played"]] = e._tricks_done / E
        tail[:, _T["called"] : _T["called"] + P] = e._called.reshape(-1).take(by_player).T
        tail[:, _T["scores"] : _T["scores"] + P] = (
            e.totals.reshape(-1).take(by_player).T / self.target_points)
        tail[:, _T["pot"]] = e.pot / self.pot_scale
        if self.match:
            tail[:, _T["deal_number"]] = e._deals_done / self.deals_limit
        out[:, _TAIL:_TAIL_STOP] = tail
        return out

    def encode_one(self, e: AbracadabraEngine, seat: int, out: np.ndarray) -> None:
        """:meth:`encode` for a batch of one (game 0, observer ``seat``) into ``out``
        (float32 [755]): the same values, from Python scalars, in about a dozen numpy
        calls instead of sixty (numpy's per-call cost dominates a batch of one)."""
        P, H, E = self.num_players, self.num_hands, self.cards_each
        t = self.one_cols
        hand_at = self.hand_at_list[seat]
        phase = int(e._phase[0])
        by_seat, by_hand = seat * (P + 1) + 1, seat * (H + 1) + 1
        bids, trick = e._bids[0].tolist(), e._trick[0].tolist()
        cols = [
            self.variant_col,
            t["leftover_col"][int(e._leftover[0]) + 1],
            t["trump_col"][int(e._trump[0]) + 1],
            t["phase_col"][phase],
            t["dealer_col"][by_seat + int(e._dealer[0])],
            t["declarer_col"][by_seat + int(e._declarer[0])],
            t["target_col"][int(e._target[0]) + 1],
        ]
        cols += [t["bid_col"][self.bid_row_list[s] + bids[hand_at[s]]] for s in range(P)]
        cols += [t["trick_col"][self.trick_row_list[s] + trick[hand_at[s]]] for s in range(H)]
        if phase != self.over:
            acting = e._to_play[0] if phase == self.play else e.current_player[0]
            cols.append(t["leader_col"][by_hand + int(e._leader[0])])
            cols.append(t["acting_col"][by_hand + int(acting)])
            if self.has_dummy:
                cols.append(t["dummy_ctrl_col"][by_seat + int(e._dummy_ctrl[0])])
        out.fill(0.0)
        out.put(cols, 1.0)

        # own hand, dummy hand (or an empty set), shown, cards played by slot: one gather
        sets = np.concatenate((e._hand_bits[0], e._played_bits[0], e._shown_bits, _EMPTY))
        sets = sets.take(self.one_sets[seat])
        cards = np.unpackbits(sets.view(np.uint8), bitorder="little").reshape(3 + H, 64)
        cards = cards[:, :NUM_CARDS]  # [3 + H, 53] of 0/1
        hand, played_col = _COL["hand"], _COL["played"]
        out[hand : hand + 3 * NUM_CARDS].reshape(3, NUM_CARDS)[...] = cards[:3]
        out[played_col : played_col + H * NUM_CARDS].reshape(H, NUM_CARDS)[...] = cards[3:]

        out[_COL["shown_count"]] = int(e._num_shown[0]) / E  # (also clears the SINK)
        won, called = e._tricks_won[0].tolist(), e._called[0].tolist()
        totals, tp = e.totals[0].tolist(), self.target_points
        pad_h, pad_p = [0.0] * (MAX_SLOTS - H), [0.0] * (MAX_SLOTS - P)
        out[_TAIL:_TAIL_STOP] = (
            [won[h] / E for h in hand_at] + pad_h
            + [int(e._tricks_done[0]) / E]
            + [float(called[h]) for h in hand_at[:P]] + pad_p
            + [totals[h] / tp for h in hand_at[:P]] + pad_p
            + [int(e.pot[0]) / self.pot_scale]
            + [int(e._deals_done[0]) / self.deals_limit if self.match else 0.0]
        )
