"""Fixtures shared by every test folder.

``only_four_player_checkpoints``: the default ``policy`` agent (``agents.make("policy",
game)``) loads every ``<game>_<variant>.pt`` in ``agents.policy.agent.CHECKPOINT_DIR``, and
which of those are committed changes as policies are trained. A test of what the default
policy does for a configuration *without* a checkpoint uses this fixture: the folder then
holds copies of the two four-player policies only (Abracadabra ``four``, Four Aces ``4p``),
so every other variant has none, whatever else is committed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

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


@pytest.fixture
def only_four_player_checkpoints(four_player_checkpoint_dir, monkeypatch) -> Path:
    """The default policy's checkpoint folder (``agents.policy.agent.CHECKPOINT_DIR``, read
    when a default policy is built) holds only :data:`FOUR_PLAYER_CHECKPOINTS`; the folder."""
    from agents.policy import agent as policy_agent

    monkeypatch.setattr(policy_agent, "CHECKPOINT_DIR", four_player_checkpoint_dir)
    return four_player_checkpoint_dir
