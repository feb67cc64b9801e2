"""Session eviction: finished and idle sessions go, a full store makes room or refuses."""

from __future__ import annotations

import pytest

from web.sessions import Full, SessionStore


class _Game:
    kind = "play"

    def __init__(self, over=False):
        self.over = over


def test_idle_and_finished_sessions_are_evicted():
    now = [0.0]
    store = SessionStore(max_sessions=10, idle_seconds=100, finished_seconds=10,
                         clock=lambda: now[0])
    live, done = store.add(_Game()), store.add(_Game(over=True))
    now[0] = 11
    store.sweep()
    assert store.get(done, "play") is None and store.get(live, "play") is not None
    now[0] = 112
    store.sweep()
    assert len(store) == 0 and store.evicted == 2


def test_a_full_store_evicts_finished_then_idle_else_refuses():
    now = [0.0]
    store = SessionStore(max_sessions=2, idle_seconds=1000, finished_seconds=1000,
                         min_idle_seconds=30, clock=lambda: now[0])
    a, b = store.add(_Game()), store.add(_Game(over=True))
    c = store.add(_Game())  # b (finished) makes room
    assert store.get(b, "play") is None and store.get(a, "play") is not None
    with pytest.raises(Full):
        store.add(_Game())  # a and c are active and were used just now
    now[0] = 40
    store.get(c, "play")  # c is touched, a has been idle 40 s
    store.add(_Game())
    assert store.get(a, "play") is None and store.get(c, "play") is not None


def test_sessions_are_found_only_by_id_and_kind():
    store = SessionStore()
    key = store.add(_Game())
    assert len(key) >= 20
    assert store.get(key, "replay") is None
    assert store.get(key + "x", "play") is None
    assert store.remove(key) and not store.remove(key)
