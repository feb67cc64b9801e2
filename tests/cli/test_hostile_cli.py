"""The CLI under hostile or careless input (issue 39, problems 9 and 11): every case ends in
one ``cardrl COMMAND: error: ...`` line on stderr with exit status 2, no traceback, and
nothing created or half-written; earlier results are replaced only with ``--force``.

Covered here: ``fuzz --minutes inf``, a ``--batch`` beyond the machine's memory,
``fuzz``/``ladder --out FILE`` (refused before the run), a full disk while ``fuzz``,
``ladder`` and ``bidbench`` write their reports (a real ENOSPC: the ``.tmp`` file is a link
to ``/dev/full``), ``bidbench``/``fuzz``/``ladder`` over earlier results, ``replay`` of a
file with one over-long number (that line reported, the other games checked) and of a
named pipe (refused at once), a deeply nested YAML recipe, and the last-resort handling of
``OSError``, ``MemoryError`` and ``RecursionError`` in :func:`cli.main.main`. More one-line
refusals are in ``tests/cli/test_errors.py``.
"""

from __future__ import annotations

import errno
import os
import signal
from pathlib import Path

import pandas as pd
import pytest

from cli.main import main as cardrl
from records.output import atomic_files, check_output

FOUR_ACES_CASE = ("four_aces num_players=3 scoring=strict dealer=ace_of_spades episode=round "
                  "reward=points")
FUZZ = ["fuzz", "--deals", "10", "--batch", "4", "--game", "four_aces", "--only",
        FOUR_ACES_CASE, "--no-progress"]
LADDER = ["ladder", "--game", "four_aces", "--deals", "2", "--timing-deals", "1", "--rungs",
          "random", "--worlds", ""]
BIDBENCH = ["bidbench", "--deals", "2", "--batch", "2", "--bidders", "sure_tricks",
            "--variant", "two", "--no-progress"]
full_disk = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def one_error_line(capsys, command: str, status: int) -> tuple[str, str]:
    """(the error line, stdout) after checking exit status 2 and one stderr line."""
    printed = capsys.readouterr()
    lines = printed.err.splitlines()
    assert status == 2, printed.err
    assert len(lines) == 1, printed.err
    assert lines[0].startswith(f"cardrl {command}: error: "), printed.err
    return lines[0], printed.out


def fill_disk(path: Path) -> None:
    """Make the temporary file of ``path`` a link to /dev/full: writing it fails with
    ENOSPC, as on a full disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.with_name(path.name + ".tmp").symlink_to("/dev/full")


# -- fuzz ----------------------------------------------------------------------------------
@pytest.mark.parametrize("minutes, shown", [("inf", "inf"), ("1e308", "1e+308"),
                                            ("nan", "nan")])
def test_fuzz_refuses_endless_minutes(minutes, shown, tmp_path, capsys):
    status = cardrl([*FUZZ, "--minutes", minutes, "--out", str(tmp_path / "out")])
    line, _ = one_error_line(capsys, "fuzz", status)
    assert (f"--minutes {shown} is not allowed: expected a number of minutes > 0 and at "
            "most 1_000_000") in line
    assert not (tmp_path / "out").exists()


def test_fuzz_refuses_a_batch_beyond_the_memory(tmp_path, capsys):
    status = cardrl([*FUZZ, "--batch", "1000000000", "--out", str(tmp_path / "out")])
    line, out = one_error_line(capsys, "fuzz", status)
    assert "--batch 1000000000 needs about" in line and "expected --batch at most" in line
    assert out == "" and not (tmp_path / "out").exists()


def test_fuzz_memory_check_uses_what_the_machine_has(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("cli.fuzz.available_memory", lambda: 2**20)  # 1 MiB left
    status = cardrl([*FUZZ, "--batch", "1024", "--out", str(tmp_path / "out")])
    line, _ = one_error_line(capsys, "fuzz", status)
    assert "--batch 1024 needs about" in line and "this machine has 0.0 GiB available" in line
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("out", ["afile", "afile/sub"])
def test_fuzz_refuses_an_out_that_is_a_file_before_playing(out, tmp_path, capsys):
    (tmp_path / "afile").write_text("not a folder")
    status = cardrl([*FUZZ, "--out", str(tmp_path / out)])
    line, printed = one_error_line(capsys, "fuzz", status)
    assert "expected a folder for a fuzz report" in line and printed == ""
    assert (tmp_path / "afile").read_text() == "not a folder"


def test_fuzz_replaces_an_earlier_report_only_with_force(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "fuzz.md").write_text("earlier report")
    line, printed = one_error_line(capsys, "fuzz", cardrl([*FUZZ, "--out", str(out)]))
    assert f"--out {out} already holds a fuzz report ({out / 'fuzz.md'})" in line
    assert "--force" in line and printed == ""
    assert (out / "fuzz.md").read_text() == "earlier report"
    assert cardrl([*FUZZ, "--out", str(out), "--force"]) == 0
    assert (out / "fuzz.md").read_text().startswith("# Engine fuzz")
    assert sorted(p.name for p in out.iterdir()) == ["fuzz.md"]


@full_disk
def test_fuzz_on_a_full_disk_keeps_the_earlier_report(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "fuzz.md").write_text("earlier report")
    fill_disk(out / "fuzz.md")
    status = cardrl([*FUZZ, "--out", str(out), "--force"])
    line, _ = one_error_line(capsys, "fuzz", status)
    assert "could not write fuzz.md" in line and "No space left on device" in line
    assert sorted(p.name for p in out.iterdir()) == ["fuzz.md"]  # the .tmp removed
    assert (out / "fuzz.md").read_text() == "earlier report"


# -- ladder --------------------------------------------------------------------------------
def fake_ladder(*args, **kwargs) -> pd.DataFrame:
    """A played ladder of one rung, instead of playing it."""
    from arena.ladder import COLUMNS

    row = ["random", "random", 0, 2, -1.5, -6.6, -12.0, -1.3, 0.02, 40, 1.0, "cardrl ..."]
    return pd.DataFrame([row], columns=COLUMNS)


@pytest.mark.parametrize("flag", ["--out", "--work"])
def test_ladder_refuses_a_folder_that_is_a_file_before_the_run(flag, tmp_path, capsys,
                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("afile").write_text("")
    status = cardrl([*LADDER, flag, "afile"])
    line, printed = one_error_line(capsys, "ladder", status)
    assert f"{flag} afile is a file: expected a folder" in line
    assert printed == "" and sorted(os.listdir()) == ["afile"]  # no rung played


def test_ladder_refuses_earlier_files_of_the_same_ladder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("arena.ladder.run_ladder", fake_ladder)
    Path("out").mkdir()
    Path("out/four_aces_4p.md").write_text("earlier ladder")
    status = cardrl([*LADDER, "--out", "out", "--work", "work"])
    line, printed = one_error_line(capsys, "ladder", status)
    assert "--out out already holds the ladder four_aces_4p (out/four_aces_4p.md)" in line
    assert "--force" in line and printed == "" and not Path("work").exists()
    assert cardrl([*LADDER, "--out", "out", "--work", "work", "--force"]) == 0
    assert sorted(os.listdir("out")) == ["four_aces_4p.csv", "four_aces_4p.md",
                                         "four_aces_4p.png"]
    assert Path("out/four_aces_4p.md").read_text().startswith("# Strength ladder")


@full_disk
def test_ladder_on_a_full_disk_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("arena.ladder.run_ladder", fake_ladder)
    fill_disk(Path("out/four_aces_4p.csv"))  # the .md is written first, then this fails
    status = cardrl([*LADDER, "--out", "out", "--work", "work"])
    line, _ = one_error_line(capsys, "ladder", status)
    assert "could not write four_aces_4p.md, four_aces_4p.csv, four_aces_4p.png" in line
    assert "No space left on device" in line
    assert os.listdir("out") == []  # every .tmp removed, no file half-written


# -- bidbench ------------------------------------------------------------------------------
def test_bidbench_refuses_to_overwrite_a_benchmark_without_force(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "bidbench.md").write_text("committed results")
    status = cardrl([*BIDBENCH, "--out", str(out)])
    line, printed = one_error_line(capsys, "bidbench", status)
    assert f"--out {out} already holds a benchmark ({out / 'bidbench.md'})" in line
    assert "or --force to replace it" in line and printed == ""
    assert (out / "bidbench.md").read_text() == "committed results"


@full_disk
def test_bidbench_force_on_a_full_disk_keeps_the_earlier_benchmark(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "bidbench.md").write_text("committed results")
    fill_disk(out / "bidbench_deals.csv")  # the last of the five files
    status = cardrl([*BIDBENCH, "--out", str(out), "--force"])
    line, _ = one_error_line(capsys, "bidbench", status)
    assert "No space left on device" in line and "nothing was replaced" in line
    assert sorted(p.name for p in out.iterdir()) == ["bidbench.md"]
    assert (out / "bidbench.md").read_text() == "committed results"
    assert cardrl([*BIDBENCH, "--out", str(out), "--force"]) == 0
    assert (out / "bidbench.md").read_text().startswith("# Bidding benchmark")


# -- replay --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def games_file(tmp_path_factory) -> Path:
    """A games file of 4 games (one deal, every rotation)."""
    from arena.tournament import run_tournament

    path = tmp_path_factory.mktemp("replay") / "games.jsonl"
    run_tournament("abracadabra", ["random"], deals=1, seed=0, progress=False,
                   save_games=path)
    return path


def test_replay_reports_an_over_long_number_by_line_and_checks_the_rest(games_file, tmp_path,
                                                                       capsys):
    lines = games_file.read_text().splitlines()
    assert len(lines) == 4
    lines[1] = '{"big":' + "9" * 5000 + "," + lines[1][1:]
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(lines) + "\n")
    status = cardrl(["replay", str(path), "--check"])
    printed = capsys.readouterr()
    errors = printed.err.splitlines()
    assert status == 2 and "Traceback" not in printed.err
    assert errors[0] == (f"cardrl replay: error: {path}, line 2: found a number of 5000 "
                         "digits at column 8, expected numbers of at most 4300 digits")
    assert errors[-1] == f"1 bad line(s) of {path}; 3 good game(s) read"
    for k, line in ((0, 1), (1, 3), (2, 4)):
        assert f"game {k} (line {line}): ok" in printed.out


def test_replay_refuses_a_named_pipe_at_once(tmp_path, capsys):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)

    def hung(signum, frame):
        raise AssertionError("cardrl replay waited for a writer on the named pipe")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    try:
        status = cardrl(["replay", str(pipe)])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    line, _ = one_error_line(capsys, "replay", status)
    assert line.endswith(f"{pipe}: found a named pipe (FIFO), expected a games file (a "
                         "regular file of JSON lines)")


# -- inputs nested too deeply, and what the machine refuses ---------------------------------
def test_a_deeply_nested_yaml_recipe_is_one_line(tmp_path, capsys):
    recipe = tmp_path / "deep.yaml"
    recipe.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    out = tmp_path / "out"
    status = cardrl(["exploit", "--game", "four_aces", "--target", "random", "--recipe",
                     str(recipe), "--minutes", "1", "--out", str(out), "--no-progress"])
    one_error_line(capsys, "exploit", status)
    assert not out.exists()


@pytest.mark.parametrize("error, fragment", [
    (OSError(errno.ENOSPC, "No space left on device", "runs/x/report.md"),
     "runs/x/report.md: No space left on device; expected a file or folder"),
    (MemoryError("Unable to allocate 7.28 TiB for an array"),
     "out of memory (Unable to allocate 7.28 TiB for an array); expected smaller sizes"),
    (RecursionError("maximum recursion depth exceeded"),
     "an input is nested too deeply to be read"),
])
def test_what_the_machine_refuses_is_one_line(error, fragment, tmp_path, capsys, monkeypatch):
    def refused(args):
        raise error

    monkeypatch.setattr("cli.replay.run", refused)
    line, _ = one_error_line(capsys, "replay", cardrl(["replay", str(tmp_path / "g.jsonl")]))
    assert fragment in line


# -- records.output ------------------------------------------------------------------------
def test_atomic_files_replace_all_or_nothing(tmp_path):
    out = tmp_path / "new" / "deeper"
    with pytest.raises(RuntimeError), atomic_files([out / "a.md", out / "b.csv"]) as (a, b):
        a.write_text("A")
        raise RuntimeError("the second file failed")
    assert not (tmp_path / "new").exists()  # the folders it made are gone too
    with atomic_files([out / "a.md", out / "b.csv"]) as (a, b):
        a.write_text("A")
        b.write_text("B")
    assert sorted(p.name for p in out.iterdir()) == ["a.md", "b.csv"]


def test_check_output_refuses_a_folder_where_a_file_goes(tmp_path):
    (tmp_path / "fuzz.md").mkdir()
    with pytest.raises(ValueError, match="fuzz.md is a folder: expected a file there"):
        check_output(tmp_path, ["fuzz.md"], "a fuzz report", force=True)
