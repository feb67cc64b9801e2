"""A third game, High Card (``tests/plugin_game/``), plugged in through the public calls a
real game uses (:func:`envs.registry.register`, :func:`agents.registry.register`): the
commands, the agents and the web app run on it, or refuse in one line where it provides no
capability (no fuzz reference, no search rollouts, no policy, no demo). It touches no
file of the project outside ``tests/``.

The commands run in a fresh ``cardrl`` process that imports the game through
``CARDRL_GAMES``; the in-process tests register it for their duration only.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import agents
from envs import registry

ROOT = Path(__file__).resolve().parents[1]
NAME = "high_card"
#: the module that registers the game when imported (what CARDRL_GAMES names)
MODULE = "tests.plugin_game.game"


@pytest.fixture
def third_game():
    """High Card's module (importing it registers the game), for one test: the game is
    removed after, so that the other tests of this process see the two real games only."""
    added = NAME not in registry.GAMES
    module = importlib.import_module(MODULE)
    module.register_game()  # again when an earlier test removed it
    yield module
    if added:
        registry.unregister(NAME)


def cardrl(*args: str, check: bool = True, stdin: str | None = None
           ) -> subprocess.CompletedProcess:
    """``cardrl ARGS`` in a fresh process that plugs the third game in."""
    env = dict(os.environ, CARDRL_GAMES=MODULE)
    done = subprocess.run([sys.executable, "-m", "cli.main", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, input=stdin)
    if check:
        assert done.returncode == 0, done.stderr[-3000:]
    return done


def one_line_refusal(done: subprocess.CompletedProcess, words: str) -> None:
    """The command failed with exit status 2 and one line on stderr saying ``words``."""
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], done.stderr


# -- the registry and the agents ----------------------------------------------------------
def test_the_game_is_registered_by_the_public_call(third_game):
    assert registry.get(NAME) is third_game.GAME and NAME in registry.GAMES
    engine = registry.make_engine(NAME, 4, num_players=4)
    engine.reset(seed=1)
    assert engine.legal_action_mask().sum(axis=1).tolist() == [4, 4, 4, 4]
    assert registry.num_seats(NAME, num_players=2) == 2
    with pytest.raises(ValueError, match="is registered already"):
        registry.register(third_game.GAME)


def test_importing_the_registry_still_imports_no_engine():
    code = ("import sys; import envs.registry as r; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'numba')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env=dict(os.environ, CARDRL_GAMES=""))
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stdout + done.stderr


def test_agents_make_random_and_its_own_agent(third_game):
    assert set(agents.available(NAME)) == {"random", "highest"}
    engine = registry.make_engine(NAME, 8, num_players=3)
    engine.reset(seed=2)
    for name in ("random", "highest"):
        agent = agents.make(name, NAME, seed=0, num_players=3)
        actions = agent.act_batch(engine.observe(), engine.legal_action_mask())
        assert engine.legal_action_mask()[np.arange(8), actions].all()


@pytest.mark.parametrize(("name", "capability"), [("pimc", "search rollouts"),
                                                  ("pimc_policy", "search rollouts"),
                                                  ("policy", "policy network")])
def test_agents_the_game_cannot_have_are_refused_in_one_line(third_game, name, capability):
    with pytest.raises(ValueError, match=f"game 'high_card' provides no {capability}"):
        agents.make(name, NAME)


def test_the_pettingzoo_environment_passes_the_api_test(third_game):
    from pettingzoo.test import api_test

    api_test(registry.make_env(NAME, num_players=3), num_cycles=20)


# -- the commands -------------------------------------------------------------------------
def test_tournament_records_and_replay_check(tmp_path):
    games = tmp_path / "games.jsonl"
    done = cardrl("tournament", "--game", NAME, "--players", "3", "--agents", "random,highest",
                  "--deals", "12", "--seed", "3", "--out", str(tmp_path / "t"),
                  "--save-games", str(games), "--no-progress")
    assert "highest" in (tmp_path / "t" / "summary.md").read_text()
    records = [json.loads(line) for line in games.read_text().splitlines()]
    assert len(records) == 12 * 3 and {r["game"] for r in records} == {NAME}
    done = cardrl("replay", "--check", str(games))
    assert "all 36 game(s) replay exactly" in done.stdout


def test_play_in_the_terminal():
    done = cardrl("play", NAME, "--vs", "highest", "--seed", "1", stdin="help\nquit\n")
    assert "Legal moves: play" in done.stdout and "You left the game." in done.stdout


def test_bench_runs_the_games_rows_and_agents(tmp_path):
    out = tmp_path / "bench.md"
    cardrl("bench", "--game", NAME, "--out", str(out), "--no-openspiel", "--no-memory",
           "--no-compile-cost", "--seconds", "0.1", "--repeats", "1", "--batch", "1,64",
           "--obs", "float32")
    assert NAME in out.read_text()
    timed = tmp_path / "agents.md"
    cardrl("bench", "--agents", "all", "--game", NAME, "--batch", "1", "--seconds", "0.1",
           "--repeats", "1", "--no-compile-cost", "--out", str(timed))
    assert "| highest | high_card | 1 |" in timed.read_text()


@pytest.mark.parametrize(("args", "words"), [
    (("fuzz", "--deals", "5", "--batch", "4", "--game", NAME, "--no-progress"),
     "game 'high_card' provides no fuzz reference"),
    (("demo", "--games", NAME), "game 'high_card' provides no demo recipe"),
    (("tournament", "--game", NAME, "--agents", "random,pimc", "--deals", "2"),
     "game 'high_card' provides no search rollouts"),
    (("exploit", "--game", NAME, "--target", "random", "--minutes", "1", "--no-progress"),
     "game 'high_card' provides no exploit recipe"),
])
def test_commands_refuse_what_the_game_does_not_provide(tmp_path, args, words):
    one_line_refusal(cardrl(*args, "--out", str(tmp_path / "out"), check=False), words)


def test_ladder_plays_the_games_rungs_against_its_reference(tmp_path):
    """The rungs are the descriptor's ``ladder`` against its ``reference``; no PIMC rungs
    by default where the game provides no search rollouts, one line when asked for."""
    cardrl("ladder", "--game", NAME, "--deals", "4", "--timing-deals", "1",
           "--out", str(tmp_path / "ladder"), "--work", str(tmp_path / "work"))
    table = (tmp_path / "ladder" / "high_card_3p.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in table[1:]] == ["random", "highest"]
    assert "`X,highest,highest,…`" in (tmp_path / "ladder" / "high_card_3p.md").read_text()
    done = cardrl("ladder", "--game", NAME, "--deals", "4", "--worlds", "8", "--out",
                  str(tmp_path / "pimc"), "--work", str(tmp_path / "work2"), check=False)
    one_line_refusal(done, "rung 'pimc8': game 'high_card' provides no search rollouts")
    assert not (tmp_path / "pimc").exists() and not (tmp_path / "work2").exists()


@pytest.mark.parametrize(("missing", "words"), [({"reference": None}, "no ladder reference"),
                                                ({"ladder": ()}, "no ladder rungs")])
def test_ladder_refuses_a_game_without_reference_or_rungs(third_game, tmp_path, capsys,
                                                          missing, words):
    from dataclasses import replace

    from cli.main import main

    bare = replace(third_game.GAME, name="high_card_bare", **missing)
    registry.register(bare)
    try:
        status = main(["ladder", "--game", bare.name, "--deals", "2", "--out",
                       str(tmp_path / "out"), "--work", str(tmp_path / "work")])
    finally:
        registry.unregister(bare.name)
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(lines) == 1, lines
    assert f"game 'high_card_bare' provides {words}" in lines[0]
    assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()


# -- the web app --------------------------------------------------------------------------
@pytest.fixture
def client(third_game):
    pytest.importorskip("starlette")
    from tests.web.conftest import test_client
    from web.app import create_app

    with test_client(create_app()) as c:
        yield c


def test_the_web_catalog_and_a_whole_deal(client):
    listing = client.get("/api/catalog").json()["games"]
    assert {"abracadabra", "four_aces", NAME} == set(listing)
    info = listing[NAME]
    assert info["seats"] == {"2": 2, "3": 3, "4": 4} and info["defaults"] == {"num_players": 3}
    assert info["card_action"] == "play" and info["episodes"] == ["deal"]
    r = client.post("/api/play", json={"game": NAME, "table": {"num_players": 3}, "seat": 0,
                                       "agents": [None, "highest", "random"], "seed": 5})
    assert r.status_code == 201, r.text
    state, rng = r.json(), np.random.default_rng(0)
    while not state["over"]:
        r = client.post(f"/api/play/{state['id']}/act",
                        json={"action": str(rng.choice(state["legal"])),
                              "version": state["version"]})
        assert r.status_code == 200, r.text
        state = r.json()
    shown = state["last"]["breakdown"]
    assert shown["columns"] == ["seat", "points", "total"] and len(shown["cells"]) == 3
    assert sum(state["last"]["result"]["points"]) == 4  # HC4: one point per trick
    record = client.get(f"/api/play/{state['id']}/record")
    assert record.status_code == 200 and json.loads(record.text.splitlines()[0])["game"] == NAME


def test_the_game_touches_no_project_file(third_game):
    """Everything High Card is lives in tests/plugin_game/ (and this file)."""
    folder = Path(third_game.__file__).parent
    assert folder.relative_to(ROOT).parts[0] == "tests"
    text = "\n".join(p.read_text() for p in sorted(folder.glob("*.py")))
    for piece in ("config", "engine", "env_module", "deal_io", "narration", "scene"):
        target = getattr(third_game.GAME, piece).partition(":")[0]
        assert target.startswith("tests.plugin_game"), target
    assert "register(" in text
