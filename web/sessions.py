"""The server's sessions (games being played, files being replayed), kept apart and
evicted.

Each session has an unguessable id (``secrets.token_urlsafe``) and is reachable only by
it. A session idle for ``idle_seconds`` is evicted, a finished game already after
``finished_seconds``; when ``max_sessions`` are open, the least recently used finished
session, else the least recently used one idle for ``min_idle_seconds``, makes room, and
otherwise a new session is refused (:class:`Full`).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


class Full(RuntimeError):
    """No room for another session."""


@dataclass
class _Entry:
    session: object
    touched: float


class SessionStore:
    """Sessions by id (see the module docstring). Thread-safe."""

    def __init__(self, max_sessions: int = 1000, idle_seconds: float = 1800.0,
                 finished_seconds: float = 600.0, min_idle_seconds: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
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

    def sweep(self) -> None:
        """Evict the idle and the finished sessions."""
        now = self.clock()
        with self._lock:
            for key, entry in list(self._entries.items()):
                limit = self.finished_seconds if self._finished(entry.session) else (
                    self.idle_seconds)
                if now - entry.touched > limit:
                    del self._entries[key]
                    self.evicted += 1

    def add(self, session: object) -> str:
        """Store ``session``; return its new id. Raises :class:`Full`."""
        self.sweep()
        now = self.clock()
        with self._lock:
            if len(self._entries) >= self.max_sessions:
                by_age = sorted(self._entries.items(), key=lambda kv: kv[1].touched)
                victim = next((k for k, e in by_age if self._finished(e.session)), None)
                if victim is None and now - by_age[0][1].touched > self.min_idle_seconds:
                    victim = by_age[0][0]
                if victim is None:
                    raise Full(f"the server holds {self.max_sessions} active sessions; "
                               "try again later")
                del self._entries[victim]
                self.evicted += 1
            key = secrets.token_urlsafe(16)
            self._entries[key] = _Entry(session, now)
            return key

    def get(self, key: str, kind: str) -> object | None:
        """The session ``key`` of ``kind`` ("play" / "replay"), touched; None if none."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or getattr(entry.session, "kind", None) != kind:
                return None
            entry.touched = self.clock()
            return entry.session

    def remove(self, key: str) -> bool:
        with self._lock:
            return self._entries.pop(key, None) is not None
