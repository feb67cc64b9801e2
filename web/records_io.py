"""Everything the web app takes from :mod:`records` (the game-record format, the recorder,
replays and narration), in one place.

Uploaded files are parsed here as data only: JSON lines, each bounded before it is parsed
(:func:`web.bounded_json.loads`: depth, values, numbers) and validated as a game record
(:func:`records.format.validate`, and player names that are short strings); nothing in
them is executed or opened as a path.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from records.format import FORMAT, plain, validate
from records.narrate import Narrator, seat_name
from records.recorder import GameRecorder
from records.replay import ReplayMismatch, check_game, replay_game
from web.bounded_json import loads

#: the most games read from one file
MAX_GAMES = 200
#: the most JSON values one game (one line) may hold: a game of the most actions the app
#: replays (web.replay.MAX_ACTIONS, 3 values each) with its deals, and room to spare
MAX_RECORD_VALUES = 200_000
#: the longest player name kept
MAX_NAME = 200
#: bad lines reported before the rest of a file is left unread
MAX_ERRORS = 50
_BLANK = re.compile(rb"\s+")

__all__ = [
    "FORMAT",
    "GameRecorder",
    "Narrator",
    "ReplayMismatch",
    "check_game",
    "iter_records",
    "parse_records",
    "read_record",
    "record_line",
    "plain",
    "records_text",
    "replay_game",
    "seat_name",
]


def read_record(line: bytes | str) -> dict:
    """The game record of one line, or ValueError with the one-line reason it is not one
    (see the module docstring)."""
    record = loads(line, MAX_RECORD_VALUES)
    reason = validate(record)
    if reason:
        raise ValueError(reason)
    players = record.get("players")
    if players is not None:
        for seat, name in enumerate(players):
            if name is not None and (not isinstance(name, str) or len(name) > MAX_NAME):
                raise ValueError(f"players[{seat}]: expected an agent name (a string of at "
                                 f"most {MAX_NAME} characters) or null")
    return record


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of every line of ``data`` that is not blank, one at a time
    (a file of millions of short lines is never split into a list of them)."""
    number, pos = 1, 0
    while pos < len(data):
        blank = _BLANK.match(data, pos)
        if blank is not None:
            number += data.count(b"\n", pos, blank.end())
            pos = blank.end()
            if pos >= len(data):
                return
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        yield number, data[pos:end]
        number += 1
        pos = end + 1


def iter_records(data: bytes | str, max_games: int = MAX_GAMES,
                 max_errors: int = MAX_ERRORS
                 ) -> Iterator[tuple[int, str, dict | None, str | None]]:
    """``(line number, line, record, None)`` for every game of a JSON-lines file (its
    bytes, or its text) and ``(line number, line, None, message)`` for every bad line;
    blank lines are skipped. After ``max_games`` games or ``max_errors`` bad lines, one
    message says the rest is not read. A game's ``line`` is its text ("" for a bad one)."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    games = errors = 0
    for number, raw in _lines(data):
        if games >= max_games:
            yield number, "", None, f"line {number}: only the first {max_games} games are read"
            return
        if errors >= max_errors:
            yield number, "", None, (f"line {number}: {max_errors} bad lines already; the "
                                     "rest is not read")
            return
        try:
            record = read_record(raw)
        except ValueError as err:
            errors += 1
            yield number, "", None, f"line {number}: {err}"
            continue
        games += 1
        yield number, raw.decode("utf-8"), record, None


def parse_records(text: str, max_games: int = MAX_GAMES) -> tuple[list[dict], list[str]]:
    """The game records of a JSON-lines text and one message per bad line (at most
    ``max_games`` games are read; the rest is reported)."""
    games: list[dict] = []
    errors: list[str] = []
    for number, _, record, error in iter_records(text, max_games):
        if record is None:
            errors.append(error)
        else:
            record["_line"] = number
            games.append(record)
    return games, errors


def record_line(record: dict) -> str:
    """One record as a JSON line (no newline)."""
    return json.dumps(record, separators=(",", ":"))


def records_text(records: list[dict]) -> str:
    """Records as JSON lines (the ``--save-games`` file format)."""
    return "".join(record_line(r) + "\n" for r in records)
