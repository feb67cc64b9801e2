"""Reading a tournament's folder back, every field checked before anything is used.

:func:`read_spec_file` reads ``tournament.json`` and :func:`read_games_file` reads
``games.csv``, as :mod:`arena.tournament.storage` writes them. Anything else is one
``ValueError`` naming the file, the line or field, what was found and what was expected;
nothing here writes.

What a valid ``games.csv`` is: the header :data:`arena.tournament.chunk.COLUMNS`, then one
row per (deal, rotation, seat) with every field of its type and range (deal ``0..deals-1``,
rotation and seat ``0..P-1``, the agent the schedule seats there, finite points, chips a
number or empty, won 0, 1 or empty, ``n_deals >= 1``), no (deal, rotation, seat) twice.
Whatever follows the last newline is a row cut short by an interruption (rows are only
ever appended, each ending in a newline) and is ignored: its chunk is incomplete and is
played again.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from arena.tournament.chunk import COLUMNS, normalize
from arena.tournament.schedule import lineup_period, seating
from arena.tournament.spec import FORMAT_VERSION, TournamentSpec

#: the end of every message about a bad file of the folder
LEFT_AS_IS = ("nothing in the folder was changed: use another --out folder, or delete this "
              "one to start over")  # fmt: skip


def _int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _str_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


#: tournament.json: key -> (check, what is expected); "version" is checked first
SPEC_FIELDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "game": (lambda v: isinstance(v, str), "a game name"),
    "labels": (lambda v: _str_list(v) and len(v) > 0, "a non-empty list of agent labels"),
    "names": (lambda v: _str_list(v) and len(v) > 0, "a non-empty list of agent names"),
    "deals": (lambda v: _int(v) and v >= 1, "an integer >= 1"),
    "seed": (_int, "an integer"),
    "options": (lambda v: isinstance(v, dict), "an object of game options"),
    "chunk_size": (lambda v: _int(v) and v >= 1, "an integer >= 1"),
    "agent_kwargs": (
        lambda v: isinstance(v, dict) and all(isinstance(k, dict) for k in v.values()),
        "an object of agent -> keyword arguments",
    ),
    "version": (_int, f"{FORMAT_VERSION}"),
}
#: the optional "inputs" object (:mod:`arena.tournament.inputs`)
INPUT_FILE_FIELDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "agent": (lambda v: isinstance(v, str), "an agent label"),
    "path": (lambda v: isinstance(v, str), "a path"),
    "sha256": (
        lambda v: isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v),
        "64 lowercase hex digits",
    ),
}


def _shown(value, limit: int = 80) -> str:
    """A stored value as the message shows it (JSON, shortened)."""
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _refuse(where: str, found: str, expected: str) -> ValueError:
    return ValueError(f"{where}: found {found}; expected {expected}; {LEFT_AS_IS}")


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise ValueError(f"{path}: cannot be read ({error.strerror or error}); expected the "
                         f"file cardrl tournament writes; {LEFT_AS_IS}") from None  # fmt: skip


def _decode(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise _refuse(f"{path} byte {error.start}", f"{data[error.start:error.start + 1]!r}, "
                      "which is not UTF-8 text", "the text cardrl tournament writes") from None


def read_spec_file(path: Path) -> dict:
    """The content of ``tournament.json``: the spec's fields
    (:meth:`TournamentSpec.to_json`) and, when the file has it, ``"inputs"``; every field
    checked (module docstring)."""
    text = _decode(path, _read(path))
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise _refuse(f"{path} line {error.lineno} column {error.colno}",
                      f"text that is not JSON ({error.msg})",
                      "the JSON object cardrl tournament writes") from None  # fmt: skip
    if not isinstance(data, dict):
        raise _refuse(path, f"a JSON {type(data).__name__} {_shown(data)}",
                      "a JSON object of the tournament's arguments")  # fmt: skip
    if data.get("version") != FORMAT_VERSION:
        found = f"'version': {_shown(data['version'])}" if "version" in data else "no 'version'"
        raise _refuse(path, found, f"'version': {FORMAT_VERSION} (the format this cardrl "
                      "reads; another version was written by another cardrl)")  # fmt: skip
    missing = [key for key in SPEC_FIELDS if key not in data]
    if missing:
        raise _refuse(path, f"no {', '.join(map(repr, missing))}",
                      f"every key of {list(SPEC_FIELDS)}")  # fmt: skip
    unknown = [key for key in data if key not in SPEC_FIELDS and key != "inputs"]
    if unknown:
        raise _refuse(path, f"the unknown key(s) {', '.join(map(repr, unknown))}",
                      f"only the keys {[*SPEC_FIELDS, 'inputs']}")  # fmt: skip
    for key, (check, expected) in SPEC_FIELDS.items():
        if not check(data[key]):
            raise _refuse(f"{path} field {key!r}", _shown(data[key]), expected)
    if len(data["names"]) != len(data["labels"]):
        raise _refuse(f"{path} field 'names'", f"{len(data['names'])} names for "
                      f"{len(data['labels'])} labels", "one name per label")  # fmt: skip
    if "inputs" in data:
        check_inputs(path, data["inputs"])
    return data


def check_inputs(path: Path, inputs) -> None:
    """ValueError unless ``inputs`` is an inputs record (:mod:`arena.tournament.inputs`)."""
    where = f"{path} field 'inputs'"
    if not isinstance(inputs, dict) or set(inputs) != {"project_version", "files"}:
        raise _refuse(where, _shown(inputs),
                      "an object with the keys 'project_version' and 'files'")  # fmt: skip
    if not isinstance(inputs["project_version"], str):
        raise _refuse(f"{where} 'project_version'", _shown(inputs["project_version"]),
                      "a version string")  # fmt: skip
    if not isinstance(inputs["files"], list):
        raise _refuse(f"{where} 'files'", _shown(inputs["files"]), "a list")
    for index, entry in enumerate(inputs["files"]):
        if not isinstance(entry, dict) or set(entry) != set(INPUT_FILE_FIELDS):
            raise _refuse(f"{where} 'files'[{index}]", _shown(entry),
                          f"an object with the keys {list(INPUT_FILE_FIELDS)}")  # fmt: skip
        for key, (check, expected) in INPUT_FILE_FIELDS.items():
            if not check(entry[key]):
                raise _refuse(f"{where} 'files'[{index}] {key!r}", _shown(entry[key]), expected)


def _line_of(text: str, record: int) -> int:
    """The line number (1-based) where CSV record ``record`` of ``text`` ends (record 0:
    the header)."""
    reader = csv.reader(io.StringIO(text))
    for index, _ in enumerate(reader):
        if index == record:
            return reader.line_num
    return reader.line_num


def _numbers(values: np.ndarray) -> np.ndarray:
    """float64 of each text; NaN where it is empty or not a number."""
    return pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=np.float64)


def _integers(values: np.ndarray, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """(float64 values, mask of the texts that are not an integer in ``low..high``)."""
    x = _numbers(values)
    with np.errstate(invalid="ignore"):
        good = np.isfinite(x) & (x == np.floor(x)) & (x >= low) & (x <= high)
    return x, ~good


def expected_agents(spec: TournamentSpec, deal: np.ndarray, rotation: np.ndarray,
                    seat: np.ndarray) -> np.ndarray:
    """The label of the entrant the schedule seats at each (deal, rotation, seat), all
    three int64 arrays of valid indices."""
    seats, labels = spec.num_seats, np.array(spec.labels, dtype=object)
    period = lineup_period(len(labels), seats)
    table = np.array([[seating(d, r, len(labels), seats) for r in range(seats)]
                      for d in range(min(period, spec.deals))], dtype=np.int64)  # fmt: skip
    return labels[table[deal % period, rotation, seat]]


def read_games_file(path: Path, spec: TournamentSpec) -> dict[int, pd.DataFrame]:
    """The complete chunks of ``games.csv`` (chunk -> its rows sorted by deal, rotation,
    seat), after checking every row against ``spec`` (module docstring)."""
    data = _read(path)
    text = _decode(path, data[: data.rfind(b"\n") + 1])  # the rest: a row cut short
    table = _parse_fast(text)
    if table is None or not _valid(table, spec):
        table = _parse_exact(path, text, spec)  # finds the first problem and raises
    done: dict[int, pd.DataFrame] = {}
    seats = spec.num_seats
    for chunk, chunk_rows in table.groupby(table["deal"] // spec.chunk_size):
        if len(chunk_rows) == len(spec.chunk_deals(int(chunk))) * seats * seats:
            done[int(chunk)] = chunk_rows.sort_values(["deal", "rotation", "seat"])
    return done


INTEGER_COLUMNS = ("deal", "rotation", "seat", "n_deals")
FLOAT_COLUMNS = ("points", "chips", "won")


def _parse_fast(text: str) -> pd.DataFrame | None:
    """The rows of a well-formed ``text`` (pandas' C parser, every column of its type);
    None when anything is off (then :func:`_parse_exact` says what)."""
    try:
        table = pd.read_csv(io.StringIO(text), dtype={"agent": str}, keep_default_na=False,
                            na_values={"chips": [""], "won": [""]}, skip_blank_lines=False)
    except (ValueError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    if list(table.columns) != list(COLUMNS) or not len(table):
        return None
    if any(table[c].dtype != np.int64 for c in INTEGER_COLUMNS):
        return None
    if any(table[c].dtype != np.float64 for c in FLOAT_COLUMNS):
        return None
    return normalize(table)


def _valid(table: pd.DataFrame, spec: TournamentSpec) -> bool:
    """Whether every row of a parsed table is in range, seated by the schedule, and its
    (deal, rotation, seat) once."""
    seats = spec.num_seats
    deal, rotation, seat, n_deals = (table[c].to_numpy() for c in INTEGER_COLUMNS)
    points, chips, won = (table[c].to_numpy() for c in FLOAT_COLUMNS)
    placed = ((deal >= 0) & (deal < spec.deals) & (rotation >= 0) & (rotation < seats)
              & (seat >= 0) & (seat < seats))  # fmt: skip
    if not (placed.all() and (n_deals >= 1).all() and np.isfinite(points).all()):
        return False
    if not ((np.isfinite(chips) | np.isnan(chips)).all() and np.isin(won[~np.isnan(won)],
                                                                     (0.0, 1.0)).all()):
        return False
    if not (table["agent"].to_numpy() == expected_agents(spec, deal, rotation, seat)).all():
        return False
    return not pd.Series((deal * seats + rotation) * seats + seat).duplicated().any()


def _parse_exact(path: Path, text: str, spec: TournamentSpec) -> pd.DataFrame:
    """The rows of ``text`` read field by field: ValueError at the first problem (its line,
    column, what was found and what was expected)."""
    try:
        records = list(csv.reader(io.StringIO(text)))
    except csv.Error as error:
        raise _refuse(path, f"text that is not CSV ({error})", "CSV rows") from None
    empty = pd.DataFrame({c: pd.Series(dtype=object) for c in COLUMNS})
    if not records:
        return normalize(empty)
    header, rows = records[0], records[1:]
    if header != list(COLUMNS):
        raise _refuse(f"{path} line 1", f"the columns {','.join(header)!r}",
                      f"the columns {','.join(COLUMNS)!r}")  # fmt: skip
    widths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
    wrong = np.flatnonzero(widths != len(COLUMNS))
    if len(wrong):
        index = int(wrong[0])
        raise _refuse(f"{path} line {_line_of(text, index + 1)}",
                      f"{widths[index]} field(s) {','.join(rows[index])!r}",
                      f"{len(COLUMNS)} fields ({','.join(COLUMNS)})")  # fmt: skip
    if not rows:
        return normalize(empty)
    columns = zip(*rows, strict=True)  # every row has len(COLUMNS) fields
    texts = {name: np.array(column, dtype=object)
             for name, column in zip(COLUMNS, columns, strict=True)}  # fmt: skip
    seats = spec.num_seats
    deal, bad_deal = _integers(texts["deal"], 0, spec.deals - 1)
    rotation, bad_rotation = _integers(texts["rotation"], 0, seats - 1)
    seat, bad_seat = _integers(texts["seat"], 0, seats - 1)
    n_deals, bad_n_deals = _integers(texts["n_deals"], 1, np.inf)
    points, chips, won = (_numbers(texts[c]) for c in FLOAT_COLUMNS)
    empty_chips, empty_won = texts["chips"] == "", texts["won"] == ""
    placed = ~(bad_deal | bad_rotation | bad_seat)
    expected = np.full(len(rows), "", dtype=object)
    if placed.any():
        expected[placed] = expected_agents(spec, *(x[placed].astype(np.int64)
                                                   for x in (deal, rotation, seat)))
    checks = [  # (column, bad rows, what is expected), in column order
        ("deal", bad_deal, f"a deal index 0..{spec.deals - 1} (the tournament has "
                           f"{spec.deals} deals)"),
        ("rotation", bad_rotation, f"a rotation 0..{seats - 1} ({seats} seats)"),
        ("seat", bad_seat, f"a seat 0..{seats - 1} ({seats} seats)"),
        ("agent", placed & (texts["agent"] != expected), "the agent the schedule seats there"),
        ("points", ~np.isfinite(points), "a finite number"),
        ("chips", ~(np.isfinite(chips) | empty_chips), "a finite number or nothing"),
        ("won", ~(np.isin(won, (0.0, 1.0)) | empty_won), "0, 1 or nothing"),
        ("n_deals", bad_n_deals, "an integer >= 1"),
    ]  # fmt: skip
    firsts = [(int(np.argmax(bad)), n) for n, (_, bad, _) in enumerate(checks) if bad.any()]
    if firsts:
        index, n = min(firsts)
        column, _, what = checks[n]
        if column == "agent":
            what = f"{expected[index]!r}, {what}"
        raise _refuse(f"{path} line {_line_of(text, index + 1)} column {column!r}",
                      repr(texts[column][index]), what)  # fmt: skip
    key = (deal.astype(np.int64) * seats + rotation.astype(np.int64)) * seats + seat.astype(
        np.int64
    )
    repeated = pd.Series(key).duplicated().to_numpy()
    if repeated.any():
        index = int(np.argmax(repeated))
        first = int(np.argmax(key == key[index]))
        raise _refuse(f"{path} line {_line_of(text, index + 1)}",
                      f"deal {int(deal[index])} rotation {int(rotation[index])} seat "
                      f"{int(seat[index])} again (first on line {_line_of(text, first + 1)})",
                      "each (deal, rotation, seat) once")  # fmt: skip
    # exact values: numpy parses decimal text correctly rounded (as it was written)
    floats = {}
    for column in FLOAT_COLUMNS:
        try:
            floats[column] = np.where(texts[column] == "", "nan", texts[column]).astype(
                str).astype(np.float64)
        except ValueError:
            raise _refuse(f"{path} column {column!r}", "a text that is not a decimal number",
                          "decimal numbers") from None  # fmt: skip
    return normalize(pd.DataFrame({
        "deal": deal, "rotation": rotation, "seat": seat, "agent": texts["agent"],
        **floats, "n_deals": n_deals,
    }))  # fmt: skip
