"""Pieces shared by the game engines.

- argument checks (``check_choice``, ``check_int``, ``check_seed`` for configs; the
  ``check_*`` of games, seeds, actions, seats and output buffers for engine calls), each
  raising ``ValueError`` that names the argument;
- the observation: :class:`ObservationLayout` (segments by name, the docstring index
  table) and :func:`observation_buffer`, with :func:`observation_entry` and the seat
  arithmetic (:func:`seat_at`, :func:`seat_index`, :func:`slot_of`) of the compiled
  observation kernels;
- :class:`BatchEngine`, the interface every game engine offers;
- counter-based randomness: 64-bit game keys (:func:`random_keys`, :func:`games_to_reset`)
  and shuffles that are pure functions of (key, counter) (:func:`hashed_uniform`,
  :func:`shuffled`, with compiled twins for the deal kernels);
- uniform random legal actions (:func:`sample_uniform_legal`).

Nothing here imports an RL framework; the engines' state stays numpy arrays, and the
kernels are compiled by numba (:mod:`envs.compiled`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import types
from numba.extending import overload

from envs import bit_generator
from envs.compiled import flag_count, flag_rank, kernel, machine_code


def check_choice(name: str, value: object, allowed: Iterable[object]) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``allowed``."""
    allowed = tuple(allowed)
    if value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed: expected one of {allowed}")


def check_int(name: str, value: object, low: int, high: int | None = None) -> None:
    """Raise ``ValueError`` unless ``value`` is an int in ``[low, high]``."""
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not ok or value < low or (high is not None and value > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{name}={value!r} is not allowed: expected an integer {bound}")


def check_seed(seed: object) -> None:
    """Raise ``ValueError`` unless ``seed`` (of ``reset``) is None or an integer >= 0."""
    if seed is not None:
        check_int("seed", seed, 0)


_INT64 = np.dtype(np.int64)  #: numpy's one int64 dtype object (an identity test is cheap)
_BOOL = np.dtype(bool)  #: numpy's bool dtype object (the sampler's masks, by identity)
#: the dtypes of an observation buffer, as dtype objects: a membership test against them
#: is cheaper than one against the scalar types (it counts at batch 1)
_FLOAT32, _INT8 = np.dtype(np.float32), np.dtype(np.int8)
_OBSERVATION_DTYPES = (_FLOAT32, _INT8)


def _as_array(name: str, value: object) -> np.ndarray:
    """``value`` as a numpy array, or ``ValueError`` naming ``name``: ragged or mixed
    sequences (a list of bools and numbers) are refused rather than coerced."""
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (list, tuple)):
        if not value:
            return np.zeros(0, np.intp)  # an empty list: nothing (no game, no key)
        flags = [isinstance(v, (bool, np.bool_)) for v in value]
        if any(flags) and not all(flags):
            raise ValueError(f"{name} mixes booleans with other values: {value!r}")
    try:
        return np.asarray(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} is not an array: {error}") from None


def _describe(array: np.ndarray) -> str:
    return f"{array.dtype} array of shape {array.shape}"


def check_games(games: object, batch_size: int) -> np.ndarray:
    """The rows (intp, in the order given) that ``games`` selects. ``games`` is exactly
    one of: a bool mask of shape (batch_size,) (the rows where it is True), or integer
    indices, a 1-d array or list of distinct ints in 0..batch_size-1 (the dtype decides:
    bool dtype is a mask, an integer dtype is indices). Anything else (floats, strings,
    objects or None entries, a mask of another length, an index out of range or given
    twice) raises ``ValueError`` naming ``games``."""
    array = _as_array("games", games)
    if array.dtype == bool:
        if array.shape != (batch_size,):
            raise ValueError(f"games must be a bool mask of shape ({batch_size},) or integer "
                             f"indices; got a bool array of shape {array.shape}")
        return np.flatnonzero(array)
    if array.dtype.kind not in "iu" or array.ndim != 1:
        raise ValueError(f"games must be a bool mask of shape ({batch_size},) or a 1-d array "
                         f"of integer indices 0..{batch_size - 1}; got {_describe(array)}")
    if len(array) and (array.min() < 0 or array.max() >= batch_size):
        bad = array[(array < 0) | (array >= batch_size)][0]
        raise ValueError(f"games holds index {bad}: expected indices 0..{batch_size - 1}")
    rows = array.astype(np.intp)
    seen = np.bincount(rows, minlength=batch_size)
    if len(rows) and seen.max() > 1:
        raise ValueError(f"games names game {int(np.argmax(seen))} {int(seen.max())} times: "
                         "expected each game at most once")
    return rows


def check_game_seeds(game_seeds: object, count: int) -> np.ndarray:
    """uint64 [count]: ``game_seeds`` as 64-bit keys. Exactly ``count`` integers in
    0..2**64-1, a 1-d integer array or a list of ints (no floats, bools, strings or
    negative numbers); anything else raises ``ValueError`` naming ``game_seeds``."""
    if isinstance(game_seeds, (list, tuple)) and all(
        isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
        for v in game_seeds
    ):
        bad = [v for v in game_seeds if not 0 <= v < 2**64]
        if bad:
            raise ValueError(f"game_seeds holds {bad[0]}: expected integers in 0..2**64-1")
        array = np.array([int(v) for v in game_seeds], dtype=np.uint64).reshape(-1)
    else:
        array = _as_array("game_seeds", game_seeds)
    if array.dtype.kind not in "iu" or array.ndim != 1:
        raise ValueError(f"game_seeds must be a 1-d array of integers in 0..2**64-1, one per "
                         f"reset game; got {_describe(array)}")
    if array.dtype.kind == "i" and len(array) and array.min() < 0:
        raise ValueError(f"game_seeds holds {array.min()}: expected integers in 0..2**64-1")
    if len(array) != count:
        raise ValueError(f"game_seeds holds {len(array)} seeds for {count} reset games: "
                         "expected one per reset game")
    return array.astype(np.uint64)


def check_active(active: object, batch_size: int) -> np.ndarray | None:
    """``active`` of ``step``: None (every game), or a bool mask of shape (batch_size,)
    (a bool array or a list of bools), returned C-contiguous; anything else raises
    ``ValueError``."""
    if active is None:
        return None
    array = _as_array("active", active)
    if array.dtype != bool or array.shape != (batch_size,):
        raise ValueError(f"active must be a bool mask of shape ({batch_size},); got "
                         f"{_describe(array)}")
    return np.ascontiguousarray(array)


def check_actions(actions: object, batch_size: int) -> np.ndarray:
    """int64 [batch_size], C-contiguous: ``actions`` of ``step``, an integer array (or
    list of ints) of shape (batch_size,). Floats are refused, never truncated; bools,
    strings and other shapes too (``ValueError`` naming ``actions``). Whether each action
    is legal is the engine's check."""
    if (type(actions) is np.ndarray and actions.dtype is _INT64
            and actions.shape == (batch_size,) and actions.flags.c_contiguous):
        return actions  # what the agents and the samplers return: nothing to convert
    array = _as_array("actions", actions)
    if array.dtype.kind not in "iu" or array.shape != (batch_size,):
        raise ValueError(f"actions must be integers of shape ({batch_size},), one per game; "
                         f"got {_describe(array)}")
    if array.dtype == np.uint64 and len(array) and array.max() >= 2**63:
        raise ValueError(f"actions holds {array.max()}: not an action id")
    return np.ascontiguousarray(array, dtype=np.int64)


def check_seats(seats: object, batch_size: int, num_players: int) -> np.ndarray:
    """intp [batch_size]: ``seats`` of ``observe``, integer seat numbers 0..num_players-1
    of shape (batch_size,), or one integer for every game; anything else (floats, bools,
    another shape, a seat out of range) raises ``ValueError`` naming ``seats``."""
    array = _as_array("seats", seats)
    if array.dtype.kind not in "iu" or array.shape not in ((batch_size,), ()):
        raise ValueError(f"seats must be integers of shape ({batch_size},) (or one integer); "
                         f"got {_describe(array)}")
    if array.size and (array.min() < 0 or array.max() >= num_players):
        raise ValueError(f"seats must be seat numbers in 0..{num_players - 1}; got "
                         f"{array.min() if array.min() < 0 else array.max()}")
    return np.broadcast_to(array, (batch_size,)).astype(np.intp)


def check_out(out: object, batch_size: int, size: int, int8_error: str | None = None
              ) -> None:
    """Raise ``ValueError`` unless ``out`` can take a batch of observations in place: a
    writeable, C-contiguous array of shape ``(batch_size, size)``, float32 or int8 (the
    integer observation, see :attr:`BatchEngine.observation_scale`). ``int8_error``: why
    this engine's configuration cannot give int8 observations (None: it can)."""
    if type(out) is np.ndarray and out.shape == (batch_size, size):
        dtype = out.dtype  # numpy's own float32 and int8 dtypes: an identity is the test
        if dtype is _FLOAT32 or (dtype is _INT8 and int8_error is None):
            flags = out.flags
            if flags.c_contiguous and flags.writeable:
                return  # the common case, checked fastest (a single game's observe)
    if not isinstance(out, np.ndarray):
        raise ValueError(f"out must be a numpy array, got {type(out).__name__}")
    if out.shape != (batch_size, size) or out.dtype not in _OBSERVATION_DTYPES:
        raise ValueError(f"out must be float32 (or int8) of shape ({batch_size}, {size}), "
                         f"got {out.dtype} {out.shape}")
    if out.dtype.kind == "i" and int8_error is not None:  # int8, the one integer dtype
        raise ValueError(f"int8 observations are not available here: {int8_error}")
    flags = out.flags
    if not (flags.c_contiguous and flags.writeable):
        raise ValueError("out must be C-contiguous and writeable")


def observation_buffer(batch_size: int, size: int, dtype: object = None,
                       out: np.ndarray | None = None) -> np.ndarray:
    """The array :meth:`BatchEngine.observe` writes: ``out`` if given (then ``dtype``, if
    given, must be its dtype), else a fresh one of ``dtype`` (float32 by default, or
    int8). Raises ``ValueError`` for another dtype or a mismatch."""
    if dtype is not None and np.dtype(dtype) not in (np.float32, np.int8):
        raise ValueError(f"dtype={dtype!r} is not allowed: expected float32 or int8")
    if out is None:
        return np.empty((batch_size, size), np.float32 if dtype is None else dtype)
    if dtype is not None and getattr(out, "dtype", None) != np.dtype(dtype):
        raise ValueError(f"dtype={np.dtype(dtype)} does not match out's dtype "
                         f"{getattr(out, 'dtype', type(out).__name__)}: give one of them")
    return out


@dataclass(frozen=True)
class Segment:
    """A named slice of an observation vector."""

    name: str
    start: int
    size: int
    description: str

    @property
    def stop(self) -> int:
        return self.start + self.size

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)


class ObservationLayout:
    """An observation vector declared segment by segment (name, size, meaning).

    The layout gives every segment's slice by name and renders the index table for the
    docstrings; segments are contiguous and cover ``size`` exactly, by construction.
    """

    def __init__(self, segments: Sequence[tuple[str, int, str]]):
        self.segments: dict[str, Segment] = {}
        start = 0
        for name, size, description in segments:
            if name in self.segments:
                raise ValueError(f"duplicate observation segment {name!r}")
            self.segments[name] = Segment(name, start, size, description)
            start += size
        self.size = start

    def __getitem__(self, name: str) -> slice:
        return self.segments[name].slice

    def __iter__(self):
        return iter(self.segments.values())

    def table(self) -> str:
        """The layout as a reStructuredText-style index table."""
        rows = [("index", "segment", "meaning")]
        rows += [(f"{s.start}..{s.stop - 1}", s.name, s.description) for s in self]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        rule = "  ".join("=" * w for w in widths)
        lines = [rule, "  ".join(c.ljust(w) for c, w in zip(rows[0], widths, strict=True)), rule]
        lines += [
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in rows[1:]
        ]
        return "\n".join(lines + [rule])


class BatchEngine:
    """The interface every game engine offers (documentation and shared helpers).

    An engine holds ``batch_size`` independent games as fixed-shape numpy arrays with a
    leading batch axis; one :meth:`step` call advances every game by one action. A single
    game is a batch of one. Subclasses set the attributes and implement the methods below.

    Attributes:
        batch_size: number of games B.
        num_players: number of agents (seats that act) P.
        num_actions: size of the flat discrete action space A.
        action_names: one human-readable name per action id.
        layout: the :class:`ObservationLayout` of :meth:`observe`.
        observation_bounds: (low, high) of every observation entry.
        observation_scale: float32 [layout.size], the scale of each column of the int8
            observation: ``observe(out=int8 buffer) * observation_scale`` equals the
            float32 observation (to float32 rounding: at most one unit in the last place).
            Every float32 entry is a small integer times its column's scale (0/1 entries
            and counts: scale 1; fractions such as tricks / cards_each: scale
            1 / cards_each), so the int8 observation loses nothing and is a quarter of the
            bytes. Configurations whose integers can leave -128..127 (long matches) have no
            int8 observation: asking for one raises ``ValueError`` saying why.
        state: the games, a dataclass of fixed-shape arrays with a leading batch axis.

    The driver reads the state through the read-only properties below; each returns the
    state's array of that name (no copy).
    """

    batch_size: int
    num_players: int
    num_actions: int
    action_names: tuple[str, ...]
    layout: ObservationLayout
    observation_bounds: tuple[float, float]
    observation_scale: np.ndarray
    state: Any

    @property
    def current_player(self) -> np.ndarray:
        """int8 [B]: the seat to act in each game; -1 once the episode is over."""
        return self.state.current_player

    @property
    def game_over(self) -> np.ndarray:
        """bool [B]: the episode of that game has ended."""
        return self.state.game_over

    @property
    def deal_over(self) -> np.ndarray:
        """bool [B]: a deal (Abracadabra) or round (Four Aces) ended during the last step."""
        return self.state.deal_over

    @property
    def totals(self) -> np.ndarray:
        """[B, P]: match points so far (M1, K4)."""
        return self.state.totals

    @property
    def winners(self) -> np.ndarray:
        """bool [B, P]: the episode's winners (highest totals), once it is over (M1, K4)."""
        return self.state.winners

    @property
    def last_points(self) -> np.ndarray:
        """[B, P]: the points of the last finished deal or round (S1–S3, K2/K3)."""
        return self.state.last_points

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def reset(self, seed: int | None = None, games: np.ndarray | None = None,
              game_seeds: np.ndarray | None = None) -> None:
        """Start new episodes: all games, or those ``games`` selects (auto-reset of finished
        games): a bool mask of shape (B,) or distinct integer indices in 0..B-1, decided by
        the dtype (:func:`check_games`). ``seed`` (an int >= 0) re-seeds the engine's
        generator; ``game_seeds`` gives the selected games their 64-bit keys, one integer
        each, in the order ``games`` names them (:func:`check_game_seeds`). A bad argument
        raises ``ValueError`` naming it before anything changes (the generator too)."""
        raise NotImplementedError

    def legal_action_mask(self) -> np.ndarray:
        """bool [B, A]: the legal actions of each game's current player (all False where
        the game is over)."""
        raise NotImplementedError

    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None,
                dtype: object = None) -> np.ndarray:
        """float32 [B, layout.size]: each game's observation from ``seats`` (integers of
        shape (B,), or one integer for all, :func:`check_seats`; default the current
        player), seat-relative, as a fresh array; or written in full
        into ``out`` (float32 or int8 [B, layout.size], C-contiguous; see
        :func:`check_out`), which is returned. ``dtype=np.int8`` (or an int8 ``out``)
        gives the integer observation: times :attr:`observation_scale` it is the float32
        one."""
        raise NotImplementedError

    def observe_one(self, seat: int, out: np.ndarray) -> None:
        """Game 0's observation from ``seat`` written into ``out`` (float32 or int8
        [layout.size], C-contiguous), the values of :meth:`observe`, without its argument
        checks: the hot path of the single-game AEC environment (the caller passes a valid
        seat and buffer; the kernel runs as machine code found for such a buffer, see
        :func:`envs.compiled.machine_code`)."""
        raise NotImplementedError

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """Apply one action per game (games where ``active`` is False, or that are over,
        are left alone). ``actions``: integers of shape (B,) (floats are refused, never
        truncated: :func:`check_actions`); ``active``: None or a bool mask of shape (B,)
        (:func:`check_active`). Returns float32 [B, P]: the reward each seat earned by this
        step (non-zero when a deal or round ends). A bad argument or an illegal action
        raises ``ValueError`` naming it, and changes nothing in any game."""
        raise NotImplementedError

    def result(self, game: int = 0) -> dict | None:
        """The result of the last finished deal/round of ``game`` (``info["result"]``),
        or None if none has finished yet."""
        raise NotImplementedError


# -- counter-based randomness -------------------------------------------------------------
# Each game owns a 64-bit key; the k-th shuffle of a game is a pure function of (key, k).
# So a game's deals do not depend on which other games share its batch or on the order in
# which games finish: the same key replays the same deals (duplicate tournaments rely on
# this), and one vectorised call shuffles decks for any subset of the batch.

_MASK64 = np.uint64(0xFFFFFFFFFFFFFFFF)
# splitmix64 and the lanes of hashed_uniform, as uint64 (in the compiled twins below no
# arithmetic then leaves uint64: numba would turn uint64 mixed with int64 into float64)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LANE = np.uint64(0xD1B54A32D192ED03)
_SHIFT_30 = np.uint64(30)
_SHIFT_27 = np.uint64(27)
_SHIFT_31 = np.uint64(31)
_SHIFT_11 = np.uint64(11)  # 64 - 53: the top 53 bits make the float
_UNIT = 1.0 / 2**53


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise on uint64 (a good 64-bit mixing hash)."""
    with np.errstate(over="ignore"):
        z = x.astype(np.uint64) + _GOLDEN
        z = (z ^ (z >> _SHIFT_30)) * _MIX1
        z = (z ^ (z >> _SHIFT_27)) * _MIX2
        return z ^ (z >> _SHIFT_31)


def random_keys(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` fresh 64-bit game keys drawn from ``rng``: the numbers (and the generator's
    state after) of ``rng.integers(0, 2**63, size=n, dtype=np.int64)`` as uint64.

    From a PCG64 generator (``np.random.default_rng``'s, the engines') they are its raw
    64-bit outputs shifted right once, which is what numpy's Lemire draw of that range
    computes (the high word of ``x * 2**63``, never rejected: its threshold is 0),
    without ``integers``' argument handling, which dominates a reset of a few games.
    ``tests/envs/test_int8_and_sampler_fast_paths.py`` checks both ways against each
    other."""
    if type(rng.bit_generator) is np.random.PCG64:
        return rng.bit_generator.random_raw(n) >> np.uint64(1)
    return rng.integers(0, 2**63, size=n, dtype=np.int64).astype(np.uint64)


def games_to_reset(
    batch_size: int,
    games: object,
    game_seeds: object,
    rng: np.random.Generator | None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """The rows a ``reset(games=…, game_seeds=…)`` call starts and their 64-bit keys.

    ``games`` (see :func:`check_games`; None: every game) selects the rows, returned in
    ascending order. ``game_seeds`` (see :func:`check_game_seeds`) holds one key per
    selected game, in the order ``games`` names them (for a mask: ascending rows); None
    draws fresh keys from ``rng``, or returns None for the keys when ``rng`` is None (the
    caller validates first and draws after re-seeding). Bad arguments raise ValueError
    before anything is drawn.
    """
    rows = np.arange(batch_size) if games is None else check_games(games, batch_size)
    keys = None if game_seeds is None else check_game_seeds(game_seeds, len(rows))
    # every game or a mask: the rows are ascending already (the batch loop's case)
    if games is not None and not (type(games) is np.ndarray and games.dtype == bool):
        order = np.argsort(rows, kind="stable")
        rows = rows[order]
        keys = None if keys is None else keys[order]
    if keys is not None:
        return rows, keys
    return rows, (None if rng is None else random_keys(rng, len(rows)))


def hashed_uniform(keys: np.ndarray, counters: np.ndarray, size: int) -> np.ndarray:
    """float64 [N, size] in [0, 1): a pure function of each (key, counter) pair."""
    with np.errstate(over="ignore"):
        base = splitmix64(keys.astype(np.uint64) ^ splitmix64(counters.astype(np.uint64)))
        lanes = np.arange(size, dtype=np.uint64) * _LANE
        bits = splitmix64(base[:, None] + lanes[None, :])
    return (bits >> _SHIFT_11).astype(np.float64) * _UNIT


# seat arithmetic of the observation kernels: players rotated so that the observer is slot 0
@kernel
def seat_at(slot: int, seat: int, num_players: int) -> int:
    """The player ``slot`` places to the left of ``seat`` (0 <= slot < num_players):
    ``(seat + slot) % num_players`` by a subtraction, where ``%`` costs a division."""
    player = seat + slot
    return player - num_players if player >= num_players else player


@kernel
def seat_index(slot: int, seat: int, num_players: int) -> np.uintp:
    """:func:`seat_at` as an unsigned integer, to index a state array's seats with: numba
    adds the length to a negative signed index, and a computed seat could be negative as
    far as the compiler can tell, which costs every seat index an addition."""
    return np.uintp(seat_at(slot, seat, num_players))


@kernel
def slot_of(player: int, seat: int, num_players: int) -> int:
    """The relative slot of ``player`` (0 .. num_players - 1) for observer ``seat``:
    ``(player - seat) % num_players`` by an addition (the inverse of :func:`seat_at`)."""
    slot = player - seat
    return slot + num_players if slot < 0 else slot


def observation_entry(row: np.ndarray, n: int, divisor: float) -> float:
    """The observation entry of the integer ``n`` (a count, points, chips) in ``row``: for a
    float32 row the float64 quotient ``n / divisor`` (which the row rounds once, as numpy
    does), for an int8 row ``n`` itself (the integer observation, whose scale holds
    ``1 / divisor``). In a kernel the choice is made when it compiles, by the row's dtype:
    read from a flag at run time, it would cost each entry a branch and two
    conversions."""
    return n if row.dtype == np.int8 else n / divisor


@overload(observation_entry, jit_options={"_nrt": False}, inline="always")
def _observation_entry(row, n, divisor):
    if row.dtype == types.int8:
        return lambda row, n, divisor: n
    return lambda row, n, divisor: n / divisor


# compiled twins of splitmix64, hashed_uniform and stable_argsort_rows, one row at a time
# (the engines' deal kernels)


@kernel
def splitmix64_one(x: np.uint64) -> np.uint64:
    """The splitmix64 finaliser of one uint64, wrapping modulo 2**64: the value of
    :func:`splitmix64`."""
    z = x + _GOLDEN
    z = (z ^ (z >> _SHIFT_30)) * _MIX1
    z = (z ^ (z >> _SHIFT_27)) * _MIX2
    return z ^ (z >> _SHIFT_31)


@kernel
def hashed_uniform_row(key: np.uint64, counter: np.uint64, out: np.ndarray) -> None:
    """Write into ``out`` (float64 [n]) the row of :func:`hashed_uniform` for
    ``(key, counter)``: lane i is ``splitmix64(base + i * LANE)`` with ``base =
    splitmix64(key ^ splitmix64(counter))``, its top 53 bits times 2**-53 (exact in
    float64, as numpy's conversion is)."""
    base = splitmix64_one(key ^ splitmix64_one(counter))
    for i in range(out.shape[0]):
        bits = splitmix64_one(base + np.uint64(i) * _LANE)
        out[i] = np.float64(bits >> _SHIFT_11) * _UNIT


@kernel
def stable_order(u: np.ndarray, order: np.ndarray, ordered: np.ndarray,
                 bucket_start: np.ndarray) -> None:
    """Write into ``order`` (int [n]) ``np.argsort(u, kind="stable")`` of ``u`` (float64
    [n], every value in [0, 1), as :func:`hashed_uniform_row` gives): a stable counting
    sort into ``len(bucket_start) - 1`` equal buckets by value (the bucket rises with the
    value), then an insertion sort of the nearly ordered result, which a strict comparison
    keeps stable. Equal values keep their index order throughout. ``ordered`` (float64
    [n]) and ``bucket_start`` (int [buckets + 1]) are scratch; ``u`` is left as it is."""
    n = u.shape[0]
    buckets = bucket_start.shape[0] - 1
    for b in range(buckets + 1):
        bucket_start[b] = 0
    for i in range(n):
        bucket_start[int(u[i] * buckets) + 1] += 1
    for b in range(buckets):
        bucket_start[b + 1] += bucket_start[b]
    for i in range(n):  # in index order: stable
        b = int(u[i] * buckets)
        k = bucket_start[b]
        bucket_start[b] = k + 1
        ordered[k] = u[i]
        order[k] = i
    for i in range(1, n):
        v = ordered[i]
        o = order[i]
        j = i
        while j > 0 and ordered[j - 1] > v:
            ordered[j] = ordered[j - 1]
            order[j] = order[j - 1]
            j -= 1
        ordered[j] = v
        order[j] = o


@kernel
def shuffle_order(key: np.uint64, counter: np.uint64, u: np.ndarray, order: np.ndarray,
                  ordered: np.ndarray, bucket_start: np.ndarray) -> None:
    """Write into ``order`` (int [n]) the permutation :func:`shuffled` applies for
    ``(key, counter)``: the stable sort of :func:`hashed_uniform_row` (``u``,
    ``ordered``: float64 [n] scratch; ``bucket_start``: :func:`stable_order`'s)."""
    hashed_uniform_row(key, counter, u)
    stable_order(u, order, ordered, bucket_start)


def stable_argsort_rows(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, axis=1, kind="stable")`` of a 2-d array, faster on short
    rows: numpy's default sort orders the rows, and only rows holding
    equal values (practically never for hash draws) are sorted again stably. A row without
    ties has one ascending order, so the result is exactly the stable argsort's."""
    if len(values) < 32:  # a few rows: the checks would cost more than they save
        return np.argsort(values, axis=1, kind="stable")
    order = np.argsort(values, axis=1)
    ordered = np.sort(values, axis=1)  # (cheaper than gathering values by order)
    tied = np.flatnonzero(ordered[:, 1:] == ordered[:, :-1]) // max(values.shape[1] - 1, 1)
    if len(tied):
        tied = np.unique(tied)
        order[tied] = np.argsort(values[tied], axis=1, kind="stable")
    return order


def shuffled(keys: np.ndarray, counters: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """[N, len(cards)]: ``cards`` in an independent random order for every (key, counter)."""
    order = stable_argsort_rows(hashed_uniform(keys, counters, len(cards)))
    return np.asarray(cards)[order]


# -- uniform random legal actions ------------------------------------------------------------
def sample_uniform_legal(rng: np.random.Generator, action_masks: np.ndarray) -> np.ndarray:
    """int64 [N]: one action per row of ``action_masks`` (bool [N, A]), drawn exactly
    uniformly among the row's legal (True) entries.

    A faster sibling of :func:`agents.base.sample_legal` (the same distribution, a
    different random stream) for random play at any batch size: instead of one random
    number per entry it draws one integer ``r`` per row, uniform in ``0..count - 1``, and
    returns the position of the row's ``r``-th legal entry. The numbers are those of
    ``rng.integers(0, counts)``; counting, drawing and finding run as one compiled loop
    over the rows (:func:`_draw_legal`, drawing through :mod:`envs.bit_generator`), so a
    batch of one pays no per-call overhead of numpy's. A row without a legal action raises
    ``ValueError`` before anything is drawn.
    """
    masks = action_masks if type(action_masks) is np.ndarray else np.asarray(action_masks)
    if masks.ndim != 2 or masks.dtype is not _BOOL:
        raise ValueError(f"action_masks must be a bool array [N, A], got {masks.dtype} "
                         f"{masks.shape}")
    if not masks.flags.c_contiguous:
        masks = np.ascontiguousarray(masks)
    out = np.empty(len(masks), np.int64)
    # one type signature: C-contiguous bool masks, an int address, int64 out
    draw_legal = machine_code(_MACHINE_CODE, "draw", _draw_legal, (masks, 0, out))
    generator = rng.bit_generator
    with generator.lock:  # as numpy's own draws do
        row = draw_legal(masks, _address(generator), out)
    if row >= 0:
        raise ValueError(f"row {row} of action_masks has no legal action: nothing to "
                         "choose from (expected at least one True per row)")
    return out


#: the machine code of :func:`_draw_legal`, found once (:func:`envs.compiled.machine_code`)
_MACHINE_CODE: dict = {}
#: (the bit generator :func:`_address` saw last, its ``bitgen_t`` address): one tuple,
#: replaced whole, so that a thread never reads one generator with another's address
_LAST_GENERATOR: tuple = (None, 0)


def _address(generator: np.random.BitGenerator) -> int:
    """:func:`envs.bit_generator.address` of ``generator``, read once while it is the one
    drawn from (a program samples from one generator after another, and reading the
    address is a noticeable part of a single game's sampling). Holds the last generator
    alive."""
    global _LAST_GENERATOR
    last = _LAST_GENERATOR
    if last[0] is not generator:
        last = _LAST_GENERATOR = (generator, generator.ctypes.bit_generator.value)
    return last[1]


@kernel
def _draw_legal(legal: np.ndarray, bitgen: int, out: np.ndarray) -> int:
    """``out[i]``: the ``r``-th (0-based) True entry of ``legal[i]`` (bool, C-contiguous),
    ``r`` drawn uniform below the row's count from the bit generator at ``bitgen``, row by
    row as ``Generator.integers(0, counts)`` draws. Returns -1, or the first row without a
    True entry, having drawn nothing. Counts and skips 8 entries at a time
    (:func:`envs.compiled.flag_count`)."""
    width = legal.shape[1]
    words = width // 8
    for i in range(legal.shape[0]):
        count = 0
        for w in range(words):
            count += flag_count(legal, i * width + 8 * w)
        for a in range(8 * words, width):
            count += legal[i, a]
        if count == 0:
            return i
        out[i] = count
    for i in range(legal.shape[0]):  # the draws apart: each is a call the compiler cannot see
        out[i] = bit_generator.bounded(bitgen, out[i])  # into, after which it reloads all
    for i in range(legal.shape[0]):
        left = out[i]
        # without branches, whose exits a random r mispredicts: the words that hold at most
        # r of the row's True entries, up to each one's end, come before the r-th's word
        found = before = total = 0
        for w in range(words):
            in_word = flag_count(legal, i * width + 8 * w)
            total += in_word
            past = np.int64(total <= left)
            found += past
            before += in_word * past
        left -= before
        if found < words:
            out[i] = 8 * found + flag_rank(legal, i * width + 8 * found, left)
        else:
            for a in range(8 * words, width):
                left -= legal[i, a]
                if left < 0:
                    out[i] = a
                    break
    return -1
