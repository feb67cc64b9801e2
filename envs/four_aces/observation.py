"""Four Aces observations: the layout (an interface: agents read it by segment name), the
scale of the int8 observation and the encoder of a batch.

An observation holds only what its seat may know (docs/rules.md, "What each player knows"):
own hand, every table, the discard pile, the stock size, every hand size and L, the scores,
the dealer and the round. It is seat-relative: slot r is the seat r places to the left of
the observer, i.e. seat ``(observer + r) mod P``; slots >= P stay zero.

:func:`encode` writes one observation per game with a fixed number of numpy calls,
whatever the batch size. The engine's single-game fast path writes the same values for a
batch of one (:mod:`envs.four_aces.engine`, its section "single-game fast paths").
"""

from __future__ import annotations

from functools import cache

import numpy as np

from envs.cards import JOKER, NUM_CARDS
from envs.core import ObservationLayout
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
from envs.four_aces.state import FourAcesState

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


# -- the batch encoder ---------------------------------------------------------------------
#: (start, stop) of each observation segment, as plain ints for the hot path
_SEGMENTS = {seg.name: (seg.start, seg.start + seg.size) for seg in LAYOUT}
#: observation value of a hand size or limit (int8 index, n / 5 as the layout says)
_FIFTHS = (np.arange(128) / HAND_DIVISOR).astype(np.float32)
_CARD_IDS = np.arange(NUM_CARDS, dtype=np.int8)
_SLOT_IDS = np.arange(MAX_SLOTS)
_NUM_PLAYERS_ONE_HOT = {p: np.eye(3, dtype=np.int8)[p - MIN_PLAYERS]
                        for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


@cache
def _index_tables(batch_size: int, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """The flat row ``game * P`` of each game's seat 0 [B], and the absolute seat of
    relative slot r for observer seat s, ``relative[s, r]`` [P, P] (read only)."""
    P = num_players
    first_row = np.arange(batch_size, dtype=np.intp) * P
    relative = (np.arange(P)[:, None] + np.arange(P)[None, :]) % P
    first_row.flags.writeable = relative.flags.writeable = False
    return first_row, relative


def encode(state: FourAcesState, config: FourAcesConfig, seats: np.ndarray,
           out: np.ndarray) -> None:
    """Write the observation of every game from ``seats`` (int [B], valid seats) into
    ``out`` (float32 or int8 [B, D], C-contiguous), every entry. An int8 ``out`` gets the
    integers of the fractional entries (cards left, hand sizes, jokers, totals, rounds):
    see :func:`observation_scale`."""
    B, P = state.hand.shape[:2]
    first_row, relative = _index_tables(B, P)
    int8 = out.dtype == np.int8
    seat_rows = first_row + seats  # flat row of each observer
    slot_rows = first_row[:, None] + relative[seats]  # [B, P] each slot
    out[:, slice(*_SEGMENTS["num_players"])] = _NUM_PLAYERS_ONE_HOT[P]
    hand = state.hand_rows
    out[:, slice(*_SEGMENTS["hand"])] = hand.take(seat_rows, axis=0)  # (take: faster)
    start, stop = _SEGMENTS["tables"]
    tables = state.table_rows.take(slot_rows.reshape(-1), axis=0)
    out[:, start : start + P * NUM_CARDS] = tables.reshape(B, P * NUM_CARDS)
    out[:, start + P * NUM_CARDS : stop] = 0.0
    out[:, slice(*_SEGMENTS["discard_pile"])] = state.discard_counts
    top = state.discard.reshape(-1).take(  # the pile's top card; -1: empty
        first_row // P * DECK_SIZE + np.maximum(state.discard_size - 1, 0))
    np.equal(top[:, None], _CARD_IDS, out=out[:, slice(*_SEGMENTS["last_discard"])])
    left = DECK_SIZE - state.stock_top
    out[:, _SEGMENTS["stock_size"][0]] = left if int8 else left / STOCK_DIVISOR
    for name, values in (
        ("hand_sizes", state.hand_size_flat),
        ("hand_limits", state.hand_limit_flat),
    ):
        start, stop = _SEGMENTS[name]
        out[:, start : start + P] = values[slot_rows] if int8 else _FIFTHS[values[slot_rows]]
        out[:, start + P : stop] = 0.0
    jokers = (
        hand[seat_rows, JOKER].astype(np.int32)
        + np.einsum("bp->b", state.table[:, :, JOKER])  # (faster than sum(axis=1))
        + state.discard_counts[:, JOKER]
    )
    out[:, _SEGMENTS["jokers_seen"][0]] = jokers if int8 else jokers / JOKER_DIVISOR
    start, stop = _SEGMENTS["scores"]
    totals = state.totals.reshape(-1)[slot_rows]
    out[:, start : start + P] = totals if int8 else totals / config.target_points
    out[:, start + P : stop] = 0.0
    dealer_slot = (state.dealer - seats) % P
    np.equal(dealer_slot[:, None], _SLOT_IDS, out=out[:, slice(*_SEGMENTS["dealer"])])
    rounds = state.rounds_played
    out[:, _SEGMENTS["round_number"][0]] = rounds if int8 else rounds / config.round_limit
