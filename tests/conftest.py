"""Fixtures shared by every test folder.

``only_four_player_checkpoints``: the default ``policy`` agent (``agents.make("policy",
game)``) loads every ``<game>_<variant>.pt`` in ``agents.policy.agent.CHECKPOINT_DIR``, and
which of those are committed changes as policies are trained. A test of what the default
policy does for a configuration *without* a checkpoint uses this fixture: the folder then
holds copies of the two four-player policies only (Abracadabra ``four``, Four Aces ``4p``),
so every other variant has none, whatever else is committed.

When the browser tests (``tests/web/test_browser.py``) were skipped — Chromium missing,
as on a machine that only ran ``make test`` (``.ci/run`` installs it) — the run ends with
one line saying how many, why, and the one command that runs them
(:func:`browser_skip_line`, printed after pytest's own summary).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

import pytest

#: the browser tests, driven through Chromium (skipped where it is missing)
BROWSER_TESTS = "tests/web/test_browser.py"
#: the one command that installs Chromium as .ci/run does and runs the browser tests
BROWSER_COMMAND = f"apt-get install -y chromium && .venv/bin/python -m pytest {BROWSER_TESTS}"

#: the committed policies the fixture keeps: one per game, its four-player table
FOUR_PLAYER_CHECKPOINTS = ("abracadabra_four.pt", "four_aces_4p.pt")


@pytest.fixture(scope="session")
def four_player_checkpoint_dir(tmp_path_factory) -> Path:
    """A folder holding copies of the committed four-player policies and nothing else."""
    from agents.policy.agent import CHECKPOINT_DIR

    folder = tmp_path_factory.mktemp("checkpoints")
    for name in FOUR_PLAYER_CHECKPOINTS:
        shutil.copy2(CHECKPOINT_DIR / name, folder / name)
    return folder


@pytest.fixture(scope="session")
def local_ray():
    """One local Ray of two CPUs for the session (starting one takes seconds): the tests
    that use it are marked ``xdist_group("ray")`` so one worker runs them all. Skipped
    where Ray is not installed."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture
def only_four_player_checkpoints(four_player_checkpoint_dir, monkeypatch) -> Path:
    """The default policy's checkpoint folder (``agents.policy.agent.CHECKPOINT_DIR``, read
    when a default policy is built) holds only :data:`FOUR_PLAYER_CHECKPOINTS`; the folder."""
    from agents.policy import agent as policy_agent

    monkeypatch.setattr(policy_agent, "CHECKPOINT_DIR", four_player_checkpoint_dir)
    return four_player_checkpoint_dir


def _skip_reason(report: pytest.TestReport) -> str:
    """The reason a skipped test gave (without pytest's ``Skipped: `` prefix)."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def browser_skip_line(skipped: Iterable[pytest.TestReport]) -> str | None:
    """The closing line of a run whose browser tests were skipped, or None if none was:
    how many, why, and the command that runs them."""
    reasons: dict[str, str] = {}
    for report in skipped:
        path = report.nodeid.split("::")[0]
        if path == BROWSER_TESTS or path.endswith("/" + BROWSER_TESTS):
            reasons.setdefault(report.nodeid, _skip_reason(report))
    if not reasons:
        return None
    count = f"{len(reasons)} browser test{'s' if len(reasons) != 1 else ''} skipped"
    if any("Chromium" in reason for reason in reasons.values()):
        return (f"{count}: Chromium not found; install it and run them with "
                f"`{BROWSER_COMMAND}` (as .ci/run does before make test)")
    return f"{count}: {sorted(set(reasons.values()))[0]}"


def pytest_unconfigure(config: pytest.Config) -> None:
    """After pytest's summary (in the controller of a ``-n`` run, not in its workers): the
    line of :func:`browser_skip_line`, if the browser tests were skipped."""
    if hasattr(config, "workerinput"):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    line = browser_skip_line(reporter.stats.get("skipped", []))
    if line:
        reporter.write_line(line, yellow=True, bold=True)
