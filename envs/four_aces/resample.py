"""Copies of Four Aces games and worlds resampled from one seat's view: what search plays.

:func:`select_games` copies games of a :class:`~envs.four_aces.state.FourAcesState`;
:func:`resample_many` draws, for each (game, seat) pair, ``n`` complete states — *worlds*
— that look to that seat exactly like the game, every card hidden from it drawn at
random. The engine's ``clone``, ``resample`` and ``resample_many``
(:mod:`envs.four_aces.engine`) wrap them; a search agent (PIMC) plays its candidate
actions out in such worlds.

What a world keeps (:data:`PUBLIC_FIELDS`): everything the seat knows (docs/rules.md, "What
each player knows"): its own hand, every table, the discard pile in order, the stock size,
every hand size and hand limit L (G7), totals, dealer, round, the seat to act and the
last finished round's results. What a world draws (:data:`DRAWN_FIELDS`): the other
hands, the stock's order, and the game key, which deals the later rounds of a match
(G2, G3): every world gets a fresh key.

**The consistent worlds.** The unseen cards are the 54 (G1) less the seat's hand, the
tables and the discard pile. A joker reaches the discard pile only out of a hand (a
turned-up joker goes into the hand, H2 b, G7), so ``L - 3`` is the number of jokers that
entered a seat's hand, and the stock holds ``2 - jokers on tables - sum(L - 3)`` jokers.
Another seat o holds ``h_o = (L_o - 3) - d_o`` jokers, ``d_o`` the jokers it discarded.
*Who discarded which card is not in the state* (docs/rules.md lists the pile and its order
among what a seat knows, not the discarders), so of the ``d_o`` only their sum is known:
the jokers on the pile less the seat's own discards (its ``L - 3`` less the jokers in its
hand). The sampler takes every split with ``0 <= h_o <= min(L_o - 3, hand size)`` and
that sum as possible. With two jokers in the game the only such doubt is which of two
other seats, each with one joker come into its hand, discarded the one on the pile. The
turn history is not in the state either: the sampler does not reconstruct from the
pile's order who put which card there. A world is consistent when each other hand holds
its size with a possible joker count, the stock its size and the stock's jokers, and no
other hand holds all four aces (H4: the round would have ended).

**The sampler** is exactly uniform over the consistent worlds:

1. a joker split ``h`` with probability proportional to the worlds it admits,
   ``prod_o 1 / (size_o - h_o)!`` (the deals below make each world of a split equally
   likely);
2. the unseen non-joker cards, in card-index order, each get a random key; ordered by it,
   the other seats (in seat order) take ``size_o - h_o`` of them and the stock the rest;
3. the stock's jokers go to uniformly random places of the stock;
4. a world in which another seat holds the four aces is drawn again, whole (so the
   accepted worlds stay uniform).

**No peeking.** World k of game i uses random numbers that are a pure function of
``(seeds[i], k, attempt)`` (:func:`envs.core.hashed_uniform`), and reads only the
seat's view, in a canonical order: two games that look alike to the seat give identical
worlds for the same seed. World k does not depend on ``n`` (world k of ``n = 8`` is world
k of ``n = 32``); games given the same seed get the same random numbers.

**The stock is real state.** A world's stock is ``deal_order[stock_top:]``, top first: the
order in which the world's stock will be drawn, so a rollout that plays in the fully
known world reads the cards it will refill from there (``state.deal_order``,
``state.stock_top``). ``deal_order[3P:6P]`` holds the tables (each in card-index order);
the other places before ``stock_top`` (the deal's hands and the cards drawn since) are
not history: they hold the world's hands and discard pile in card-index order, so
``deal_order`` stays a permutation of the 54 cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product

import numpy as np

from envs.cards import JOKER, NUM_CARDS
from envs.core import check_int, hashed_uniform, splitmix64
from envs.four_aces.rules import (
    ACES,
    BASE_LIMIT,
    DECK_SIZE,
    FULL_DECK,
    HAND_CARDS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_JOKERS,
    TABLE_CARDS,
)
from envs.four_aces.state import FourAcesState

#: the state fields a world copies from its game: what the seat knows
PUBLIC_FIELDS = (
    "rounds_played", "totals", "current_player", "game_over", "dealer", "stock_top",
    "hand_size", "hand_limit", "table", "discard", "discard_size", "discard_counts",
    "four_aces_now", "deal_over", "last_points", "four_aces_winner", "winners",
    "match_over", "has_result",
)
#: the state fields a world draws: the hands (all but the seat's own), the stock's order
#: and the game key
DRAWN_FIELDS = ("keys", "hand", "deal_order")

#: a drawn world with four aces in another hand is drawn again; after this many attempts
#: (practically never: a consistent state always has worlds without) the sampler gives up
MAX_ATTEMPTS = 1000

_FULL_COUNTS = np.bincount(FULL_DECK, minlength=NUM_CARDS).astype(np.int16)
_FACTORIAL = np.array([1.0, 1.0, 2.0, 6.0, 24.0, 120.0, 720.0, 5040.0])
#: random lanes of one attempt: one key per card index (non-jokers), two joker places in
#: the stock, one for the joker split
_CARD_LANES = JOKER
_PLACE1, _PLACE2, _SPLIT = JOKER, JOKER + 1, JOKER + 2
_LANES = JOKER + 3
#: mixed into a world's key to give the world's game key (G2, G3)
_GAME_KEY_SALT = np.uint64(0x4A0CE5F0D2B1A379)
_LANE_BITS = 6  #: low bits of a card's sort key that hold its index (52 < 64)
_LANE_MASK = np.int64((1 << _LANE_BITS) - 1)
_CARD_KEYS = np.arange(_CARD_LANES, dtype=np.int64)
_SEEN_KEY = np.int64(1 << 60)  #: above every random key (52 + 6 bits)
_CARD_IDS = np.arange(NUM_CARDS, dtype=np.int8)
_MAX_SEED = 2**64 - 1


def _joker_splits(num_players: int) -> np.ndarray:
    """int16 [K, P]: every way to hold at most two jokers in the P hands (G1, G7)."""
    splits = [s for s in product(range(NUM_JOKERS + 1), repeat=num_players)
              if sum(s) <= NUM_JOKERS]
    return np.array(splits, dtype=np.int16)


_SPLITS = {p: _joker_splits(p) for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


# -- arguments --------------------------------------------------------------------------
def _int_vector(name: str, values: object, low: int, high: int) -> np.ndarray:
    """``values`` as a non-empty 1-d int64 array in ``low..high``; ``ValueError`` naming
    ``name`` otherwise (floats and bools are not integers here)."""
    array = np.asarray(values)
    if array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d sequence of integers, got an "
                         "empty one")
    if array.dtype.kind not in "iu" and not (
        array.dtype == object and all(isinstance(v, (int, np.integer))
                                      and not isinstance(v, bool) for v in array.flat)
    ):
        raise ValueError(f"{name} must be integers, got {array.dtype} values such as "
                         f"{array.flat[0]!r}")
    if array.ndim != 1:
        raise ValueError(f"{name} must be a non-empty 1-d sequence of integers, got shape "
                         f"{array.shape}")
    top = high if array.dtype == object else min(high, int(np.iinfo(array.dtype).max))
    outside = (array < low) | (array > top)  # (a bound beyond the dtype's is no bound)
    if outside.any():
        raise ValueError(f"{name} must lie in {low}..{high}, got {array[outside][0]!r}")
    return array.astype(np.uint64 if high > np.iinfo(np.int64).max else np.int64)


def game_rows(games: object, batch_size: int) -> np.ndarray:
    """The rows of a selection of games, intp [N]: None (every game), a bool mask of shape
    (batch_size,), or game indices (repeats allowed, order kept). Raises ``ValueError``
    naming ``games`` for anything else, or when nothing is selected."""
    if games is None:
        return np.arange(batch_size, dtype=np.intp)
    array = np.asarray(games)
    if array.dtype == bool:
        if array.shape != (batch_size,):
            raise ValueError(f"games as a bool mask must have shape ({batch_size},), got "
                             f"{array.shape}")
        if not array.any():
            raise ValueError("games selects no game: at least one must be True")
        return np.flatnonzero(array)
    return _int_vector("games", array, 0, batch_size - 1).astype(np.intp)


def check_one(state: FourAcesState, game: object, seat: object, n: object,
              seed: object) -> None:
    """Raise ``ValueError`` naming the argument unless ``game``, ``seat``, ``n`` and
    ``seed`` are integers in range (the arguments of the engine's ``resample``)."""
    check_int("game", game, 0, state.batch_size - 1)
    check_int("seat", seat, 0, state.num_players - 1)
    check_int("n", n, 1)
    check_int("seed", seed, 0, _MAX_SEED)


# -- copies ---------------------------------------------------------------------------------
def select_games(state: FourAcesState, rows: np.ndarray) -> FourAcesState:
    """Copies of the games ``rows`` (intp [N], repeats allowed) of ``state``, in order."""
    return FourAcesState(**{name: array.take(rows, axis=0)
                            for name, array in state.arrays().items()})


def seeded_generator(seeds: Sequence[int] | np.ndarray) -> np.random.Generator:
    """A generator seeded from all of ``seeds`` (valid seeds: see :func:`resample_many`),
    by a 64-bit hash of them (a ``SeedSequence`` of thousands of seeds is slow)."""
    seeds = np.asarray(seeds, dtype=np.uint64).reshape(-1)
    mixed = splitmix64(seeds ^ splitmix64(np.arange(len(seeds), dtype=np.uint64)))
    return np.random.default_rng(int(np.bitwise_xor.reduce(mixed)))


# -- the seat's view --------------------------------------------------------------------------
class _View:
    """What seat ``seats[i]`` knows of game ``games[i]``, with the numbers the sampler
    derives from it (arrays with a leading axis of the G games); raises ``ValueError``
    for a state that no deal can explain."""

    def __init__(self, state: FourAcesState, games: np.ndarray, seats: np.ndarray):
        P = state.num_players
        G = len(games)
        self.seats = seats
        self.own = state.hand[games, seats]  # [G, 53]
        self.tables = state.table[games]  # [G, P, 53]
        self.discard_counts = state.discard_counts[games]  # [G, 53]
        self.sizes = state.hand_size[games].astype(np.int64)  # [G, P]
        self.stock_top = state.stock_top[games].astype(np.int64)
        self.stock_size = DECK_SIZE - self.stock_top
        unseen = (_FULL_COUNTS - self.own - self.tables.sum(axis=1, dtype=np.int16)
                  - self.discard_counts)  # [G, 53]
        if (unseen < 0).any():
            raise ValueError(f"game {int(games[np.flatnonzero((unseen < 0).any(1))[0]])}: "
                             "a card is seen more often than the deck holds it")
        self.unseen = unseen[:, :JOKER] > 0  # [G, 52] the unseen non-jokers
        self.all_aces_unseen = self.unseen[:, ACES].all(axis=1)
        # G7: L - 3 jokers entered each hand; the rest not on a table is in the stock
        entered = state.hand_limit[games].astype(np.int64) - BASE_LIMIT  # [G, P]
        table_jokers = self.tables[:, :, JOKER].sum(axis=1)
        self.stock_jokers = NUM_JOKERS - table_jokers - entered.sum(axis=1)
        in_hands = unseen[:, JOKER] - self.stock_jokers  # jokers in the other hands
        # the joker splits: the seat's own is 0 (its hand is copied), each other hand
        # holds at most the jokers that entered it and at most its size, in all ``in_hands``
        splits = _SPLITS[P]  # [K, P]
        g = np.arange(G)
        ok = (splits[None, :, :] <= np.minimum(entered, self.sizes)[:, None, :]).all(axis=2)
        ok &= splits[:, seats].T == 0
        ok &= splits.sum(axis=1)[None, :] == in_hands[:, None]
        # each world of a split: the non-jokers into the hands (multinomial), so the
        # split's weight is prod over the other hands of 1 / (non-jokers in it)!
        non_jokers = np.clip(self.sizes[:, None, :] - splits[None, :, :], 0, None)
        non_jokers[g, :, seats] = 0
        weight = np.where(ok, 1.0 / _FACTORIAL[non_jokers].prod(axis=2), 0.0)
        held = self.sizes.sum(axis=1) - self.sizes[g, seats] - in_hands  # other hands'
        bad = ~ok.any(axis=1) | (self.stock_jokers < 0) | (self.stock_jokers > self.stock_size)
        bad |= held + self.stock_size - self.stock_jokers != self.unseen.sum(axis=1)
        if bad.any():
            raise ValueError(f"game {int(games[np.flatnonzero(bad)[0]])}: the hand sizes, "
                             "limits L and stock size do not fit the unseen cards (G7)")
        self.cumulative = np.cumsum(weight, axis=1)  # [G, K]
        self.last_split = splits.shape[0] - 1 - np.argmax(ok[:, ::-1], axis=1)
        # the tables in deal order's places 3P..6P, each in card-index order
        self.table_cards = _ascending(self.tables.reshape(G * P, NUM_CARDS))[:, :TABLE_CARDS]
        self.table_cards = self.table_cards.reshape(G, P * TABLE_CARDS)


def _ascending(counts: np.ndarray) -> np.ndarray:
    """int8 [X, 54]: the cards of each count row (int [X, 53], the joker up to 2) in
    card-index order, padded with 127 (a radix sort of small integers)."""
    keys = np.full((len(counts), DECK_SIZE), 127, dtype=np.int8)
    keys[:, :JOKER] = np.where(counts[:, :JOKER] > 0, _CARD_IDS[:JOKER], 127)
    keys[:, JOKER] = np.where(counts[:, JOKER] >= 1, JOKER, 127)
    keys[:, JOKER + 1] = np.where(counts[:, JOKER] >= 2, JOKER, 127)
    return np.sort(keys, axis=1, kind="stable")


def _gather(rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
    """``rows[i, columns[i, j]]`` ([X, m] of ``rows`` [X, n]): ``take_along_axis`` as one
    flat take, which is faster."""
    offsets = np.arange(0, rows.size, rows.shape[1], dtype=np.intp)[:, None]
    return rows.reshape(-1).take(columns + offsets)


# -- the sampler --------------------------------------------------------------------------------
def resample_many(
    state: FourAcesState,
    games: Sequence[int] | np.ndarray,
    seats: Sequence[int] | np.ndarray,
    n: int,
    seeds: Sequence[int] | np.ndarray,
) -> FourAcesState:
    """``n`` worlds of each game ``games[i]`` as seat ``seats[i]`` sees it (see the module
    doc), world k of ``games[i]`` in row ``i * n + k``; ``seeds``: one integer in
    0..2**64-1 per game. ``state`` is not changed. Raises ``ValueError`` naming the
    argument for non-integer values, ``n < 1``, a game or seat out of range, lengths
    that differ, or a game that is over (``game_over``: nothing to resample)."""
    games = _int_vector("games", games, 0, state.batch_size - 1).astype(np.intp)
    seats = _int_vector("seats", seats, 0, state.num_players - 1).astype(np.intp)
    check_int("n", n, 1)
    seeds = _int_vector("seeds", seeds, 0, _MAX_SEED).astype(np.uint64)
    if not len(games) == len(seats) == len(seeds):
        raise ValueError(f"games, seats and seeds must have one entry per game, got "
                         f"{len(games)}, {len(seats)} and {len(seeds)}")
    over = np.flatnonzero(state.game_over[games])
    if len(over):
        j = int(over[0])
        raise ValueError(f"games[{j}]={int(games[j])} is over (game_over): a finished "
                         "game has no hidden cards to resample")
    view = _View(state, games, seats)
    n = int(n)
    world_game = np.repeat(np.arange(len(games)), n)  # [W] index into games
    world_keys = splitmix64(splitmix64(seeds)[world_game]
                            ^ splitmix64(np.tile(np.arange(n, dtype=np.uint64), len(games))))
    hands, stock = _draw_worlds(state.num_players, view, world_game, world_keys)
    rows = games[world_game]
    world = {name: getattr(state, name).take(rows, axis=0) for name in PUBLIC_FIELDS}
    world["keys"] = splitmix64(world_keys ^ _GAME_KEY_SALT)
    world["hand"] = hands
    world["deal_order"] = _deal_order(state.num_players, view, world_game, hands, stock)
    return FourAcesState(**world)


def _draw_worlds(P: int, view: _View, world_game: np.ndarray, world_keys: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The hands (int8 [W, P, 53]) and stocks (int8 [W, 54], top first, valid up to the
    stock size) of the worlds: steps 1–4 of the module doc."""
    W = len(world_game)
    hands = np.empty((W, P, NUM_CARDS), dtype=np.int8)
    stock = np.empty((W, DECK_SIZE), dtype=np.int8)
    splits = _SPLITS[P]
    places = np.arange(DECK_SIZE)
    todo = np.arange(W)
    for attempt in range(MAX_ATTEMPTS):
        g = world_game[todo]
        R = len(todo)
        u = hashed_uniform(world_keys[todo], np.full(R, attempt, dtype=np.uint64), _LANES)
        # 1. the joker split, by its weight
        x = u[:, _SPLIT] * view.cumulative[g, -1]
        k = np.minimum((view.cumulative[g] <= x[:, None]).sum(axis=1), view.last_split[g])
        h = splits[k]  # [R, P]
        take = view.sizes[g] - h  # non-jokers each hand takes
        take[np.arange(R), view.seats[g]] = 0
        # 2. the unseen non-jokers in random order: sorted by a random key (52 bits) with
        # the card index in the low bits (so no two keys tie; seen cards sort last)
        keys = (u[:, :_CARD_LANES] * 2.0**52).astype(np.int64) << _LANE_BITS | _CARD_KEYS
        order = np.sort(np.where(view.unseen[g], keys, _SEEN_KEY | _CARD_KEYS), axis=1)
        order &= _LANE_MASK  # [R, 52] cards, unseen first
        # the other seats, in seat order, take the first ``take`` cards of the order
        dealt = take.sum(axis=1)
        owner = np.repeat(np.tile(np.arange(P), R), take.reshape(-1))  # flat, row-major
        world = np.repeat(np.arange(R), dealt)
        place = np.arange(len(world)) - np.repeat(np.cumsum(dealt) - dealt, dealt)
        drawn = np.zeros((R * P, NUM_CARDS), dtype=np.int8)
        drawn[world * P + owner, order[world, place]] = 1
        drawn = drawn.reshape(R, P, NUM_CARDS)
        drawn[:, :, JOKER] = h
        drawn[np.arange(R), view.seats[g]] = view.own[g]
        # 3. the stock: the rest of the order, its jokers at random places
        size, jokers = view.stock_size[g], view.stock_jokers[g]
        first = (u[:, _PLACE1] * size).astype(np.int64)
        second = (u[:, _PLACE2] * np.maximum(size - 1, 0)).astype(np.int64)
        second += second >= first
        first = np.where(jokers >= 1, first, DECK_SIZE)[:, None]  # no joker: no place
        second = np.where(jokers >= 2, second, DECK_SIZE)[:, None]
        is_joker = (places == first) | (places == second)
        source = dealt[:, None] + places - (places > first) - (places > second)
        source = np.minimum(source, _CARD_LANES - 1)
        stock[todo] = np.where(is_joker, JOKER, _gather(order, source))
        hands[todo] = drawn
        # 4. four aces in another hand (H4): draw that world again
        again = view.all_aces_unseen[g] & (drawn[:, :, ACES] > 0).all(axis=2).any(axis=1)
        todo = todo[again]
        if not len(todo):
            return hands, stock
    raise RuntimeError(f"no world without four aces in another hand after {MAX_ATTEMPTS} "
                       "attempts")


def _deal_order(P: int, view: _View, world_game: np.ndarray, hands: np.ndarray,
                stock: np.ndarray) -> np.ndarray:
    """int8 [W, 54]: each world's deal order (see the module doc): the hands and discard
    pile in card-index order in places 0..3P and 6P..stock_top, the tables in 3P..6P,
    the stock from ``stock_top``."""
    played = _ascending(hands.sum(axis=1, dtype=np.int16) + view.discard_counts[world_game])
    cards = np.concatenate([played, view.table_cards[world_game], stock], axis=1)
    places = np.arange(DECK_SIZE)[None, :]
    top = view.stock_top[world_game][:, None]
    tables_start = HAND_CARDS * P
    tables_stop = tables_start + TABLE_CARDS * P
    source = np.where(places < tables_start, places, places - TABLE_CARDS * P)
    source = np.where((places >= tables_start) & (places < tables_stop),
                      DECK_SIZE + places - tables_start, source)
    source = np.where(places >= top, DECK_SIZE + TABLE_CARDS * P + places - top, source)
    return _gather(cards, source)
