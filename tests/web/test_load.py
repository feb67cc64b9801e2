"""Load: 50 concurrent clients play random legal games through the HTTP API against a real
uvicorn server (a separate process) for a bounded time; no request may fail and no game
may be lost or mixed up. Latency percentiles go to ``load.md`` in the results folder
(``CARDRL_WEB_RESULTS``; a temporary folder by default). ``CARDRL_LOAD_SECONDS`` sets the
duration (default 20)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from web.background import free_port
from web.records_io import check_game

CLIENTS = 50
SECONDS = float(os.environ.get("CARDRL_LOAD_SECONDS", "20"))
TABLES = [
    ("abracadabra", {"variant": "two"}, 2),
    ("abracadabra", {"variant": "three"}, 3),
    ("four_aces", {"num_players": 3}, 3),
    ("four_aces", {"num_players": 4}, 4),
]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server_url():
    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "--factory", "web.app:create_app",
               "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning",
               "--no-access-log", "--backlog", "1024",
               # longer than the client's 5 s keep-alive expiry: with equal timeouts the
               # server could close an idle connection just as a client reuses it (a
               # ReadError seen once in CI on the 2-core machine)
               "--timeout-keep-alive", "60"]
    proc = subprocess.Popen(command, cwd=ROOT)
    url = f"http://127.0.0.1:{port}"
    import httpx

    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(url + "/api/catalog", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            pytest.fail("the uvicorn server did not start")
        time.sleep(0.2)
    yield url
    proc.terminate()
    proc.wait(timeout=20)


class Stats:
    def __init__(self):
        self.latency: dict[str, list[float]] = {"new": [], "act": [], "next": [],
                                                "record": []}
        self.errors: list[str] = []
        self.games = 0
        self.moves = 0


async def _client(http, number: int, stop: float, stats: Stats) -> None:
    rng = random.Random(number)

    async def call(kind, method, url, **kw):
        t = time.perf_counter()
        r = await http.request(method, url, **kw)
        stats.latency[kind].append(time.perf_counter() - t)
        if r.status_code >= 400:
            raise AssertionError(f"{method} {url}: {r.status_code} {r.text[:200]}")
        return r

    while time.monotonic() < stop:
        game, table, seats = rng.choice(TABLES)
        seat = rng.randrange(seats)
        agents = [None if s == seat else rng.choice(["random", "heuristic"])
                  for s in range(seats)]
        r = await call("new", "POST", "/api/play", json={
            "game": game, "table": table, "seat": seat, "agents": agents,
            "seed": rng.randrange(2**40)})
        state = r.json()
        sid, version = state["id"], state["version"]
        while not state["over"] and time.monotonic() < stop:
            assert state["id"] == sid and state["seat"] == seat and state["game"] == game
            assert state["your_turn"], "a live game that is not the player's turn"
            move = rng.choice(state["legal"])
            state = (await call("act", "POST", f"/api/play/{sid}/act",
                                json={"action": move, "version": version})).json()
            stats.moves += 1
            assert state["id"] == sid and state["version"] == version + 1, "mixed-up game"
            version = state["version"]
            kind, _, card = move.partition(":")
            if kind == "play":  # Abracadabra: a played card leaves the hand for good
                assert card not in state["hand"], "the played card is still in the hand"
        if state["over"]:
            text = (await call("record", "GET", f"/api/play/{sid}/record")).text
            record = json.loads(text.splitlines()[-1])
            assert record["players"][seat] == "human" and record["game"] == game
            assert record["result"] == state["last"]["result"], "another game's result"
            problems = await asyncio.to_thread(check_game, record)
            assert problems == [], problems
            stats.games += 1
        await http.delete(f"/api/play/{sid}")


def _percentiles(values: list[float]) -> str:
    if not values:
        return "| - | - | - | - | - |"
    v = sorted(values)

    def q(p):
        return v[min(len(v) - 1, int(p * len(v)))] * 1000

    return f"| {len(v)} | {q(0.5):.1f} | {q(0.9):.1f} | {q(0.99):.1f} | {v[-1] * 1000:.1f} |"


def test_fifty_clients_play_random_games(server_url, results_dir):
    import httpx

    stats = Stats()

    async def run():
        limits = httpx.Limits(max_connections=CLIENTS + 10)
        async with httpx.AsyncClient(base_url=server_url, limits=limits,
                                     timeout=60) as http:
            stop = time.monotonic() + SECONDS
            outcomes = await asyncio.gather(*(_client(http, k, stop, stats)
                                              for k in range(CLIENTS)),
                                            return_exceptions=True)
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                stats.errors.append(f"{type(outcome).__name__}: {outcome}")

    started = time.monotonic()
    asyncio.run(run())
    wall = time.monotonic() - started
    requests = sum(len(v) for v in stats.latency.values())
    from records.provenance import machine_line, utc_now

    lines = [
        "# Web app under load",
        "",
        f"{CLIENTS} concurrent clients, each playing random legal moves of random tables "
        f"(Abracadabra two / three, Four Aces 3 / 4 players; agents random or heuristic) "
        f"through the HTTP API, every answer with its SVG table, for {SECONDS:g} s against "
        "one uvicorn process on 127.0.0.1. Every finished game's record is replayed and "
        "checked against the engine. A client sends its next request as soon as the last "
        "answer arrives (no think time), so the latencies are mostly time spent queueing "
        "behind the other clients' requests in the one server process.",
        "",
        f"- games finished and checked: {stats.games}; moves: {stats.moves}; "
        f"requests: {requests} in {wall:.1f} s ({requests / wall:.0f}/s); errors: "
        f"{len(stats.errors)}",
        f"- {utc_now()}; {machine_line()}",
        "- regenerate: `CARDRL_WEB_RESULTS=results/web .venv/bin/python -m pytest -q "
        "tests/web/test_load.py`",
        "",
        "| request | count | p50 ms | p90 ms | p99 ms | max ms |",
        "|---|---|---|---|---|---|",
    ]
    names = {"new": "POST /api/play (new game)", "act": "POST /api/play/{id}/act (a move)",
             "next": "POST /api/play/{id}/next", "record": "GET /api/play/{id}/record"}
    for kind, values in stats.latency.items():
        if values:
            lines.append(f"| {names[kind]} {_percentiles(values)}")
    (results_dir / "load.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert not stats.errors, stats.errors[:5]
    assert stats.games >= CLIENTS // 5, f"only {stats.games} games finished"
