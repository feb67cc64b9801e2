"""Pieces shared by the game engines: config validation and observation layouts.

Nothing here imports an RL framework; the engines stay pure numpy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np


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


def check_out(out: object, batch_size: int, size: int, int8_error: str | None = None
              ) -> None:
    """Raise ``ValueError`` unless ``out`` can take a batch of observations in place: a
    writeable, C-contiguous array of shape ``(batch_size, size)``, float32 or int8 (the
    integer observation, see :attr:`BatchEngine.observation_scale`). ``int8_error``: why
    this engine's configuration cannot give int8 observations (None: it can)."""
    if not isinstance(out, np.ndarray):
        raise ValueError(f"out must be a numpy array, got {type(out).__name__}")
    if out.shape != (batch_size, size) or out.dtype not in (np.float32, np.int8):
        raise ValueError(f"out must be float32 (or int8) of shape ({batch_size}, {size}), "
                         f"got {out.dtype} {out.shape}")
    if out.dtype == np.int8 and int8_error is not None:
        raise ValueError(f"int8 observations are not available here: {int8_error}")
    if not (out.flags.c_contiguous and out.flags.writeable):
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
        current_player: int8 [B], the seat to act in each game; -1 once the game is over.
        game_over: bool [B], the episode of that game has ended.
    """

    batch_size: int
    num_players: int
    num_actions: int
    action_names: tuple[str, ...]
    layout: ObservationLayout
    observation_bounds: tuple[float, float]
    observation_scale: np.ndarray
    current_player: np.ndarray
    game_over: np.ndarray

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def reset(self, seed: int | None = None, games: np.ndarray | None = None) -> None:
        """Start new episodes: all games, or only those where the bool mask ``games`` is
        set (auto-reset of finished games). ``seed`` re-seeds the engine's generator."""
        raise NotImplementedError

    def legal_action_mask(self) -> np.ndarray:
        """bool [B, A]: the legal actions of each game's current player (all False where
        the game is over)."""
        raise NotImplementedError

    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None,
                dtype: object = None) -> np.ndarray:
        """float32 [B, layout.size]: each game's observation from ``seats`` (int [B];
        default the current player), seat-relative, as a fresh array; or written in full
        into ``out`` (float32 or int8 [B, layout.size], C-contiguous; see
        :func:`check_out`), which is returned. ``dtype=np.int8`` (or an int8 ``out``)
        gives the integer observation: times :attr:`observation_scale` it is the float32
        one."""
        raise NotImplementedError

    def observe_one(self, seat: int, out: np.ndarray) -> None:
        """Game 0's observation from ``seat`` written into ``out`` (float32 [layout.size]),
        the values of :meth:`observe`, without its argument checks: the hot path of the
        single-game AEC environment (the caller passes a valid seat and buffer)."""
        raise NotImplementedError

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """Apply one action per game (games where ``active`` is False, or that are over,
        are left alone). Returns float32 [B, P]: the reward each seat earned by this step
        (non-zero when a deal or round ends). An illegal action raises ``ValueError``
        naming it, and changes nothing in any game."""
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


def splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise on uint64 (a good 64-bit mixing hash)."""
    with np.errstate(over="ignore"):
        z = x.astype(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def random_keys(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` fresh 64-bit game keys drawn from ``rng``."""
    return rng.integers(0, 2**63, size=n, dtype=np.int64).astype(np.uint64)


def games_to_reset(
    batch_size: int,
    games: np.ndarray | None,
    game_seeds: np.ndarray | None,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """The rows a ``reset(games=…, game_seeds=…)`` call starts and their 64-bit keys.

    ``games`` is a bool mask of shape (batch_size,) (None: every game); ``game_seeds`` one
    key per reset game (None: fresh keys from ``rng``). Bad arguments raise ValueError.
    """
    if games is None:
        rows = np.arange(batch_size)
    else:
        games = np.asarray(games, dtype=bool)
        if games.shape != (batch_size,):
            raise ValueError(f"games must be a bool mask of shape ({batch_size},)")
        rows = np.flatnonzero(games)
    if game_seeds is None:
        return rows, random_keys(rng, len(rows))
    try:
        keys = np.asarray(game_seeds, dtype=np.uint64).reshape(-1)
    except (OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"game_seeds must be integers in 0..2**64-1: {error}") from None
    if len(keys) != len(rows):
        raise ValueError(f"game_seeds holds {len(keys)} seeds for {len(rows)} games")
    return rows, keys


def hashed_uniform(keys: np.ndarray, counters: np.ndarray, size: int) -> np.ndarray:
    """float64 [N, size] in [0, 1): a pure function of each (key, counter) pair."""
    with np.errstate(over="ignore"):
        base = splitmix64(keys.astype(np.uint64) ^ splitmix64(counters.astype(np.uint64)))
        lanes = np.arange(size, dtype=np.uint64) * np.uint64(0xD1B54A32D192ED03)
        bits = splitmix64(base[:, None] + lanes[None, :])
    return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / 2**53)


def stable_argsort_rows(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, axis=1, kind="stable")`` of a 2-d array, about twice as fast
    on short rows: numpy's default sort orders the rows, and only rows holding
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
_BYTE_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def _nth_set_bit_table() -> np.ndarray:
    """int64 [256 * 8]: entry ``byte * 8 + r`` is the position of the r-th (0-based) set
    bit of ``byte`` (0 where ``byte`` has no r-th set bit)."""
    table = np.zeros((256, 8), np.int64)
    for byte in range(256):
        positions = [k for k in range(8) if byte >> k & 1]
        table[byte, : len(positions)] = positions
    return table.reshape(-1)


_NTH_SET_BIT = _nth_set_bit_table()


def popcount64(x: np.ndarray) -> np.ndarray:
    """uint8: the number of set bits of every uint64 of ``x`` (``np.bitwise_count`` on
    numpy >= 2, a byte table before)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x)
    x = np.ascontiguousarray(x, np.uint64)
    return _BYTE_POPCOUNT[x.view(np.uint8)].reshape(*x.shape, 8).sum(axis=-1, dtype=np.uint8)


def sample_uniform_legal(rng: np.random.Generator, action_masks: np.ndarray) -> np.ndarray:
    """int64 [N]: one action per row of ``action_masks`` (bool [N, A]), drawn exactly
    uniformly among the row's legal (True) entries.

    A faster sibling of :func:`agents.base.sample_legal` (the same distribution, a
    different random stream) for random play at large batch sizes: instead of one random
    number per entry it draws one integer ``r`` per row, uniform in ``0..count - 1``
    (``Generator.integers`` is unbiased), and returns the position of the row's ``r``-th
    legal entry. The rows are packed into 64-bit words (one ``np.packbits``), counted with
    :func:`popcount64`, and the ``r``-th set bit of the right word is found by a binary
    search of three steps down to its byte, then a table lookup; every step is a few
    vectorised calls over the rows.
    A row without a legal action raises ``ValueError``.
    """
    masks = np.asarray(action_masks)
    if masks.ndim != 2 or masks.dtype != bool:
        raise ValueError(f"action_masks must be a bool array [N, A], got {masks.dtype} "
                         f"{masks.shape}")
    n, a = masks.shape
    width = -(-a // 64)  # 64-bit words per row
    padded = np.zeros((n, 64 * width), bool)
    padded[:, :a] = masks
    words = np.packbits(padded.reshape(-1), bitorder="little").view("<u8").reshape(n, width)
    counts = popcount64(words).astype(np.int64)  # legal entries per word
    total = counts[:, 0].copy()
    for w in range(1, width):
        total += counts[:, w]
    if total.min(initial=1) == 0:
        row = int(np.argmin(total))
        raise ValueError(f"row {row} of action_masks has no legal action: nothing to "
                         "choose from (expected at least one True per row)")
    r = rng.integers(0, total)  # the r-th legal entry of the row (0-based) is drawn
    word = np.zeros(n, np.intp)  # the word holding it, and r within that word
    for w in range(width - 1):
        skip = (word == w) & (r >= counts[:, w])
        r -= np.where(skip, counts[:, w], 0)
        word += skip
    x = words.reshape(-1).take(np.arange(n) * width + word)
    r = r.astype(np.uint8)  # < 64 now: compared with popcounts (uint8) without casts
    # the byte holding the r-th set bit: the largest multiple of 8 with at most r set
    # bits below it (three halving steps), then the bit within that byte from a table
    position = np.zeros(n, np.uint64)
    one = np.uint64(1)
    for step in (32, 16, 8):
        trial = position + np.uint64(step)
        below = popcount64(x & ((one << trial) - one))
        position = np.where(below <= r, trial, position)
    r -= popcount64(x & ((one << position) - one))  # r-th set bit of the byte
    byte = (x >> position) & np.uint64(0xFF)
    bit = _NTH_SET_BIT.take(byte.astype(np.intp) * 8 + r)
    return word * 64 + position.astype(np.int64) + bit
