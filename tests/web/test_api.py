"""The HTTP API through Starlette's TestClient: playing, every refusal (4xx, game
unchanged), records, replays, probabilities and analysis."""

from __future__ import annotations

import json

import numpy as np

from web.records_io import check_game, replay_game

#: the type of a record file's body
NDJSON = {"content-type": "application/x-ndjson"}


def _new(client, game="abracadabra", table=None, seat=0, agents=None, seed=7):
    table = table or ({"variant": "two"} if game == "abracadabra" else {"num_players": 3})
    n = {"two": 2, "three": 3, "four": 4, "two_dummy": 2}.get(table.get("variant"), 0) or \
        table.get("num_players", 4)
    agents = agents or [None if s == seat else "random" for s in range(n)]
    r = client.post("/api/play", json={"game": game, "table": table, "seat": seat,
                                       "agents": agents, "seed": seed})
    assert r.status_code == 201, r.text
    return r.json()


def _play_out(client, state, rng):
    while not state["over"]:
        if state["waiting"]:
            state = client.post(f"/api/play/{state['id']}/next").json()
            continue
        assert state["your_turn"] and state["legal"]
        r = client.post(f"/api/play/{state['id']}/act",
                        json={"action": str(rng.choice(state["legal"])),
                              "version": state["version"]})
        assert r.status_code == 200, r.text
        state = r.json()
    return state


def test_catalog_lists_games_agents_and_checkpoints(client):
    cat = client.get("/api/catalog").json()
    assert set(cat["games"]) == {"abracadabra", "four_aces"}
    specs = [a["spec"] for a in cat["games"]["abracadabra"]["agents"]]
    assert {"random", "heuristic", "policy"} <= set(specs)
    assert all(c.startswith("policy:") and c.endswith(".pt") for c in cat["checkpoints"])


def test_index_and_static_files_are_served_with_safe_headers(client):
    page = client.get("/")
    assert page.status_code == 200 and "<script src=\"/static/app.js\">" in page.text
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/../app.py").status_code == 404


def test_a_whole_deal_of_each_game_and_its_explained_result(client):
    rng = np.random.default_rng(0)
    for game in ("abracadabra", "four_aces"):
        state = _play_out(client, _new(client, game), rng)
        last = state["last"]
        rows = last["breakdown"]["rows"]
        assert [r["points"] for r in rows] == (
            last["result"]["points"] if game == "abracadabra" else
            last["result"]["round_points"] or [r["points"] for r in rows])
        if game == "abracadabra":  # S1-S3: tricks + 2 per bid-rank card + bonus
            assert all(r["tricks"] + 2 * r["rank_cards"] + r["bonus"] == r["points"]
                       for r in rows)
        record = client.get(f"/api/play/{state['id']}/record")
        assert record.status_code == 200
        games = [json.loads(line) for line in record.text.splitlines()]
        assert len(games) == 1 and check_game(games[0]) == []
        engine, _, _ = replay_game(games[0])
        assert engine.result(0) == state["last"]["result"]


def test_a_match_waits_between_deals(client):
    state = _new(client, "four_aces", {"num_players": 3, "episode": "match"})
    rng = np.random.default_rng(1)
    deals = 0
    while not state["waiting"] and not state["over"]:
        state = client.post(f"/api/play/{state['id']}/act",
                            json={"action": str(rng.choice(state["legal"]))}).json()
    if state["waiting"]:
        refused = client.post(f"/api/play/{state['id']}/act", json={"action": "draw"})
        assert refused.status_code == 409 and "next deal" in refused.json()["error"]
        state = client.post(f"/api/play/{state['id']}/next").json()
        deals += 1
        assert not state["waiting"] and state["your_turn"]
    assert deals == 1 or state["over"]


def test_refused_moves_change_nothing(client):
    state = _new(client, "abracadabra", {"variant": "two"}, agents=[None, "heuristic"])
    url = f"/api/play/{state['id']}"
    before = client.get(url + "?svg=0").json()
    bad = [({"action": "play:ZZ"}, 400, "unknown move"),
           ({"action": 5}, 400, "unknown move"),
           ({}, 400, "unknown move"),
           ({"action": "bid:13"}, 400, "not allowed"),  # variant two: bids 0..12
           ({"action": f"play:{before['hand'][0]}"}, 400, "bidding"),
           ({"action": "bid:1", "version": before["version"] + 5}, 409, "reload")]
    for body, status, words in bad:
        r = client.post(url + "/act", json=body)
        assert r.status_code == status, (body, r.text)
        assert words in r.json()["error"]
    for raw in (b"not json", b"[]", b"\xff\xfe"):
        r = client.post(url + "/act", content=raw, headers={"content-type": "application/json"})
        assert r.status_code == 400
    big = client.post(url + "/act", content=b"{" + b" " * 20000 + b"}",
                      headers={"content-type": "application/json"})
    assert big.status_code == 413
    after = client.get(url + "?svg=0").json()
    assert after == before
    assert client.post(url + "/next").status_code == 409  # the deal is being played
    assert client.get("/api/play/unknown").status_code == 404
    assert client.get(url + "/record").status_code == 404  # nothing finished yet


def test_bad_tables_and_agents_are_refused(only_four_player_checkpoints, client):
    # the default policy has only the four-player checkpoints (tests/conftest.py)
    untrained_policy = {"game": "abracadabra", "table": {"variant": "three"}, "seat": 0,
                        "agents": [None, "policy", "random"]}
    cases = [
        {"game": "chess"},
        {"game": "four_aces", "table": {"num_players": 6}, "seat": 0, "agents": []},
        {"game": "four_aces", "table": {"num_players": 3, "colour": "red"}, "seat": 0},
        {"game": "four_aces", "table": {"num_players": 3}, "seat": 3,
         "agents": ["random"] * 3},
        {"game": "four_aces", "table": {"num_players": 3}, "seat": 0,
         "agents": [None, "random"]},
        {"game": "four_aces", "table": {"num_players": 3}, "seat": 0,
         "agents": [None, "policy:/etc/passwd", "random"]},
        {"game": "four_aces", "table": {"num_players": 3}, "seat": 0,
         "agents": [None, "nobody", "random"]},
        untrained_policy,
        {"game": "abracadabra", "table": {"variant": "two"}, "seat": 0,
         "agents": [None, "random"], "seed": -1},
    ]
    for body in cases:
        r = client.post("/api/play", json=body)
        assert r.status_code == 400, (body, r.text)
        assert r.json()["error"]
    refusal = client.post("/api/play", json=untrained_policy).json()["error"]
    assert "policy has no network for this table ({'variant': 'three'" in refusal


def test_sessions_are_isolated(client):
    a = _new(client, "four_aces", seed=1)
    b = _new(client, "four_aces", seed=2)
    assert a["id"] != b["id"]
    client.post(f"/api/play/{a['id']}/act", json={"action": a["legal"][0]})
    assert client.get(f"/api/play/{b['id']}?svg=0").json()["version"] == 0
    assert client.delete(f"/api/play/{a['id']}").status_code == 200
    assert client.get(f"/api/play/{a['id']}").status_code == 404
    assert client.get(f"/api/replay/{b['id']}").status_code == 404  # not a replay session


def test_upload_step_probabilities_and_analysis(client):
    state = _new(client, "abracadabra", {"variant": "four"}, seed=3,
                 agents=[None, "heuristic", "policy", "random"])
    state = _play_out(client, state, np.random.default_rng(2))
    text = client.get(f"/api/play/{state['id']}/record").text
    up = client.post("/api/replay?name=mine.jsonl", content=text + "garbage\n",
                     headers=NDJSON)
    assert up.status_code == 201
    summary = up.json()
    assert len(summary["games"]) == 1 and "line 2" in summary["errors"][0]
    rid = summary["id"]
    info = client.get(f"/api/replay/{rid}/0").json()
    assert info["check"] == "replays exactly"
    labels = [m["label"] for m in info["marks"]]
    assert "Deal 1, trick 1 of 13" in labels and "Deal 1, trick 13 of 13" in labels
    seen_probs = 0
    for step in range(info["steps"] + 1):
        pos = client.get(f"/api/replay/{rid}/0/{step}?svg=0&face_up=1").json()
        if pos["probabilities"]:
            seen_probs += 1
            p = pos["probabilities"]["probabilities"]
            assert abs(sum(p.values()) - 1) < 1e-3
    assert seen_probs > 0  # the policy seat's decisions
    final = client.get(f"/api/replay/{rid}/0/{info['steps']}").json()
    assert final["result"] == info["result"] == state["last"]["result"]
    assert "<svg" in final["svg"]
    analysis = client.get(f"/api/replay/{rid}/0/4/analyse").json()
    names = {row["agent"]: row for row in analysis["agents"]}
    assert {"heuristic", "random", "policy", "pimc"} <= set(names)
    assert names["heuristic"]["action"]
    assert names["pimc"]["action"], names["pimc"]  # a search agent gets the engine
    assert client.get(f"/api/replay/{rid}/0/{info['steps'] + 1}").status_code == 404
    assert client.get(f"/api/replay/{rid}/3/0").status_code == 404
    assert client.get(f"/api/replay/{rid}/0/x").status_code == 400
    assert client.get(f"/api/replay/{rid}/0/0?face_up=maybe").status_code == 400


def test_uploads_are_checked_as_data(client):
    assert client.post("/api/replay", content=b"", headers=NDJSON).status_code == 400
    assert client.post("/api/replay", content=b"\xff\xfe\x00",
                       headers=NDJSON).status_code == 400
    r = client.post("/api/replay", content=b'{"game": "abracadabra"}\n[1, 2]\n',
                    headers=NDJSON)
    assert r.status_code == 400 and "missing" in r.json()["error"]
    assert client.post("/api/replay", content=b"x" * (5 * 1024 * 1024),
                       headers=NDJSON).status_code == 413
    # a record with an unknown option: refused at upload, the field named
    state = _play_out(client, _new(client, "four_aces"), np.random.default_rng(3))
    record = json.loads(client.get(f"/api/play/{state['id']}/record").text)
    record["options"] = {"num_players": 3, "colour": "red"}
    r = client.post("/api/replay", content=json.dumps(record), headers=NDJSON)
    assert r.status_code == 400 and "colour" in r.json()["error"]


def test_watch_agents_play_each_other(client):
    r = client.post("/api/watch", json={"game": "four_aces", "table": {"num_players": 4},
                                        "agents": ["policy", "heuristic", "greedy", "random"]})
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    info = client.get(f"/api/replay/{rid}/0").json()
    assert info["players"] == ["policy", "heuristic", "greedy", "random"]
    end = client.get(f"/api/replay/{rid}/0/{info['steps']}?svg=0").json()
    assert end["deal_end"]["breakdown"]["kind"] == "combinations"
    bad = client.post("/api/watch", json={"game": "four_aces", "table": {"num_players": 4},
                                          "agents": ["random"]})
    assert bad.status_code == 400


def test_watch_a_search_agent(client):
    r = client.post("/api/watch", json={"game": "four_aces", "table": {"num_players": 3},
                                        "agents": ["pimc", "greedy", "random"]})
    assert r.status_code == 201, r.text
    info = client.get(f"/api/replay/{r.json()['id']}/0").json()
    assert info["players"] == ["pimc", "greedy", "random"] and info["steps"] > 0


def test_cardrl_serve_defaults_to_this_machine_only():
    import argparse

    from cli.main import COMMANDS
    from cli.serve import add_arguments

    assert COMMANDS["serve"][0] == "cli.serve"
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args([])
    assert (args.host, args.port, args.checkpoints) == ("127.0.0.1", 8000, [])
    args = parser.parse_args(["--host", "0.0.0.0", "--port", "9000", "--checkpoints", "runs"])
    assert (args.host, args.port, args.checkpoints) == ("0.0.0.0", 9000, ["runs"])


def test_probabilities_are_those_of_the_network_for_the_observed_table(
        only_four_player_checkpoints):
    """web.insight reads the policy's network for the observed variant (Four Aces through
    its suit symmetry, agents.four_aces.symmetry.to_game_order): the agent's own move has
    the highest probability; a table no network was trained for has no probabilities (the
    default policy has only the four-player checkpoints here, tests/conftest.py)."""
    import agents
    from envs.registry import make_engine
    from web.insight import action_probabilities, agent_action_names

    for game, trained, untrained in [("four_aces", {"num_players": 4}, {"num_players": 3}),
                                     ("abracadabra", {"variant": "four"}, {"variant": "two"})]:
        policy = agents.make("policy", game)
        names = agent_action_names(game)
        engine = make_engine(game, 6, **trained)
        engine.reset(seed=5)
        for obs, mask in zip(engine.observe(), engine.legal_action_mask(), strict=True):
            probs = action_probabilities(policy, obs, mask)["probabilities"]
            assert set(probs) == {names[a] for a in np.flatnonzero(mask)}
            assert abs(sum(probs.values()) - 1) < 1e-3
            assert probs[names[policy.act(obs, mask)]] == max(probs.values())
        other = make_engine(game, 1, **untrained)
        other.reset(seed=5)
        assert action_probabilities(policy, other.observe()[0],
                                    other.legal_action_mask()[0]) is None
