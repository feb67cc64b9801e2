"""Everything the web app takes from :mod:`records` (the game-record format, the recorder,
replays and narration), in one place.

Uploaded files are parsed here as data only: JSON lines, each validated as a game record
(:func:`records.format.validate`); nothing in them is executed or opened as a path.
"""

from __future__ import annotations

import json

from records.format import FORMAT, plain, validate
from records.narrate import Narrator, seat_name
from records.recorder import GameRecorder
from records.replay import ReplayMismatch, check_game, replay_game

__all__ = [
    "FORMAT",
    "GameRecorder",
    "Narrator",
    "ReplayMismatch",
    "check_game",
    "parse_records",
    "plain",
    "records_text",
    "replay_game",
    "seat_name",
]


def parse_records(text: str, max_games: int = 200) -> tuple[list[dict], list[str]]:
    """The game records of a JSON-lines text and one message per bad line (at most
    ``max_games`` games are read; the rest is reported)."""
    games: list[dict] = []
    errors: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if len(games) >= max_games:
            errors.append(f"line {number}: only the first {max_games} games are read")
            break
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            errors.append(f"line {number}: not valid JSON ({err.msg} at column {err.colno})")
            continue
        reason = validate(record)
        if reason:
            errors.append(f"line {number}: {reason}")
            continue
        record["_line"] = number
        games.append(record)
    return games, errors


def records_text(records: list[dict]) -> str:
    """Records as JSON lines (the ``--save-games`` file format)."""
    return "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
