"""`cardrl train`: a tiny run from the command line; every bad config is one ValueError line
naming the file and the field, before anything is created; Ctrl-C saves and says how to
resume; --resume says what it continues and refuses when there is nothing."""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest
import yaml

import cli.train
import training.progress as progress
from cli.main import main

#: a budget of a second or two
TINY = {"total_steps": 16, "num_games": 2, "opponents": ["random"],
        "eval": {"deals": 1, "interval": 0, "baselines": [], "opponent": "random"}}
TINY_PPO = {"hidden": [8], "n_steps": 4, "minibatch_size": 8}
REPO = Path(__file__).resolve().parents[2]


def train_cli(*argv: str) -> int:
    """``cardrl train ARGV`` without cli/main.py's error handler: a ValueError propagates."""
    parser = argparse.ArgumentParser()
    cli.train.add_arguments(parser)
    return cli.train.run(parser.parse_args([str(a) for a in argv]))


def test_cli_train(tmp_path):
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({"game": "four_aces", **TINY, "ppo": TINY_PPO,
                                      "eval": {**TINY["eval"], "baselines": ["random"]}}))
    assert main(["train", "--config", str(config), "--total-steps", "120", "--out",
                 str(tmp_path / "run"), "--no-progress"]) == 0
    evals = pd.read_csv(tmp_path / "run" / "eval.csv")
    assert evals["steps"].iloc[-1] >= 120
    json.loads((tmp_path / "run" / "baselines.json").read_text())
    assert yaml.safe_load((tmp_path / "run" / "config.yaml").read_text())["total_steps"] == 120


@pytest.mark.parametrize(("game", "ppo", "name"), [
    ("abracadabra", {"delegate": "heuristic"}, "delegate"),
    ("four_aces", {"symmetry": "suits"}, "symmetry"),
])
def test_algo_override_is_validated_with_the_config(game, ppo, name, tmp_path):
    """``--algo sb3`` on a config with a field only batch_ppo has is refused before any run."""
    config = tmp_path / "batch_ppo_only.yaml"
    config.write_text(yaml.safe_dump({"game": game, **TINY, "ppo": {**TINY_PPO, **ppo}}))
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=f"with algo='sb3': ppo.{name} needs algo: batch_ppo"):
        train_cli("--config", config, "--algo", "sb3", "--out", out, "--no-progress")
    assert not out.exists()


# -- bad configs: one line naming the file and the field, nothing created ----------------------
GOOD = "game: four_aces\ntotal_steps: 16\nnum_games: 2\n"
#: (id, file content (None: no file), expected text of the error)
BAD_CONFIGS = [
    ("missing file", None, "does not exist; the configs in {folder}/ are: other.yaml"),
    ("empty file", "", "is empty; expected a mapping of config fields"),
    ("only comments", "# nothing here\n", "is empty"),
    ("not a mapping", "- game\n- algo\n", "found ['game', 'algo'] (a list), expected a "
                                          "mapping of config fields (game, options, algo"),
    ("bare text", "abracadabra\n", "found 'abracadabra' (text), expected a mapping"),
    ("YAML syntax", "game: [four_aces\nseed: 1\n",
     "line 2, column 5: not valid YAML (expected ',' or ']', but got ':')"),
    ("repeated key", "seed: 1\nseed: 2\n", "line 2, column 1: not valid YAML (the key 'seed' "
                                           "appears twice)"),
    ("unknown field", GOOD + "total_step: 100\n", "total_step: unknown field; did you mean "
                                                  "'total_steps'?"),
    ("nested unknown field", GOOD + "ppo: {learning_rat: 0.1}\n",
     "ppo.learning_rat: unknown field; did you mean 'learning_rate'?"),
    ("unknown section", GOOD + "evaluation: {deals: 3}\n", "evaluation: unknown field"),
    ("number read as text", GOOD + "max_minutes: 1e2\n",
     "max_minutes: found '1e2' (text), expected a number in (0, 1_000_000] or null (YAML "
     "reads 1e2 as text: write 100)"),
    ("total_steps 1e6", "game: four_aces\ntotal_steps: 1e6\n",
     "total_steps: found '1e6' (text), expected an integer in [1, 1_000_000_000_000] (YAML "
     "reads 1e6 as text: write 1_000_000)"),
    ("word for a number", GOOD + "ppo: {learning_rate: fast}\n",
     "ppo.learning_rate: found 'fast' (text), expected a number > 0"),
    ("fractional count", GOOD.replace("num_games: 2", "num_games: 2.5"),
     "num_games: found 2.5 (a number), expected an integer in [1, 65_536]"),
    ("out of range", GOOD + "ppo: {gamma: 1.5}\n",
     "ppo.gamma: found 1.5 (a number), expected a number in (0, 1]"),
    ("negative minutes", GOOD + "max_minutes: -5\n",
     "max_minutes: found -5 (an integer), expected a number in (0, 1_000_000] or null"),
    ("negative seed", GOOD + "seed: -1\n", "seed: found -1 (an integer), expected an integer "
                                           "in [0, 4_294_967_295]"),
    ("bad choice", GOOD + "ppo: {activation: sigmoid}\n",
     "ppo.activation: found 'sigmoid' (text), expected one of tanh, relu"),
    ("quoted boolean", GOOD + "ppo: {anneal_lr: 'yes'}\n",
     "ppo.anneal_lr: found 'yes' (text), expected true or false"),
    ("section not a mapping", GOOD + "eval: 5\n",
     "eval: found 5 (an integer), expected a mapping of EvalConfig fields"),
    ("unknown game", "game: chess\n", "game: found 'chess' (text), expected one of "
                                      "abracadabra, four_aces"),
    ("unknown game option", GOOD + "options: {num_player: 4}\n",
     "options.num_player: unknown FourAcesConfig field; did you mean 'num_players'?"),
    ("bad game option", GOOD + "options: {num_players: 9}\n", "options: num_players=9"),
    ("unknown opponent", GOOD + "opponents: [{name: greddy}]\n",
     "opponents[0].name: found 'greddy' (text), expected an agent of four_aces, self or "
     "snapshot: one of"),
    ("all weights 0", GOOD + "opponents: [{name: random, weight: 0}]\n",
     "opponents: every weight is 0, expected at least one weight > 0"),
    ("unknown eval agent", GOOD + "eval: {opponent: nobody}\n",
     "eval.opponent: found 'nobody' (text), expected an agent of four_aces"),
    ("empty hidden", GOOD + "ppo: {hidden: []}\n",
     "ppo.hidden: found [] (a list), expected a non-empty list of integers"),
    ("features of the other game", GOOD + "ppo: {features: abracadabra}\n",
     "ppo.features: 'abracadabra' does not fit game 'four_aces'"),
    ("two problems", GOOD + "seed: -1\nppo: {gamma: 0}\n", "2 problems: seed: found -1"),
]


@pytest.mark.parametrize(("content", "expected"), [c[1:] for c in BAD_CONFIGS],
                         ids=[c[0] for c in BAD_CONFIGS])
def test_a_bad_config_is_one_line_naming_file_and_field_and_creates_nothing(
        content, expected, tmp_path):
    folder = tmp_path / "configs"
    folder.mkdir()
    (folder / "other.yaml").write_text(GOOD)
    path = folder / "bad.yaml"
    if content is not None:
        path.write_text(content)
    out = tmp_path / "run"
    with pytest.raises(ValueError) as error:
        train_cli("--config", path, "--out", out, "--no-progress")
    message = str(error.value)
    assert message.startswith(f"config file {path}"), message
    assert expected.format(folder=folder) in message, message
    assert "\n" not in message
    assert not out.exists() and not (tmp_path / "runs").exists()


def test_bad_overrides_are_named(tmp_path):
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    with pytest.raises(ValueError, match=re.escape(
            f"config file {path} with total_steps=0, max_minutes=-1.0: 2 problems: "
            f"total_steps: found 0 (an integer), expected an integer in [1, ")):
        train_cli("--config", path, "--total-steps", "0", "--max-minutes", "-1", "--out",
                  tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_missing_repository_config_lists_the_configs_there(monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(ValueError, match=r"config file configs/nope.yaml does not exist; the "
                                         r"configs in configs/ are: abracadabra_four.yaml, "):
        train_cli("--config", "configs/nope.yaml")


def test_a_failed_validation_does_not_block_the_fixed_rerun(tmp_path):
    path = tmp_path / "cfg.yaml"
    good = {"game": "four_aces", **TINY, "ppo": TINY_PPO}
    path.write_text(yaml.safe_dump({**good, "ppo": {**TINY_PPO, "learning_rate": "fast"}}))
    out = tmp_path / "run"
    with pytest.raises(ValueError, match="ppo.learning_rate"):
        train_cli("--config", path, "--out", out, "--no-progress")
    path.write_text(yaml.safe_dump(good))
    assert train_cli("--config", path, "--out", out, "--no-progress") == 0


# -- Ctrl-C and --resume ---------------------------------------------------------------------
def test_ctrl_c_saves_and_prints_the_resume_command_that_works(tmp_path, monkeypatch, capsys):
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump({"game": "four_aces", **TINY, "opponents": ["self"],
                                    "ppo": TINY_PPO}))
    out = tmp_path / "run"
    original, calls = progress.BudgetBar.update, [0]

    def update(self, *args, **kwargs):  # Ctrl-C at the end of the third iteration
        calls[0] += 1
        if calls[0] == 3:
            raise KeyboardInterrupt
        return original(self, *args, **kwargs)

    monkeypatch.setattr(progress.BudgetBar, "update", update)
    code = main(["train", "--config", str(path), "--total-steps", "200", "--out", str(out),
                 "--no-progress"])
    assert code == 130
    err = capsys.readouterr().err
    assert "interrupted: saved a resumable checkpoint after" in err
    assert str(out / "train_state.pt") in err
    command = err.strip().splitlines()[-1].strip()
    assert command == (f"cardrl train --config {path} --total-steps 200 --out {out} "
                       f"--resume")
    monkeypatch.undo()
    argv = shlex.split(command)[1:]
    assert main([*argv, "--no-progress"]) == 0
    out_text = capsys.readouterr().out
    assert f"resuming {out} from {out / 'train_state.pt'}: " in out_text
    assert pd.read_csv(out / "eval.csv")["steps"].iloc[-1] >= 200


def test_resume_without_a_run_is_refused(tmp_path):
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump({"game": "four_aces", **TINY, "ppo": TINY_PPO}))
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=f"cannot resume {re.escape(str(out))}: it does not "
                                         f"exist, so there is nothing to resume"):
        train_cli("--config", path, "--out", out, "--resume")
    assert not out.exists()


def test_resume_with_another_config_is_refused(tmp_path):
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump({"game": "four_aces", **TINY, "ppo": TINY_PPO}))
    out = tmp_path / "run"
    assert train_cli("--config", path, "--out", out, "--no-progress") == 0
    with pytest.raises(ValueError, match=re.escape(
            f"cannot resume from {out / 'train_state.pt'}: it was trained with another "
            f"config (seed: 1 there, 5 now)")):
        train_cli("--config", path, "--out", out, "--seed", "5", "--resume")


def test_default_outputs_are_ignored_folders():
    """No command writes into committed files unless --out names them."""
    from cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["demo"]).out == "runs/demo"
    assert str(parser.parse_args(["bench"]).out) == "runs/bench/bench.md"
    assert "runs/\n" in (REPO / ".gitignore").read_text()
