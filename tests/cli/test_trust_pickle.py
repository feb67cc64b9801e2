"""``--trust-pickle``: a checkpoint that loads only by unpickling it (here a version-1 file)
is refused by ``cardrl tournament``, ``play``, ``bidbench`` and ``serve`` with one line on
stderr naming the file and the convert command (exit 2, nothing written), and plays with
the flag, which reaches the policy entrants only. The flag is how entrants load, not part
of a tournament's results: a resume may add or drop it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
import torch

from agents.policy.checkpoint import TRUST_PICKLE_HELP, convert_checkpoint, make_checkpoint
from agents.policy.net import PolicyNet
from arena.tournament import run_tournament
from cli.main import build_parser
from cli.main import main as cardrl
from envs.registry import make_engine

#: what every refusal of a version-1 file says: why, and how to convert it
REFUSED = "has format version 1"
CONVERT = "python -m agents.policy.convert"


def old_checkpoint(tmp_path: Path, game: str, options: dict, name: str = "v1.pt") -> Path:
    """A small policy saved as an older cardrl did: format version 1, read only by
    unpickling it."""
    engine = make_engine(game, 1, **options)
    engine.reset(seed=0)
    size, actions = engine.observe().shape[1], engine.legal_action_mask().shape[1]
    torch.manual_seed(0)
    checkpoint = make_checkpoint(PolicyNet(size, actions, [8]), game, options, trained_steps=1)
    checkpoint["version"] = 1
    del checkpoint["model"]["symmetry"]  # version 1 had no symmetry field
    path = tmp_path / name
    torch.save(checkpoint, path)
    return path


def refused(capsys, argv: list[str], path: Path) -> None:
    """``cardrl argv`` exits 2 with one stderr line naming ``path`` and the convert command,
    and nothing on stdout."""
    assert cardrl(argv) == 2
    printed = capsys.readouterr()
    lines = printed.err.strip().splitlines()
    assert len(lines) == 1, printed.err
    command = argv[0]
    assert lines[0].startswith(f"cardrl {command}: error: policy checkpoint {str(path)!r}")
    assert REFUSED in lines[0] and CONVERT in lines[0] and "--trust-pickle" in lines[0]
    assert printed.out == ""


@pytest.mark.parametrize("command", ["tournament", "play", "bidbench", "serve"])
def test_every_command_that_loads_policies_has_the_flag_and_says_what_it_risks(command):
    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[command]
    flag = next(a for a in sub._actions if "--trust-pickle" in a.option_strings)
    assert flag.default is False
    assert TRUST_PICKLE_HELP in flag.help and "runs any code" in flag.help


def test_tournament_refuses_a_pickled_checkpoint_without_the_flag_and_plays_it_with(
        tmp_path, capsys):
    path = old_checkpoint(tmp_path, "four_aces", {"num_players": 4})
    out = tmp_path / "t"
    argv = ["tournament", "--game", "four_aces", "--agents", f"old=policy:{path},random",
            "--deals", "2", "--out", str(out), "--no-progress"]
    refused(capsys, argv, path)
    assert not out.exists()  # refused before anything was written
    # with the flag: the policy loads, and random (which takes no trust_pickle) still plays
    assert cardrl([*argv, "--trust-pickle"]) == 0
    printed = capsys.readouterr()
    rows = [line.split()[0] for line in printed.out.splitlines()[1:3]]
    assert sorted(rows) == ["old", "random"]  # the table: both entrants played
    stored = json.loads((out / "tournament.json").read_text())
    assert "trust_pickle" not in stored  # how entrants load is not part of the results
    assert [f["path"] for f in stored["inputs"]["files"]] == [str(path)]
    summary = (out / "summary.md").read_text()
    assert "--trust-pickle" in summary  # the command that regenerates the folder loads it


def test_the_flag_reaches_a_policy_entered_by_name_with_a_path(tmp_path, capsys):
    path = old_checkpoint(tmp_path, "four_aces", {"num_players": 4})
    argv = ["tournament", "--game", "four_aces", "--agents", "old=policy,greedy",
            "--agent-arg", f"old.path={path}", "--deals", "1", "--no-progress",
            "--out", str(tmp_path / "t")]
    refused(capsys, argv, path)
    assert cardrl([*argv, "--trust-pickle"]) == 0


def test_trust_pickle_is_set_by_the_flag_not_by_agent_arguments(tmp_path, capsys):
    path = old_checkpoint(tmp_path, "four_aces", {"num_players": 4})
    assert cardrl(["tournament", "--game", "four_aces", "--agents", f"policy:{path}",
                   "--agent-arg", f"policy:{path}.trust_pickle=true", "--deals", "1",
                   "--no-progress", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err
    assert "set ['trust_pickle']" in err and "--trust-pickle" in err


def test_a_resume_may_add_or_drop_the_flag(tmp_path):
    """The same checkpoint content, loaded with or without the flag, is the same
    tournament: an interrupted run resumes either way, with the results of one run."""
    path = convert_checkpoint(old_checkpoint(tmp_path, "four_aces", {"num_players": 4}),
                              tmp_path / "v2.pt", trust_pickle=True)  # loads either way
    common = dict(game="four_aces", agent_names=[f"p=policy:{path}", "random"], deals=4, seed=3,
                  options={"num_players": 4}, chunk_size=2, progress=False)
    whole = run_tournament(**common)

    class Stop(Exception):
        pass

    def stop(chunk):
        raise Stop

    for first, then in [(True, False), (False, True)]:
        out = tmp_path / f"resume_{first}"
        with pytest.raises(Stop):
            run_tournament(**common, out_dir=out, trust_pickle=first, on_chunk=stop)
        assert len((out / "games.csv").read_text().splitlines()) > 1  # one chunk stored
        resumed = run_tournament(**common, out_dir=out, trust_pickle=then)
        assert resumed.played_deals == 2  # only the missing chunk was played
        assert resumed.games.equals(whole.games)


def test_play_refuses_a_pickled_opponent_without_the_flag_and_plays_it_with(
        tmp_path, capsys, monkeypatch):
    path = old_checkpoint(tmp_path, "four_aces", {"num_players": 4})
    argv = ["play", "four_aces", "--vs", f"policy:{path}", "--seed", "1", "--seat", "3"]
    refused(capsys, argv, path)
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    assert cardrl([*argv, "--trust-pickle"]) == 0
    printed = capsys.readouterr()
    assert f"played by 'policy:{path}'" in printed.out and printed.err == ""


def test_play_with_the_flag_lets_the_pickled_policy_act(tmp_path, monkeypatch):
    from agents.policy.agent import PolicyAgent
    from arena.play import play

    path = old_checkpoint(tmp_path, "four_aces", {"num_players": 4})
    acted = []
    act = PolicyAgent.act
    monkeypatch.setattr(PolicyAgent, "act",
                        lambda self, *a: acted.append(self.sources) or act(self, *a))
    status = play("four_aces", vs=f"policy:{path}", seed=2, seat=3, trust_pickle=True,
                  input_fn=lambda prompt: "quit", output=io.StringIO())
    assert status == 0
    assert acted and acted[0] == [str(path)]  # seats 0..2 moved before seat 3 left


def test_bidbench_refuses_a_pickled_bidder_without_the_flag_and_plays_it_with(
        tmp_path, capsys):
    path = old_checkpoint(tmp_path, "abracadabra", {"variant": "four"})
    out = tmp_path / "b"
    argv = ["bidbench", "--bidders", f"policy:{path},sure_tricks", "--deals", "2",
            "--batch", "2", "--out", str(out), "--no-progress"]
    refused(capsys, argv, path)
    assert not out.exists()
    assert cardrl([*argv, "--trust-pickle"]) == 0
    report = (out / "bidbench.md").read_text()
    assert f"policy:{path}" in report and "--trust-pickle" in report


def test_serve_offers_pickled_checkpoints_only_with_the_flag(tmp_path, monkeypatch):
    pytest.importorskip("uvicorn", reason="the web extra is not installed")
    from web.catalog import Catalog

    path = old_checkpoint(tmp_path, "four_aces", {"num_players": 4})
    spec = f"policy:{path}"
    with pytest.raises(ValueError, match=f"{REFUSED}.*{CONVERT}"):
        Catalog([tmp_path]).make_agent("four_aces", spec)
    assert Catalog([tmp_path], trust_pickle=True).make_agent("four_aces", spec).routes == {
        "4p": 0}
    # the command hands the flag to the app's catalog before any policy is loaded
    from web.background import free_port

    served = {}
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: served.update(app=app, **kwargs))
    for flag in ([], ["--trust-pickle"]):
        port = free_port()
        assert cardrl(["serve", "--port", str(port), "--checkpoints", str(tmp_path),
                       *flag]) == 0
        assert (served["host"], served["port"]) == ("127.0.0.1", port)
        catalog = served["app"].state.catalog
        assert catalog.trust_pickle is bool(flag)
        assert spec in catalog.describe()["checkpoints"]


class RunsCommand:
    """Unpickles to ``os.system("touch TARGET")``: the file appears if the pickle is run."""

    def __init__(self, target: Path):
        self.target = target

    def __reduce__(self):
        import os

        return (os.system, (f"touch {self.target}",))


def one_error_line(capsys, command: str) -> str:
    """The one stderr line of a refused ``cardrl command`` (nothing on stdout)."""
    printed = capsys.readouterr()
    lines = printed.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cardrl {command}: error: "), printed.err
    assert printed.out == ""
    return lines[0]


def test_the_flag_never_unpickles_a_current_version_file(tmp_path, capsys):
    """A version-2 .pt whose pickle calls os.system is read with weights_only=True even
    under --trust-pickle: refused, and the command never runs."""
    ran = tmp_path / "ran"
    engine = make_engine("four_aces", 1, num_players=4)
    engine.reset(seed=0)
    size, actions = engine.observe().shape[1], engine.legal_action_mask().shape[1]
    checkpoint = make_checkpoint(PolicyNet(size, actions, [8]), "four_aces", {"num_players": 4})
    checkpoint["options"] = {"num_players": 4, "x": RunsCommand(ran)}
    path = tmp_path / "v2.pt"
    torch.save(checkpoint, path)
    out = tmp_path / "t"
    argv = ["tournament", "--game", "four_aces", "--agents", f"policy:{path},random", "--deals",
            "1", "--out", str(out), "--no-progress", "--trust-pickle"]
    assert cardrl(argv) == 2
    line = one_error_line(capsys, "tournament")
    assert "refused without running it: its pickle names posix.system" in line
    assert "unpickles only version-1 files and SB3 zips" in line
    assert not ran.exists() and not out.exists()
    from agents.policy.convert import main as convert

    assert convert([str(path), str(tmp_path / "new.pt"), "--trust-pickle"]) == 2
    assert "refused without running it" in capsys.readouterr().err
    assert not ran.exists() and not (tmp_path / "new.pt").exists()


def test_a_malformed_sb3_zip_under_the_flag_is_one_line(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    import zipfile

    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as archive:  # SB3's member names, not SB3's content
        archive.writestr("data", "{not json")
        archive.writestr("policy.pth", b"garbage")
    out = tmp_path / "t"
    assert cardrl(["tournament", "--game", "four_aces", "--agents", f"policy:{path},random",
                   "--deals", "1", "--out", str(out), "--no-progress", "--trust-pickle"]) == 2
    line = one_error_line(capsys, "tournament")
    assert f"policy checkpoint {str(path)!r} could not be read as an SB3 MaskablePPO model" in line
    assert "expected a zip written by MaskablePPO.save" in line
    assert not out.exists()
