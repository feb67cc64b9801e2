"""The server's sessions (games being played, files being replayed), kept apart, counted
in bytes and evicted.

Each session has an unguessable id (``secrets.token_urlsafe``) and is reachable only by
it. Each kind of session has its own :class:`Budget` (a number of sessions, a number of
bytes, an idle time), so a flood of one kind never locks out the other: a stream of
uploads evicts replays, never games being played.

A session tells its size in bytes (``nbytes``, an estimate of what it holds; 64 KiB if
it does not say). A session idle for its kind's ``idle_seconds`` is evicted, a finished
game already after ``finished_seconds``. When a new session would exceed its kind's
budget, sessions of that kind make room, in this order: finished ones, replays never read
since they were uploaded, ones idle for ``min_idle_seconds``, and replays still in use
(:attr:`Budget.replaceable`), least recently used first; if that is not enough (games
all in use), the new session is refused (:class:`Full`, 503).
:meth:`SessionStore.sweep` applies the same budgets to sessions that grew (a replay that
opened a long game).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

#: the size of a session that does not tell its own
DEFAULT_NBYTES = 64 * 1024
MiB = 1024 * 1024


class Full(RuntimeError):
    """No room for another session."""


@dataclass(frozen=True)
class Budget:
    """What the sessions of one kind may hold together."""

    max_sessions: int
    max_bytes: int
    idle_seconds: float
    #: replays: when room is needed, sessions never read since they were made go first (a
    #: flood of uploads evicts its own), and if that is not enough, the least recently
    #: used ones even if in use (a file can be opened again), so uploads are never
    #: refused; games are not (their players may be thinking), so a full store refuses
    #: new ones
    replaceable: bool = False


#: the default budgets: docs/security.md quotes them
BUDGETS = {
    "play": Budget(max_sessions=1000, max_bytes=192 * MiB, idle_seconds=1800.0),
    "replay": Budget(max_sessions=200, max_bytes=256 * MiB, idle_seconds=600.0,
                     replaceable=True),
}


@dataclass
class _Entry:
    session: object
    kind: str
    touched: float
    reads: int = 0
    nbytes: int = field(default=0)


def size_of(session: object) -> int:
    """``session.nbytes`` (its own estimate of the bytes it holds), or the default."""
    size = getattr(session, "nbytes", None)
    return int(size) if isinstance(size, int) else DEFAULT_NBYTES


class SessionStore:
    """Sessions by id (see the module docstring). Thread-safe.

    ``budgets``: kind -> :class:`Budget` (default :data:`BUDGETS`); ``max_sessions`` and
    ``idle_seconds``, if given, replace those of every kind (tests)."""

    def __init__(self, max_sessions: int | None = None, idle_seconds: float | None = None,
                 finished_seconds: float = 600.0, min_idle_seconds: float = 60.0,
                 clock: Callable[[], float] = time.monotonic,
                 budgets: dict[str, Budget] | None = None):
        budgets = dict(budgets or BUDGETS)
        for kind, b in budgets.items():
            budgets[kind] = Budget(b.max_sessions if max_sessions is None else max_sessions,
                                   b.max_bytes,
                                   b.idle_seconds if idle_seconds is None else idle_seconds,
                                   b.replaceable)
        self.budgets = budgets
        self.finished_seconds = finished_seconds
        self.min_idle_seconds = min_idle_seconds
        self.clock = clock
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self.evicted = 0  # sessions evicted so far

    def __len__(self) -> int:
        return len(self._entries)

    @staticmethod
    def _finished(session: object) -> bool:
        return bool(getattr(session, "over", False))

    def _budget(self, kind: str) -> Budget:
        if kind not in self.budgets:
            raise ValueError(f"no budget for sessions of kind {kind!r}")
        return self.budgets[kind]

    def nbytes(self, kind: str | None = None) -> int:
        """The bytes held by the sessions (of ``kind``), as they last told."""
        with self._lock:
            return sum(e.nbytes for e in self._entries.values()
                       if kind is None or e.kind == kind)

    def count(self, kind: str) -> int:
        """The sessions of ``kind``."""
        with self._lock:
            return sum(1 for e in self._entries.values() if e.kind == kind)

    def _drop(self, key: str) -> None:
        del self._entries[key]
        self.evicted += 1

    def _expire(self, now: float) -> None:
        for key, entry in list(self._entries.items()):
            limit = (self.finished_seconds if self._finished(entry.session)
                     else self._budget(entry.kind).idle_seconds)
            if now - entry.touched > limit:
                self._drop(key)

    def _make_room(self, kind: str, sessions: int, nbytes: int, now: float,
                   keep: str | None = None) -> bool:
        """Evict sessions of ``kind`` (never ``keep``) until ``sessions`` more of them and
        ``nbytes`` more bytes fit its budget; False if they cannot."""
        budget = self._budget(kind)
        mine = [(k, e) for k, e in self._entries.items() if e.kind == kind and k != keep]
        count = sum(1 for e in self._entries.values() if e.kind == kind)
        held = sum(e.nbytes for e in self._entries.values() if e.kind == kind)

        def fits() -> bool:
            return count + sessions <= budget.max_sessions and held + nbytes <= budget.max_bytes

        if fits():
            return True
        mine.sort(key=lambda kv: kv[1].touched)
        finished = [kv for kv in mine if self._finished(kv[1].session)]
        live = [kv for kv in mine if not self._finished(kv[1].session)]
        unread = [kv for kv in live if budget.replaceable and not kv[1].reads]
        first = {k for k, _ in unread}
        idle = [kv for kv in live if kv[0] not in first
                and now - kv[1].touched > self.min_idle_seconds]
        first |= {k for k, _ in idle}
        busy = [kv for kv in live if budget.replaceable and kv[0] not in first]
        order = finished + unread + idle + busy
        for key, entry in order:
            self._drop(key)
            count -= 1
            held -= entry.nbytes
            if fits():
                return True
        return False

    def sweep(self) -> None:
        """Evict the idle and the finished sessions, and sessions that grew past their
        kind's byte budget (the least recently used first)."""
        now = self.clock()
        with self._lock:
            self._expire(now)
            for entry in self._entries.values():
                entry.nbytes = size_of(entry.session)
            for kind in {e.kind for e in self._entries.values()}:
                newest = max((kv for kv in self._entries.items() if kv[1].kind == kind),
                             key=lambda kv: kv[1].touched)[0]
                self._make_room(kind, 0, 0, now, keep=newest)

    def add(self, session: object) -> str:
        """Store ``session``; return its new id. Raises :class:`Full`."""
        kind = getattr(session, "kind", "play")
        budget = self._budget(kind)
        size = size_of(session)
        if size > budget.max_bytes:
            raise Full(f"this {kind} session would hold {size // 1024} KiB, more than the "
                       f"{budget.max_bytes // 1024} KiB the server keeps for all of them")
        now = self.clock()
        with self._lock:
            self._expire(now)
            if not self._make_room(kind, 1, size, now):
                raise Full(f"the server holds {budget.max_sessions} {kind} sessions or "
                           f"{budget.max_bytes // MiB} MiB of them, all in use; try again "
                           "later")
            key = secrets.token_urlsafe(16)
            self._entries[key] = _Entry(session, kind, now, nbytes=size)
            return key

    def get(self, key: str, kind: str) -> object | None:
        """The session ``key`` of ``kind`` ("play" / "replay"), touched; None if none."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.kind != kind:
                return None
            entry.touched = self.clock()
            entry.reads += 1
            return entry.session

    def remove(self, key: str) -> bool:
        """Remove the session ``key``; False if there was none."""
        with self._lock:
            return self._entries.pop(key, None) is not None
