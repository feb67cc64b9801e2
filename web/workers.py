"""Work that takes time (agents playing, replays opened, analyses, uploads parsed, policy
checkpoints loaded) runs in bounded thread pools, never on the event loop.

A :class:`Pool` runs at most ``threads`` calls at once and lets at most ``queue`` more
wait; one more is refused at once with :class:`Busy` (the app answers 503 with its
message), so a flood costs the flooder answers, not the server its memory or the other
users their turn. Threads suffice: the engines and agents spend their time in numba
kernels and numpy/torch calls, and Python switches threads every few milliseconds between
them (``sys.getswitchinterval``).

The app keeps its pools apart (:func:`default_pools`), so games being played are never
queued behind uploads or search agents. A session is used by one request at a time
(:func:`exclusive`); another one at the same time gets :class:`InUse`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class Busy(Exception):
    """A pool's threads and queue are all taken (the app answers 503)."""


class InUse(Exception):
    """A session is busy with another request (the app answers 409)."""


class Pool:
    """A named thread pool with a queue limit (see the module docstring)."""

    def __init__(self, name: str, threads: int, queue: int, what: str):
        if threads < 1 or queue < 0:
            raise ValueError(f"pool {name}: threads must be >= 1 and queue >= 0")
        self.name, self.threads, self.queue, self.what = name, threads, queue, what
        self._executor = ThreadPoolExecutor(threads, thread_name_prefix=f"cardrl-{name}")
        self._taken = 0  # calls running or waiting
        self._lock = threading.Lock()

    @property
    def taken(self) -> int:
        """Calls running or waiting now."""
        return self._taken

    async def run(self, fn: Callable[..., T], *args) -> T:
        """``fn(*args)`` in a thread of the pool; :class:`Busy` if the pool is full."""
        with self._lock:
            if self._taken >= self.threads + self.queue:
                raise Busy(f"the server is busy with {self.what} ({self._taken} under way); "
                           "try again in a few seconds")
            self._taken += 1
        try:
            future = self._executor.submit(fn, *args)
        except RuntimeError:  # shut down
            self._release()
            raise Busy(f"the server is stopping: no more {self.what}") from None
        future.add_done_callback(self._release)  # when done or cancelled, not when abandoned
        return await asyncio.wrap_future(future)

    def _release(self, _future=None) -> None:
        with self._lock:
            self._taken -= 1

    def shutdown(self) -> None:
        """Stop taking work; the calls under way finish in their threads."""
        self._executor.shutdown(wait=False, cancel_futures=True)


def default_pools() -> dict[str, Pool]:
    """The app's pools: ``play`` (games being played: new games, moves, their tables),
    ``replay`` (uploads parsed, replays opened and stepped through) and ``search``
    (agents playing a whole game for ``/api/watch``, and analyses, which ask every agent,
    the search agents too)."""
    return {
        "play": Pool("play", threads=4, queue=64, what="games being played"),
        "replay": Pool("replay", threads=2, queue=16, what="replays and uploads"),
        "search": Pool("search", threads=2, queue=4, what="agents playing and analyses"),
    }


def exclusive(lock: threading.Lock, fn: Callable[..., T], *args) -> T:
    """``fn(*args)`` holding ``lock`` (a session's), or :class:`InUse` at once if another
    request holds it."""
    if not lock.acquire(blocking=False):
        raise InUse("this session is busy with another of your requests; try again")
    try:
        return fn(*args)
    finally:
        lock.release()
