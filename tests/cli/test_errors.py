"""Bad input to ``cardrl tournament``, ``bidbench``, ``play``, ``replay``, ``serve``,
``agents``, ``fuzz``, ``ladder`` and ``exploit``: exit status 2, nothing on stdout, no
traceback, and one stderr line ``cardrl COMMAND: error: ...`` saying what was found and
what was expected; an output folder is not created. Values argparse itself rejects (a word
for a number, a choice not offered) end the same way after argparse's usage lines."""

from __future__ import annotations

import io
import socket
from pathlib import Path

import pytest

from cli.main import main as cardrl

T = ["tournament", "--game", "abracadabra", "--deals", "2", "--out", "{out}"]
B = ["bidbench", "--deals", "2", "--batch", "2", "--out", "{out}"]
F = ["fuzz", "--deals", "10", "--batch", "4", "--game", "four_aces", "--no-progress",
     "--out", "{out}"]
L = ["ladder", "--game", "four_aces", "--deals", "2", "--rungs", "random", "--worlds", "",
     "--out", "{out}", "--work", "{out}/work"]
E = ["exploit", "--game", "four_aces", "--target", "random", "--minutes", "1", "--deals", "2",
     "--no-progress", "--out", "{out}"]

#: (argv, a fragment of the error line); {tmp} is the folder of fixture files, {out} an
#: output folder that must not be created, {busy} a port in use. The default ``policy``
#: has only the four-player checkpoints, in the folder {checkpoints} (fixture
#: only_four_player_checkpoints, tests/conftest.py): Four Aces 3p and Abracadabra 'two' have
#: no network, whichever checkpoints are committed.
CASES = [
    # tournament
    ([*T, "--agents", "random,nosuch"], "unknown agent 'nosuch' for abracadabra"),
    ([*T, "--agents", "random", "--deals", "0"], "deals=0 is not allowed"),
    ([*T, "--agents", "policy:{tmp}/missing.pt"], "missing.pt' does not exist"),
    ([*T, "--agents", "policy:{tmp}/adir"], "adir' is not a file"),
    ([*T, "--agents", "policy:{tmp}/garbage.pt"], "is not a torch checkpoint"),
    ([*T, "--agents", "policy:"], "expected a registered name or policy:PATH"),
    ([*T, "--agents", "random", "--variant", "nosuch"], "variant='nosuch' is not allowed"),
    ([*T, "--agents", "random", "--players", "3"], "--players is for --game four_aces"),
    ([*T, "--agents", "random", "--option", "nosuch=1"],
     "unknown abracadabra option(s) ['nosuch']: expected options among ['variant'"),
    ([*T, "--agents", "random", "--option", "ante=x"], "ante='x' is not allowed"),
    ([*T, "--agents", "random", "--option", "ante"], "--option 'ante' is not KEY=VALUE"),
    ([*T, "--agents", "random", "--agent-arg", "random.nosuch=1"],
     "agent arguments {'random': ['nosuch']}: Agent.__init__() got an unexpected keyword"),
    ([*T, "--agents", "random", "--agent-arg", "nosuch.seed=1"],
     "agent_kwargs for ['nosuch'], which are not in the line-up"),
    ([*T, "--agents", "random", "--agent-arg", "random.seed=1"],
     "of 'random' set ['seed']: the tournament sets them itself"),
    ([*T, "--agents", "random", "--agent-arg", "seed=1"], "is not AGENT.KEY=VALUE"),
    ([*T, "--agents", "random", "--workers", "0"], "workers=0 is not allowed"),
    ([*T, "--agents", "random", "--chunk-size", "0"], "chunk_size=0 is not allowed"),
    ([*T, "--agents", ","], "a tournament needs at least one agent"),
    ([*T, "--agents", "random", "--save-games", "{tmp}/adir"],
     "adir' is a folder: expected a file to append the games to"),
    ([*T, "--agents", "random", "--save-games", "{tmp}/nodir/g.jsonl"],
     "nodir' does not exist; expected a file in an existing folder"),
    ([*T, "--agents", "random", "--out", "{tmp}/garbage.pt"],
     "garbage.pt is a file: expected a folder for the tournament's files"),
    ([*T, "--agents", "random", "--out", "{tmp}/garbage.pt/sub"],
     "lies under the file"),
    (["tournament", "--game", "four_aces", "--players", "3", "--agents", "policy,greedy",
      "--deals", "2", "--out", "{out}"],
     "agent 'policy': the policy has no network for four_aces variant '3p' (num_players=3; "
     "the table): it was trained only for num_players=4 ({checkpoints}/four_aces_4p.pt)"),
    # bidbench
    ([*B, "--bidders", "nosuch"], "unknown Abracadabra agent 'nosuch'"),
    ([*B, "--player", "nosuch"], "unknown Abracadabra agent 'nosuch'"),
    ([*B, "--bidders", "policy:{tmp}/missing.pt"], "missing.pt' does not exist"),
    ([*B, "--bidders", "policy:{tmp}/garbage.pt"], "is not a torch checkpoint"),
    ([*B, "--variant", "nosuch"], "variant='nosuch' is not allowed"),
    ([*B, "--deals", "0"], "--deals and --batch must be >= 1"),
    ([*B, "--batch", "0"], "--deals and --batch must be >= 1"),
    ([*B, "--bidders", ","], "--bidders needs at least one agent name"),
    ([*B, "--out", "{tmp}/garbage.pt"], "garbage.pt is a file: expected a folder"),
    ([*B, "--out", "{tmp}/garbage.pt/sub"], "lies under the file"),
    ([*B, "--deals", "1000000000000"],
     "--deals 1000000000000 is not allowed: expected an integer in [1, 1_000_000]"),
    ([*B, "--seed", "-1"], "--seed -1 is not allowed: expected an integer >= 0"),
    ([*B, "--bidders", "policy", "--variant", "two"],
     "the policy has no network for abracadabra variant 'two' (variant='two'; the table): it "
     "was trained only for variant='four' ({checkpoints}/abracadabra_four.pt)"),
    # play (checked before the first deal, so nothing is read from stdin)
    (["play", "abracadabra", "--vs", "nosuch"], "unknown agent 'nosuch' for abracadabra"),
    (["play", "abracadabra", "--vs", "policy:{tmp}/missing.pt"], "does not exist"),
    (["play", "abracadabra", "--vs", "policy:{tmp}/adir"], "adir' is not a file"),
    (["play", "abracadabra", "--variant", "nosuch"], "variant='nosuch' is not allowed"),
    (["play", "abracadabra", "--players", "3"], "--players is for four_aces"),
    (["play", "four_aces", "--players", "9"], "num_players=9 is not allowed"),
    (["play", "four_aces", "--variant", "three"], "is not a Four Aces variant"),
    (["play", "abracadabra", "--seat", "7"], "--seat=7 is out of range"),
    (["play", "abracadabra", "--seed", "-5"], "--seed -5 is not allowed: expected an integer"),
    (["play", "abracadabra", "--save-games", "{tmp}/adir"], "found a folder, expected a file"),
    (["play", "abracadabra", "--save-games", "{tmp}/nodir/g.jsonl"], "does not exist"),
    (["play", "four_aces", "--vs", "policy", "--players", "3"],
     "the policy has no network for four_aces variant '3p' (num_players=3; the table): it was "
     "trained only for num_players=4 ({checkpoints}/four_aces_4p.pt)"),
    # replay
    (["replay", "{tmp}/missing.jsonl"], "missing.jsonl: no such file"),
    (["replay", "{tmp}/adir"], "adir: found a directory, expected a games file"),
    (["replay", "{tmp}/empty.jsonl"], "found no game record (the file is empty)"),
    (["replay", "{tmp}/games.jsonl", "--game", "9"], "holds 4 readable game(s), expected an"),
    (["replay", "/dev/null"], "/dev/null: found a character device, expected a games file"),
    # fuzz (checked before any play)
    ([*F, "--minutes", "inf"], "--minutes inf is not allowed: expected a number of minutes"),
    ([*F, "--batch", "1000000000"], "--batch 1000000000 needs about"),
    ([*F, "--out", "{tmp}/garbage.pt"], "garbage.pt is a file: expected a folder"),
    ([*F, "--out", "{tmp}/garbage.pt/sub"], "lies under the file"),
    # ladder (checked before any rung is played or any folder made)
    ([*L, "--out", "{tmp}/garbage.pt"], "garbage.pt is a file: expected a folder"),
    ([*L, "--work", "{tmp}/garbage.pt"], "--work {tmp}/garbage.pt is a file"),
    ([*L, "--rungs", "random,nosuch"], "rung 'nosuch': unknown agent 'nosuch' for four_aces"),
    ([*L, "--worlds", "0"], "--worlds='0': 0 worlds is not allowed: expected integers in"),
    ([*L, "--worlds", "99999999999"], "99999999999 worlds is not allowed"),
    ([*L, "--seed", "-1"], "--seed -1 is not allowed: expected an integer >= 0"),
    ([*L, "--confirm-seed", "-5"], "--confirm-seed -5 is not allowed"),
    # exploit (checked before any training)
    ([*E, "--seed", "-1"], "--seed=-1 is not allowed: expected an integer in [0, 4_294_967_295]"),
    ([*E, "--deals", "1000000000000"], "--deals=1000000000000 is not allowed"),
    ([*E, "--out", "{tmp}/garbage.pt/sub"], "lies under the file"),
    # serve (checked before the server starts)
    (["serve", "--port", "99999"], "--port 99999 is not allowed: expected an integer 1..65535"),
    (["serve", "--port", "-1"], "--port -1 is not allowed"),
    (["serve", "--checkpoints", "{tmp}/missing"], "found nothing, expected a folder"),
    (["serve", "--checkpoints", "{tmp}/garbage.pt"], "found a file, expected a folder"),
    (["serve", "--host", "nosuch.invalid"], "--host nosuch.invalid: not an address"),
    (["serve", "--port", "{busy}"], "the address is in use; choose another --port"),
]

#: values argparse rejects: its usage lines, then the error line
ARGPARSE_CASES = [
    (["tournament", "--game", "nosuch", "--agents", "random"], "argument --game: invalid choice"),
    ([*T, "--agents", "random", "--deals", "x"], "argument --deals: invalid int value: 'x'"),
    ([*T, "--agents", "random", "--episode", "x"], "argument --episode: invalid choice"),
    ([*B, "--seed", "x"], "argument --seed: invalid int value"),
    (["play", "nosuch"], "argument game: invalid choice: 'nosuch'"),
    (["play", "abracadabra", "--seat", "x"], "argument --seat: invalid int value"),
    (["replay", "{tmp}/games.jsonl", "--game", "x"], "argument --game: invalid int value"),
    (["serve", "--port", "x"], "argument --port: invalid int value"),
    (["agents", "--game", "nosuch"], "argument --game: invalid choice"),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> Path:
    """The fixture files: a folder, a file of garbage, an empty and a good games file."""
    from arena.tournament import run_tournament

    folder = tmp_path_factory.mktemp("bad_inputs")
    (folder / "adir").mkdir()
    (folder / "garbage.pt").write_bytes(b"garbage")
    (folder / "empty.jsonl").write_text("")
    run_tournament("abracadabra", ["random"], deals=1, seed=0, progress=False,
                   save_games=folder / "games.jsonl")
    return folder


@pytest.fixture(scope="module")
def busy_port():
    """A port of 127.0.0.1 that a listening socket holds for the module's tests."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


def run(argv: list[str], files: Path, busy: int, capsys, monkeypatch,
        out: Path | None = None) -> tuple[int, str, str]:
    """``cardrl argv`` in this process with an empty stdin: (exit status, stdout, stderr);
    a traceback would fail the test (the exception propagates)."""
    argv = [a.replace("{tmp}", str(files)).replace("{busy}", str(busy))
            .replace("{out}", str(out)) for a in argv]
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    monkeypatch.chdir(files)
    try:
        status = cardrl(argv)
    except SystemExit as stop:  # argparse
        status = stop.code
    printed = capsys.readouterr()
    return status, printed.out, printed.err


def _id(case) -> str:
    return " ".join(case[0])[:70]


@pytest.mark.parametrize("argv, fragment", CASES, ids=map(_id, CASES))
def test_bad_input_is_one_error_line_on_stderr(argv, fragment, only_four_player_checkpoints,
                                               files, busy_port, capsys, monkeypatch,
                                               tmp_path):
    out_dir = tmp_path / "out"
    status, out, err = run(argv, files, busy_port, capsys, monkeypatch, out_dir)
    lines = err.splitlines()
    assert (status, out) == (2, ""), err
    assert len(lines) == 1, err
    assert lines[0].startswith(f"cardrl {argv[0]}: error: "), err
    assert fragment.replace("{tmp}", str(files)).replace(
        "{checkpoints}", str(only_four_player_checkpoints)) in lines[0]
    assert not out_dir.exists()  # nothing written for a refused command


@pytest.mark.parametrize("argv, fragment", ARGPARSE_CASES, ids=map(_id, ARGPARSE_CASES))
def test_values_argparse_rejects_end_in_one_error_line(argv, fragment, files, busy_port,
                                                       capsys, monkeypatch, tmp_path):
    status, out, err = run(argv, files, busy_port, capsys, monkeypatch, tmp_path / "out")
    lines = err.splitlines()
    assert (status, out) == (2, ""), err
    assert lines[0].startswith(f"usage: cardrl {argv[0]}")
    assert lines[-1].startswith(f"cardrl {argv[0]}: error: {fragment}")
    assert "Traceback" not in err


def test_each_bad_line_of_a_games_file_is_one_error_line(files, busy_port, capsys,
                                                         monkeypatch):
    """replay's own format: one error line per bad line, then one for the whole file."""
    (files / "bad.jsonl").write_text("not json\n{}\n")
    status, out, err = run(["replay", "{tmp}/bad.jsonl"], files, busy_port, capsys,
                           monkeypatch)
    lines = err.splitlines()
    assert (status, out, len(lines)) == (2, "", 3), err
    assert all(line.startswith("cardrl replay: error: ") for line in lines)
    assert "bad.jsonl, line 1: not valid JSON" in lines[0] and "line 2" in lines[1]
    assert "found no game record (all 2 of its line(s) are bad" in lines[2]


@pytest.mark.parametrize("command", ["play", "tournament", "ladder"])
def test_the_table_flags_take_the_envs_own_keyword(command):
    """``--num-players`` (the env's keyword) is ``--players``."""
    from cli.main import build_parser

    game = [] if command == "play" else ["--game"]
    base = [command, *game, "four_aces"]
    if command == "tournament":
        base += ["--agents", "random"]
    args = build_parser().parse_args([*base, "--num-players", "3"])
    assert args.players == 3
