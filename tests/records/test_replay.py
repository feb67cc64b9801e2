"""Saved games: recorded from a batch loop, written, read back, told and checked by
replaying them through the engine; broken files name the bad line and keep the good
games."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.base import sample_legal
from cli.main import main as cardrl
from cli.replay import replay_command
from envs.registry import make_engine
from records.describe import describe_game
from records.format import read_games, write_games
from records.recorder import GameRecorder
from records.replay import check_game

CASES = [
    ("abracadabra", {"variant": "four"}),
    ("abracadabra", {"variant": "two_dummy"}),
    ("abracadabra", {"variant": "three", "episode": "match", "target_points": 30}),
    ("four_aces", {"num_players": 4}),
    ("four_aces", {"num_players": 3, "episode": "match", "max_rounds": 3}),
]


def play_batch(game: str, batch: int = 4, seed: int = 0, auto_reset: bool = False,
               **options) -> list[dict]:
    """A tournament-style batch loop with random agents, recording every game.

    With ``auto_reset`` finished games are restarted once (the loop of an evaluation that
    keeps its batch full), so the recorder sees starts and finishes mid-batch."""
    engine = make_engine(game, batch, **options)
    engine.reset(seed=seed)
    recorder = GameRecorder(game)
    recorder.start(engine, np.ones(batch, bool), players=["random"] * engine.num_players,
                   info=[{"slot": g} for g in range(batch)], seed=seed)
    rng = np.random.default_rng(seed)
    records: list[dict] = []
    restarts = np.full(batch, auto_reset)
    while True:
        ended = engine.game_over.copy()
        if ended.any():
            records += recorder.finish(engine, ended)  # before the reset
            again = ended & restarts
            if again.any():
                restarts &= ~again
                engine.reset(games=again)
                recorder.start(engine, again)
        if engine.game_over.all():
            break
        active = ~engine.game_over
        masks = engine.legal_action_mask()
        actions = np.zeros(batch, np.int64)
        actions[active] = sample_legal(rng, masks[active])
        recorder.record(engine, actions, active)
        engine.step(actions, active)
    return records


@pytest.mark.parametrize("game, options", CASES)
def test_batch_games_round_trip_and_replay_exactly(tmp_path, game, options):
    records = play_batch(game, **options)
    assert len(records) == 4
    path = tmp_path / "games.jsonl"
    assert write_games(path, records) == 4
    games, errors = read_games(path)
    assert errors == []
    assert [g["actions"] for g in games] == [r["actions"] for r in records]
    for record in games:
        assert record["game"] == game and record["options"]["episode"] == options.get(
            "episode", "deal" if game == "abracadabra" else "round")
        assert record["result"]["match_over"]
        assert len(record["results"]) == len(record["later_deals"]) + 1
        assert check_game(record) == []
    if options.get("episode") == "match":  # several deals: later ones replayed too
        assert max(len(r["later_deals"]) for r in games) >= 1


def test_auto_reset_loop_records_every_game(tmp_path):
    records = play_batch("abracadabra", batch=3, auto_reset=True, variant="two")
    assert len(records) == 6
    keys = {r["game_key"] for r in records}
    assert len(keys) == 6
    assert all(check_game(r) == [] for r in records)


def test_deal_is_in_reset_with_deal_form():
    (record, *_) = play_batch("abracadabra", variant="three")
    deal = record["deal"]
    assert set(deal) == {"dealer", "hands", "leftover"}
    assert [len(h) for h in deal["hands"]] == [12, 12, 12]
    (record, *_) = play_batch("four_aces", num_players=5)
    deal = record["deal"]
    assert [len(h) for h in deal["hands"]] == [3] * 5 == [len(t) for t in deal["tables"]]
    assert len(deal["stock"]) == 54 - 30


def test_check_names_the_game_that_differs(tmp_path, capsys):
    records = play_batch("abracadabra", variant="two")
    records[2]["result"]["points"][0] += 1
    path = tmp_path / "games.jsonl"
    write_games(path, records)
    assert cardrl(["replay", str(path), "--check"]) == 1
    out = capsys.readouterr().out
    assert "game 0 (line 1): ok" in out
    assert "game 2 (line 3): DIFFERS" in out and "points: stored" in out


def test_check_catches_a_changed_action():
    (record, *_) = play_batch("four_aces", num_players=3)
    seat, _ = record["actions"][0]
    record["actions"][0] = [(seat + 1) % 3, "draw"]
    assert "not the stored actor" in check_game(record)[0]


def test_account_tells_bidding_tricks_and_scores(capsys):
    records = play_batch("abracadabra", variant="four")
    text = describe_game(records[0])
    assert "Bidding: player_" in text and "is the declarer; target" in text
    assert "Trick 1: " in text and "Trick 13: " in text
    assert "points: player_0" in text and "Seats: player_0 random" in text
    text = describe_game(play_batch("four_aces", num_players=3)[0])
    assert "Round 1: dealer" in text and "Turn 1: player_" in text
    assert "Round 1 over: points" in text or "four aces" in text


def test_replay_command_tells_one_game(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    write_games(path, play_batch("abracadabra", variant="two"))
    assert cardrl(["replay", str(path), "--game", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("=== game 1 (line 2) ===") and "=== game 0" not in out
    with pytest.raises(ValueError, match="--game 9: .* holds 4 readable game"):
        replay_command(path, game=9)


def test_truncated_and_corrupt_lines_name_the_line_and_keep_the_good_games(tmp_path, capsys):
    records = play_batch("four_aces", num_players=3)
    path = tmp_path / "games.jsonl"
    write_games(path, records)
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = "{not json\n"  # corrupt line 2
    lines[3] = lines[3][: len(lines[3]) // 2]  # truncated last line (no newline)
    path.write_text("".join(lines))
    games, errors = read_games(path)
    assert [g["_line"] for g in games] == [1, 3]
    assert [e.line for e in errors] == [2, 4]
    assert "line 2: not valid JSON" in str(errors[0])
    assert "line 4: not valid JSON" in str(errors[1]) and "truncated" in str(errors[1])
    assert cardrl(["replay", str(path), "--check"]) == 2
    captured = capsys.readouterr()
    assert "game 0 (line 1): ok" in captured.out and "game 1 (line 3): ok" in captured.out
    assert "line 4: not valid JSON" in captured.err and "2 good game(s) read" in captured.err


def test_a_line_that_is_not_a_game(tmp_path):
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps({"game": "chess"}) + "\n[1, 2]\n")
    games, errors = read_games(path)
    assert games == []
    assert "line 1: field format: found nothing (the field is missing)" in str(errors[0])
    assert "line 2: found a JSON list, expected a JSON object" in str(errors[1])


def test_missing_file():
    with pytest.raises(ValueError, match="/nonexistent/games.jsonl: no such file"):
        replay_command("/nonexistent/games.jsonl")
