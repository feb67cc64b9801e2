"""Abracadabra observations: the layout (an interface) and its fast, table-driven encoder.

An observation is seat-relative: the observer is player slot 0, the other players follow
clockwise, the dummy (``two_dummy``) keeps the slot after the players. The encoder writes
one observation per game of the batch with a fixed, small number of numpy calls whatever
the batch size, and no per-game Python loop:

1. the 0/1 part of each row is built as bits, twelve 64-bit words per game (column ``c``
   is bit ``c % 64`` of word ``c // 64``): card sets (own hand, dummy hand, shown cards,
   cards played per relative hand) are ``uint64`` bit sets in the state, shifted into
   place; every one-hot entry is looked up in a table precomputed per variant (indexed by
   the observer seat and the state value, "none" first so that the state's -1 is index
   0) that gives its bit in each word it can fall in;
2. the words are unpacked to bytes with one ``np.unpackbits``, the counts are put in their
   columns, and the rows are copied into the result at once (int8), or converted to
   float32 in one pass and the fractional entries written last.

Gathers use flat indices (``array.reshape(-1).take(row * width + column)``): numpy's
fancy indexing with two index arrays costs several times more.

The encoder reads the public fields of :class:`~envs.abracadabra.state.AbracadabraState`.
``tests/envs/abracadabra/test_observation.py`` keeps the plain segment-by-segment encoder
as the reference and checks that both agree entry for entry.
"""

from __future__ import annotations

import numpy as np

from envs.cards import NUM_CARDS
from envs.core import ObservationLayout

from .config import VARIANTS, AbracadabraConfig
from .rules import MAX_BID, Phase
from .state import AbracadabraState

MAX_SLOTS = 4  # player / hand slots in the observation, whatever the variant
VARIANT_ORDER = ("four", "three", "two_dummy", "two")  # the one-hot "variant" segment
assert sorted(VARIANT_ORDER) == sorted(VARIANTS)
_BIDS = MAX_BID + 1  # one-hot width of a bid or a target: 0..13 (C1, C3)


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
            ("phase", len(Phase) - 1, "one-hot phase: bid, show, call, play (zeros when over)"),
            ("dealer", 4, "one-hot dealer, relative player slot"),
            ("bids", 4 * _BIDS, "per relative player slot: one-hot bid 0..13 (zeros: no bid)"),
            ("declarer", 4, "one-hot declarer, relative player slot"),
            ("target", _BIDS, "one-hot target T (zeros during bidding)"),
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

#: The column the one-hot column tables give to entries that are off: ``shown_count``,
#: never a one-hot column; the bit tables made from them (:func:`_word_bits`, and the
#: Python integers of ``encode_one``) give such entries no bit at all.
SINK = _COL["shown_count"]
_PACKED_BYTES = -(-LAYOUT.size // 8)  # encode_one: the 0/1 part as bytes of 8 columns
_WORDS = -(-LAYOUT.size // 64)  # encode: the 0/1 part of a row as 64-bit words
_BLOCK = 1024  # encode: games unpacked at a time (about 0.8 MB of bytes: stays in cache)


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


def _none_first(table: np.ndarray) -> np.ndarray:
    """``table`` [..., n] with a first entry ``SINK`` along its last axis, flattened: the
    entry of (row, value) is at ``row * (n + 1) + value + 1``, and a value of -1 (the
    state's "none") turns the one-hot entry off."""
    pad = np.full((*table.shape[:-1], 1), SINK, np.int64)
    return np.concatenate([pad, table], axis=-1).reshape(-1)


def _word_bits(col_table: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """A one-hot column table (flat; ``SINK``: off) as bits: ``(word, bits)`` for every
    64-bit word its columns fall in, ``bits[i]`` the bit of entry ``i`` in that word (0
    when the entry is off or in another word)."""
    cols = np.asarray(col_table, np.int64).reshape(-1)
    on = cols != SINK
    tables = []
    for word in np.unique(cols[on] // 64).tolist():
        here = on & (cols // 64 == word)
        bit = np.left_shift(np.uint64(1), (cols % 64).astype(np.uint64))
        tables.append((word, np.where(here, bit, np.uint64(0))))
    return tables


def _place(words: np.ndarray, card_sets: np.ndarray, col: int) -> None:
    """OR the 53-bit ``card_sets`` (uint64 [B]) into ``words`` ([words, B]) from column
    ``col`` on (card ``c`` at column ``col + c``)."""
    word, shift = divmod(col, 64)
    words[word] |= card_sets << np.uint64(shift)
    if shift + NUM_CARDS > 64:
        words[word + 1] |= card_sets >> np.uint64(64 - shift)


class ObservationEncoder:
    """Column tables of one variant; :meth:`encode` builds a batch of observations."""

    def __init__(self, cfg: AbracadabraConfig, batch_size: int):
        B, P, H = batch_size, cfg.num_players, cfg.num_hands
        self.batch_size = B
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
        # [phase]: the phase values are the one-hot positions; OVER turns it off
        self.phase_col = _none_first(_COL["phase"] + np.arange(Phase.OVER))[
            [*range(1, Phase.OVER + 1), 0]]
        self.target_col = _none_first(_COL["target"] + np.arange(_BIDS))  # [T]
        # tables by observer seat: [observer, seat] or [observer, hand]
        self.dealer_col = _none_first(_COL["dealer"] + rel_seat)
        self.declarer_col = _none_first(_COL["declarer"] + rel_seat)
        self.dummy_ctrl_col = _none_first(_COL["dummy_control"] + rel_seat)
        self.leader_col = _none_first(_COL["trick_leader"] + slot_of)
        # a seat is also a hand, and for players slot_of[o, s] is the relative player slot
        self.acting_col = _none_first(_COL["acting_hand"] + slot_of)
        # tables by relative slot: [player slot, bid] and [hand slot, card]
        self.bid_col = _none_first(
            _COL["bids"] + _BIDS * np.arange(P)[:, None] + np.arange(_BIDS)[None, :])
        self.trick_col = _none_first(
            _COL["trick"] + NUM_CARDS * np.arange(H)[:, None] + np.arange(NUM_CARDS)[None, :])
        self.bid_row = (_BIDS + 1) * np.arange(P)[:, None] + 1  # + bid: index into bid_col
        self.trick_row = (NUM_CARDS + 1) * np.arange(H)[:, None] + 1  # + card: trick_col
        # the same tables as bits in the 64-bit words of a row (encode)
        self.bits = {name: _word_bits(getattr(self, name + "_col")) for name in (
            "leftover", "trump", "phase", "target", "dealer", "declarer", "dummy_ctrl",
            "leader", "acting", "bid", "trick")}
        self.base_words = np.zeros(_WORDS, np.uint64)  # the bits every row has: variant
        self.base_words[self.variant_col // 64] = np.uint64(1) << np.uint64(
            self.variant_col % 64)
        # flat row offsets of [B, P] and [B, H] state arrays
        rows = np.arange(B)
        self.row_p, self.row_h = rows * P, rows * H
        # -- the same tables as Python lists, for encode_one (a batch of one) -------------
        self.hand_at_list = hand_at.tolist()  # [observer][slot] -> hand
        # one-hot tables as Python integers: the entry's bit (1 << column), 0 when off
        self.one_bits = {name: [0 if c == SINK else 1 << c for c in getattr(
            self, name + "_col").tolist()] for name in (
            "leftover", "trump", "phase", "target", "dealer", "declarer", "dummy_ctrl",
            "leader", "acting", "bid", "trick")}
        self.variant_bit = 1 << self.variant_col
        self.bid_row_list = self.bid_row[:, 0].tolist()
        self.trick_row_list = self.trick_row[:, 0].tolist()

    def encode(self, s: AbracadabraState, seats: np.ndarray,
               out: np.ndarray | None = None) -> np.ndarray:
        """float32 [B, 755]: the observation of each game of ``s`` from ``seats`` (int [B]), written
        into ``out`` (every entry) when given, else into a fresh array. An int8 ``out``
        gets the integer observation (see :func:`observation_scale`): the 0/1 part and the
        counts are assembled as bytes and copied into it, and no float32 array is made."""
        B, P, H, E = self.batch_size, self.num_players, self.num_hands, self.cards_each
        int8 = out is not None and out.dtype == np.int8
        # Per-slot quantities are laid out [slot, B] (slot-major): every row is contiguous
        hand_at = self.hand_at_t.take(seats, axis=1)  # [H, B]: hand seen at each slot
        by_hand = hand_at + self.row_h  # [H, B]: flat indices of [B, H] arrays, by slot
        by_player = hand_at[:P] + self.row_p  # [P, B]: flat indices of [B, P] arrays
        by_seat = seats * (P + 1) + 1  # + seat: index into a table by [observer, seat]
        by_hand_of = seats * (H + 1) + 1  # + hand: index into a table by [observer, hand]

        # -- the 0/1 part as bits: words[w, g] holds columns 64w .. 64w + 63 of game g ----
        words = np.empty((_WORDS, B), np.uint64)
        words[...] = self.base_words[:, None]
        # card sets: own hand, dummy hand, shown; cards played per relative hand
        _place(words, s.hand_bits.reshape(-1).take(by_hand[0]), _COL["hand"])
        if self.has_dummy:
            _place(words, s.hand_bits[:, P], _COL["dummy_hand"])
        _place(words, s.shown_bits, _COL["shown"])
        played = s.played_bits.reshape(-1).take(by_hand)  # [H, B]
        for slot in range(H):
            _place(words, played[slot], _COL["played"] + slot * NUM_CARDS)
        # one-hot entries: (table, index [B] or [slots, B]); the hand acting: in PLAY the
        # hand whose card is next (maybe the dummy), else the seat to act
        acting = np.where(s.phase == Phase.PLAY.value, s.to_play, s.current_player)
        one_hots = [
            ("leftover", s.leftover + 1),
            ("trump", s.trump + 1),
            ("phase", s.phase),
            ("dealer", by_seat + s.dealer),
            ("declarer", by_seat + s.declarer),
            ("target", s.target + 1),
            ("bid", self.bid_row + s.bids.reshape(-1).take(by_player)),  # [P, B]
            ("trick", self.trick_row + s.trick.reshape(-1).take(by_hand)),  # [H, B]
        ]
        live_only = [("leader", by_hand_of + s.leader), ("acting", by_hand_of + acting)]
        if self.has_dummy:
            live_only.append(("dummy_ctrl", by_seat + s.dummy_ctrl))
        for name, index in one_hots:
            for word, bits in self.bits[name]:
                found = bits.take(index)
                words[word] |= found if found.ndim == 1 else np.bitwise_or.reduce(found)
        live = np.where(s.phase == Phase.OVER.value, np.uint64(0), ~np.uint64(0))  # off once over
        for name, index in live_only:
            for word, bits in self.bits[name]:
                words[word] |= bits.take(index) & live
        words = np.ascontiguousarray(words.T)  # [B, words]: each game's bits together

        # -- the counts: shown_count, and the adjacent tricks_won .. deal_number ----------
        if int8:  # integers; float32: the fractions (see observation_scale)
            shown = s.num_shown
            tail = np.zeros((B, _TAIL_STOP - _TAIL), np.int8)
            tail[:, _T["tricks_won"] : _T["tricks_won"] + H] = (
                s.tricks_won.reshape(-1).take(by_hand).T)
            tail[:, _T["tricks_played"]] = s.tricks_done
            tail[:, _T["called"] : _T["called"] + P] = s.called.reshape(-1).take(by_player).T
            tail[:, _T["scores"] : _T["scores"] + P] = s.totals.reshape(-1).take(by_player).T
            tail[:, _T["pot"]] = s.pot  # (deal_number: 0, int8 needs episode="deal")
        else:
            shown = s.num_shown / E
            tail = np.zeros((B, _TAIL_STOP - _TAIL), np.float32)
            tail[:, _T["tricks_won"] : _T["tricks_won"] + H] = (
                s.tricks_won.reshape(-1).take(by_hand).T / E)
            tail[:, _T["tricks_played"]] = s.tricks_done / E
            tail[:, _T["called"] : _T["called"] + P] = s.called.reshape(-1).take(by_player).T
            tail[:, _T["scores"] : _T["scores"] + P] = (
                s.totals.reshape(-1).take(by_player).T / self.target_points)
            tail[:, _T["pot"]] = s.pot / self.pot_scale
            if self.match:
                tail[:, _T["deal_number"]] = s.deals_done / self.deals_limit

        # -- unpacked and written block by block: a block's bytes stay in the CPU cache
        # between the unpacking, the copy and the counts (a few calls per block) ----------
        if out is None:
            out = np.empty((B, LAYOUT.size), np.float32)
        rows_out = out.view(np.uint8) if int8 else out  # (int8: the same bytes)
        for start in range(0, B, _BLOCK):
            block = slice(start, start + _BLOCK)
            rows = np.unpackbits(words[block].view(np.uint8), bitorder="little")
            rows_out[block] = rows.reshape(-1, 64 * _WORDS)[:, : LAYOUT.size]
            out[block, _COL["shown_count"]] = shown[block]
            out[block, _TAIL:_TAIL_STOP] = tail[block]
        return out

    def encode_one(self, s: AbracadabraState, seat: int, out: np.ndarray) -> None:
        """:meth:`encode` for a batch of one (game 0, observer ``seat``) into ``out``
        (float32 [755]): the same values, from Python scalars. The 0/1 part is built as
        one Python integer of 755 bits (bit ``c``: column ``c`` is 1; a one-hot entry is
        a table lookup, a card set its uint64 shifted to its segment) and unpacked into
        ``out`` at once: a handful of numpy calls instead of sixty (numpy's per-call cost
        dominates a batch of one)."""
        P, H, E = self.num_players, self.num_hands, self.cards_each
        t = self.one_bits
        hand_at = self.hand_at_list[seat]
        phase = s.phase.item(0)
        by_seat, by_hand = seat * (P + 1) + 1, seat * (H + 1) + 1
        bids, trick = s.bids[0].tolist(), s.trick[0].tolist()
        bits = (self.variant_bit
                | t["leftover"][s.leftover.item(0) + 1]
                | t["trump"][s.trump.item(0) + 1]
                | t["phase"][phase]
                | t["dealer"][by_seat + s.dealer.item(0)]
                | t["declarer"][by_seat + s.declarer.item(0)]
                | t["target"][s.target.item(0) + 1])
        bid_bits, bid_row = t["bid"], self.bid_row_list
        for slot in range(P):
            bits |= bid_bits[bid_row[slot] + bids[hand_at[slot]]]
        trick_bits, trick_row = t["trick"], self.trick_row_list
        for slot in range(H):
            bits |= trick_bits[trick_row[slot] + trick[hand_at[slot]]]
        if phase != Phase.OVER:
            acting = s.to_play.item(0) if phase == Phase.PLAY else s.current_player.item(0)
            bits |= t["leader"][by_hand + s.leader.item(0)] | t["acting"][by_hand + acting]
            if self.has_dummy:
                bits |= t["dummy_ctrl"][by_seat + s.dummy_ctrl.item(0)]
        # own hand, dummy hand (if any), shown, cards played by slot: shifted card sets
        hands, played = s.hand_bits[0].tolist(), s.played_bits[0].tolist()
        hand_col, played_col = _COL["hand"], _COL["played"]
        bits |= hands[seat] << hand_col | s.shown_bits.item(0) << (hand_col + 2 * NUM_CARDS)
        if self.has_dummy:
            bits |= hands[P] << (hand_col + NUM_CARDS)
        for slot in range(H):
            bits |= played[hand_at[slot]] << (played_col + slot * NUM_CARDS)
        packed = np.frombuffer(bits.to_bytes(_PACKED_BYTES, "little"), np.uint8)
        out[:] = np.unpackbits(packed, count=LAYOUT.size, bitorder="little")

        out[_COL["shown_count"]] = s.num_shown.item(0) / E
        won, called = s.tricks_won[0].tolist(), s.called[0].tolist()
        totals, tp = s.totals[0].tolist(), self.target_points
        pad_h, pad_p = [0.0] * (MAX_SLOTS - H), [0.0] * (MAX_SLOTS - P)
        out[_TAIL:_TAIL_STOP] = (
            [won[h] / E for h in hand_at] + pad_h
            + [s.tricks_done.item(0) / E]
            + [float(called[h]) for h in hand_at[:P]] + pad_p
            + [totals[h] / tp for h in hand_at[:P]] + pad_p
            + [s.pot.item(0) / self.pot_scale]
            + [s.deals_done.item(0) / self.deals_limit if self.match else 0.0]
        )
