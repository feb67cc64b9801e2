"""A tournament's folder: its arguments and inputs (``tournament.json``) and its rows
(``games.csv``).

**Resumption.** With an output folder, the arguments (:class:`TournamentSpec`) and the
inputs record (:mod:`arena.tournament.inputs`: the SHA-256 of every file an entrant loads
and the project version) are stored in ``DIR/tournament.json``, and each finished chunk
is appended to ``DIR/games.csv`` at once. A rerun reads both files back, every field
checked (:mod:`arena.tournament.reading`), keeps the complete chunks and plays only the
missing ones. It is refused (:class:`TournamentMismatch`, nothing in the folder changed)
when the arguments differ, or when the inputs differ by content (a checkpoint replaced,
another project version): the results would mix two tournaments. How the entrants are
built (``trust_pickle``, :data:`arena.tournament.spec.BUILD_FIELDS`) is neither stored
nor compared: the inputs record ties the games to the files' content. When every chunk is
done ``games.csv`` is rewritten sorted by (deal, rotation, seat) and the summary files are
written (:func:`arena.tournament.report.write_outputs`).

**Folders without an inputs record** (a ``tournament.json`` with no ``inputs`` field)
are resumed only when no entrant loads a file, with a warning on stderr that
the project version cannot be checked; with an entrant that loads a file the resume is
refused (the games there cannot be tied to the file's content): start a new folder.

**Game records** (``--save-games FILE``) hold each game exactly once after any
interruption. A finished chunk is stored in three steps: ``DIR/save_games.json`` is
replaced by ``{"file": FILE, "chunk": C, "start": B}`` (``B`` the size of FILE before the
chunk), the chunk's records are appended to FILE and flushed to disk, then its rows are
appended to ``games.csv``. A chunk's records therefore reach FILE before its rows, never
after; when a run stops between the two, the chunk is not in ``games.csv`` and a resume
cuts FILE back to ``B`` before the chunk is played again (:func:`trim_records`; only when
everything after ``B`` is records of that chunk, a line cut short included). One
tournament appends to a games file at a time.

**Other folders.** An existing folder that holds files but neither ``tournament.json`` nor
``games.csv`` is not written into unless ``force`` (``--force``): the tournament's files
would be mixed with, or replace, files of something else.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path

import pandas as pd

from arena.tournament import inputs as inputs_record
from arena.tournament.chunk import COLUMNS
from arena.tournament.reading import read_games_file, read_spec_file
from arena.tournament.spec import TournamentSpec

SPEC_FILE = "tournament.json"
GAMES_FILE = "games.csv"
#: where the game records of the chunk being stored start (module docstring)
RECORDS_FILE = "save_games.json"
#: how a refused resume ends
ELSEWHERE = "refusing to resume it (nothing there was changed): use another --out folder"


class TournamentMismatch(ValueError):
    """``out_dir`` holds a tournament played with other arguments or other inputs."""


def prepare_dir(
    spec: TournamentSpec, out_dir: Path, inputs: dict | None = None, force: bool = False
) -> dict[int, pd.DataFrame]:
    """Check ``out_dir`` (every file read back and compared with ``spec`` and ``inputs``,
    the record of :func:`arena.tournament.inputs.collect_inputs`) before writing anything
    there, then create it or drop its partial chunks (and the game records of a chunk not
    in games.csv, :func:`trim_records`); return the complete chunks already in games.csv.
    A folder holding other files is refused unless ``force`` (:func:`check_dir`)."""
    if inputs is None:
        inputs = {"project_version": inputs_record.project_version(), "files": []}
    spec_path = out_dir / SPEC_FILE
    games_path = out_dir / GAMES_FILE
    existing = next(p for p in (out_dir, *out_dir.parents) if p.exists() or p == Path(p.anchor))
    if not existing.is_dir():
        what = "is a file" if existing == out_dir else f"lies under the file {existing}"
        raise ValueError(f"{out_dir} {what}: expected a folder for the tournament's files")
    # the stored arguments: how entrants are built (BUILD_FIELDS) is not part of them
    current = json.loads(json.dumps(spec.stored_json()))
    check_dir(out_dir, force)
    stored = read_spec_file(spec_path) if spec_path.exists() else None
    if stored is None and games_path.exists():
        raise TournamentMismatch(
            f"{games_path} exists without {spec_path}; refusing to mix results (nothing "
            "there was changed): use another --out folder"
        )
    if stored is not None:
        check_same_arguments(spec_path, {k: v for k, v in stored.items() if k != "inputs"},
                             current)  # fmt: skip
        check_same_inputs(spec_path, stored.get("inputs"), inputs)
    done = read_games_file(games_path, spec) if games_path.exists() else {}
    trim = records_to_trim(out_dir, spec, done)
    # every check passed: only now is anything written
    if trim is not None:
        trim_records(out_dir, *trim)
    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        if stored is None:
            _write_text(spec_path, json.dumps({**current, "inputs": inputs}, indent=2) + "\n")
        # rewrite without partial chunks so that appends continue from a clean file
        write_games(games_path, [done[c] for c in sorted(done)])
    except BaseException:  # a full disk, an interruption: no half-made folder is left
        if created:
            for path in (games_path, spec_path):
                path.unlink(missing_ok=True)
            with contextlib.suppress(OSError):
                out_dir.rmdir()
        raise
    return done


def check_dir(out_dir: Path, force: bool = False) -> None:
    """ValueError when ``out_dir`` is an existing folder that holds files but is no
    tournament's (neither tournament.json nor games.csv), unless ``force``."""
    if force or not out_dir.is_dir():
        return
    if (out_dir / SPEC_FILE).exists() or (out_dir / GAMES_FILE).exists():
        return
    found = sorted(p.name for p in out_dir.iterdir())
    if found:
        shown = ", ".join(found[:3]) + (f" and {len(found) - 3} more" if len(found) > 3 else "")
        raise ValueError(f"{out_dir} is not empty ({shown}) and holds no tournament (no "
                         f"{SPEC_FILE} or {GAMES_FILE}): expected a new or empty folder, or "
                         f"a tournament's folder to resume; use another --out folder, or "
                         f"--force to write the tournament's files there")


def check_same_arguments(spec_path: Path, stored: dict, current: dict) -> None:
    """TournamentMismatch naming every argument whose stored value differs."""
    changed = [key for key in current if stored.get(key) != current[key]]
    if changed:
        shown = "; ".join(f"{key} {json.dumps(stored.get(key))} there, "
                          f"{json.dumps(current[key])} now" for key in changed)  # fmt: skip
        raise TournamentMismatch(
            f"{spec_path.parent} holds a tournament with other arguments ({shown}); "
            f"{ELSEWHERE}, or delete {spec_path} and {spec_path.parent / GAMES_FILE} to "
            "start over"
        )


def check_same_inputs(spec_path: Path, stored: dict | None, current: dict) -> None:
    """TournamentMismatch naming every input file whose content differs, or another
    project version; for a folder without an inputs record see the module docstring."""
    if stored is None:
        if current["files"]:
            files = ", ".join(f"{f['path']!r} ({f['agent']})" for f in current["files"])
            raise TournamentMismatch(
                f"{spec_path} records no SHA-256 of the files its entrants load (it was "
                f"written by an older cardrl), so the games there cannot be tied to {files}; "
                f"{ELSEWHERE} to play the tournament again"
            )
        print(f"warning: {spec_path} records no project version (written by an older "
              f"cardrl): resuming without checking that its games were played by "
              f"{inputs_record.PROJECT} {current['project_version']}", file=sys.stderr)
        return
    found = inputs_record.differences(stored, current)
    if found:
        raise TournamentMismatch(
            f"{spec_path.parent} holds games played with other inputs ({'; '.join(found)}); "
            f"{ELSEWHERE}, or restore the files the games there were played with"
        )


def write_games(path: Path, frames: list[pd.DataFrame]) -> None:
    """Replace ``path`` by the rows of ``frames`` (atomically, through a temporary file,
    removed if the write fails)."""
    table = pd.concat(frames) if frames else pd.DataFrame(columns=list(COLUMNS))
    tmp = path.with_suffix(".csv.tmp")
    try:
        table.to_csv(tmp, index=False)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def append_games(path: Path, frame: pd.DataFrame) -> None:
    """Append the rows of one finished chunk to ``path`` and flush them to disk."""
    header = not path.exists() or path.stat().st_size == 0
    with open(path, "a") as f:
        frame.to_csv(f, index=False, header=header)
        f.flush()
        os.fsync(f.fileno())


# -- game records (--save-games) ----------------------------------------------------------
def store_records(path: Path, records: list[dict], chunk: int, out_dir: Path | None) -> None:
    """Append the game records of a finished ``chunk`` to ``path`` and flush them to disk;
    with a tournament folder ``out_dir``, first note there where they start
    (:data:`RECORDS_FILE`, module docstring). Call it before the chunk's rows reach
    games.csv."""
    from records.format import write_games as write_records

    if out_dir is not None:
        start = path.stat().st_size if path.exists() else 0
        _write_json(out_dir / RECORDS_FILE,
                    {"file": str(path.resolve()), "chunk": chunk, "start": start})
    write_records(path, records, append=True)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def records_to_trim(out_dir: Path, spec: TournamentSpec,
                    done: dict) -> tuple[Path, int] | None:
    """``(FILE, B)`` when :data:`RECORDS_FILE` says that the records of a chunk not in
    games.csv (``done``) start at byte ``B`` of FILE and FILE holds more; None when there
    is nothing to trim. ValueError (nothing changed) when the note cannot be read or the
    bytes after ``B`` are not only records of that chunk. Writes nothing."""
    note_path = out_dir / RECORDS_FILE
    if not note_path.is_file():
        return None
    try:
        note = json.loads(note_path.read_text())
        path, chunk, start = Path(note["file"]), note["chunk"], note["start"]
        if not (isinstance(chunk, int) and isinstance(start, int) and start >= 0):
            raise TypeError
    except (OSError, ValueError, KeyError, TypeError):
        raise ValueError(f"{note_path}: found no JSON object with a file, a chunk and a start "
                         f"byte; expected the note a tournament writes before it appends a "
                         f"chunk's game records; nothing was changed: delete it if no games "
                         f"file needs trimming") from None
    if chunk in done or not path.is_file() or path.stat().st_size <= start:
        return None
    with open(path, "rb") as f:
        f.seek(start)
        tail = f.read()
    deals = set(spec.chunk_deals(chunk))
    complete = tail[: tail.rfind(b"\n") + 1]  # the rest: a record cut short
    for number, line in enumerate(complete.splitlines(), 1):
        try:
            record = json.loads(line)
            ours = record["game"] == spec.game and record["info"]["deal"] in deals
        except (ValueError, KeyError, TypeError):
            ours = False
        if not ours:
            raise ValueError(
                f"{path}: line {number} after byte {start:,} is not a game of chunk {chunk} "
                f"of the tournament in {out_dir}, whose records were to be removed from there "
                f"(the chunk never reached {GAMES_FILE}); nothing was changed: remove that "
                f"chunk's records by hand, or use another --save-games file")
    return path, start


def trim_records(out_dir: Path, path: Path, start: int) -> None:
    """Cut the games file ``path`` back to ``start`` bytes (the records of a chunk that is
    not in games.csv, :func:`records_to_trim`) and drop the note."""
    with open(path, "r+b") as f:
        f.truncate(start)
        f.flush()
        os.fsync(f.fileno())
    (out_dir / RECORDS_FILE).unlink()


def _write_json(path: Path, value: dict) -> None:
    """Replace ``path`` by ``value`` as JSON, atomically and flushed to disk."""
    _write_text(path, json.dumps(value))


def _write_text(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` atomically (through ``PATH.tmp``, removed if the write
    fails) and flushed to disk."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
