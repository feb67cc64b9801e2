"""Duplicate-deal tournaments: seating, seeding, determinism, resumption, the commands."""

from __future__ import annotations

import importlib
import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest

import agents
from agents import Agent
from agents import registry as agent_registry
from arena.tournament import TournamentMismatch, run_tournament, schedule
from cli.main import build_parser
from cli.main import main as cardrl
from envs.registry import make_engine, num_seats


class FirstLegal(Agent):
    """Deterministic test agent: the lowest legal action id."""

    summary = "lowest legal action id (test agent)"

    def act_batch(self, observations, action_masks):
        return np.asarray(action_masks, bool).argmax(axis=1).astype(np.int64)


@pytest.fixture
def first_legal(monkeypatch):
    """Register ``first_legal`` for both games for one test only."""
    for game in agents.GAMES:
        monkeypatch.setitem(
            agent_registry._REGISTRY[game], "first_legal", "tests.arena.test_tournament:FirstLegal"
        )


# -- line-ups and rotations ---------------------------------------------------------------
@pytest.mark.parametrize("num_agents, seats", [(2, 4), (3, 4), (4, 4), (5, 4), (6, 3), (3, 2)])
def test_lineups_are_balanced(num_agents, seats):
    # the line-ups repeat after C(k, P) deals (k >= P) or k deals (k < P)
    enough = num_agents >= seats
    cycle = len(schedule.combinations(num_agents, seats)) if enough else num_agents
    counts = Counter()
    pairs = set()
    for deal in range(cycle):
        up = schedule.lineup(deal, num_agents, seats)
        assert len(up) == seats
        if num_agents >= seats:
            assert len(set(up)) == seats  # distinct agents when there are enough
        counts.update(up)
        pairs.update((a, b) for a in up for b in up if a != b)
        for rotation in range(seats):
            seated = schedule.seating(deal, rotation, num_agents, seats)
            assert sorted(seated) == sorted(up)
    assert len(set(counts.values())) == 1, counts  # every agent equally often per cycle
    assert len(counts) == num_agents
    if num_agents >= 2:
        assert len(pairs) == num_agents * (num_agents - 1)  # every pair meets


def test_every_deal_is_played_under_every_rotation():
    result = run_tournament(
        "abracadabra", ["a=random", "b=random", "c=random", "d=random", "e=random"],
        deals=10, seed=1, options={"variant": "four"}, progress=False, chunk_size=4,
    )  # fmt: skip
    games = result.games
    assert len(games) == 10 * 4 * 4
    for deal, rows in games.groupby("deal"):
        assert sorted(rows["rotation"].unique()) == [0, 1, 2, 3]
        # the four agents of the line-up each sit in every seat exactly once
        per_agent = rows.groupby("agent")["seat"].agg(["nunique", "count"])
        assert len(per_agent) == 4
        assert (per_agent["nunique"] == 4).all() and (per_agent["count"] == 4).all()
        # rotation r puts line-up position j in seat (j + r) mod 4
        up = schedule.lineup(deal, 5, 4)
        for row in rows.itertuples():
            assert row.agent == "abcde"[up[(row.seat - row.rotation) % 4]]


@pytest.mark.parametrize(
    "game, options",
    [("abracadabra", {"variant": "four"}), ("abracadabra", {"variant": "two_dummy"}),
     ("four_aces", {"num_players": 4})],
)  # fmt: skip
def test_same_deal_key_deals_the_same_hands(game, options):
    seats = num_seats(game, **options)
    keys = schedule.deal_keys(7, range(3))
    engine = make_engine(game, 3 * seats, **options)
    engine.reset(game_seeds=np.repeat(keys, seats))  # as play_chunk: deal-major, rotations
    hand = engine.layout["hand"]
    for seat in range(seats):
        hands = engine.observe(np.full(3 * seats, seat))[:, hand].reshape(3, seats, -1)
        assert (hands == hands[:, :1]).all()  # every rotation of a deal: the same cards
        assert not (hands[0, 0] == hands[1, 0]).all()  # another deal: other cards


def test_rotations_replay_the_deal(first_legal):
    # The same deterministic player in every seat: every rotation of a deal must give
    # every seat the same points, because only the names in the seats changed.
    result = run_tournament(
        "abracadabra", ["first_legal"] * 3, deals=6, seed=2, options={"variant": "three"},
        progress=False, chunk_size=4,
    )  # fmt: skip
    by_rotation = result.games.pivot_table(
        index=["deal", "seat"], columns="rotation", values="points"
    )
    assert (by_rotation.to_numpy() == by_rotation[[0]].to_numpy()).all()
    assert by_rotation[0].groupby("deal").apply(tuple).nunique() > 1  # deals differ


def test_deal_keys_depend_only_on_seed_and_index():
    keys = schedule.deal_keys(5, range(10))
    assert keys.dtype == np.uint64 and len(set(keys.tolist())) == 10
    assert (schedule.deal_keys(5, range(4, 8)) == keys[4:8]).all()
    assert not (schedule.deal_keys(6, range(10)) == keys).any()


# -- determinism and backends ---------------------------------------------------------------
SMALL = dict(
    game="abracadabra",
    agent_names=["random", "random", "random"],
    deals=12,
    seed=11,
    options={"variant": "three"},
    progress=False,
    chunk_size=4,
)


def test_results_are_reproducible_and_seeded():
    first = run_tournament(**SMALL)
    again = run_tournament(**SMALL)
    pd.testing.assert_frame_equal(first.games, again.games)
    other = run_tournament(**{**SMALL, "seed": 12})
    assert not first.games["points"].equals(other.games["points"])


def test_two_workers_equal_one():
    one = run_tournament(**SMALL, workers=1)
    two = run_tournament(**SMALL, workers=2)
    pd.testing.assert_frame_equal(one.games, two.games)
    pd.testing.assert_frame_equal(one.summary, two.summary)


def test_match_episodes_record_wins():
    result = run_tournament(
        "four_aces", ["random", "random"], deals=4, seed=0, episode="match", progress=False,
        options={"num_players": 3, "scoring": "free", "target_points": 3},
    )  # fmt: skip
    games = result.games
    assert set(games["won"].unique()) <= {0.0, 1.0}
    assert (games.groupby(["deal", "rotation"])["won"].sum() >= 1).all()
    assert (games["n_deals"] >= 1).all()
    assert games["chips"].isna().all()  # no chips in Four Aces
    assert result.summary["win_rate"].between(0, 1).all()


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="unknown agent"):
        run_tournament("abracadabra", ["nobody"], deals=1, seed=0, progress=False)
    with pytest.raises(ValueError, match="variant"):
        run_tournament("abracadabra", ["random"], deals=1, seed=0, options={"variant": "x"},
                       progress=False)  # fmt: skip
    with pytest.raises(ValueError, match="backend"):
        run_tournament("abracadabra", ["random"], deals=1, seed=0, backend="spark",
                       progress=False)  # fmt: skip


# -- resumption ---------------------------------------------------------------------------
class Interrupt(Exception):
    pass


def _stop_after_first(chunk):
    raise Interrupt


def test_interrupted_run_resumes_to_the_same_result(tmp_path):
    full = tmp_path / "full"
    run_tournament(**SMALL, out_dir=full)

    part = tmp_path / "part"
    with pytest.raises(Interrupt):
        run_tournament(**SMALL, out_dir=part, on_chunk=_stop_after_first)
    stored = pd.read_csv(part / "games.csv")
    assert len(stored) == 4 * 3 * 3  # one chunk: 4 deals x 3 rotations x 3 seats
    assert not (part / "summary.csv").exists()
    with open(part / "games.csv", "a") as f:  # chunk 1 cut short in its last field
        f.write("4,0,0,random,3.0,1.0,,1\n4,0,1,random#2,0.0,-1.0,,")

    played = []
    resumed = run_tournament(**SMALL, out_dir=part, on_chunk=played.append)
    assert sorted(played) == [1, 2]  # only the missing chunks were played
    assert (part / "games.csv").read_bytes() == (full / "games.csv").read_bytes()
    pd.testing.assert_frame_equal(resumed.games, pd.read_csv(full / "games.csv"),
                                  check_dtype=False)  # fmt: skip

    again = []  # a finished run has nothing left to play
    run_tournament(**SMALL, out_dir=part, on_chunk=again.append)
    assert again == []


def test_resuming_with_other_arguments_is_refused(tmp_path):
    run_tournament(**SMALL, out_dir=tmp_path)
    with pytest.raises(TournamentMismatch, match="deals"):
        run_tournament(**{**SMALL, "deals": 13}, out_dir=tmp_path)
    with pytest.raises(TournamentMismatch, match="seed"):
        run_tournament(**{**SMALL, "seed": 1}, out_dir=tmp_path)
    stored = json.loads((tmp_path / "tournament.json").read_text())
    assert stored["deals"] == 12 and stored["seed"] == 11


# -- commands -------------------------------------------------------------------------------
def command_run(argv: list[str]) -> int:
    """A command's ``run`` on parsed ``argv``: a refusal is the ValueError it raises (which
    ``cardrl`` prints as one line on stderr, exit code 2)."""
    args = build_parser().parse_args(argv)
    return importlib.import_module(args._module).run(args)


def test_cli_tournament_end_to_end(tmp_path, capsys):
    out = tmp_path / "t"
    code = cardrl(
        ["tournament", "--game", "four_aces", "--players", "3", "--agents", "random,random",
         "--deals", "6", "--seed", "3", "--chunk-size", "4", "--out", str(out),
         "--no-progress"]
    )  # fmt: skip
    assert code == 0
    printed = capsys.readouterr().out
    assert "mean_points" in printed and str(out) in printed
    for name in ("games.csv", "summary.csv", "head_to_head.csv", "summary.md", "points.png",
                 "head_to_head.png", "tournament.json"):  # fmt: skip
        assert (out / name).stat().st_size > 0, name
    summary = pd.read_csv(out / "summary.csv")
    expected = {"agent", "games", "mean_points", "ci_low", "ci_high", "rating", "win_rate",
                "mu", "sigma"}  # fmt: skip
    assert expected <= set(summary.columns)
    assert sorted(summary["agent"]) == ["random", "random#2"]
    assert (summary["ci_low"] <= summary["mean_points"]).all()
    assert (summary["mean_points"] <= summary["ci_high"]).all()
    text = (out / "summary.md").read_text()
    assert "cardrl tournament --game four_aces --agents random,random --deals 6 --seed 3" in text
    assert "--players 3" in text and "machine:" in text and "date:" in text
    assert (out / "points.png").read_bytes()[:4] == b"\x89PNG"
    # the same command again resumes a finished run; other arguments are refused
    with pytest.raises(TournamentMismatch, match="refusing to resume.*another --out"):
        command_run(["tournament", "--game", "four_aces", "--players", "3", "--agents",
                     "random,random", "--deals", "7", "--seed", "3", "--out", str(out),
                     "--no-progress"])  # fmt: skip


@pytest.mark.parametrize(
    "game, flag, owner",
    [("abracadabra", ["--players", "3"], "four_aces"),
     ("four_aces", ["--variant", "three"], "abracadabra")],
)  # fmt: skip
def test_cli_table_flags_belong_to_their_game(tmp_path, game, flag, owner):
    # each game's table option (registry.Game.table_option) has its own flag
    with pytest.raises(ValueError, match=f"{flag[0]} is for --game {owner}"):
        command_run(["tournament", "--game", game, *flag, "--agents", "random", "--deals",
                     "1", "--out", str(tmp_path), "--no-progress"])  # fmt: skip
    assert not any(tmp_path.iterdir())  # refused before anything was written


def test_cli_agents_lists_every_agent(capsys):
    assert cardrl(["agents"]) == 0
    printed = capsys.readouterr().out
    for game in agents.GAMES:
        assert f"{game}:" in printed
        for name, summary in agents.available(game).items():
            assert name in printed and summary in printed
    assert cardrl(["agents", "--game", "four_aces"]) == 0
    assert "abracadabra" not in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--help"], ["tournament", "--help"], ["agents", "--help"]])
def test_cli_help(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        cardrl(argv)
    assert stop.value.code == 0
    assert "usage: cardrl" in capsys.readouterr().out


def test_save_games_records_every_game_and_replays_exactly(tmp_path):
    """--save-games: one JSON line per (deal, rotation), each replaying to its result."""
    from records.format import read_games
    from records.replay import check_game

    path = tmp_path / "games.jsonl"
    run_tournament(
        "abracadabra", ["heuristic", "random"], deals=6, seed=3,
        options={"variant": "two"}, progress=False, save_games=path,
    )  # fmt: skip
    games, errors = read_games(path)
    assert errors == []
    assert len(games) == 6 * 2
    assert sorted((g["info"]["deal"], g["info"]["rotation"]) for g in games) == [
        (d, r) for d in range(6) for r in range(2)
    ]
    assert all(check_game(g) == [] for g in games)
