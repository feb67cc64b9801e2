"""Resume files: read without running code, refused when damaged or foreign, continued
only with the config they were trained with; Ctrl-C saves one; the progress bar runs over
the limit that ends the run."""

from __future__ import annotations

import pytest
import torch

import training.progress as progress
from training.config import config_from_dict
from training.progress import budget_progress
from training.resume import (
    FORMAT,
    Interrupted,
    config_differences,
    load_resume,
    resume_file,
)
from training.train import train

#: a run of a second: Four Aces against itself only (no agent with a generator of its own,
#: so an interrupted and resumed run can equal an uninterrupted one exactly)
TINY = {"game": "four_aces", "total_steps": 600, "num_games": 8, "opponents": ["self"],
        "snapshot_interval": 100, "checkpoint_interval": 0,
        "ppo": {"hidden": [16], "n_steps": 8, "minibatch_size": 64},
        "eval": {"deals": 2, "interval": 0, "baselines": [], "opponent": "random"}}


def tiny(**changes):
    return config_from_dict({**TINY, **changes})


def interrupt_at(monkeypatch, call: int) -> None:
    """Ctrl-C at the ``call``-th progress update (batch_ppo: the end of an iteration; sb3:
    a vector step)."""
    original, calls = progress.BudgetBar.update, [0]

    def update(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == call:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(progress.BudgetBar, "update", update)


def weights(path):
    from agents.policy.checkpoint import load_checkpoint

    return load_checkpoint(path)["state_dict"]


def test_ctrl_c_saves_a_resume_file_and_the_resumed_run_equals_an_uninterrupted_one(
        tmp_path, monkeypatch):
    interrupt_at(monkeypatch, 3)  # in the third iteration: the state after the second is kept
    with pytest.raises(Interrupted) as stop:
        train(tiny(), tmp_path / "cut", progress=False)
    assert stop.value.path == tmp_path / "cut" / "train_state.pt"
    saved = torch.load(stop.value.path, weights_only=True)
    assert saved["format"] == FORMAT and saved["steps"] == stop.value.steps > 0
    assert saved["trainer"]["iteration"] == 2
    assert (tmp_path / "cut" / "policy.pt").exists()
    monkeypatch.undo()
    resumed = train(tiny(), tmp_path / "cut", resume=True, progress=False)
    whole = train(tiny(), tmp_path / "whole", progress=False)
    assert resumed["steps"] == whole["steps"]
    a, b = weights(tmp_path / "cut" / "policy.pt"), weights(tmp_path / "whole" / "policy.pt")
    for key in a:
        torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)


def test_ctrl_c_in_sb3_saves_a_resume_file_that_resumes(tmp_path, monkeypatch):
    cfg = tiny(algo="sb3", total_steps=200)
    interrupt_at(monkeypatch, 20)  # vector steps of 8 games: after two rollouts of 64
    with pytest.raises(Interrupted) as stop:
        train(cfg, tmp_path / "run", progress=False)
    assert stop.value.path == tmp_path / "run" / "sb3_state.pt"
    assert stop.value.steps == 128  # the state after the last completed update
    monkeypatch.undo()
    assert train(cfg, tmp_path / "run", resume=True, progress=False)["steps"] >= 200


def test_resume_prints_what_it_continues_from(tmp_path, capsys):
    first = train(tiny(total_steps=100), tmp_path / "run", progress=False)
    train(tiny(total_steps=300), tmp_path / "run", resume=True, progress=False)
    out = capsys.readouterr().out
    assert (f"resuming {tmp_path / 'run'} from {tmp_path / 'run' / 'train_state.pt'}: "
            f"{first['steps']:,} learner decisions done in") in out


def test_nothing_to_resume_is_refused(tmp_path):
    with pytest.raises(ValueError, match="it does not exist, so there is nothing to resume"):
        train(tiny(), tmp_path / "none", resume=True, progress=False)
    assert not (tmp_path / "none").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"it holds no run \(no train_state.pt\)"):
        train(tiny(), tmp_path / "empty", resume=True, progress=False)
    (tmp_path / "empty" / "config.yaml").write_text("{}\n")
    with pytest.raises(ValueError, match="stopped before saving train_state.pt"):
        train(tiny(), tmp_path / "empty", resume=True, progress=False)
    train(tiny(total_steps=50), tmp_path / "run", progress=False)
    with pytest.raises(ValueError, match=r"holds train_state.pt \(batch_ppo\), not "
                                         r"sb3_state.pt"):
        train(tiny(algo="sb3"), tmp_path / "run", resume=True, progress=False)


def test_a_resume_with_another_config_is_refused_naming_file_and_field(tmp_path):
    train(tiny(total_steps=50), tmp_path / "run", progress=False)
    before = (tmp_path / "run" / "train_state.pt").read_bytes()
    with pytest.raises(ValueError) as error:
        train(tiny(seed=2, ppo={**TINY["ppo"], "gamma": 0.9}), tmp_path / "run", resume=True,
              progress=False)
    message = str(error.value)
    assert f"cannot resume from {tmp_path / 'run' / 'train_state.pt'}" in message
    assert "ppo.gamma: 1.0 there, 0.9 now" in message and "seed: 1 there, 2 now" in message
    assert (tmp_path / "run" / "train_state.pt").read_bytes() == before  # nothing touched
    # the budget may change
    assert train(tiny(total_steps=120, max_minutes=5.0), tmp_path / "run", resume=True,
                 progress=False)["steps"] >= 120


def test_config_differences_leave_out_the_budget():
    a = tiny().to_dict()
    b = tiny(total_steps=9, max_minutes=3.0, torch_threads=2,
             eval={**TINY["eval"], "workers": 2}).to_dict()
    assert config_differences(a, b) == []
    b["ppo"]["hidden"] = [32]
    b["options"] = {"num_players": 3}
    assert config_differences(a, b) == ["options: {} there, {'num_players': 3} now",
                                        "ppo.hidden: [16] there, [32] now"]


class Payload:
    """A pickle that creates a file when it is unpickled."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return open, (self.path, "w")


def test_a_resume_file_that_would_run_code_is_refused_without_running_it(tmp_path):
    cfg = tiny()
    run = tmp_path / "run"
    run.mkdir()
    marker = tmp_path / "created_by_the_pickle"
    torch.save({"format": FORMAT, "payload": Payload(marker)}, resume_file(run, cfg.algo))
    with pytest.raises(ValueError, match="refused without running it"):
        load_resume(run, cfg)
    assert not marker.exists()


@pytest.mark.parametrize(("content", "expected"), [
    (b"", "is empty"),
    (b"not a zip at all", "could not be read"),
    ("truncated", "could not be read"),
    ({"global_step": 10, "net": {}}, "is not a cardrl-train-state file"),
    ({"format": FORMAT, "version": 9}, "has version 9"),
    ({"format": FORMAT, "version": 1, "algo": "batch_ppo", "config": {}, "steps": -1,
      "elapsed_s": 0.0, "snapshots": [], "trainer": {}}, "is damaged: steps=-1"),
])
def test_damaged_or_foreign_resume_files_are_refused_naming_the_file(tmp_path, content,
                                                                     expected):
    cfg = tiny()
    run = tmp_path / "run"
    run.mkdir()
    path = resume_file(run, cfg.algo)
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content == "truncated":
        torch.save({"x": torch.zeros(1000)}, path)
        path.write_bytes(path.read_bytes()[:300])
    else:
        torch.save(content, path)
    with pytest.raises(ValueError) as error:
        load_resume(run, cfg)
    assert str(path) in str(error.value) and expected in str(error.value)


def test_a_resume_file_whose_state_does_not_fit_is_refused(tmp_path):
    train(tiny(total_steps=50), tmp_path / "run", progress=False)
    path = tmp_path / "run" / "train_state.pt"
    data = torch.load(path, weights_only=True)
    data["trainer"]["net"] = {k: v[..., :1] for k, v in data["trainer"]["net"].items()}
    torch.save(data, path)
    with pytest.raises(ValueError, match=f"resume file {path} is damaged: its state does not "
                                         f"fit the run"):
        train(tiny(total_steps=100), tmp_path / "run", resume=True, progress=False)


def test_the_bar_runs_over_the_limit_that_ends_the_run():
    fraction, text = budget_progress(1_000_000, 12_000_000, 600.0, 30.0)
    assert fraction == pytest.approx(1 / 3)  # 10 of 30 minutes, only 1/12 of the steps
    assert text.startswith("10.0/30 min of training (the time limit ends the run)")
    fraction, text = budget_progress(9_000_000, 12_000_000, 600.0, 30.0)
    assert fraction == pytest.approx(0.75) and "(the step limit ends the run)" in text
    fraction, text = budget_progress(300, 600, 5.0, None)
    assert fraction == 0.5 and text == "300 of 600 steps"


def test_a_damaged_eval_csv_is_named_on_resume(tmp_path):
    train(tiny(total_steps=50), tmp_path / "run", progress=False)
    (tmp_path / "run" / "eval.csv").write_text("")
    with pytest.raises(ValueError, match=f"{tmp_path / 'run' / 'eval.csv'} cannot be read"):
        train(tiny(total_steps=100), tmp_path / "run", resume=True, progress=False)


# -- exact resumes (issue 39, problem 7) ------------------------------------------------------
#: a run of a few iterations with a pool agent that draws from a generator of its own
#: (random), evaluations between checkpoints and a snapshot: what a resume must repeat
EXACT = {**TINY, "opponents": ["self", "random"], "checkpoint_interval": 300,
         "eval": {**TINY["eval"], "interval": 200}}
#: eval.csv's wall-clock columns: measurements, different in any two runs
TIMING = ["train_seconds", "seconds"]


def exact(**changes):
    return config_from_dict({**EXACT, **changes})


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The uninterrupted run of EXACT: its folder."""
    run = tmp_path_factory.mktemp("whole") / "run"
    train(exact(), run, progress=False)
    return run


def assert_same_run(run, reference) -> None:
    """The two run folders hold the same training: steps, weights (the last and the best),
    optimizer and generators, and eval.csv but for its wall-clock columns."""
    import pandas as pd

    a = torch.load(run / "train_state.pt", weights_only=True)
    b = torch.load(reference / "train_state.pt", weights_only=True)
    assert a["steps"] == b["steps"] and a["trainer"]["iteration"] == b["trainer"]["iteration"]
    for name in ("policy.pt", "policy_best.pt"):
        got, want = weights(run / name), weights(reference / name)
        for key in want:
            torch.testing.assert_close(got[key], want[key], rtol=0, atol=0)
    got, want = pd.read_csv(run / "eval.csv"), pd.read_csv(reference / "eval.csv")
    pd.testing.assert_frame_equal(got.drop(columns=TIMING), want.drop(columns=TIMING))
    assert len(want) == 3 and not list(run.glob("*.tmp"))
    for key in ("rng", "pool_rng", "agent_rngs", "evals"):
        assert a["trainer"][key] == b["trainer"][key], key
    assert torch.equal(a["trainer"]["torch_rng"], b["trainer"]["torch_rng"])


def test_a_sigint_resumed_run_equals_an_uninterrupted_one(whole, tmp_path, monkeypatch):
    """A real SIGINT in the fourth iteration (the one after the second evaluation): the
    resumed run plays it again from the saved state, the random opponent's generator
    included, and ends as the uninterrupted run."""
    import os
    import signal

    original, calls = progress.BudgetBar.update, [0]

    def update(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == 4:
            os.kill(os.getpid(), signal.SIGINT)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(progress.BudgetBar, "update", update)
    with pytest.raises(Interrupted) as stop:
        train(exact(), tmp_path / "cut", progress=False)
    assert stop.value.steps == torch.load(stop.value.path, weights_only=True)["steps"] > 0
    monkeypatch.undo()
    train(exact(), tmp_path / "cut", resume=True, progress=False)
    assert_same_run(tmp_path / "cut", whole)


@pytest.mark.parametrize("when", ["before its row", "after its row"])
def test_ctrl_c_during_an_evaluation_resumes_with_that_evaluation(whole, tmp_path, monkeypatch,
                                                                  when):
    """Cut in the second evaluation, before or after it wrote its row: the resume does that
    evaluation (once), and eval.csv is the uninterrupted run's."""
    from training import evaluate

    original, calls = evaluate.Evaluator.evaluate, [0]

    def evaluate_then_stop(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == 2 and when == "before its row":
            raise KeyboardInterrupt
        row = original(self, *args, **kwargs)
        if calls[0] == 2:
            raise KeyboardInterrupt
        return row

    monkeypatch.setattr(evaluate.Evaluator, "evaluate", evaluate_then_stop)
    with pytest.raises(Interrupted):
        train(exact(), tmp_path / "cut", progress=False)
    saved = torch.load(tmp_path / "cut" / "train_state.pt", weights_only=True)
    assert saved["trainer"]["eval_pending"] and saved["trainer"]["evals"] == 1
    monkeypatch.undo()
    train(exact(), tmp_path / "cut", resume=True, progress=False)
    assert_same_run(tmp_path / "cut", whole)


def test_a_killed_run_resumes_from_its_last_checkpoint(whole, tmp_path, monkeypatch):
    """A kill (no Ctrl-C handler runs) after an evaluation newer than the last checkpoint:
    the resume drops that row, trains from the checkpoint and evaluates again, as the
    uninterrupted run did."""
    import pandas as pd

    original, calls = progress.BudgetBar.update, [0]

    def update(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == 5:
            raise SystemExit("killed")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(progress.BudgetBar, "update", update)
    with pytest.raises(SystemExit):
        train(exact(), tmp_path / "cut", progress=False)
    saved = torch.load(tmp_path / "cut" / "train_state.pt", weights_only=True)
    evals = pd.read_csv(tmp_path / "cut" / "eval.csv")
    assert evals["steps"].iloc[-1] > saved["steps"]  # a row the checkpoint does not know
    monkeypatch.undo()
    train(exact(), tmp_path / "cut", resume=True, progress=False)
    assert_same_run(tmp_path / "cut", whole)


# -- resumes tied to the files they read (issue 39, problem 7) ------------------------------
def changed_checkpoint(source, target) -> None:
    """``target``: the checkpoint ``source`` with one weight changed."""
    from agents.policy.checkpoint import load_checkpoint, save_checkpoint

    checkpoint = load_checkpoint(source)
    key = next(iter(checkpoint["state_dict"]))
    checkpoint["state_dict"][key] = checkpoint["state_dict"][key] + 1.0
    save_checkpoint(checkpoint, target)


@pytest.mark.parametrize("field", ["eval.opponent", "init"])
def test_a_resume_refuses_a_file_that_changed_since_the_run_began(whole, tmp_path, field):
    import shutil

    network = tmp_path / "network.pt"
    shutil.copyfile(whole / "policy.pt", network)
    changes = ({"eval": {**TINY["eval"], "opponent": f"policy:{network}"}}
               if field == "eval.opponent" else {"init": str(network)})
    run = tmp_path / "run"
    train(tiny(total_steps=50, **changes), run, progress=False)
    saved = torch.load(run / "train_state.pt", weights_only=True)
    assert [(e["field"], e["path"]) for e in saved["inputs"]] == [(field, str(network))]
    changed_checkpoint(whole / "policy.pt", network)
    before = (run / "train_state.pt").read_bytes()
    with pytest.raises(ValueError) as error:
        train(tiny(total_steps=100, **changes), run, resume=True, progress=False)
    message = str(error.value)
    assert message.startswith(f"cannot resume from {run / 'train_state.pt'}: a file the run "
                              f"reads changed since it began ({field} reads "
                              f"'{network}', whose SHA-256 is now ")
    assert "\n" not in message and (run / "train_state.pt").read_bytes() == before


def test_a_resume_file_of_an_earlier_cardrl_without_inputs_still_resumes(tmp_path):
    train(tiny(total_steps=50), tmp_path / "run", progress=False)
    path = tmp_path / "run" / "train_state.pt"
    data = torch.load(path, weights_only=True)
    for key in ("agent_rngs", "evals", "eval_pending"):
        del data["trainer"][key]
    del data["inputs"]
    torch.save(data, path)
    assert train(tiny(total_steps=100), tmp_path / "run", resume=True,
                 progress=False)["steps"] >= 100
