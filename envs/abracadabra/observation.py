"""Abracadabra observations: the layout (an interface), the scale of the int8 observation
and the encoder of a batch.

An observation is seat-relative: the observer is player slot 0, the other players follow
clockwise, the dummy (``two_dummy``) keeps the slot after the players. It holds only what
the observer may know: own hand, the dummy's face-up hand, shown cards, public history.

:func:`observe_games` writes one observation per game in compiled code (numba, cached on
disk, :data:`envs.compiled.kernel`), one game at a time (:func:`observe_game`), for a batch
of any size (a batch of one included); :func:`encode` is that call on an engine's state.
The encoder reads the public fields of :class:`~envs.abracadabra.state.AbracadabraState`;
``tests/envs/abracadabra/test_observation.py`` keeps a plain segment-by-segment encoder
as the reference and checks that both agree entry for entry.
"""

from __future__ import annotations

import numpy as np
from numba import types
from numba.extending import overload

from envs.cards import NUM_CARDS, NUM_RANKS
from envs.compiled import inlined_kernel, kernel, put_bits
from envs.core import ObservationLayout, observation_entry, seat_index, slot_of

from .config import VARIANTS, AbracadabraConfig
from .rules import FOLLOW_BITS, MAX_BID, Phase
from .state import AbracadabraState, Bidding, Deal, Episode, Match, Play

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
            ("voids", 4 * 4, "per relative hand slot: void in suit C, D, H, S (E2, B3)"),
        ]
    )


LAYOUT = _build_layout()
assert LAYOUT.size == 771, "the observation layout changed: bump the env version"
#: The observation of ``abracadabra_v0``: every segment of this layout before "voids"
#: (v1 appended "voids", nothing else moved). A network trained on v0 reads these columns
#: of a v1 observation (:mod:`agents.policy.net`).
V0_SIZE = LAYOUT.segments["voids"].start
assert V0_SIZE == 755
#: VOID_SUIT_BITS[trump + 1, s]: the cards of effective suit s (C, D, H, S) under the
#: trump (B3: the joker is in the trump suit, in no suit without trump)
VOID_SUIT_BITS = np.stack([FOLLOW_BITS[:, 1 + s * NUM_RANKS] for s in range(4)], axis=1)
VOID_SUIT_BITS.flags.writeable = False


def observation_scale(cfg) -> np.ndarray:
    """float32 [771]: the scale of every column of the int8 observation (see
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




# -- the encoder ----------------------------------------------------------------------------
#: first column of each observation segment (numba freezes module globals: plain ints)
_VARIANT = LAYOUT.segments["variant"].start
_HAND = LAYOUT.segments["hand"].start
_DUMMY_HAND = LAYOUT.segments["dummy_hand"].start
_SHOWN = LAYOUT.segments["shown"].start
_LEFTOVER = LAYOUT.segments["leftover"].start
_TRUMP_SUIT = LAYOUT.segments["trump_suit"].start
_PHASE = LAYOUT.segments["phase"].start
_DEALER = LAYOUT.segments["dealer"].start
_BIDS_COL = LAYOUT.segments["bids"].start
_DECLARER = LAYOUT.segments["declarer"].start
_TARGET = LAYOUT.segments["target"].start
_SHOWN_COUNT = LAYOUT.segments["shown_count"].start
_PLAYED = LAYOUT.segments["played"].start
_TRICK = LAYOUT.segments["trick"].start
_TRICK_LEADER = LAYOUT.segments["trick_leader"].start
_ACTING_HAND = LAYOUT.segments["acting_hand"].start
_TRICKS_WON = LAYOUT.segments["tricks_won"].start
_TRICKS_PLAYED = LAYOUT.segments["tricks_played"].start
_CALLED = LAYOUT.segments["called"].start
_SCORES = LAYOUT.segments["scores"].start
_POT = LAYOUT.segments["pot"].start
_DEAL_NUMBER = LAYOUT.segments["deal_number"].start
_DUMMY_CONTROL = LAYOUT.segments["dummy_control"].start
_VOIDS = LAYOUT.segments["voids"].start
_SIZE = LAYOUT.size
_NO_TRUMP = 4  #: the trump_suit column of "no trump" (C, D, H, S first)
_PLAY, _OVER = int(Phase.PLAY), int(Phase.OVER)
_NO_CARDS = np.uint64(0)


@kernel
def _hand_slot(hand: int, seat: int, num_players: int) -> int:
    """The relative slot of ``hand`` for observer ``seat``: players rotated (the observer
    is slot 0), the dummy keeps its index (:func:`slot_tables`)."""
    return slot_of(hand, seat, num_players) if hand < num_players else hand


@kernel
def _hand_at(slot: int, seat: int, num_players: int) -> np.uintp:
    """The hand at relative slot ``slot`` for observer ``seat`` (the inverse of
    :func:`_hand_slot`), unsigned to index the state with (:func:`envs.core.seat_index`)."""
    return seat_index(slot, seat, num_players) if slot < num_players else np.uintp(slot)


@inlined_kernel
def _zeros_and_card_sets(row: np.ndarray, hand: np.uint64, dummy: np.uint64,
                         shown: np.uint64, played: np.ndarray, seat: int,
                         num_players: int) -> None:
    """Zero ``row`` and write the card sets of :func:`observe_game`: ``hand``, ``dummy``
    (none without a dummy), ``shown`` and ``played`` (a game's [H] sets, by hand) at each
    relative hand slot (none at a slot without a hand), each set written whole
    (:func:`envs.compiled.put_bits`, its zeros included) beside the zeros of
    :func:`_zeros_but_card_sets`."""
    _zeros_but_card_sets(row)
    put_bits(row, _HAND, hand, NUM_CARDS)
    put_bits(row, _DUMMY_HAND, dummy, NUM_CARDS)
    put_bits(row, _SHOWN, shown, NUM_CARDS)
    for slot in range(MAX_SLOTS):
        cards = _NO_CARDS
        if slot < played.shape[0]:
            cards = played[_hand_at(slot, seat, num_players)]
        put_bits(row, _PLAYED + slot * NUM_CARDS, cards, NUM_CARDS)


def _zeros_but_card_sets(row: np.ndarray) -> None:
    """Zero ``row``, at least every column outside the card sets; compiled once per row
    dtype (:func:`_zeros_of`). A float32 row (3 KB) is zeroed whole: a memset of a whole
    row writes its cache lines without reading them from memory, where zeros around the
    sets were slower at large batches. An int8 row (771 bytes) is zeroed around the sets:
    there a whole-row memset was the slower, and so was zeroing the sets before writing
    them (``cardrl bench`` times the observation)."""
    row[:] = 0


@overload(_zeros_but_card_sets, jit_options={"_nrt": False}, inline="always")
def _zeros_of(row):
    if row.dtype != types.int8:
        return lambda row: _zero_columns(row, 0, _SIZE)

    def around_card_sets(row):
        _zero_columns(row, 0, _HAND)
        _zero_columns(row, _LEFTOVER, _PLAYED)
        _zero_columns(row, _TRICK, _SIZE)

    return around_card_sets


@kernel
def _zero_columns(row: np.ndarray, start: int, stop: int) -> None:
    """``row[start:stop] = 0``: a loop the compiler makes one memset."""
    for k in range(start, stop):
        row[k] = 0


@inlined_kernel
def observe_game(g: int, seat: int, row: np.ndarray, settings: tuple, episode: Episode,
                 deal: Deal, bidding: Bidding, play: Play, match: Match) -> None:
    """Write game ``g``'s observation from ``seat`` into ``row`` (float32 or int8 [771]),
    every entry, from the state's groups ``episode`` to ``match`` (:func:`observed`).
    ``settings``: ``(variant, cards_each, target_points, pot_scale, deals_limit,
    is_match)`` (:func:`observe_settings`). The counts, points and chips are
    :func:`~envs.core.observation_entry` (themselves in an int8 row, see
    :func:`observation_scale`). ``variant``: the position of the config's variant in
    :data:`VARIANT_ORDER`; ``pot_scale``: 10 * ante; ``is_match``: ``episode="match"``. A
    one-hot of a "none" (-1) stays all zero; the trick leader, the acting hand and the
    dummy's controller are zeros once the episode is over.

    The game's fields are read into locals before the first write: the compiler cannot
    tell ``row`` from the state arrays, so a field read after a write to ``row`` is read
    again from memory."""
    variant, cards_each, target_points, pot_scale, deals_limit, is_match = settings
    b, p = bidding, play
    P, H = b.bids.shape[1], deal.hand_bits.shape[1]
    trump = deal.trump[g]
    ph, trump_suit, voids_of = episode.phase[g], trump, VOID_SUIT_BITS[trump + 1]
    hand, shown, dummy = deal.hand_bits[g, seat], b.shown_bits[g], deal.hand_bits[g, H - 1]
    card_up, dealt_by, declared, goal = (deal.leftover[g], deal.dealer[g], b.declarer[g],
                                         b.target[g])
    # card sets: own hand, the dummy's face-up hand (E4), shown cards (D1), the cards each
    # relative hand slot played this deal; every other entry zero
    _zeros_and_card_sets(row, hand, dummy if H > P else _NO_CARDS, shown,
                         p.played_bits[g], seat, P)
    row[_VARIANT + variant] = 1
    if card_up >= 0:  # B2
        row[_LEFTOVER + card_up] = 1
    row[_TRUMP_SUIT + (_NO_TRUMP if trump_suit < 0 else trump_suit)] = 1  # B2, B3
    if ph != _OVER:
        row[_PHASE + ph] = 1
    if dealt_by >= 0:  # B1
        row[_DEALER + slot_of(dealt_by, seat, P)] = 1
    for slot in range(P):  # C1: bids by relative player slot
        bid = b.bids[g, seat_index(slot, seat, P)]
        if bid >= 0:
            row[_BIDS_COL + slot * (MAX_BID + 1) + bid] = 1
    if declared >= 0:  # C3
        row[_DECLARER + slot_of(declared, seat, P)] = 1
    if goal >= 0:
        row[_TARGET + goal] = 1
    row[_SHOWN_COUNT] = observation_entry(row, b.num_shown[g], cards_each)  # D2
    # per relative hand slot: the card in the trick, tricks won, the public void record
    # (E2: a hand that did not follow holds none of that suit)
    for slot in range(H):
        h = _hand_at(slot, seat, P)
        card, won, void = p.trick[g, h], p.tricks_won[g, h], p.void_bits[g, h]
        if card >= 0:
            row[_TRICK + slot * NUM_CARDS + card] = 1
        row[_TRICKS_WON + slot] = observation_entry(row, won, cards_each)
        for suit in range(4):
            row[_VOIDS + slot * 4 + suit] = (void & voids_of[suit]) != 0
    if ph != _OVER:
        lead, acting, controller = p.leader[g], p.to_play[g], p.dummy_ctrl[g]
        if ph != _PLAY:
            acting = episode.current_player[g]  # (in play: the hand to play, maybe the dummy)
        if lead >= 0:
            row[_TRICK_LEADER + _hand_slot(lead, seat, P)] = 1
        if acting >= 0:
            row[_ACTING_HAND + _hand_slot(acting, seat, P)] = 1
        if H > P and controller >= 0:  # E4
            row[_DUMMY_CONTROL + slot_of(controller, seat, P)] = 1
    row[_TRICKS_PLAYED] = observation_entry(row, p.tricks_done[g], cards_each)
    for slot in range(P):  # F1 calls and M1 totals by relative player slot
        other = seat_index(slot, seat, P)
        said, total = p.called[g, other], match.totals[g, other]
        row[_CALLED + slot] = said
        row[_SCORES + slot] = observation_entry(row, total, target_points)
    row[_POT] = observation_entry(row, b.pot[g], pot_scale)  # S4
    if is_match:  # M3 (int8 needs episode="deal": 0 there)
        row[_DEAL_NUMBER] = observation_entry(row, episode.deals_done[g], deals_limit)


@kernel
def observe_games(seats: np.ndarray | None, out: np.ndarray, settings: tuple,
                  episode: Episode, deal: Deal, bidding: Bidding, play: Play,
                  match: Match) -> None:
    """:func:`observe_game` (with its ``settings``) of every game into ``out`` [B, 771]
    from ``seats[g]``, or (``seats`` None) from the seat to act (seat 0 once the episode
    is over)."""
    for g in range(out.shape[0]):
        seat = max(episode.current_player[g], 0) if seats is None else seats[g]
        observe_game(g, seat, out[g], settings, episode, deal, bidding, play, match)


def observed(state: AbracadabraState) -> tuple:
    """The groups of ``state`` that :func:`observe_game` reads, in its order."""
    return state.episode, state.deal, state.bidding, state.play, state.match


def encode(state: AbracadabraState, settings: tuple, seats: np.ndarray | None,
           out: np.ndarray) -> None:
    """Write the observation of every game of ``state`` from ``seats`` (int [B], valid
    seats; None: the seat to act) into ``out`` (float32 or int8 [B, 771], C-contiguous),
    every entry; ``settings``: :func:`observe_settings` of the games' config. An int8
    ``out`` gets the integers of the fractional entries (counts, totals, chips): see
    :func:`observation_scale`. Written by the compiled :func:`observe_games`."""
    if seats is not None:
        seats = np.ascontiguousarray(seats, dtype=np.intp)
    dtype = out.dtype.char  # "f" (float32) or "b" (int8): a character compares fastest
    # the key fixes the types of seats (None or C-contiguous intp) and out (its dtype;
    # C-contiguous, checked by the engine's observe)
    key = ("observe " if seats is None else "observe seats ") + dtype
    code, fixed = state.kernel_cache.get(key) or state.bound_kernel(
        key, observe_games, (seats, out), lambda: (settings, *observed(state)))
    code(seats, out, *fixed)


def observe_settings(config: AbracadabraConfig) -> tuple:
    """The settings of :func:`observe_game` that ``config`` sets, ``variant`` to
    ``is_match``."""
    return (VARIANT_ORDER.index(config.variant), config.cards_each, config.target_points,
            10.0 * config.ante, config.deals_limit, config.episode == "match")
