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
"""

from __future__ import annotations

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
#: how a refused resume ends
ELSEWHERE = "refusing to resume it (nothing there was changed): use another --out folder"


class TournamentMismatch(ValueError):
    """``out_dir`` holds a tournament played with other arguments or other inputs."""


def prepare_dir(
    spec: TournamentSpec, out_dir: Path, inputs: dict | None = None
) -> dict[int, pd.DataFrame]:
    """Check ``out_dir`` (every file read back and compared with ``spec`` and ``inputs``,
    the record of :func:`arena.tournament.inputs.collect_inputs`) before writing anything
    there, then create it or drop its partial chunks; return the complete chunks already
    in games.csv."""
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
    # every check passed: only now is anything written
    out_dir.mkdir(parents=True, exist_ok=True)
    if stored is None:
        spec_path.write_text(json.dumps({**current, "inputs": inputs}, indent=2) + "\n")
    # rewrite without partial chunks so that appends continue from a clean file
    write_games(games_path, [done[c] for c in sorted(done)])
    return done


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
    """Replace ``path`` by the rows of ``frames`` (atomically, through a temporary file)."""
    table = pd.concat(frames) if frames else pd.DataFrame(columns=list(COLUMNS))
    tmp = path.with_suffix(".csv.tmp")
    table.to_csv(tmp, index=False)
    os.replace(tmp, path)


def append_games(path: Path, frame: pd.DataFrame) -> None:
    """Append the rows of one finished chunk to ``path`` and flush them to disk."""
    header = not path.exists() or path.stat().st_size == 0
    with open(path, "a") as f:
        frame.to_csv(f, index=False, header=header)
        f.flush()
        os.fsync(f.fileno())
