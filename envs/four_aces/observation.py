"""Four Aces observations: the layout (an interface: agents read it by segment name), the
scale of the int8 observation and the encoder of a batch.

An observation holds only what its seat may know (docs/rules.md, "What each player knows"):
own hand, every table, the discard pile, the stock size, every hand size and L, the scores,
the dealer and the round. It is seat-relative: slot r is the seat r places to the left of
the observer, i.e. seat ``(observer + r) mod P``; slots >= P stay zero.

:func:`observe_games` writes one observation per game in compiled code (numba, cached on
disk), one game at a time (:func:`observe_game`), for a batch of any size (a batch of one
included); :func:`encode` is that call on an engine's state.
"""

from __future__ import annotations

import numpy as np

from envs.cards import JOKER, NUM_CARDS
from envs.compiled import copy_items, inlined_kernel, kernel
from envs.core import ObservationLayout, observation_entry, seat_index, slot_of
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.rules import (
    DECK_SIZE,
    MAX_HAND,
    MAX_PLAYERS,
    MAX_ROUND_POINTS,
    MIN_PLAYERS,
    MIN_ROUND_POINTS,
    NUM_JOKERS,
)
from envs.four_aces.state import FourAcesState, Match, Round

MAX_SLOTS = MAX_PLAYERS  #: relative seat slots in the observation (the most players, G1)


def build_layout() -> ObservationLayout:
    """The observation layout (see module doc)."""
    return ObservationLayout(
        [
            ("num_players", 3, "one-hot number of players: 3, 4, 5"),
            ("hand", NUM_CARDS, "own hand, count of each card (the joker may be 2)"),
            ("tables", MAX_SLOTS * NUM_CARDS, "table cards of each relative seat, counts"),
            ("discard_pile", NUM_CARDS, "cards ever put on the discard pile, counts"),
            ("last_discard", NUM_CARDS, "one-hot top card of the discard pile"),
            ("stock_size", 1, "cards left in the stock / 54"),
            ("hand_sizes", MAX_SLOTS, "cards in each relative seat's hand / 5"),
            ("hand_limits", MAX_SLOTS, "hand limit L of each relative seat / 5 (G7)"),
            ("jokers_seen", 1, "jokers in own hand, on tables and discarded / 2"),
            ("scores", MAX_SLOTS, "match totals of each relative seat / target_points"),
            ("dealer", MAX_SLOTS, "one-hot relative seat of the dealer"),
            ("round_number", 1, "rounds finished in this match / max_rounds"),
        ]
    )


LAYOUT = build_layout()
assert LAYOUT.segments["num_players"].size == MAX_PLAYERS - MIN_PLAYERS + 1

#: the divisors of the fractional segments (the float32 value is the integer / divisor)
STOCK_DIVISOR = DECK_SIZE  #: stock_size: cards left / 54
HAND_DIVISOR = MAX_HAND  #: hand_sizes, hand_limits: cards / 5 (L <= 5, G7)
JOKER_DIVISOR = NUM_JOKERS  #: jokers_seen: jokers / 2 (G1)


def observation_scale(config: FourAcesConfig) -> np.ndarray:
    """float32 [D]: the scale of every column of the int8 observation (see
    :attr:`envs.core.BatchEngine.observation_scale`): 1 for the counts and one-hots,
    1/54 for stock_size (cards left), 1/5 for hand_sizes and hand_limits, 1/2 for
    jokers_seen, 1 / target_points for scores and 1 / max rounds for round_number."""
    scale = np.ones(LAYOUT.size, np.float64)
    scale[LAYOUT["stock_size"]] = 1.0 / STOCK_DIVISOR
    scale[LAYOUT["hand_sizes"]] = scale[LAYOUT["hand_limits"]] = 1.0 / HAND_DIVISOR
    scale[LAYOUT["jokers_seen"]] = 1.0 / JOKER_DIVISOR
    scale[LAYOUT["scores"]] = 1.0 / config.target_points
    scale[LAYOUT["round_number"]] = 1.0 / config.round_limit
    return scale.astype(np.float32)


def int8_error(config: FourAcesConfig) -> str | None:
    """Why ``config`` has no exact int8 observation, or None: the match totals (scores)
    must stay in -128..127."""
    if config.episode != "round":
        return ("episode='match' accumulates totals and rounds beyond int8; use "
                "episode='round' or float32 observations")
    if max(config.target_points, MAX_ROUND_POINTS) > 127:
        return (f"target_points={config.target_points} (a four-aces round's points) is "
                "beyond int8's 127; use float32 observations")
    return None


def observation_bounds(config: FourAcesConfig) -> tuple[float, float]:
    """(low, high) of every float32 observation entry: the counts and fractions lie in
    0..2, the scores (totals / target_points) within the bounds of a round's points
    (K2, K3) over the rounds an episode can last (K4)."""
    target = config.target_points
    rounds = 1 if config.episode == "round" else config.round_limit
    max_total = max(MAX_ROUND_POINTS, target) + (0 if rounds == 1 else target - 1)
    return (float(min(0.0, MIN_ROUND_POINTS * rounds / target)),
            float(max(2.0, max_total / target)))


# -- the encoder ----------------------------------------------------------------------------
#: first column of each observation segment (numba freezes module globals: plain ints)
_NUM_PLAYERS = LAYOUT.segments["num_players"].start
_HAND = LAYOUT.segments["hand"].start
_TABLES = LAYOUT.segments["tables"].start
_DISCARD_PILE = LAYOUT.segments["discard_pile"].start
_LAST_DISCARD = LAYOUT.segments["last_discard"].start
_STOCK_SIZE = LAYOUT.segments["stock_size"].start
_HAND_SIZES = LAYOUT.segments["hand_sizes"].start
_HAND_LIMITS = LAYOUT.segments["hand_limits"].start
_JOKERS_SEEN = LAYOUT.segments["jokers_seen"].start
_SCORES = LAYOUT.segments["scores"].start
_DEALER = LAYOUT.segments["dealer"].start
_ROUND_NUMBER = LAYOUT.segments["round_number"].start
_SIZE = LAYOUT.size


@inlined_kernel
def observe_game(g: int, seat: int, row: np.ndarray, target_points: int,
                 round_limit: int, match: Match, rnd: Round) -> None:
    """Write game ``g``'s observation from ``seat`` into ``row`` (float32 or int8 [D]),
    every entry: the card counts copied (:func:`~envs.compiled.copy_items`: one ``memcpy``
    into an int8 row, a loop the compiler vectorizes into a float32 one), the other
    integers as :func:`~envs.core.observation_entry` (themselves in an int8 row). Slot r
    is the seat r places to the left of ``seat``; slots >= P stay 0. ``match`` and ``rnd``
    are the state's groups (:mod:`envs.four_aces.state`); of the match, only the seats'
    totals and the rounds played are seen."""
    hand, table, discard_counts = rnd.hand, rnd.table, rnd.discard_counts
    P = hand.shape[1]
    for k in range(_SIZE):
        row[k] = 0
    row[_NUM_PLAYERS + P - MIN_PLAYERS] = 1
    copy_items(row, _HAND, hand[g, seat])  # own hand only
    copy_items(row, _DISCARD_PILE, discard_counts[g])
    jokers = np.int64(hand[g, seat, JOKER]) + discard_counts[g, JOKER]
    for r in range(P):
        other = seat_index(r, seat, P)
        copy_items(row, _TABLES + r * NUM_CARDS, table[g, other])
        jokers += table[g, other, JOKER]
        row[_HAND_SIZES + r] = observation_entry(row, rnd.hand_size[g, other], HAND_DIVISOR)
        row[_HAND_LIMITS + r] = observation_entry(row, rnd.hand_limit[g, other], HAND_DIVISOR)
        row[_SCORES + r] = observation_entry(row, match.totals[g, other], target_points)
    top = rnd.discard[g, max(rnd.discard_size[g] - 1, 0)]
    if top >= 0:
        row[_LAST_DISCARD + top] = 1
    row[_STOCK_SIZE] = observation_entry(row, DECK_SIZE - rnd.stock_top[g], STOCK_DIVISOR)
    row[_JOKERS_SEEN] = observation_entry(row, jokers, JOKER_DIVISOR)
    row[_DEALER + slot_of(rnd.dealer[g], seat, P)] = 1
    row[_ROUND_NUMBER] = observation_entry(row, match.rounds_played[g], round_limit)


@kernel
def observe_games(seats: np.ndarray | None, out: np.ndarray, target_points: int,
                  round_limit: int, match: Match, rnd: Round) -> None:
    """:func:`observe_game` of every game into ``out`` [B, D] from ``seats[g]``, or
    (``seats`` None) from its current player (seat 0 once the game is over)."""
    for g in range(out.shape[0]):
        seat = max(match.current_player[g], 0) if seats is None else seats[g]
        observe_game(g, seat, out[g], target_points, round_limit, match, rnd)


def encode(state: FourAcesState, config: FourAcesConfig, seats: np.ndarray | None,
           out: np.ndarray) -> None:
    """Write the observation of every game from ``seats`` (int [B], valid seats; None:
    each game's current player) into ``out`` (float32 or int8 [B, D], C-contiguous), every
    entry. An int8 ``out`` gets the integers of the fractional entries (cards left, hand
    sizes, jokers, totals, rounds): see :func:`observation_scale`. Written by the compiled
    :func:`observe_games`."""
    if seats is not None:
        seats = np.ascontiguousarray(seats, dtype=np.intp)
    dtype = out.dtype.char  # "f" (float32) or "b" (int8): a character compares fastest
    # the key fixes the types of seats (None or C-contiguous intp) and out (its dtype;
    # C-contiguous, checked by the engine's observe)
    key = ("observe " if seats is None else "observe seats ") + dtype
    # the state's cache entry, or (the first time) bound_kernel: no closure per call
    code, fixed = state.kernel_cache.get(key) or state.bound_kernel(
        key, observe_games, (seats, out),
        lambda: (config.target_points, config.round_limit, state.match, state.round))
    code(seats, out, *fixed)
