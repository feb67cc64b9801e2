"""``--save-games`` after an interruption (arena/tournament/storage.py): a chunk's game
records reach the games file before its rows reach games.csv, and a resume cuts back the
records of a chunk that is not in games.csv, so every game is in the file exactly once."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

import records.format
from arena.tournament import run_tournament
from arena.tournament import runner as runner_module
from arena.tournament.storage import RECORDS_FILE

SMALL = dict(game="abracadabra", agent_names=["random", "random"], deals=9, seed=5,
             options={"variant": "two"}, chunk_size=3, progress=False)
#: a line of something else at the head of the games file: it must stay there
EARLIER = b'{"earlier": "a game file may hold other games before the tournament\'s"}\n'


class Interrupt(BaseException):
    """Stands for Ctrl-C (a BaseException, as KeyboardInterrupt is)."""


def games_in(path: Path) -> Counter:
    """(deal, rotation) -> how many times the file holds that game (the earlier line and
    a last line cut short aside)."""
    data = path.read_bytes()
    lines = data[:data.rfind(b"\n") + 1].splitlines()
    assert lines[0] + b"\n" == EARLIER
    return Counter((g["info"]["deal"], g["info"]["rotation"])
                   for g in map(json.loads, lines[1:]))


def interrupt_rows_of_chunk(monkeypatch, stop_at: int) -> None:
    """Stop the run when the rows of the ``stop_at``-th finished chunk are to be appended
    to games.csv: its records are in the games file, its rows are not in games.csv."""
    append = runner_module.append_games
    calls = []

    def append_games(path, frame):
        calls.append(path)
        if len(calls) == stop_at:
            raise Interrupt
        append(path, frame)

    monkeypatch.setattr(runner_module, "append_games", append_games)


def interrupt_records_of_chunk(monkeypatch, stop_at: int) -> None:
    """Stop the run while the records of the ``stop_at``-th finished chunk are written:
    one record whole, the next cut short."""
    write = records.format.write_games
    calls = []

    def write_games(path, games, append=False):
        calls.append(path)
        if len(calls) == stop_at:
            games = list(games)
            write(path, games[:1], append=append)
            with open(path, "a") as f:
                f.write(json.dumps(games[1])[:40])
            raise Interrupt
        return write(path, games, append=append)

    monkeypatch.setattr(records.format, "write_games", write_games)


def interrupted_run(interrupt, tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """(the games file, the tournament folder) of a run that ``interrupt`` stopped at its
    second finished chunk (the games file held :data:`EARLIER` before it)."""
    saved, out = tmp_path / "saved.jsonl", tmp_path / "t"
    saved.write_bytes(EARLIER)
    with monkeypatch.context() as patch:
        interrupt(patch, stop_at=2)
        with pytest.raises(Interrupt):
            run_tournament(**SMALL, save_games=saved, out_dir=out)
    return saved, out


@pytest.mark.parametrize("interrupt", [interrupt_rows_of_chunk, interrupt_records_of_chunk],
                         ids=["between records and rows", "within the records"])
def test_each_game_is_saved_exactly_once_after_an_interruption_and_resume(
        interrupt, tmp_path, monkeypatch):
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(EARLIER)
    run_tournament(**SMALL, save_games=whole)
    expected = games_in(whole)
    assert set(expected.values()) == {1} and len(expected) == 9 * 2

    saved, out = interrupted_run(interrupt, tmp_path, monkeypatch)
    assert max(games_in(saved).values()) == 1
    assert len(games_in(saved)) > 2 * 3  # the records of the second chunk, whole or in part
    assert (out / RECORDS_FILE).exists()

    resumed = run_tournament(**SMALL, save_games=saved, out_dir=out)
    assert resumed.played_deals == 2 * 3  # the second and third chunks
    assert games_in(saved) == expected  # every game once
    assert sorted(saved.read_bytes().splitlines()) == sorted(whole.read_bytes().splitlines())
    again = run_tournament(**SMALL, save_games=saved, out_dir=out)  # nothing left to play
    assert again.played_deals == 0 and games_in(saved) == expected


def test_a_resume_trims_nothing_but_the_records_of_the_unfinished_chunk(tmp_path, monkeypatch):
    saved, out = interrupted_run(interrupt_rows_of_chunk, tmp_path, monkeypatch)
    with open(saved, "ab") as f:  # something else appended the file since
        f.write(b'{"game": "abracadabra", "info": {"deal": 99, "rotation": 0}}\n')
    before = saved.read_bytes()
    with pytest.raises(ValueError, match=r"saved.jsonl: line \d+ after byte [\d,]+ is not a "
                                         r"game of chunk 1 .*nothing was changed"):
        run_tournament(**SMALL, save_games=saved, out_dir=out)
    assert saved.read_bytes() == before


def test_a_full_disk_is_one_line_and_the_stored_chunks_resume(tmp_path, monkeypatch):
    whole = run_tournament(**SMALL)
    out = tmp_path / "t"
    append, calls = runner_module.append_games, []

    def full_disk(path, frame):  # the rows of the second chunk find the disk full
        calls.append(path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(path))
        append(path, frame)

    with monkeypatch.context() as patch:
        patch.setattr(runner_module, "append_games", full_disk)
        with pytest.raises(ValueError) as error:
            run_tournament(**SMALL, out_dir=out)
    assert str(error.value) == (f"{out / 'games.csv'}: No space left on device; the chunks "
                                f"stored in {out / 'games.csv'} so far are kept: rerun the "
                                f"same command to resume once that is fixed")
    assert not list(out.glob("*.tmp")) and not (out / "summary.md").exists()
    resumed = run_tournament(**SMALL, out_dir=out)
    assert resumed.played_deals == 2 * 3
    assert resumed.games.equals(whole.games)


def test_a_failed_report_write_leaves_no_tmp_and_no_half_report(tmp_path, monkeypatch):
    from arena.tournament import report

    out = tmp_path / "t"

    def full_disk(result, path):
        path.write_bytes(b"\x89PNG")
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(report, "plot_head_to_head", full_disk)
    with pytest.raises(ValueError, match="head_to_head.png.tmp: No space left on device"):
        run_tournament(**SMALL, out_dir=out)
    assert sorted(p.name for p in out.iterdir()) == ["games.csv", "tournament.json"]
