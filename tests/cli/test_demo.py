"""`cardrl demo` end to end on a tiny budget: trains, evaluates, writes its report, compares
it with the committed demo and says what to expect of it."""

import gc
from pathlib import Path

import pandas as pd
import pytest

import cli.demo
from cli.demo import COMMITTED_DIR, DEMO_GAMES, comparison
from cli.main import main
from training.config import load_config

REPO = Path(__file__).resolve().parents[2]


def compiled_kernels() -> dict[int, int]:
    """Per numba dispatcher alive (by id): how many compiled versions it holds."""
    from numba.core.dispatcher import Dispatcher

    # type(), not isinstance(): gc also holds weak proxies to dead objects, and
    # isinstance() of one raises ReferenceError
    return {id(d): len(d.overloads) for d in gc.get_objects()
            if issubclass(type(d), Dispatcher)}


def test_demo_trains_evaluates_and_writes_report(tmp_path, capsys, monkeypatch):
    import training.train

    monkeypatch.setattr(cli.demo, "_WARMED", set())  # as in a fresh process
    train, newly_compiled = training.train.train, {}

    def counting_train(cfg, run_dir, *args, **kwargs):
        """train(), noting the numba kernels it compiled (none, after the warm-up)."""
        before = compiled_kernels()
        try:
            return train(cfg, run_dir, *args, **kwargs)
        finally:
            after = compiled_kernels()
            newly_compiled[Path(run_dir).name] = {k for k, v in after.items()
                                                  if before.get(k) != v}

    monkeypatch.setattr(training.train, "train", counting_train)
    out = tmp_path / "demo"
    code = main(["demo", "--minutes", "0.02", "--deals", "4", "--out", str(out)])
    assert code == 0
    report = (out / "README.md").read_text()
    for game in ("abracadabra", "four_aces"):
        assert f"## {game}" in report
        assert (out / f"train_{game}" / "policy.pt").exists()
        assert (out / f"tournament_{game}" / "summary.csv").exists()
        assert (out / f"tournament_{game}" / "points.png").exists()
    assert "| trained |" in report
    assert "not expected to beat the heuristics" in report
    printed = capsys.readouterr().out
    assert f"results: {out}/README.md" in printed
    assert "this run vs. the committed demo (results/demo/README.md)" in printed
    assert "not expected to beat the heuristics" in printed
    assert "agents/checkpoints/" in printed and "results/proof/" in printed
    assert "cardrl demo --out results/demo" in printed
    # each game's kernels are compiled before its training clock starts, with a line; the
    # training itself compiles none (numba compiles per argument types, not batch sizes)
    assert newly_compiled == {"train_abracadabra": set(), "train_four_aces": set(),
                              "run": newly_compiled["run"]}  # (the warm-up runs)
    for game in ("abracadabra", "four_aces"):
        compiling = printed.index(f"== {game}: compiling the game's kernels before the "
                                  "training clock starts")
        compiled = printed.index("(not part of the training budget)", compiling)
        assert compiled < printed.index(f"== {game}: training configs/demo_{game}.yaml")
    assert "30 minutes of training each" not in printed + report  # the old, stale claim
    # a second demo replaces the first (a fresh clone holds a committed results/demo);
    # its kernels are compiled already
    assert main(["demo", "--minutes", "0.02", "--deals", "4", "--out", str(out)]) == 0
    assert capsys.readouterr().out.count("compiled already in this process") == 2


def test_demo_text_says_what_the_readme_says_of_the_real_policies():
    """The demo's closing text and the README give the committed policies' training time
    in the same words (it was "30 minutes of training each", no longer true)."""
    claim = "up to 60 minutes of training each"
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert claim in readme
    assert any(claim in line for line in cli.demo.EXPECTATIONS)
    assert "up to 60 minutes" in " ".join(cli.demo.__doc__.split())


def test_comparison_with_the_committed_demo(tmp_path):
    for game in DEMO_GAMES:
        folder = tmp_path / f"tournament_{game}"
        folder.mkdir()
        pd.DataFrame({"agent": ["trained", "random"], "mean_points": [1.0, 2.0]}).to_csv(
            folder / "summary.csv", index=False)
    table = comparison(tmp_path, list(DEMO_GAMES))
    committed = pd.read_csv(COMMITTED_DIR / "tournament_four_aces" / "summary.csv")
    row = table[(table["game"] == "four_aces") & (table["agent"] == "trained")].iloc[0]
    assert row["this run"] == 1.0
    assert row["results/demo"] == committed.set_index("agent")["mean_points"]["trained"]
    assert comparison(tmp_path, list(DEMO_GAMES), committed=tmp_path / "nothing") is None


def test_bad_demo_arguments_create_nothing(tmp_path):
    out = tmp_path / "demo"
    with pytest.raises(ValueError, match=r"unknown game\(s\) \['chess'\]"):
        cli.demo.run(_args(games="chess", out=str(out)))
    with pytest.raises(ValueError, match="max_minutes: found -1.0"):
        cli.demo.run(_args(minutes=-1.0, out=str(out)))
    assert not out.exists()


def _args(**changes):
    from cli.main import build_parser

    args = build_parser().parse_args(["demo"])
    for key, value in changes.items():
        setattr(args, key, value)
    return args


def test_demo_learning_curves_have_several_points():
    """The demo configs evaluate often enough for several points in 90 seconds (at the
    throughput of the committed demo run)."""
    for game, (config, _, _) in DEMO_GAMES.items():
        cfg = load_config(REPO / config)
        trained = pd.read_csv(COMMITTED_DIR / f"train_{game}" / "eval.csv")["steps"].max()
        assert cfg.eval.interval > 0 and trained // cfg.eval.interval >= 3, game
