"""The web app against hostile and careless clients (issue 39; docs/security.md).

Each test names the problem of the issue it covers: 1 (another site's page: foreign Host
names, cross-origin changes, bodies that are not JSON; the token), 2 (memory: uploads
bounded before they are parsed, sessions counted in bytes per kind, a flood of uploads
that locks nobody out), 3 (heavy work off the event loop: a move answered within 1 s while
four search agents play and uploads flood), 10 (every bad request a JSON 4xx, never a
500) and 11 (``cardrl serve``: the warning of a network ``--host``, the IPv6 URL, slow
clients timed out). Every refusal is checked to be JSON with a one-line ``error``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
from types import SimpleNamespace

import pytest

from tests.web.conftest import test_client
from web.sessions import Budget, Full, MiB, SessionStore

NDJSON = {"content-type": "application/x-ndjson"}
JSON = {"content-type": "application/json"}
TWO = {"game": "abracadabra", "table": {"variant": "two"}, "seat": 0,
       "agents": [None, "random"], "seed": 1}
TOKEN = "correct-horse-battery-staple-42"


def refused(response, status: int | tuple[int, ...]) -> str:
    """The error line of a JSON refusal with ``status``."""
    statuses = status if isinstance(status, tuple) else (status,)
    assert response.status_code in statuses, (response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/json")
    error = response.json()["error"]
    assert error and "\n" not in error
    return error


@pytest.fixture(scope="module")
def record_line() -> str:
    """One short game record (a Four Aces round of random agents) as a JSON line."""
    from web.catalog import Catalog
    from web.records_io import record_line
    from web.replay import play_out

    return record_line(play_out(Catalog(), "four_aces", {"num_players": 3}, ["random"] * 3,
                                seed=1))


def _app(**kwargs):
    from web.app import create_app

    return create_app(**kwargs)


# -- 1: another site's page ---------------------------------------------------------------
@pytest.mark.parametrize("host", ["evil.example.com", "evil.example.com:8000",
                                  "localhost.evil.example", "127.0.0.1.nip.io",
                                  "10.0.0.7", "[::2]"])
def test_1_foreign_host_names_are_refused(client, host):
    error = refused(client.get("/api/catalog", headers={"host": host}), 421)
    assert "127.0.0.1" in error and "localhost" in error
    refused(client.post("/api/play", json=TWO, headers={"host": host}), 421)
    refused(client.get("/", headers={"host": host}), 421)
    assert len(client.app.state.sessions) == 0


@pytest.mark.parametrize("host", ["", "local host", "a/b", "[::1", "localhost:0",
                                  "localhost:99999", "localhost:x"])
def test_1_malformed_host_headers_are_refused(client, host):
    refused(client.get("/api/catalog", headers={"host": host}), 400)


def test_1_own_names_are_served(client):
    for host in ("localhost", "127.0.0.1", "127.0.0.1:8000", "[::1]", "[::1]:8000",
                 "LOCALHOST"):
        assert client.get("/api/catalog", headers={"host": host}).status_code == 200, host


def test_1_host_policy_names_and_ports():
    from web.guard import HostPolicy, split_host

    def allows(policy, header):
        return policy.allows(*split_host(header))

    local = HostPolicy("127.0.0.1", 8000)
    assert allows(local, "localhost:8000") and allows(local, "[::1]")
    assert not allows(local, "localhost:8001") and not allows(local, "192.168.1.5:8000")
    network = HostPolicy("0.0.0.0", 8000, ["box.lan"])
    assert allows(network, "192.168.1.5:8000") and allows(network, "[fe80::1]:8000")
    assert allows(network, "box.lan:8000") and not allows(network, "evil.example:8000")
    named = HostPolicy("box.lan", None)
    assert allows(named, "box.lan:1234") and not allows(named, "10.0.0.1")


CROSS_SITE = [
    # (what, path, body, headers, status)
    ("another site's JSON", "/api/play", json.dumps(TWO),
     {**JSON, "origin": "http://evil.example"}, 403),
    ("another port of this machine", "/api/play", json.dumps(TWO),
     {**JSON, "origin": "http://localhost:3000"}, 403),
    ("a sandboxed page", "/api/play", json.dumps(TWO), {**JSON, "origin": "null"}, 403),
    ("a form post", "/api/play", json.dumps(TWO), {"origin": "http://evil.example",
     "content-type": "text/plain"}, 403),
    ("text/plain, no Origin", "/api/play", json.dumps(TWO), {"content-type": "text/plain"},
     415),
    ("a form, no Origin", "/api/watch", "game=four_aces",
     {"content-type": "application/x-www-form-urlencoded"}, 415),
    ("multipart", "/api/play", "--x\r\n\r\n--x--",
     {"content-type": "multipart/form-data; boundary=x"}, 415),
    ("no type", "/api/play", json.dumps(TWO), {}, 415),
    ("an upload as text", "/api/replay", "{}\n", {"content-type": "text/plain"}, 415),
    ("an upload from another site", "/api/replay", "{}\n",
     {**NDJSON, "origin": "https://evil.example"}, 403),
]


@pytest.mark.parametrize("what,path,body,headers,status", CROSS_SITE,
                         ids=[c[0] for c in CROSS_SITE])
def test_1_cross_site_changes_are_refused_and_change_nothing(client, what, path, body,
                                                             headers, status):
    refused(client.post(path, content=body, headers=headers), status)
    assert len(client.app.state.sessions) == 0


def test_1_this_servers_own_page_may_change_state(client):
    for origin in ("http://localhost", "http://127.0.0.1"):
        headers = {**JSON, "origin": origin}
        if origin.endswith("127.0.0.1"):
            headers["host"] = "127.0.0.1"
        r = client.post("/api/play", content=json.dumps(TWO), headers=headers)
        assert r.status_code == 201, r.text
        sid = r.json()["id"]
        assert client.delete(f"/api/play/{sid}", headers={"origin": origin,
                                                          "host": headers.get("host",
                                                                              "localhost")}
                             ).status_code == 200
    refused(client.delete("/api/play/x", headers={"origin": "http://evil.example"}), 403)


def test_1_a_token_is_required_when_set():
    with test_client(_app(token=TOKEN), follow_redirects=False) as c:
        error = refused(c.get("/api/catalog"), 401)
        assert "token" in error
        refused(c.get("/"), 401)
        refused(c.get("/api/catalog", headers={"authorization": "Bearer wrong-token-xxxxxx"}),
                401)
        refused(c.get("/?token=wrong"), 401)
        assert c.get("/api/catalog", headers={"authorization": f"Bearer {TOKEN}"}
                     ).status_code == 200
        opened = c.get(f"/?token={TOKEN}")  # the address cardrl serve prints
        assert opened.status_code == 303 and opened.headers["location"] == "/"
        cookie = opened.headers["set-cookie"]
        assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
        assert c.get("/api/catalog").status_code == 200  # the cookie from now on
        assert c.post("/api/play", json=TWO).status_code == 201


# -- 10: every bad request a JSON 4xx, never a 500 ----------------------------------------
BAD_BODIES = [
    ("nested 5,000 deep", b"[" * 5000 + b"]" * 5000),
    ("nested objects", b'{"a":' * 2000 + b"1" + b"}" * 2000),
    ("an integer of 5,000 digits", b'{"game": "abracadabra", "seed": ' + b"7" * 5000 + b"}"),
    ("NaN", b'{"game": "abracadabra", "seed": NaN}'),
    ("Infinity", b'{"seed": -Infinity}'),
    ("a float too large", b'{"seed": 1e999}'),
    ("a lone surrogate", b'{"game": "\\ud800"}'),
    ("trailing garbage", b'{"game": "abracadabra"} x'),
    ("not UTF-8", b'{"game": "\xff"}'),
    ("a list", b"[1, 2]"),
    ("a huge seat", b'{"game": "abracadabra", "table": {"variant": "two"}, "seat": '
                    + b"9" * 4000 + b', "agents": [null, "random"]}'),
    ("agents as objects", b'{"game": "abracadabra", "table": {"variant": "two"}, '
                          b'"agents": [null, {"a": [1]}]}'),
    ("a table of lists", b'{"game": "four_aces", "table": {"num_players": [3]}}'),
]


@pytest.mark.parametrize("path", ["/api/play", "/api/watch"])
@pytest.mark.parametrize("what,body", BAD_BODIES, ids=[b[0] for b in BAD_BODIES])
def test_10_bad_bodies_are_a_json_4xx(client, path, what, body):
    refused(client.post(path, content=body, headers=JSON), 400)
    assert len(client.app.state.sessions) == 0


def test_10_bad_moves_are_a_json_4xx(client):
    sid = client.post("/api/play", json=TWO).json()["id"]
    before = client.get(f"/api/play/{sid}?svg=0").json()
    for _what, body in BAD_BODIES:
        refused(client.post(f"/api/play/{sid}/act", content=body, headers=JSON), 400)
    assert client.get(f"/api/play/{sid}?svg=0").json() == before


def _with(record_line: str, **fields) -> str:
    record = json.loads(record_line)
    record.update(fields)
    return json.dumps(record)


def test_10_hostile_records_are_refused_by_line(client, record_line):
    bad = [
        _with(record_line, players=[1, 2, 3]),
        _with(record_line, players=[{"policy": 1}, None, None]),
        _with(record_line, players=["x" * 1000, None, None]),
        _with(record_line, info={"deep": json.loads("[" * 40 + "]" * 40)}),
        _with(record_line, seed=0).replace('"seed": 0', '"seed": ' + "9" * 5000),
        _with(record_line, result={"points": "NAN"}).replace('"NAN"', "NaN"),
        _with(record_line, result={"points": 1e300}).replace("1e+300", "1e999"),
        "[" + "[]," * 300_000 + "[]]",
    ]
    r = client.post("/api/replay", content="\n".join(bad).encode(), headers=NDJSON)
    error = refused(r, 400)
    assert error.startswith("no game in this file: line 1: players[0]: expected an agent name")
    for number, line in enumerate(bad, start=1):
        error = refused(client.post("/api/replay", content=line.encode(), headers=NDJSON), 400)
        assert error.startswith("no game in this file: line 1: "), (number, error)


def test_10_odd_but_valid_records_are_served(client, record_line):
    """Names the app must echo safely: a lone surrogate, markup, a policy it does not
    offer; every step of the game answers."""
    players = ["\ud800", "<script>alert(1)</script>", "policy:/etc/passwd"]
    line = json.dumps(json.loads(_with(record_line, players=players)))
    r = client.post("/api/replay?name=%ed%a0%80%3cb%3e", content=line.encode(), headers=NDJSON)
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    assert r.json()["games"][0]["players"] == players
    info = client.get(f"/api/replay/{rid}/0").json()
    for step in range(info["steps"] + 1):
        assert client.get(f"/api/replay/{rid}/0/{step}?svg=0").status_code == 200


def test_10_bad_paths_and_queries_are_a_json_4xx(client, record_line):
    rid = client.post("/api/replay", content=record_line.encode(), headers=NDJSON).json()["id"]
    cases = [(f"/api/replay/{rid}/{'9' * 5000}", 400), (f"/api/replay/{rid}/0/1e5", 400),
             (f"/api/replay/{rid}/0/-1", 404), (f"/api/replay/{rid}/0/0?seat=-1", 404),
             (f"/api/replay/{rid}/0/0?seat={'9' * 40}", 400),
             (f"/api/replay/{rid}/0/0?face_up=2", 400), (f"/api/replay/{rid}/-1", 404),
             (f"/api/replay/{rid}/0/{10**6}/analyse", 404), ("/api/replay/nosuch/0", 404),
             ("/api/play/nosuch", 404), ("/api/nothing", 404), ("/static/../app.py", 404)]
    for path, status in cases:
        refused(client.get(path), status)
    refused(client.put("/api/play", json=TWO), 405)
    refused(client.options("/api/play"), 405)  # no CORS preflight is ever allowed


# -- 2: memory bounded in bytes -----------------------------------------------------------
def test_2_an_upload_is_measured_before_it_is_parsed(client):
    """A 4 MiB line of empty lists (1.4 million values: ~100 MB once parsed) is refused
    before Python builds one of them."""
    line = b"[" + b"[]," * 1_390_000 + b"[]]"
    tracemalloc.start()
    try:
        r = client.post("/api/replay", content=line, headers=NDJSON)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "values" in refused(r, 400)
    assert peak < 32 * MiB, f"{peak / MiB:.0f} MiB to refuse a {len(line) / MiB:.0f} MiB file"


def test_2_a_file_of_bad_lines_is_cut_short(client, record_line):
    started = time.monotonic()
    refused(client.post("/api/replay", content=b"x\n" * 1_000_000, headers=NDJSON), 400)
    assert time.monotonic() - started < 5
    r = client.post("/api/replay", content=(record_line + "\n" + "x\n" * 5000).encode(),
                    headers=NDJSON)
    errors = r.json()["errors"]
    assert r.status_code == 201 and len(errors) <= 51 and "the rest is not read" in errors[-1]


def test_2_a_flood_of_uploads_locks_no_player_out(record_line):
    """Each kind of session has its own budget: 40 uploads into room for 14 evict the
    replays never opened, never a game nor a replay being read; every upload and game is
    accepted (before, a full store answered 503 to everyone)."""
    store = SessionStore(max_sessions=14)
    with test_client(_app(store=store)) as c:
        games = [c.post("/api/play", json=TWO).json()["id"] for _ in range(3)]
        viewed = c.post("/api/replay", content=record_line, headers=NDJSON).json()["id"]
        assert c.get(f"/api/replay/{viewed}").status_code == 200
        for _ in range(40):
            r = c.post("/api/replay", content=record_line, headers=NDJSON)
            assert r.status_code == 201, r.text
        assert store.count("replay") <= 14
        assert store.nbytes("replay") <= 14 * (len(record_line) + 16 * 1024)
        assert c.post("/api/play", json=TWO).status_code == 201
        assert all(c.get(f"/api/play/{g}?svg=0").status_code == 200 for g in games)
        assert c.get(f"/api/replay/{viewed}").status_code == 200


def test_2_sessions_are_counted_in_bytes_and_replays_expire_sooner():
    now = [0.0]

    class Replay:
        kind = "replay"

        def __init__(self, nbytes):
            self.nbytes = nbytes

    class Game:
        kind = "play"
        nbytes = 100 * 1024

    budgets = {"play": Budget(100, MiB, 1800.0),
               "replay": Budget(100, 3 * MiB, 600.0, replaceable=True)}
    store = SessionStore(budgets=budgets, clock=lambda: now[0])
    game = store.add(Game())
    a, b = store.add(Replay(MiB)), store.add(Replay(MiB))
    store.get(a, "replay")
    now[0] = 1
    store.add(Replay(2 * MiB))  # b (never read) makes room, not a (being read)
    assert store.get(b, "replay") is None and store.get(a, "replay") is not None
    assert store.nbytes("replay") <= 3 * MiB
    with pytest.raises(Full, match="more than"):
        store.add(Replay(4 * MiB))  # larger than the whole budget
    grown = store.add(Replay(MiB // 2))
    now[0] = 2
    store.get(grown, "replay").nbytes = 3 * MiB  # a replay that opened a long game
    store.sweep()  # a, used less recently, goes
    assert store.nbytes("replay") <= 3 * MiB and store.get(grown, "replay") is not None
    assert store.get(a, "replay") is None
    now[0] = 700  # replays idle 10 minutes go; games stay 30
    store.sweep()
    assert store.count("replay") == 0 and store.get(game, "play") is not None
    for _ in range(9):  # games count in bytes too: 1 MiB is 10 of them
        store.add(Game())
    with pytest.raises(Full, match="try again later"):
        store.add(Game())


def test_2_a_game_keeps_a_bounded_record():
    from web.play import MAX_RECORD_BYTES, MAX_RECORDS, PlaySession

    session = SimpleNamespace(record_lines=[])
    for _ in range(MAX_RECORDS * 2):
        PlaySession._keep(session, "x" * 100_000)
    assert len(session.record_lines) <= MAX_RECORDS
    assert sum(map(len, session.record_lines)) <= MAX_RECORD_BYTES
    PlaySession._keep(session, "y" * (MAX_RECORD_BYTES + 1))  # the last game is kept
    assert session.record_lines == ["y" * (MAX_RECORD_BYTES + 1)]


def test_2_an_open_game_is_counted_at_least_what_it_holds():
    """The estimate of an open replay (web.replay.Positions.nbytes) is not below what
    building it allocated."""
    from web.catalog import Catalog
    from web.replay import Positions, play_out

    record = play_out(Catalog(), "abracadabra", {"variant": "four"}, ["random"] * 4, seed=2)
    Positions(record)  # warm: the first one loads modules
    tracemalloc.start()
    try:
        positions = Positions(record)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held <= positions.nbytes, (held, positions.nbytes)


# -- 3: heavy work off the event loop -----------------------------------------------------
def test_3_moves_are_answered_while_search_agents_play_and_uploads_flood(live_server,
                                                                          record_line):
    """Four ``pimc`` players of Abracadabra (seconds of search) and a client uploading as
    fast as it can: a new game is still answered within 1 s, many times during the
    search."""
    import httpx

    url = live_server.url
    with httpx.Client(base_url=url, timeout=120) as warm:  # policy and kernels loaded
        assert warm.post("/api/watch", json={"game": "abracadabra", "table": {
            "variant": "two"}, "agents": ["pimc", "pimc"], "seed": 3}).status_code == 201
    watched: dict = {}
    flood = {"uploads": 0, "statuses": set()}
    done = threading.Event()

    def watch():
        with httpx.Client(base_url=url, timeout=300) as c:
            r = c.post("/api/watch", json={"game": "abracadabra", "table": {
                "variant": "four"}, "agents": ["pimc"] * 4, "seed": 5})
            watched["status"], watched["ended"] = r.status_code, time.monotonic()
        done.set()

    def upload():
        with httpx.Client(base_url=url, timeout=60) as c:
            while not done.is_set():
                r = c.post("/api/replay", content=record_line, headers=NDJSON)
                flood["uploads"] += 1
                flood["statuses"].add(r.status_code)
                time.sleep(0.01)

    threads = [threading.Thread(target=watch), threading.Thread(target=upload)]
    for t in threads:
        t.start()
    answered = []
    with httpx.Client(base_url=url, timeout=60) as c:
        time.sleep(0.3)
        while not done.is_set():
            started = time.monotonic()
            r = c.post("/api/play", json=TWO)
            answered.append((time.monotonic() - started, time.monotonic()))
            assert r.status_code == 201, r.text
            c.delete(f"/api/play/{r.json()['id']}")
            time.sleep(0.1)
    for t in threads:
        t.join()
    assert watched["status"] == 201
    during = [lat for lat, at in answered if at < watched["ended"]]
    assert len(during) >= 3, answered
    assert max(lat for lat, _ in answered) < 1.0, answered
    assert flood["uploads"] > 10 and max(flood["statuses"]) < 500, flood


def test_3_full_pools_answer_503_at_once(client):
    pools = client.app.state.pools
    pools["search"]._taken = pools["search"].threads + pools["search"].queue
    try:
        r = client.post("/api/watch", json={"game": "four_aces", "table": {"num_players": 3},
                                            "agents": ["random"] * 3})
        assert "busy" in refused(r, 503) and r.headers["retry-after"]
    finally:
        pools["search"]._taken = 0
    assert client.post("/api/play", json=TWO).status_code == 201  # its own pool


def test_3_a_pool_runs_a_bounded_number_of_calls():
    import asyncio

    from web.workers import Busy, Pool

    pool = Pool("t", threads=1, queue=1, what="tests")
    gate = threading.Event()

    async def main():
        first = asyncio.ensure_future(pool.run(gate.wait))
        second = asyncio.ensure_future(pool.run(gate.wait))
        await asyncio.sleep(0.05)
        with pytest.raises(Busy, match="busy with tests"):
            await pool.run(gate.wait)
        gate.set()
        await asyncio.gather(first, second)
        assert pool.taken == 0

    asyncio.run(main())
    pool.shutdown()


# -- 11: cardrl serve ---------------------------------------------------------------------
@pytest.fixture
def served(monkeypatch):
    """What ``cardrl serve`` hands uvicorn (uvicorn.run replaced: nothing is served)."""
    pytest.importorskip("uvicorn")
    seen: dict = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kw: seen.update(app=app, **kw))
    monkeypatch.delenv("CARDRL_SERVE_TOKEN", raising=False)
    return seen


def _serve(*argv: str) -> int:
    from cli.main import main as cardrl

    return cardrl(["serve", *argv])


def test_11_serve_on_the_network_says_what_it_exposes(served, capsys, monkeypatch):
    from web.background import free_port

    port = free_port()
    assert _serve("--port", str(port)) == 0
    out, err = capsys.readouterr()
    assert f"open http://127.0.0.1:{port}/ " in out and err == ""
    assert _serve("--host", "0.0.0.0", "--port", str(port), "--allow-host", "box.lan") == 0
    out, err = capsys.readouterr()
    assert "warning: --host 0.0.0.0 opens the app" in err and "upload record files" in err
    assert "box.lan" in err and "CARDRL_SERVE_TOKEN" in err and "reverse proxy" in err
    assert f"http://localhost:{port}/" in out
    hosts = served["app"].state.hosts
    assert hosts.allows("box.lan", port) and not hosts.allows("evil.example", port)
    monkeypatch.setenv("CARDRL_SERVE_TOKEN", TOKEN)
    assert _serve("--host", "0.0.0.0", "--port", str(port)) == 0
    out, err = capsys.readouterr()
    assert f"?token={TOKEN}" in out and "only requests with the token" in err
    assert served["http"].__name__ == "TimedH11Protocol"


def test_11_serve_prints_an_ipv6_address_in_brackets(served, capsys):
    from web.background import free_port

    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    port = free_port()
    assert _serve("--host", "::", "--port", str(port)) == 0
    out, _ = capsys.readouterr()
    assert f"open http://[::]:{port}/ " in out
    assert served["host"] == "::"
    assert _serve("--host", "::1", "--port", str(port)) == 0
    assert f"open http://[::1]:{port}/ " in capsys.readouterr().out


@pytest.mark.parametrize("argv,words", [
    (["--token", "short"], "--token / $CARDRL_SERVE_TOKEN: the token must be at least 16"),
    (["--token", "x" * 20 + " y"], "the token must be"),
    (["--allow-host", "box.lan:80"], "--allow-host 'box.lan:80': expected a host name"),
    (["--allow-host", "a b"], "expected a host name"),
])
def test_11_serve_refuses_a_bad_token_or_name_in_one_line(served, capsys, argv, words):
    assert _serve(*argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and words in err and "app" not in served


def _raw(url: str, data: bytes, wait: float = 5.0) -> bytes:
    """What the server answers to ``data`` sent on a fresh connection, until it closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as s:
        s.sendall(data)
        got = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                return got
            got += chunk


def test_11_slow_clients_are_timed_out(live_server, monkeypatch):
    from web.connections import TimedH11Protocol

    monkeypatch.setattr(TimedH11Protocol, "head_seconds", 0.5)
    monkeypatch.setattr("web.app.BODY_SECONDS", 0.5)
    host = live_server.url.removeprefix("http://")
    started = time.monotonic()
    answer = _raw(live_server.url, b"GET /api/catalog HTTP/1.1\r\nHost: loc")
    assert answer.startswith(b"HTTP/1.1 408") and b'"error"' in answer
    assert _raw(live_server.url, b"") == b""  # a silent connection is closed
    answer = _raw(live_server.url, b"POST /api/play HTTP/1.1\r\nHost: " + host.encode()
                  + b"\r\nContent-Type: application/json\r\nContent-Length: 80\r\n\r\n{")
    assert answer.startswith(b"HTTP/1.1 408") and b"did not arrive" in answer
    assert time.monotonic() - started < 4


def test_11_a_real_server_refuses_a_rebound_name(live_server):
    import httpx

    r = httpx.get(live_server.url + "/api/catalog", headers={"host": "evil.example.com"})
    refused(r, 421)
    assert httpx.get(live_server.url + "/api/catalog").status_code == 200
