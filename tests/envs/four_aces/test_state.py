"""The typed public state of the Four Aces engine: every field documented with the shape
and dtype it has, the driver's read-only views of it, and the modules around it."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import envs.four_aces.state as state_module
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.state import FourAcesState

DRIVER_VIEWS = ("current_player", "game_over", "deal_over", "totals", "winners", "last_points")


def field_comments() -> dict[str, str]:
    """The ``#:`` comment above each field of FourAcesState, joined, by field name."""
    lines = inspect.getsource(FourAcesState).splitlines()
    comments, pending = {}, []
    for line in lines:
        text = line.strip()
        if text.startswith("#:"):
            pending.append(text[2:].strip())
        elif m := re.fullmatch(r"(\w+): np\.ndarray", text):
            comments[m.group(1)] = " ".join(pending)
            pending = []
        else:
            pending = []
    return comments


def test_every_field_is_documented_with_its_dtype_and_shape():
    B, P = 2, 4
    state = FourAcesState.allocate(B, P)
    comments = field_comments()
    names = [f.name for f in dataclasses.fields(FourAcesState)]
    assert sorted(comments) == sorted(names)
    sizes = {"B": B, "P": P}
    for name in names:
        m = re.match(r"(\w+) \[([^\]]*)\]: \S", comments[name])
        assert m, f"{name}: the comment must start with 'dtype [shape]: meaning'"
        dtype, shape = m.groups()
        shape = tuple(sizes.get(d.strip()) or int(d) for d in shape.split(","))
        value = getattr(state, name)
        assert value.dtype == np.dtype(dtype), name
        assert value.shape == shape, name
    assert set(state.arrays()) == set(names)


def test_engine_keeps_its_games_in_the_state_and_the_driver_reads_views():
    e = FourAcesEngine(FourAcesConfig(num_players=5), batch_size=3)
    e.reset(seed=1)
    assert isinstance(e.state, FourAcesState)
    assert (e.state.batch_size, e.state.num_players) == (3, 5)
    for name in DRIVER_VIEWS:
        assert getattr(e, name) is getattr(e.state, name)
        with pytest.raises(AttributeError):
            setattr(e, name, np.zeros(3))
    # every per-game array of the engine is in the state
    assert not [k for k, v in vars(e).items()
                if isinstance(v, np.ndarray) and v.shape[:1] == (3,) and k != "_first_row"]


def test_state_flat_views_share_memory():
    st = FourAcesState.allocate(2, 3)
    st.hand_rows[4, 7] = 2  # game 1, seat 1
    st.table_rows[5, 8] = 1
    st.hand_size_flat[4] = 3
    st.hand_limit_flat[5] = 4
    assert st.hand[1, 1, 7] == 2 and st.table[1, 2, 8] == 1
    assert st.hand_size[1, 1] == 3 and st.hand_limit[1, 2] == 4


@pytest.mark.parametrize("module", ["rules", "state", "observation"])
def test_rules_state_and_observation_never_import_the_engine(module):
    path = Path(state_module.__file__).with_name(f"{module}.py")
    imported = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    assert "envs.four_aces.engine" not in imported
    assert not any(m.startswith(("agents", "training", "arena", "records")) for m in imported)
