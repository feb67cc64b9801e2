"""`cardrl train` checks everything it reads before it creates the run folder (issue 39,
problems 8 and 9): an evaluation or pool agent that cannot play the table, a truncated or
foreign distill record, a network too big for a checkpoint or for the memory, a config
nested too deeply; each is one line and leaves no folder, so the corrected command runs
into the same --out. A full disk while the run writes its files is one line too, with no
half-written file and no .tmp left; the run then resumes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
import yaml

import training.train as train_module
from agents.policy.agent import CHECKPOINT_DIR
from cli.main import main as cardrl
from training.config import config_from_dict
from training.train import train

#: a run of a second (as tests/training/test_resume.py)
TINY = {"game": "four_aces", "total_steps": 100, "num_games": 8, "opponents": ["self"],
        "snapshot_interval": 0, "checkpoint_interval": 0,
        "ppo": {"hidden": [16], "minibatch_size": 64},
        "eval": {"deals": 2, "interval": 0, "baselines": [], "opponent": "random"}}
OTHER_TABLE = CHECKPOINT_DIR / "four_aces_3p.pt"
OTHER_GAME = CHECKPOINT_DIR / "abracadabra_four.pt"
full_disk = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")


def tiny(**changes) -> dict:
    return {**TINY, **changes}


def with_eval(**fields) -> dict:
    return tiny(eval={**TINY["eval"], **fields})


def one_line(error: pytest.ExceptionInfo) -> str:
    message = str(error.value)
    assert "\n" not in message and "Traceback" not in message
    return message


@pytest.fixture(scope="module")
def narrow_checkpoint(tmp_path_factory) -> Path:
    """A Four Aces 4-player checkpoint whose network reads 10 observation columns."""
    from agents.policy.checkpoint import make_checkpoint, save_checkpoint
    from agents.policy.net import PolicyNet
    from envs.registry import make_engine

    engine = make_engine("four_aces", 1)
    net = PolicyNet(10, engine.num_actions, [8])
    path = tmp_path_factory.mktemp("narrow") / "narrow.pt"
    save_checkpoint(make_checkpoint(net, "four_aces", {"num_players": 4}), path)
    return path


@pytest.mark.parametrize(("changes", "expected"), [
    (with_eval(opponent="policy:nowhere.pt"), "eval.opponent: 'policy:nowhere.pt' names no file"),
    (with_eval(opponent=f"policy:{OTHER_TABLE}"),
     f"eval.opponent: 'policy:{OTHER_TABLE}' cannot play the run's table (four_aces {{}}): the "
     "policy has no network for four_aces variant '4p'"),
    (with_eval(opponent=f"policy:{OTHER_GAME}"),
     f"eval.opponent: 'policy:{OTHER_GAME}' cannot play the run's table (four_aces {{}}): "
     f"policy checkpoint '{OTHER_GAME}' was trained on 'abracadabra', not 'four_aces'"),
    (with_eval(opponent="policy:NARROW"), "eval.opponent: 'policy:NARROW' cannot play the run's "
     "table (four_aces {}): observations of shape [1, "),
    (with_eval(baselines=["random", f"policy:{OTHER_TABLE}"]),
     f"eval.baselines[1]: 'policy:{OTHER_TABLE}' cannot play the run's table"),
    (tiny(opponents=["self", {"name": "policy", "kwargs": {"path": str(OTHER_TABLE)}}]),
     f"opponents[1]: 'policy' with {{'path': '{OTHER_TABLE}'}} cannot play the run's table "
     "(four_aces {}): the policy has no network for four_aces variant '4p'"),
    (tiny(ppo={"hidden": [65_536, 65_536]}),
     "ppo.hidden=[65536, 65536] declares a network of 8,"),
], ids=["missing", "other table", "other game", "other observation size", "baseline", "pool",
        "too big"])
def test_a_bad_input_is_refused_before_the_run_folder_exists(changes, expected, tmp_path,
                                                            narrow_checkpoint):
    data = yaml.safe_load(yaml.safe_dump(changes).replace("NARROW", str(narrow_checkpoint)))
    expected = expected.replace("NARROW", str(narrow_checkpoint))
    out = tmp_path / "run"
    with pytest.raises(ValueError) as error:
        train(config_from_dict(data), out, progress=False)
    assert expected in one_line(error)
    assert not out.exists()


def test_a_corrected_rerun_goes_into_the_same_folder(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(ValueError, match="eval.opponent"):
        train(config_from_dict(with_eval(opponent=f"policy:{OTHER_TABLE}")), out,
              progress=False)
    assert train(config_from_dict(tiny()), out, progress=False)["steps"] >= 100


def test_a_network_beyond_the_memory_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(train_module, "available_memory", lambda: 2**20)
    with pytest.raises(ValueError) as error:
        train(config_from_dict(tiny()), tmp_path / "run", progress=False)
    message = one_line(error)
    assert message.startswith("the run needs at least 0.0 GiB of memory (a network of ")
    assert "this machine has 0.0 GiB available: expected a smaller ppo.hidden, num_games or "\
           "ppo.minibatch_size" in message
    assert not (tmp_path / "run").exists()


def test_the_memory_estimate_counts_the_network_its_copies_and_the_rollout():
    cfg = config_from_dict(tiny(ppo={"hidden": [64]}, snapshot_interval=100, max_snapshots=3))
    need = train_module.memory_needed(cfg, 100, 10, 4)
    assert need["weights"] == (101 * 64 + 65 * 10) + (101 * 64 + 65 * 1)
    assert need["network"] == 4 * need["weights"] * (train_module.WEIGHT_COPIES + 2 * 3)
    assert need["rollout"] == 8 * 16 * 4 * (4 * 100 + 10 + 40)


# -- distill records ------------------------------------------------------------------------
DISTILL = {"teacher": "heuristic", "deals": 2, "num_games": 2, "epochs": 1, "holdout": 0.0}


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> dict[str, Path]:
    """Teacher records of the distill config: dealt from seed 1 (the config's) and 2."""
    from training.distill import generate

    folder = tmp_path_factory.mktemp("records")
    paths = {}
    for seed in (1, 2):
        paths[seed] = folder / f"teacher_s{seed}.npz"
        generate("four_aces", {}, 2, "heuristic", {}, 2, seed=seed,
                 progress=False).save(paths[seed])
    return paths


@pytest.mark.parametrize(("damage", "expected"), [
    ("truncated", "cannot be read as a teacher record"),
    ("not a zip", "cannot be read as a teacher record"),
    ("other arrays", "cannot be read as a teacher record"),
    ("other seed", "does not hold this config's teacher episodes: its episodes were not dealt "
                   "from the config's seed 1"),
])
def test_a_distill_record_that_does_not_fit_is_refused_before_the_folder(records, damage,
                                                                          expected, tmp_path):
    import numpy as np

    record = tmp_path / "teacher.npz"
    if damage == "truncated":
        record.write_bytes(records[1].read_bytes()[:300])
    elif damage == "not a zip":
        record.write_bytes(b"PK\x03\x04 not really")
    elif damage == "other arrays":
        np.savez(record, weights=np.zeros(3))
    else:
        record = records[2]
    out = tmp_path / "run"
    with pytest.raises(ValueError) as error:
        train(config_from_dict(tiny(distill={**DISTILL, "record": str(record)})), out,
              progress=False)
    message = one_line(error)
    assert message.startswith(f"distill.record {str(record)!r} ") and expected in message
    assert not out.exists()
    if damage == "truncated":  # the corrected command, into the same folder
        fixed = config_from_dict(tiny(distill={**DISTILL, "record": str(records[1])}))
        assert train(fixed, out, progress=False)["steps"] >= 100


# -- the command line ----------------------------------------------------------------------
def error_line(capsys, status: int) -> str:
    printed = capsys.readouterr()
    lines = printed.err.strip().splitlines()
    assert status == 2 and len(lines) == 1, printed.err
    assert lines[0].startswith("cardrl train: error: "), printed.err
    return lines[0]


def test_cli_refuses_a_truncated_distill_record_in_one_line(records, tmp_path, capsys):
    config = tmp_path / "distill.yaml"
    config.write_text(yaml.safe_dump(tiny(distill=DISTILL)))
    record = tmp_path / "cut.npz"
    record.write_bytes(records[1].read_bytes()[:-100])
    out = tmp_path / "run"
    status = cardrl(["train", "--config", str(config), "--distill-record", str(record),
                     "--out", str(out), "--no-progress"])
    assert "cannot be read as a teacher record" in error_line(capsys, status)
    assert not out.exists()


def test_cli_refuses_a_deeply_nested_config_naming_it(tmp_path, capsys):
    config = tmp_path / "deep.yaml"
    config.write_text("options: " + "[" * 5000 + "]" * 5000 + "\n")
    status = cardrl(["train", "--config", str(config), "--out", str(tmp_path / "run")])
    line = error_line(capsys, status)
    assert line == (f"cardrl train: error: config file {config}: lists or mappings nested too "
                    "deeply to be read (beyond Python's recursion limit); expected config "
                    "fields a few levels deep")
    assert not (tmp_path / "run").exists()


def test_cli_refuses_an_out_that_is_a_file(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny()))
    (tmp_path / "file").write_text("mine\n")
    status = cardrl(["train", "--config", str(config), "--out", str(tmp_path / "file")])
    assert error_line(capsys, status).endswith(f"--out {tmp_path / 'file'} is a file: "
                                               "expected a folder for the run")
    assert (tmp_path / "file").read_text() == "mine\n"


# -- a full disk -----------------------------------------------------------------------------
@full_disk
@pytest.mark.parametrize("name", ["eval.csv", "policy.pt", "train_state.pt"])
def test_a_full_disk_is_one_line_and_leaves_nothing_half_written(name, tmp_path, capsys):
    """The .tmp of ``name`` is a link to /dev/full: its write fails with ENOSPC, as on a full
    disk. One line; no ``name``, no .tmp; once there is room, --resume finishes the run."""
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(tiny()))
    out = tmp_path / "run"
    out.mkdir()
    (out / f"{name}.tmp").symlink_to("/dev/full")
    status = cardrl(["train", "--config", str(config), "--out", str(out), "--no-progress"])
    line = error_line(capsys, status)
    assert line.startswith(f"cardrl train: error: could not write {out / name}: No space left "
                           f"on device; the earlier {name} (if any) is kept and {name}.tmp "
                           "was removed")
    assert not (out / name).exists() and not list(out.glob("*.tmp"))
    if name != "train_state.pt":  # the state before the last evaluation was saved: resume
        assert torch.load(out / "train_state.pt", weights_only=True)["trainer"]["eval_pending"]
        assert cardrl(["train", "--config", str(config), "--out", str(out), "--resume",
                       "--no-progress"]) == 0
        assert (out / "eval.csv").read_text().count("\n") == 2
