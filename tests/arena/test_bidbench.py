"""``cardrl bidbench`` on a tiny budget: it runs and writes its table and plot."""

from __future__ import annotations

from cli.main import build_parser, main


def test_bidbench_tiny(tmp_path):
    out = tmp_path / "bb"
    rc = main(["bidbench", "--deals", "6", "--batch", "4", "--bidders",
               "sure_tricks,control", "--variant", "three", "--seed", "1",
               "--out", str(out), "--no-progress"])
    assert rc == 0
    md = (out / "bidbench.md").read_text()
    assert "cardrl bidbench --deals 6" in md
    assert "| sure_tricks |" in md and "| control |" in md
    assert (out / "bidbench.png").stat().st_size > 0
    assert (out / "bidbench_same.csv").exists() and (out / "bidbench_mixed.csv").exists()


def test_bidbench_help_lists_options():
    text = build_parser()._subparsers._group_actions[0].choices["bidbench"].format_help()
    for option in ("--deals", "--bidders", "--player", "--variant", "--seed", "--out"):
        assert option in text
