"""The assertions of the fuzz: each names what failed and the first game where it did."""

from __future__ import annotations

import numpy as np


class InvariantViolation(AssertionError):
    """An invariant of the rules failed; ``game`` is the first game (batch row) where it
    did, or None."""

    def __init__(self, message: str, game: int | None):
        super().__init__(message)
        self.game = game


def _first_bad(ok: np.ndarray) -> int | None:
    """Index along the first axis of the first row of ``ok`` with a False entry."""
    ok = np.asarray(ok)
    if ok.ndim == 0:
        return None if ok else 0
    rows = ok.reshape(len(ok), -1).all(axis=1)
    bad = np.flatnonzero(~rows)
    return int(bad[0]) if len(bad) else None


def _game(rows: np.ndarray | None, i: int) -> int | None:
    if rows is None or np.ndim(rows) == 0 or i >= len(rows):
        return None
    return int(rows[i])


def expect(ok: object, what: str, rows: np.ndarray | None = None) -> None:
    """Raise :class:`InvariantViolation` ("``what``, game g") unless ``ok`` is all True;
    row i of ``ok`` is game ``rows[i]``."""
    ok = np.asarray(ok)
    if ok.all():
        return
    i = _first_bad(ok)
    game = _game(rows, i or 0)
    raise InvariantViolation(f"{what} (game {game})", game)


def expect_equal(got: object, want: object, what: str, rows: np.ndarray | None = None
                 ) -> None:
    """Raise :class:`InvariantViolation` naming the first game where the engine's ``got``
    differs from the rules' ``want`` (row i is game ``rows[i]``), and both values."""
    got, want = np.asarray(got), np.asarray(want)
    equal = got == want
    if np.all(equal):
        return
    equal = np.broadcast_to(equal, np.broadcast_shapes(got.shape, want.shape))
    i = _first_bad(equal)
    game = _game(rows, i or 0)
    shape = equal.shape
    got, want = np.broadcast_to(got, shape), np.broadcast_to(want, shape)
    if i is None or len(shape) < 2:
        where = () if i is None else (i,)
    else:  # the first differing entry of that game's row
        where = (i, *np.unravel_index(int(np.argmin(equal[i].reshape(-1))), shape[1:]))
    at = f" at {list(map(int, where[1:]))}" if len(where) > 1 else ""
    raise InvariantViolation(f"{what} (game {game}{at}): the engine has {got[where]}, the "
                             f"rules say {want[where]}", game)


def close(got: np.ndarray, want: np.ndarray, scale: object) -> np.ndarray:
    """bool: ``got`` equals ``want`` to float64 rounding of sums of magnitude ``scale``
    (per row, broadcast over trailing axes)."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    scale = np.abs(np.asarray(scale, np.float64))
    while scale.ndim < got.ndim:
        scale = scale[..., None]
    return np.abs(got - want) <= 1e-9 + 64 * np.finfo(np.float64).eps * (1 + scale)
