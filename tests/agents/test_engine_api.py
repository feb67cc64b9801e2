"""Agents use the engines through their public API: no module of ``agents/`` reads or
calls a private attribute (a name starting with one underscore) of any object but its own
(``self``, ``cls``), nor imports a private name from ``envs``. A search that plays known
worlds to their end calls the engine's public round end (``FourAcesEngine.end_rounds``)
and kernels, never its private steps."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from agents.search.rollouts import GreedyKnownFourAces
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine

AGENTS = Path(__file__).resolve().parents[2] / "agents"
OWN = {"self", "cls"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(path: Path) -> list[str]:
    """``file:line name`` of each private attribute of another object used in ``path``,
    and of each private name imported from ``envs``."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in OWN) and not (
                    isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name)
                    and owner.func.id == "super"):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("envs"):
            found += [f"{path.name}:{node.lineno} {a.name}" for a in node.names
                      if _private(a.name)]
    return found


def test_agents_make_no_private_engine_calls():
    files = sorted(AGENTS.rglob("*.py"))
    assert files
    found = [use for path in files for use in private_uses(path)]
    assert not found, f"private engine (or other objects') names used in agents/: {found}"


def test_the_check_finds_a_private_call(tmp_path):
    path = tmp_path / "example.py"
    path.write_text("from envs.core import _hidden\n"
                    "def f(world):\n    self = world\n    self._ok()\n"
                    "    world._end_round([0])\n")
    assert sorted(private_uses(path)) == ["example.py:1 _hidden", "example.py:5 ._end_round"]


def test_end_rounds_scores_rounds_ended_outside_step():
    """A world played to its round's end by the compiled greedy_known rollout is scored
    by the public end_rounds as by a step (K1–K4): the same points as playing the same
    turns through step."""
    engine = FourAcesEngine(FourAcesConfig(num_players=3), batch_size=16)
    engine.reset(seed=7)
    by_steps = engine.clone()
    points = GreedyKnownFourAces().play_out(engine)
    policy = GreedyKnownFourAces()
    while not (by_steps.deal_over | by_steps.game_over).all():
        live = ~(by_steps.deal_over | by_steps.game_over)
        actions = np.zeros(by_steps.batch_size, np.int64)
        actions[live] = policy(by_steps, np.flatnonzero(live))
        by_steps.step(actions, live)
    np.testing.assert_array_equal(points, by_steps.last_points)
    np.testing.assert_array_equal(engine.totals, by_steps.totals)


def test_end_rounds_refuses_rounds_that_have_not_ended():
    engine = FourAcesEngine(FourAcesConfig(num_players=4), batch_size=3)
    engine.reset(seed=1)
    with pytest.raises(ValueError, match="has not ended"):
        engine.end_rounds(np.array([1]))
    with pytest.raises(ValueError, match="distinct"):
        engine.end_rounds(np.array([0, 0]))
    with pytest.raises(ValueError, match="distinct"):
        engine.end_rounds(np.array([3]))
    assert not engine.end_rounds(np.zeros(0, np.intp)).any()
