"""Tournament folders that cannot mislead: a resume refuses changed checkpoints or another
project version (arena/tournament/inputs.py), a corrupt folder is one ValueError naming
the file, line or field, what was found and what was expected, with nothing in the folder
changed (arena/tournament/reading.py), and default outputs go to the ignored runs/."""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import json
import shlex
import shutil
from pathlib import Path

import pandas as pd
import pytest
import torch

from agents.policy import agent as policy_agent
from agents.policy.agent import make_checkpoint, save_checkpoint
from agents.policy.net import PolicyNet
from arena.tournament import TournamentMismatch, run_tournament
from arena.tournament import inputs as inputs_module
from cli.main import build_parser

OBS, ACTIONS = 450, 54  # Four Aces


class Interrupt(Exception):
    pass


def _stop(chunk):
    raise Interrupt


def write_policy(path: Path, seed: int) -> Path:
    """A tiny Four Aces 3-player checkpoint; another seed, other weights (another hash)."""
    torch.manual_seed(seed)
    net = PolicyNet(OBS, ACTIONS, [8])
    return save_checkpoint(make_checkpoint(net, "four_aces", {"num_players": 3}), path)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


def policy_run(path: Path, **kwargs):
    return run_tournament("four_aces", [f"p=policy:{path}", "random"], deals=6, seed=4,
                          options={"num_players": 3}, progress=False, chunk_size=2,
                          **kwargs)  # fmt: skip


# -- inputs recorded by content -------------------------------------------------------------
def test_tournament_json_records_checkpoint_hash_and_version(tmp_path):
    checkpoint = write_policy(tmp_path / "p.pt", seed=0)
    result = policy_run(checkpoint, out_dir=tmp_path / "t")
    stored = json.loads((tmp_path / "t" / "tournament.json").read_text())
    digest = hashlib.sha256(checkpoint.read_bytes()).hexdigest()
    assert stored["inputs"] == {
        "project_version": inputs_module.project_version(),
        "files": [{"agent": "p", "path": str(checkpoint), "sha256": digest}],
    }
    assert stored["inputs"]["project_version"] == importlib.metadata.version("cardgames-rl")
    assert result.inputs == stored["inputs"]
    summary = (tmp_path / "t" / "summary.md").read_text()
    assert f"- input: p: {checkpoint} (SHA-256 {digest})" in summary


def test_replaced_checkpoint_refuses_the_resume(tmp_path):
    checkpoint = write_policy(tmp_path / "p.pt", seed=0)
    old = hashlib.sha256(checkpoint.read_bytes()).hexdigest()
    full = policy_run(checkpoint, out_dir=tmp_path / "full")
    out = tmp_path / "t"
    with pytest.raises(Interrupt):
        policy_run(checkpoint, out_dir=out, on_chunk=_stop)
    before = snapshot(out)

    write_policy(checkpoint, seed=1)  # the file replaced between the run and its rerun
    new = hashlib.sha256(checkpoint.read_bytes()).hexdigest()
    assert new != old
    with pytest.raises(TournamentMismatch) as refused:
        policy_run(checkpoint, out_dir=out)
    message = str(refused.value)
    assert str(checkpoint) in message and "agent 'p'" in message
    assert f"now {new[:12]}…, but was {old[:12]}…" in message
    assert "\n" not in message
    assert snapshot(out) == before  # nothing in the folder changed

    write_policy(checkpoint, seed=0)  # the same file again: the resume plays the rest
    played = []
    resumed = policy_run(checkpoint, out_dir=out, on_chunk=played.append)
    assert played == [1, 2]
    pd.testing.assert_frame_equal(resumed.games, full.games)
    assert (out / "games.csv").read_bytes() == (tmp_path / "full" / "games.csv").read_bytes()


def test_replaced_default_checkpoint_refuses_the_resume(tmp_path, monkeypatch):
    """The default ``policy`` loads agents/checkpoints/<game>_*.pt: recorded the same way."""
    monkeypatch.setattr(policy_agent, "CHECKPOINT_DIR", tmp_path / "checkpoints")
    committed = write_policy(tmp_path / "checkpoints" / "four_aces_3p.pt", seed=0)
    arguments = dict(game="four_aces", agent_names=["policy", "random"], deals=4, seed=0,
                     options={"num_players": 3}, progress=False, chunk_size=2,
                     out_dir=tmp_path / "t")  # fmt: skip
    with pytest.raises(Interrupt):
        run_tournament(**arguments, on_chunk=_stop)
    stored = json.loads((tmp_path / "t" / "tournament.json").read_text())
    assert [f["path"] for f in stored["inputs"]["files"]] == [str(committed)]
    before = snapshot(tmp_path / "t")
    write_policy(committed, seed=2)
    with pytest.raises(TournamentMismatch, match=f"agent 'policy' loads '{committed}'"):
        run_tournament(**arguments)
    assert snapshot(tmp_path / "t") == before


def test_other_project_version_refuses_the_resume(tmp_path, monkeypatch):
    arguments = dict(game="four_aces", agent_names=["random", "greedy"], deals=4, seed=0,
                     progress=False, chunk_size=2, out_dir=tmp_path)  # fmt: skip
    with pytest.raises(Interrupt):
        run_tournament(**arguments, on_chunk=_stop)
    before = snapshot(tmp_path)
    current = inputs_module.project_version()
    monkeypatch.setattr(inputs_module, "project_version", lambda: "99.0")
    with pytest.raises(TournamentMismatch,
                       match=f"project version is cardgames-rl 99.0, the games there were "
                             f"played by {current}"):  # fmt: skip
        run_tournament(**arguments)
    assert snapshot(tmp_path) == before


def _drop_inputs(folder: Path) -> None:
    """tournament.json as written before inputs were recorded."""
    data = json.loads((folder / "tournament.json").read_text())
    del data["inputs"]
    (folder / "tournament.json").write_text(json.dumps(data, indent=2) + "\n")


def test_folder_without_inputs_record(tmp_path, capsys):
    """An older tournament.json (no inputs): resumed with a warning when no entrant loads
    a file, refused when one does."""
    plain = dict(game="four_aces", agent_names=["random", "greedy"], deals=4, seed=0,
                 progress=False, chunk_size=2, out_dir=tmp_path / "plain")  # fmt: skip
    with pytest.raises(Interrupt):
        run_tournament(**plain, on_chunk=_stop)
    _drop_inputs(tmp_path / "plain")
    stored = (tmp_path / "plain" / "tournament.json").read_bytes()
    played = []
    run_tournament(**plain, on_chunk=played.append)
    assert played == [1]
    assert "records no project version" in capsys.readouterr().err
    assert (tmp_path / "plain" / "tournament.json").read_bytes() == stored  # left as it was

    checkpoint = write_policy(tmp_path / "p.pt", seed=0)
    with pytest.raises(Interrupt):
        policy_run(checkpoint, out_dir=tmp_path / "policy", on_chunk=_stop)
    _drop_inputs(tmp_path / "policy")
    before = snapshot(tmp_path / "policy")
    with pytest.raises(TournamentMismatch, match=f"records no SHA-256.*'{checkpoint}'"):
        policy_run(checkpoint, out_dir=tmp_path / "policy")
    assert snapshot(tmp_path / "policy") == before


# -- a corrupt folder: one ValueError, nothing changed ------------------------------------------
SMALL = dict(game="abracadabra", agent_names=["random", "random", "random"], deals=12,
             seed=11, options={"variant": "three"}, progress=False, chunk_size=4)  # fmt: skip


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory) -> Path:
    """A folder of SMALL interrupted after its first chunk (36 rows, lines 2..37)."""
    folder = tmp_path_factory.mktemp("interrupted")
    with pytest.raises(Interrupt):
        run_tournament(**SMALL, out_dir=folder, on_chunk=_stop)
    return folder


def _json(change):
    def edit(folder: Path) -> None:
        path = folder / "tournament.json"
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
    return edit


def _text(name: str, change):
    def edit(folder: Path) -> None:
        path = folder / name
        path.write_bytes(change(path.read_bytes()))
    return edit


def _line(number: int, new: str):
    """games.csv with line ``number`` (1-based) replaced by ``new``."""
    def change(data: bytes) -> bytes:
        lines = data.decode().split("\n")
        lines[number - 1] = new
        return "\n".join(lines).encode()
    return _text("games.csv", change)


def _field(number: int, column: int, value: str):
    """games.csv with field ``column`` of line ``number`` set to ``value``."""
    def change(data: bytes) -> bytes:
        lines = data.decode().split("\n")
        fields = lines[number - 1].split(",")
        fields[column] = value
        lines[number - 1] = ",".join(fields)
        return "\n".join(lines).encode()
    return _text("games.csv", change)


def _remove(name: str):
    def edit(folder: Path) -> None:
        (folder / name).unlink()
    return edit


def _set(key, value):
    def change(data):
        data[key] = value
    return change


def _delete(key):
    def change(data):
        del data[key]
    return change


# (case, how the folder is damaged, what the one-line message must say)
CORRUPT = [
    ("json_garbage", _text("tournament.json", lambda d: b"{not json"),
     r"tournament.json line 1 column 2: found text that is not JSON .*expected the JSON "
     r"object"),
    ("json_empty", _text("tournament.json", lambda d: b""),
     r"tournament.json line 1 column 1: found text that is not JSON"),
    ("json_cut", _text("tournament.json", lambda d: d[: len(d) // 2]),
     r"tournament.json line \d+ column \d+: found text that is not JSON"),
    ("json_binary", _text("tournament.json", lambda d: b"\xff\xfe" + d),
     r"tournament.json byte 0: found b'\\xff', which is not UTF-8 text"),
    ("json_list", _text("tournament.json", lambda d: b"[1, 2]"),
     r"tournament.json: found a JSON list \[1, 2\]; expected a JSON object"),
    ("version_other", _json(_set("version", 2)),
     r"tournament.json: found 'version': 2; expected 'version': 1"),
    ("version_missing", _json(_delete("version")),
     r"tournament.json: found no 'version'; expected 'version': 1"),
    ("key_missing", _json(_delete("deals")),
     r"tournament.json: found no 'deals'; expected every key of \['game'"),
    ("key_unknown", _json(_set("colour", "red")),
     r"tournament.json: found the unknown key\(s\) 'colour'"),
    ("deals_text", _json(_set("deals", "12")),
     r"tournament.json field 'deals': found \"12\"; expected an integer >= 1"),
    ("labels_number", _json(_set("labels", 3)),
     r"tournament.json field 'labels': found 3; expected a non-empty list of agent labels"),
    ("names_short", _json(_set("names", ["random"])),
     r"tournament.json field 'names': found 1 names for 3 labels; expected one name per "
     r"label"),
    ("inputs_bad", _json(_set("inputs", {"files": []})),
     r"tournament.json field 'inputs': found \{\"files\": \[\]\}; expected an object with "
     r"the keys 'project_version' and 'files'"),
    ("inputs_hash", _json(_set("inputs", {"project_version": "0", "files": [
        {"agent": "random", "path": "x.pt", "sha256": "abc"}]})),
     r"field 'inputs' 'files'\[0\] 'sha256': found \"abc\"; expected 64 lowercase hex"),
    ("spec_is_folder", lambda f: ((f / "tournament.json").unlink(),
                                  (f / "tournament.json").mkdir()),
     r"tournament.json: cannot be read \(Is a directory\)"),
    ("games_without_spec", _remove("tournament.json"),
     r"games.csv exists without .*tournament.json; refusing to mix results"),
    ("header", _line(1, "deal,rotation,seat,agent,points,chips,won,deals_played"),
     r"games.csv line 1: found the columns 'deal,rotation,seat,agent,points,chips,won,"
     r"deals_played'; expected the columns 'deal,rotation,seat,agent,points,chips,won,"
     r"n_deals'"),
    ("header_short", _line(1, "deal,rotation"),
     r"games.csv line 1: found the columns 'deal,rotation'"),
    ("extra_field", _line(3, "0,0,1,random#2,1.0,0.0,,1,9"),
     r"games.csv line 3: found 9 field\(s\) '0,0,1,random#2,1.0,0.0,,1,9'; expected 8 "
     r"fields \(deal,rotation"),
    ("truncated_line_with_newline", _line(37, "3,2,2,random"),
     r"games.csv line 37: found 4 field\(s\) '3,2,2,random'; expected 8 fields"),
    ("points_text", _field(5, 4, "lots"),
     r"games.csv line 5 column 'points': found 'lots'; expected a finite number"),
    ("points_empty", _field(5, 4, ""),
     r"games.csv line 5 column 'points': found ''; expected a finite number"),
    ("points_inf", _field(5, 4, "inf"),
     r"games.csv line 5 column 'points': found 'inf'; expected a finite number"),
    ("chips_text", _field(6, 5, "nan"),
     r"games.csv line 6 column 'chips': found 'nan'; expected a finite number or nothing"),
    ("won_two", _field(7, 6, "2"),
     r"games.csv line 7 column 'won': found '2'; expected 0, 1 or nothing"),
    ("n_deals_zero", _field(8, 7, "0"),
     r"games.csv line 8 column 'n_deals': found '0'; expected an integer >= 1"),
    ("deal_text", _field(9, 0, "x"),
     r"games.csv line 9 column 'deal': found 'x'; expected a deal index 0..11 \(the "
     r"tournament has 12 deals\)"),
    ("deal_fraction", _field(9, 0, "1.5"),
     r"games.csv line 9 column 'deal': found '1.5'; expected a deal index 0..11"),
    ("deal_beyond", _field(37, 0, "12"),  # a row for a chunk that cannot exist
     r"games.csv line 37 column 'deal': found '12'; expected a deal index 0..11"),
    ("seat_beyond", _field(4, 2, "3"),
     r"games.csv line 4 column 'seat': found '3'; expected a seat 0..2 \(3 seats\)"),
    ("rotation_negative", _field(4, 1, "-1"),
     r"games.csv line 4 column 'rotation': found '-1'; expected a rotation 0..2"),
    ("agent_other", _field(2, 3, "random#3"),
     r"games.csv line 2 column 'agent': found 'random#3'; expected 'random', the agent the "
     r"schedule seats there"),
    ("first_error_first", lambda f: (_field(9, 0, "x")(f), _field(4, 4, "y")(f)),
     r"games.csv line 4 column 'points': found 'y'"),
    ("row_twice", _text("games.csv", lambda d: d + d.split(b"\n")[1] + b"\n"),
     r"games.csv line 38: found deal 0 rotation 0 seat 0 again \(first on line 2\); "
     r"expected each \(deal, rotation, seat\) once"),
    ("games_binary", _text("games.csv", lambda d: d[:40] + b"\xff" + d[40:]),
     r"games.csv byte 40: found b'\\xff', which is not UTF-8 text"),
]


@pytest.mark.parametrize("case, damage, message", CORRUPT, ids=[c[0] for c in CORRUPT])
def test_corrupt_folder_is_one_clear_error(interrupted, tmp_path, case, damage, message):
    folder = tmp_path / "t"
    shutil.copytree(interrupted, folder)
    damage(folder)
    before = snapshot(folder)
    with pytest.raises(ValueError, match=message) as refused:
        run_tournament(**SMALL, out_dir=folder)
    text = str(refused.value)
    assert "\n" not in text and "Traceback" not in text
    if case != "games_without_spec":
        assert "nothing in the folder was changed" in text
    assert snapshot(folder) == before


def test_out_is_a_file(tmp_path):
    path = tmp_path / "t"
    path.write_text("x")
    with pytest.raises(ValueError, match=f"{path} is a file: expected a folder"):
        run_tournament(**SMALL, out_dir=path)
    assert path.read_text() == "x"


# what an interruption may leave: tolerated, the chunks are played again where incomplete
TOLERATED = [
    ("tail_cut_short", lambda d: d + b"4,0,0,random,3.0,1.0,,1\n4,0,1,random#2,0.0,-1.0,,"),
    ("chunk_cut_at_newline", lambda d: d[: d.index(b"\n1,0,0,") + 1]),
    ("empty", lambda d: b""),
    ("header_only", lambda d: d[: d.index(b"\n") + 1]),
    ("header_cut_short", lambda d: b"deal,rot"),
]


@pytest.fixture(scope="module")
def full_games(tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("full")
    run_tournament(**SMALL, out_dir=folder)
    return (folder / "games.csv").read_bytes()


@pytest.mark.parametrize("case, change", TOLERATED, ids=[c[0] for c in TOLERATED])
def test_interrupted_writes_resume_exactly(interrupted, full_games, tmp_path, case, change):
    folder = tmp_path / "t"
    shutil.copytree(interrupted, folder)
    _text("games.csv", change)(folder)
    run_tournament(**SMALL, out_dir=folder)
    assert (folder / "games.csv").read_bytes() == full_games


# -- the command: one error, default output in runs/ ------------------------------------------
def command_run(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    return importlib.import_module(args._module).run(args)


def test_cli_corrupt_folder_raises_one_value_error(tmp_path):
    (tmp_path / "tournament.json").write_text("{")
    with pytest.raises(ValueError, match="tournament.json line 1 column 2: found text that"):
        command_run(["tournament", "--game", "four_aces", "--agents", "random", "--deals",
                     "1", "--out", str(tmp_path), "--no-progress"])  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tournament.json"]


def test_cardrl_prints_one_line_on_stderr(tmp_path, capsys):
    """Through ``cardrl`` (its one handler for ValueError): one line on stderr, exit 2."""
    from cli.main import main as cardrl

    (tmp_path / "tournament.json").write_text("[]")
    code = cardrl(["tournament", "--game", "four_aces", "--agents", "random", "--deals", "1",
                   "--out", str(tmp_path), "--no-progress"])  # fmt: skip
    printed = capsys.readouterr()
    assert code == 2 and printed.out == ""
    assert printed.err.count("\n") == 1
    assert printed.err.startswith(f"cardrl tournament: error: {tmp_path}/tournament.json: "
                                  "found a JSON list []; expected a JSON object")  # fmt: skip


def test_cli_default_output_is_under_runs(tmp_path, monkeypatch):
    """Without --out the folder is runs/tournament_<game>_<seed> (ignored by git); the
    command at the top of summary.md names it and regenerates the same folder."""
    monkeypatch.chdir(tmp_path)
    argv = ["tournament", "--game", "four_aces", "--agents", "greedy,random", "--deals", "3",
            "--seed", "5", "--no-progress"]  # fmt: skip
    assert command_run(argv) == 0
    out = tmp_path / "runs" / "tournament_four_aces_5"
    assert (out / "summary.csv").exists() and not (tmp_path / "results").exists()
    line = next(x for x in (out / "summary.md").read_text().splitlines()
                if x.startswith("- command: "))  # fmt: skip
    command = line.removeprefix("- command: `").removesuffix("`")
    assert command == ("cardrl tournament --game four_aces --agents greedy,random --deals 3 "
                       "--seed 5 --out runs/tournament_four_aces_5")
    games = (out / "games.csv").read_bytes()
    assert command_run([*shlex.split(command)[1:], "--no-progress"]) == 0  # resumes: done
    assert (out / "games.csv").read_bytes() == games
