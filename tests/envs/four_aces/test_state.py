"""The typed public state of the Four Aces engine: every field declared once, in one group,
with its dtype, axes, start value and a comment; the flat fields and the groups hold the
same arrays (in copies, clones and resampled worlds too); the driver's read-only views of
it, and the modules around it."""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

import envs.four_aces.state as state_module
from envs.cards import NUM_CARDS
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.rules import DECK_SIZE
from envs.four_aces.state import GROUPS, FourAcesState

DRIVER_VIEWS = ("current_player", "game_over", "deal_over", "totals", "winners", "last_points")


def field_comments() -> dict[str, str]:
    """The comment beside each field's declaration in the state's groups, by field name."""
    comments = {}
    for group in GROUPS.values():
        for line in inspect.getsource(group).splitlines():
            if m := re.fullmatch(r"\s*(\w+): np\.ndarray = StateArray\(.*\)  # (\S.*)", line):
                comments[m.group(1)] = m.group(2)
    return comments


def test_every_field_is_declared_once_in_the_groups_order_with_a_comment():
    names = [name for group in GROUPS.values() for name in group._fields]
    assert len(names) == len(set(names))
    assert [f.name for f in dataclasses.fields(FourAcesState)] == names
    assert sorted(field_comments()) == sorted(names)


def test_allocate_gives_each_field_its_declared_dtype_shape_and_start_value():
    B, P = 2, 4
    state = FourAcesState.allocate(B, P)
    sizes = {"B": B, "P": P, "C": NUM_CARDS, "D": DECK_SIZE}
    for group in GROUPS.values():
        for name, spec in group._field_defaults.items():
            value = getattr(state, name)
            assert value.dtype == np.dtype(spec.dtype), name
            assert value.shape == tuple(sizes[axis] for axis in spec.axes), name
            assert (value == spec.fill).all(), name
    assert state.game_over.all() and (state.current_player == -1).all()
    assert list(state.arrays()) == [f.name for f in dataclasses.fields(FourAcesState)]


def _groups_hold_the_fields(state: FourAcesState) -> bool:
    return all(getattr(getattr(state, attribute), name) is getattr(state, name)
               for attribute, group in GROUPS.items() for name in group._fields)


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy,
                                    lambda s: pickle.loads(pickle.dumps(s))],
                         ids=["copy", "deepcopy", "pickle"])
def test_groups_hold_the_state_arrays_in_copies_clones_and_worlds(copier):
    e = FourAcesEngine(FourAcesConfig(num_players=3), batch_size=2)
    e.reset(seed=3)
    e.legal_action_mask()
    state = copier(e.state)
    assert _groups_hold_the_fields(e.state) and _groups_hold_the_fields(state)
    if copier is not copy.copy:
        assert state.hand is not e.state.hand
        np.testing.assert_array_equal(state.hand, e.state.hand)
    assert _groups_hold_the_fields(e.clone([1, 0]).state)
    assert _groups_hold_the_fields(e.resample(0, int(e.current_player[0]), 2, 5).state)


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
