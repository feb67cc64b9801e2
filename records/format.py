"""The game-record file: JSON lines, one game per line, written by ``--save-games``.

>>> write_games("games.jsonl", records)                         # doctest: +SKIP
>>> games, errors = read_games("games.jsonl")                    # doctest: +SKIP

A record holds these fields (:data:`REQUIRED` must be there, the others may be null or
missing; :func:`check_record` checks every field before a record is returned):

    format       "cardrl-game"
    version      1
    game         a game name of :mod:`envs.registry` ("abracadabra" | "four_aces")
    options      the engine config's fields (AbracadabraConfig / FourAcesConfig)
    game_key     the game's 64-bit key: its deals are a pure function of it
    seed         the seed the caller played with, if any
    players      who sat in each seat (agent names), if known
    info         anything else the caller stored (tournament deal, rotation …)
    deal         the first deal, in the engine's ``reset_with_deal`` form: Abracadabra
                 {"dealer", "hands" (seat order, the dummy last), "leftover"};
                 Four Aces {"dealer", "hands", "tables", "stock" (top first)}
    later_deals  the deals after the first one (match episodes), same form
    actions      [[actor seat, action name], ...] in order ("bid:3", "play:QS",
                 "discard:7D", "draw" …)
    results      the engine's ``result()`` after every finished deal / round
    result       the engine's ``result()`` at the end

Each game's deal form is written and read by its ``deal_io`` module
(:attr:`envs.registry.Game.deal_io`).
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Iterable
from typing import BinaryIO

from envs import registry
from records.checks import RecordError, check_fields, is_int, shown

FORMAT = "cardrl-game"
VERSION = 1

#: the fields a line must hold to be read as a game
REQUIRED = ("format", "version", "game", "options", "deal", "actions", "result")

#: plain fields and the JSON types they hold
_PLAIN = (
    ("result", dict, "an object (the result of the game)"),
    ("results", (list, type(None)), "a list of results or null"),
    ("info", (dict, type(None)), "an object or null"),
    ("seed", (int, type(None)), "an integer or null"),
)

#: bytes read from the start of a file to tell a binary file from JSON lines
_SNIFF = 8192


class GameFileError(ValueError):
    """A line of a games file that is not a readable game: its ``path``, ``line`` number,
    the ``field`` at fault (None: the whole line) and the ``reason``."""

    def __init__(self, path: str | os.PathLike, line: int, reason: str,
                 field: str | None = None):
        self.path, self.line, self.reason, self.field = str(path), line, reason, field
        super().__init__(f"{self.path}, line {line}: {reason}")


def plain(value):
    """``value`` as plain JSON types (what a stored result looks like once read back)."""
    return json.loads(json.dumps(value))


def write_games(path: str | os.PathLike, records: Iterable[dict], append: bool = False) -> int:
    """Write ``records`` to ``path`` as JSON lines (``append`` adds to the file); returns
    the number written."""
    count = 0
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, separators=(",", ":")) + "\n")
            count += 1
    return count


def check_record(record: object) -> None:
    """Raise :class:`~records.checks.RecordError` (naming the field, what was found and
    what was expected) unless ``record`` is a game record this project can replay: the
    format and version above, every required field, a known game, plain fields of the right
    type, and the game-specific fields (:func:`records.checks.check_fields`)."""
    if not isinstance(record, dict):
        kind = {list: "a JSON list", str: "a JSON string", bool: "a JSON boolean",
                type(None): "null"}.get(type(record), "a JSON number")
        raise RecordError(None, kind, "a JSON object (one game)")
    missing = "nothing (the field is missing)"
    if record.get("format") != FORMAT:
        found = shown(record["format"]) if "format" in record else missing
        raise RecordError("format", found, shown(FORMAT) + " (a cardrl game record)")
    if not is_int(record.get("version")) or record["version"] != VERSION:
        found = shown(record["version"]) if "version" in record else missing
        raise RecordError("version", found, f"{VERSION} (the version this cardrl reads)")
    absent = [k for k in REQUIRED if k not in record]
    if absent:
        raise RecordError(", ".join(absent), "missing",
                          "a game record with the fields " + ", ".join(REQUIRED))
    if not isinstance(record["game"], str) or record["game"] not in registry.GAMES:
        raise RecordError("game", shown(record["game"]),
                          "one of " + ", ".join(registry.GAMES))
    for name, kinds, expected in _PLAIN:
        if name in record and not isinstance(record[name], kinds):
            raise RecordError(name, shown(record[name]), expected)
    if "seed" in record and isinstance(record["seed"], bool):
        raise RecordError("seed", shown(record["seed"]), "an integer or null")
    results = record.get("results") or []
    for k, result in enumerate(results):
        if not isinstance(result, dict):
            raise RecordError(f"results[{k}]", shown(result), "an object (a deal's result)")
    check_fields(record)



def validate(record: object) -> str | None:
    """Why ``record`` is not a game record (:func:`check_record`'s message), or None."""
    try:
        check_record(record)
    except RecordError as err:
        return str(err)
    return None


def read_games(path: str | os.PathLike) -> tuple[list[dict], list[GameFileError]]:
    """The games of a JSON-lines file and the errors of its bad lines.

    Every line is checked (:func:`check_record`) before it is returned. Every readable
    game is returned, in file order, whatever lines around it are broken (a truncated last
    line, a corrupt line in the middle), with its line number as ``record["_line"]``; each
    bad line gives one :class:`GameFileError` naming its line number and what is wrong.
    Blank lines are skipped. A file that cannot be read at all (missing, a directory, a
    named pipe or anything else that is not a regular file, not readable, binary) raises
    ``ValueError`` naming it.
    """
    games: list[dict] = []
    errors: list[GameFileError] = []
    try:
        with _open_regular(path) as f:
            if b"\0" in f.read(_SNIFF):
                raise ValueError(f"{path}: found a binary file, expected JSON lines of game "
                                 "records (one game per line)")
            f.seek(0)
            for number, raw in enumerate(f, start=1):
                error = _read_line(path, number, raw, games)
                if error is not None:
                    errors.append(error)
    except FileNotFoundError:
        raise ValueError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{path}: found a directory, expected a games file") from None
    except OSError as err:
        raise ValueError(f"{path}: cannot be read ({err.strerror or err})") from None
    return games, errors


def _open_regular(path: str | os.PathLike) -> BinaryIO:
    """``path`` opened for reading bytes, or ``ValueError`` when it is not a regular file
    (a directory, a named pipe, a device, a socket), before anything is read from it: a
    named pipe is opened without waiting for a writer, and checked once open too."""
    _check_regular(path, os.stat(path).st_mode)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        _check_regular(path, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def _check_regular(path: str | os.PathLike, mode: int) -> None:
    """``ValueError`` naming what ``path`` is, unless ``mode`` is a regular file's."""
    if stat.S_ISREG(mode):
        return
    kind = ("a directory" if stat.S_ISDIR(mode) else
            "a named pipe (FIFO)" if stat.S_ISFIFO(mode) else
            "a socket" if stat.S_ISSOCK(mode) else
            "a character device" if stat.S_ISCHR(mode) else
            "a block device" if stat.S_ISBLK(mode) else "not a regular file")
    raise ValueError(f"{path}: found {kind}, expected a games file (a regular file of JSON "
                     "lines)")


def _read_line(path: str | os.PathLike, number: int, raw: bytes,
               games: list[dict]) -> GameFileError | None:
    """Read line ``number`` (bytes ``raw``): append its game to ``games``, or return why
    it is not one (None for a blank line too)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        return GameFileError(path, number, f"found bytes that are not UTF-8 text at column "
                                           f"{err.start + 1}, expected JSON text")
    if not line.strip():
        return None
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        hint = "" if line.endswith("\n") else " (the file looks truncated)"
        return GameFileError(path, number, f"not valid JSON: {err.msg} at column "
                                           f"{err.colno}{hint}")
    except RecursionError:
        return GameFileError(path, number, "not valid JSON: nested too deeply")
    except ValueError as err:  # an integer over Python's digit limit
        limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
        long = re.search(rf"\d{{{limit + 1},}}", line) if limit else None
        if long is None:
            return GameFileError(path, number, f"not readable JSON: {err}")
        return GameFileError(path, number, f"found a number of {len(long.group())} digits at "
                                           f"column {long.start() + 1}, expected numbers of "
                                           f"at most {limit} digits")
    try:
        check_record(record)
    except RecordError as err:
        return GameFileError(path, number, str(err), err.field)
    record["_line"] = number
    games.append(record)
    return None
