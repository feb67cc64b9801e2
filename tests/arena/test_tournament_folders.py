"""Where ``cardrl tournament`` writes: never into a folder of something else without
``--force``, and nothing at all when an entrant cannot play the table (a network of
another observation size is found before the folder is made)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from agents.policy.checkpoint import make_checkpoint, save_checkpoint
from agents.policy.net import PolicyNet
from cli.main import main as cardrl

FOUR_ACES = ["tournament", "--game", "four_aces", "--players", "3", "--deals", "2",
             "--chunk-size", "2", "--no-progress"]


def error_line(capsys, command: str = "tournament") -> str:
    """The one stderr line of a refused command (nothing on stdout)."""
    printed = capsys.readouterr()
    lines = printed.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"cardrl {command}: error: "), printed.err
    assert printed.out == ""
    return lines[0]


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_a_folder_holding_other_files_is_refused_without_force(tmp_path, capsys):
    out = tmp_path / "notes"
    out.mkdir()
    (out / "summary.md").write_text("my own notes\n")
    (out / "data.txt").write_text("keep me\n")
    argv = [*FOUR_ACES, "--agents", "random,random", "--out", str(out)]
    assert cardrl(argv) == 2
    line = error_line(capsys)
    assert f"{out} is not empty (data.txt, summary.md) and holds no tournament" in line
    assert "use another --out folder, or --force" in line
    assert contents(out) == {"data.txt": b"keep me\n", "summary.md": b"my own notes\n"}

    assert cardrl([*argv, "--force"]) == 0
    capsys.readouterr()
    assert (out / "games.csv").exists() and (out / "data.txt").read_text() == "keep me\n"
    # now it is a tournament's folder: the same command resumes it without --force
    assert cardrl(argv) == 0
    assert "nothing to play" in capsys.readouterr().out


def test_an_empty_or_new_folder_needs_no_force(tmp_path, capsys):
    for out in (tmp_path / "empty", tmp_path / "new" / "sub"):
        if out.name == "empty":
            out.mkdir()
        assert cardrl([*FOUR_ACES, "--agents", "random,random", "--out", str(out)]) == 0
        assert (out / "games.csv").exists()
    capsys.readouterr()


@pytest.mark.parametrize("observation_size, num_actions, expected", [
    (100, 54, "observations of shape [1, 450] for the policy {path!r}; expected [N, 100]"),
    (450, 60, "cannot act at a four_aces table of"),
], ids=["observation size", "action count"])
def test_a_network_for_another_table_is_refused_before_the_folder_exists(
        observation_size, num_actions, expected, tmp_path, capsys):
    """A checkpoint whose options say three players but whose network reads observations
    of another size (or has another action count): check_options cannot tell, the first
    decision of the table does."""
    torch.manual_seed(0)
    path = save_checkpoint(make_checkpoint(PolicyNet(observation_size, num_actions, [8]),
                                           "four_aces", {"num_players": 3}), tmp_path / "p.pt")
    out = tmp_path / "t"
    assert cardrl([*FOUR_ACES, "--agents", f"policy:{path},random", "--out", str(out)]) == 2
    line = error_line(capsys)
    assert f"agent 'policy:{path}'" in line and expected.format(path=str(path)) in line
    assert not out.exists()


@pytest.mark.parametrize("flags, expected", [
    (["--deals", "1000000000000"], "deals=1000000000000 is not allowed: expected an integer "
                                   "1..100,000,000"),
    (["--chunk-size", "10000000"], "chunk_size=10000000 is not allowed: expected an integer "
                                   "1..65,536"),
    (["--backend", "ray"], "backend='ray' needs Ray, which is not installed"),
], ids=["deals", "chunk size", "ray missing"])
def test_what_cannot_be_played_is_refused_before_the_folder_exists(flags, expected, tmp_path,
                                                                    capsys, monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "ray" else find_spec(name, *a))
    out = tmp_path / "t"
    argv = [*FOUR_ACES, "--agents", "random,random", "--out", str(out)]
    assert cardrl([*argv, *flags]) == 2
    assert expected in error_line(capsys)
    assert not out.exists()
