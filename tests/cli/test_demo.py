"""`cardrl demo` end to end on a tiny budget: trains, evaluates, writes its report."""

from cli.main import main


def test_demo_trains_evaluates_and_writes_report(tmp_path):
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
    # a second demo replaces the first (a fresh clone holds a committed results/demo)
    assert main(["demo", "--minutes", "0.02", "--deals", "4", "--out", str(out)]) == 0
