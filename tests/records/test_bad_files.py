"""Bad game files: every bad record is one ``cardrl replay: error:`` line on stderr naming
the file, the line, the field, what was found and what was expected; the good games around
it are still told and checked; the exit status says what went wrong (2 unreadable records,
1 games that do not replay); a file with no game at all is an error. Never a traceback."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli.main import main as cardrl
from cli.replay import ERROR
from records.describe import tell_game
from records.format import check_record, read_games, validate
from records.replay import check_game
from tests.records.test_replay import play_batch

_CACHE: dict[str, list[dict]] = {}


def good(game: str) -> dict:
    """A fresh copy of a valid record: Abracadabra ``three`` (a 37-card deck with the
    joker) or Four Aces with 3 players."""
    if game not in _CACHE:
        options = {"variant": "three"} if game == "abracadabra" else {"num_players": 3}
        _CACHE[game] = play_batch(game, batch=2, **options)
    return copy.deepcopy(_CACHE[game][0])


def edit(game: str, change: Callable[[dict], object]) -> Callable[[], dict]:
    """A bad record: a valid one of ``game`` changed in place by ``change``."""
    def make():
        record = good(game)
        change(record)
        return record
    return make


def drop(*fields: str) -> Callable[[dict], None]:
    return lambda r: [r.pop(f) for f in fields]


def put(path: str, value: object) -> Callable[[dict], None]:
    """Set the field at a dotted ``path`` (list indices as numbers)."""
    def change(record):
        *parents, last = path.split(".")
        node = record
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return change


def first_play(record: dict) -> int:
    return next(k for k, (_, name) in enumerate(record["actions"]) if name.startswith("play:"))


def _foreign_card(record):  # a card of the full deck that the 'three' deck lacks
    record["deal"]["hands"][1][4] = "2C"


def _twice(record):
    record["deal"]["hands"][1][4] = record["deal"]["hands"][0][0]


def _third_joker(record):
    record["deal"]["stock"][0] = "JK"
    record["deal"]["stock"][1] = "JK"


def _four_aces_options(record):
    record["options"] = {"num_players": 4, "scoring": "strict"}


def _bad_later_deal(record):
    record["later_deals"] = [good("abracadabra")["deal"]]
    record["later_deals"][0]["hands"][2][11] = "ZZ"


#: (id, the bad line: bytes / str / a callable giving a record, what the error line says)
BAD_LINES = [
    ("not-json", "{truncated", ["not valid JSON"]),
    ("not-utf8", b'{"format": "\xff\xfe"}', ["not UTF-8 text"]),
    ("json-list", "[1, 2]", ["found a JSON list, expected a JSON object (one game)"]),
    ("json-number", "42", ["found a JSON number, expected a JSON object"]),
    ("json-null", "null", ["found null, expected a JSON object"]),
    ("json-string", '"a game"', ["found a JSON string, expected a JSON object"]),
    ("no-format", edit("abracadabra", drop("format")),
     ['field format: found nothing (the field is missing), expected "cardrl-game"']),
    ("wrong-format", edit("four_aces", put("format", "chess-game")),
     ['field format: found "chess-game", expected "cardrl-game"']),
    ("no-version", edit("abracadabra", drop("version")),
     ["field version: found nothing (the field is missing), expected 1"]),
    ("future-version", edit("four_aces", put("version", 2)),
     ["field version: found 2, expected 1"]),
    ("version-text", edit("four_aces", put("version", "1")),
     ['field version: found "1", expected 1']),
    ("missing-fields", edit("abracadabra", drop("deal", "result")),
     ["field deal, result: found missing, expected a game record with the fields"]),
    ("missing-actions", edit("four_aces", drop("actions")), ["field actions: found missing"]),
    ("unknown-game", edit("abracadabra", put("game", "chess")),
     ['field game: found "chess", expected one of abracadabra, four_aces']),
    ("other-game", edit("abracadabra", put("game", "four_aces")),
     ["field options.variant: found an option four_aces does not have",
      "is the game abracadabra?"]),
    ("other-game-options", edit("abracadabra", _four_aces_options),
     ["field options.num_players: found an option abracadabra does not have",
      "is the game four_aces?"]),
    ("unknown-option", edit("abracadabra", put("options.jokr", True)),
     ["field options.jokr: found an option abracadabra does not have",
      "expected options among variant, joker"]),
    ("options-not-object", edit("four_aces", put("options", [3])),
     ["field options: found [3], expected an object of the game's options"]),
    ("variant-unknown", edit("abracadabra", put("options.variant", "five")),
     ["field options.variant: variant='five' is not allowed: expected one of"]),
    ("ante-out-of-range", edit("abracadabra", put("options.ante", 0)),
     ["field options.ante: ante=0 is not allowed: expected an integer 1..1048576"]),
    ("players-out-of-range", edit("four_aces", put("options.num_players", 7)),
     ["field options.num_players: num_players=7 is not allowed: expected an integer 3..5"]),
    ("deal-not-object", edit("abracadabra", put("deal", [])),
     ["field deal: found [], expected an object with dealer, hands, leftover"]),
    ("too-few-hands", edit("abracadabra", lambda r: r["deal"]["hands"].pop()),
     ["field deal.hands: found a list of 2, expected a list of 3 lists of 12 cards"]),
    ("short-hand", edit("abracadabra", lambda r: r["deal"]["hands"][2].pop()),
     ["field deal.hands[2]: found a list of 11, expected a list of 12 cards"]),
    ("unknown-card", edit("abracadabra", put("deal.hands.1.4", "ZZ")),
     ['field deal.hands[1][4]: found "ZZ", expected a card name such as "TH"']),
    ("card-not-a-string", edit("four_aces", put("deal.tables.2.0", 12)),
     ["field deal.tables[2][0]: found 12, expected a card name"]),
    ("duplicated-card", edit("abracadabra", _twice),
     ["field deal.hands[1][4]: found", "again (also at deal.hands[0][0]), expected every "
      "card of the deck once"]),
    ("third-joker", edit("four_aces", _third_joker),
     ['found "JK" again', "expected every card of the deck once"]),
    ("card-not-in-variant", edit("abracadabra", _foreign_card),
     ['field deal.hands[1][4]: found "2C", a card that is not in this table\'s deck, '
      "expected a card of its 37-card deck"]),
    ("leftover-dealt", edit("abracadabra",
                            lambda r: r["deal"].__setitem__("leftover", r["deal"]["hands"][0][0])),
     ["field deal.leftover: found", "again (also at deal.hands[0][0])"]),
    ("dealer-out-of-range", edit("four_aces", put("deal.dealer", 3)),
     ["field deal.dealer: found 3, expected an integer 0..2"]),
    ("no-stock", edit("four_aces", lambda r: r["deal"].pop("stock")),
     ["field deal.stock: found nothing (the field is missing), expected a list of 36 cards"]),
    ("short-stock", edit("four_aces", lambda r: r["deal"]["stock"].pop()),
     ["field deal.stock: found a list of 35, expected a list of 36 cards"]),
    ("bad-later-deal", edit("abracadabra", _bad_later_deal),
     ['field later_deals[0].hands[2][11]: found "ZZ"']),
    ("game-key-negative", edit("four_aces", put("game_key", -1)),
     ["field game_key: found -1, expected an integer 0..18446744073709551615"]),
    ("game-key-text", edit("four_aces", put("game_key", "12")),
     ['field game_key: found "12", expected an integer']),
    ("actions-not-list", edit("abracadabra", put("actions", "bid:3")),
     ['field actions: found "bid:3", expected a list of [seat, action name] pairs']),
    ("action-not-pair", edit("abracadabra", put("actions.2", [1])),
     ["field actions[2]: found [1], expected a [seat, action name] pair"]),
    ("seat-not-integer", edit("abracadabra", put("actions.2.0", "1")),
     ['field actions[2][0]: found "1", expected an integer 0..2']),
    ("seat-float", edit("four_aces", put("actions.0.0", 1.5)),
     ["field actions[0][0]: found 1.5, expected an integer 0..2"]),
    ("seat-out-of-range", edit("abracadabra", put("actions.2.0", 3)),
     ["field actions[2][0]: found 3, expected an integer 0..2"]),
    ("action-unknown", edit("abracadabra", put("actions.0.1", "bid:99")),
     ['field actions[0][1]: found "bid:99", expected an action name of the game']),
    ("action-a-number", edit("four_aces", put("actions.0.1", 3)),
     ["field actions[0][1]: found 3, expected an action name"]),
    ("players-count", edit("four_aces", put("players", ["random"])),
     ["field players: found a list of 1, expected a list of 3 names"]),
    ("result-not-object", edit("abracadabra", put("result", None)),
     ["field result: found null, expected an object"]),
    ("results-item", edit("four_aces", put("results", [3])),
     ["field results[0]: found 3, expected an object"]),
    ("seed-text", edit("four_aces", put("seed", "7")),
     ['field seed: found "7", expected an integer or null']),
    ("info-list", edit("four_aces", put("info", [1])),
     ["field info: found [1], expected an object or null"]),
]


def _line(bad) -> bytes:
    if callable(bad):
        bad = json.dumps(bad(), separators=(",", ":"))
    return bad if isinstance(bad, bytes) else bad.encode()


def _file(tmp_path, *lines: bytes) -> str:
    path = tmp_path / "games.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return str(path)


def _good_line(game: str) -> bytes:
    return json.dumps(good(game), separators=(",", ":")).encode()


@pytest.mark.parametrize("check", [False, True], ids=["tell", "check"])
@pytest.mark.parametrize("name, bad, says", BAD_LINES, ids=[c[0] for c in BAD_LINES])
def test_a_bad_record_is_one_line_on_stderr_and_the_rest_is_read(tmp_path, capsys, check,
                                                                  name, bad, says):
    path = _file(tmp_path, _good_line("abracadabra"), _line(bad), _good_line("four_aces"))
    argv = ["replay", path] + (["--check"] if check else [])
    assert cardrl(argv) == 2
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if line.startswith(ERROR)]
    assert len(errors) == 1
    assert errors[0].startswith(f"{ERROR}{path}, line 2: ")
    for text in says:
        assert text in errors[0]
    assert f"1 bad line(s) of {path}; 2 good game(s) read" in captured.err
    # the games before and after the bad line are still told / checked
    if check:
        assert "game 0 (line 1): ok" in captured.out and "game 1 (line 3): ok" in captured.out
        assert "replay exactly" not in captured.out
    else:
        assert "=== game 0 (line 1) ===" in captured.out
        assert "=== game 1 (line 3) ===" in captured.out


def test_blank_lines_are_skipped(tmp_path, capsys):
    path = _file(tmp_path, b"", _good_line("abracadabra"), b"   ", b"\t",
                 _good_line("four_aces"), b"")
    assert cardrl(["replay", path, "--check"]) == 0
    captured = capsys.readouterr()
    assert "game 0 (line 2): ok" in captured.out and "game 1 (line 5): ok" in captured.out
    assert "all 2 game(s) replay exactly" in captured.out and captured.err == ""


def _illegal_at_step(record: dict) -> int:
    """Replace the first card played by a bid: illegal there. Returns its step (from 1)."""
    k = first_play(record)
    record["actions"][k][1] = "bid:5"
    return k + 1


def _other_actor(record: dict) -> int:
    seat, _ = record["actions"][3]
    record["actions"][3][0] = (seat + 1) % 3
    return 4


def _changed_result(record: dict) -> int:
    record["result"]["points"][0] += 1
    return 0


def _extra_action(record: dict) -> int:
    record["actions"].append(record["actions"][-1])
    return len(record["actions"])


#: records that read well but do not replay: (id, change, what the replay says)
MISMATCHES = [
    ("illegal-action", _illegal_at_step, "'bid:5'): illegal action"),
    ("wrong-actor", _other_actor, "is to act, not the stored actor"),
    ("action-after-the-end", _extra_action, "the game is already over"),
    ("result-differs", _changed_result, "result differs — points: stored"),
]


@pytest.mark.parametrize("check", [False, True], ids=["tell", "check"])
@pytest.mark.parametrize("name, change, says", MISMATCHES, ids=[c[0] for c in MISMATCHES])
def test_a_game_that_does_not_replay_says_where_and_exits_1(tmp_path, capsys, check, name,
                                                             change, says):
    record = good("abracadabra")
    step = change(record)
    assert validate(record) is None  # it reads as a game: only the replay tells
    path = _file(tmp_path, _good_line("four_aces"), json.dumps(record).encode())
    assert cardrl(["replay", path] + (["--check"] if check else [])) == 1
    captured = capsys.readouterr()
    report = captured.out if check else captured.err
    assert says in report
    if step:
        assert f"action {step} (player_" in report
    assert f"1 game(s) of {path} do not replay as stored (line(s) 2)" in captured.err
    if check:
        assert "game 0 (line 1): ok" in captured.out and "game 1 (line 2): DIFFERS" in report
    else:
        assert f"{ERROR}{path}, line 2: game 1 does not replay as stored: " in captured.err
        assert "=== game 0 (line 1) ===" in captured.out


def _changed_result_fa(record: dict) -> None:
    record["result"]["round_points"][0] += 1


def test_bad_lines_and_mismatches_together_exit_2(tmp_path, capsys):
    record = good("four_aces")
    _changed_result_fa(record)
    path = _file(tmp_path, json.dumps(record).encode(), b"[]", _good_line("four_aces"))
    assert cardrl(["replay", path, "--check"]) == 2
    captured = capsys.readouterr()
    assert "game 0 (line 1): DIFFERS" in captured.out and "game 1 (line 3): ok" in captured.out
    assert "line 2: found a JSON list" in captured.err and "line(s) 1)" in captured.err



def _outcome(argv: list[str], capsys) -> tuple[int, str]:
    """Exit status and stderr of a command that fails as a whole: ``cardrl`` prints the
    ``ValueError`` of ``run()`` as one line and exits 2 (or, without that handler, the
    ``ValueError`` reaches the caller: its message counts as the printed line)."""
    try:
        status = cardrl(argv)
    except ValueError as err:
        return 2, capsys.readouterr().err + str(err)
    return status, capsys.readouterr().err


@pytest.mark.parametrize("content, says", [
    (b"", "found no game record (the file is empty)"),
    (b"\n  \n\n", "found no game record (the file is empty)"),
    (b"[1]\n{\n", "found no game record (all 2 of its line(s) are bad (see above))"),
    (b"PK\x03\x04\x00\x00binary", "found a binary file, expected JSON lines"),
], ids=["empty", "blank-lines-only", "no-valid-record", "binary"])
@pytest.mark.parametrize("check", [False, True], ids=["tell", "check"])
def test_a_file_without_games_is_an_error(tmp_path, capsys, content, says, check):
    path = tmp_path / "games.jsonl"
    path.write_bytes(content)
    status, err = _outcome(["replay", str(path)] + (["--check"] if check else []), capsys)
    assert status == 2 and says in err and str(path) in err
    assert "Traceback" not in err


def test_every_bad_line_is_reported_before_no_game_is_an_error(tmp_path, capsys):
    path = _file(tmp_path, b"[1]", b"{")
    status, err = _outcome(["replay", path], capsys)
    assert status == 2
    assert f"{ERROR}{path}, line 1: found a JSON list" in err
    assert f"{ERROR}{path}, line 2: not valid JSON" in err


@pytest.mark.parametrize("target, says", [
    ("missing.jsonl", "missing.jsonl: no such file"),
    (".", ": found a directory, expected a games file"),
], ids=["missing", "directory"])
def test_a_file_that_cannot_be_read_is_an_error(tmp_path, capsys, target, says):
    status, err = _outcome(["replay", str(tmp_path / target)], capsys)
    assert status == 2 and says in err


@pytest.mark.parametrize("index", [2, 9, -1])
def test_game_index_out_of_range_is_an_error(tmp_path, capsys, index):
    path = _file(tmp_path, _good_line("abracadabra"), _good_line("four_aces"))
    status, err = _outcome(["replay", path, "--game", str(index)], capsys)
    assert status == 2
    assert f"--game {index}: {path} holds 2 readable game(s), expected an index 0..1" in err


def test_game_index_counts_readable_games(tmp_path, capsys):
    path = _file(tmp_path, b"{", _good_line("abracadabra"), _good_line("four_aces"))
    assert cardrl(["replay", path, "--game", "1"]) == 2  # line 1 is still reported
    captured = capsys.readouterr()
    assert captured.out.startswith("=== game 1 (line 3) ===\nFour Aces")
    assert f"{ERROR}{path}, line 1: not valid JSON" in captured.err


def test_read_games_names_the_field(tmp_path):
    path = _file(tmp_path, _line(edit("abracadabra", put("deal.hands.1.4", "ZZ"))))
    games, errors = read_games(path)
    assert games == [] and len(errors) == 1
    assert (errors[0].line, errors[0].field) == (1, "deal.hands[1][4]")


def test_valid_records_pass_every_check():
    for game in ("abracadabra", "four_aces"):
        check_record(good(game))
        assert check_game(good(game)) == [] and tell_game(good(game))[1] == []


# -- property: whatever a record is changed into, reading and replaying it give a clear
# -- answer (a bad line, a game that does not replay, or a good game), never an exception

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**65) | st.floats(allow_nan=False)
    | st.text(max_size=4) | st.sampled_from(["JK", "QS", "2C", "bid:3", "draw", "play:AS"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=6,
)


def _paths(node, prefix=()):
    """Every path into ``node`` (dict keys and list indices)."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            yield from _paths(value, prefix + (k,))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(["abracadabra", "four_aces"]), where=st.integers(0, 10**6),
       value=JSON, delete=st.booleans())
def test_any_changed_record_gives_a_clear_answer(game, where, value, delete):
    record = good(game)
    paths = [p for p in _paths(record) if p]
    path = paths[where % len(paths)]
    node = record
    for part in path[:-1]:
        node = node[part]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    reason = validate(record)
    if reason is not None:
        assert reason.startswith("field ") or reason.startswith("found ")
        return
    problems = check_game(record)
    text, told = tell_game(record)
    assert problems == told and isinstance(text, str)
