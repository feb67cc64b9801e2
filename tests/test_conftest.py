"""The closing line of a run whose browser tests were skipped (tests/conftest.py): ``make
test`` on a machine without Chromium says so last, with the command that runs them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import BROWSER_COMMAND, BROWSER_TESTS, browser_skip_line

ROOT = Path(__file__).resolve().parents[1]


def skipped(nodeid: str, reason: str) -> pytest.TestReport:
    return pytest.TestReport(nodeid, ("x", 1, "x"), {}, "skipped",
                             (f"/x/{nodeid.split('::')[0]}", 1, f"Skipped: {reason}"), "setup")


def test_the_line_counts_the_skipped_browser_tests_and_names_the_command():
    chromium = "Chromium is not installed (/usr/bin/chromium missing): ..."
    reports = [skipped(f"{BROWSER_TESTS}::test_play[{game}]", chromium)
               for game in ("abracadabra", "four_aces")]
    reports += [skipped(f"{BROWSER_TESTS}::test_watch", chromium),
                skipped("tests/integrations/test_sb3.py::test_sb3[x]", "sb3 missing")]
    assert browser_skip_line(reports) == (
        f"3 browser tests skipped: Chromium not found; install it and run them with "
        f"`{BROWSER_COMMAND}` (as .ci/run does before make test)")
    assert browser_skip_line(reports[3:]) is None  # other skips: no line
    assert browser_skip_line([]) is None
    other = [skipped(f"{BROWSER_TESTS}::test_watch", "playwright is not installed")]
    assert browser_skip_line(other) == "1 browser test skipped: playwright is not installed"


def test_a_run_without_chromium_ends_with_the_line():
    """As ``make test`` runs (two workers; the line comes from the controller)."""
    environ = {**os.environ, "CARDRL_CHROMIUM": "/nonexistent/chromium"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
         BROWSER_TESTS], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=300)
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert lines[-1].startswith("3 browser tests skipped: Chromium not found"), lines[-3:]
    assert BROWSER_COMMAND in lines[-1] and "skipped in" in lines[-2]
