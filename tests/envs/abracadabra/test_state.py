"""The state's groups (envs.abracadabra.state): each field declared once, in one group,
with its dtype, axes and start value; the flat fields and the groups hold the same arrays,
in copies and unpickled states too."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.state import GROUPS, AbracadabraState
from envs.compiled import GroupedState, StateArray


def test_every_field_is_in_exactly_one_group_in_the_groups_order():
    names = [name for group in GROUPS.values() for name in group._fields]
    assert len(names) == len(set(names))
    assert [f.name for f in dataclasses.fields(AbracadabraState)] == names


def test_allocate_gives_each_field_its_declared_dtype_shape_and_start_value():
    B, P, H = 3, 2, 3
    state = AbracadabraState.allocate(B, P, H)
    sizes = {"B": B, "P": P, "H": H}
    for group in GROUPS.values():
        for name, spec in group._field_defaults.items():
            array = getattr(state, name)
            assert array.dtype == np.dtype(spec.dtype), name
            assert array.shape == tuple(sizes[axis] for axis in spec.axes), name
            assert (array == spec.fill).all(), name
    assert state.game_over.all() and (state.current_player == -1).all()


def _same_arrays(state: AbracadabraState) -> bool:
    return all(getattr(getattr(state, attribute), name) is getattr(state, name)
               for attribute, group in GROUPS.items() for name in group._fields)


@pytest.mark.parametrize("copier", [copy.copy, copy.deepcopy,
                                    lambda s: pickle.loads(pickle.dumps(s))],
                         ids=["copy", "deepcopy", "pickle"])
def test_groups_hold_the_state_arrays_in_copies_too(copier):
    engine = AbracadabraEngine(AbracadabraConfig(variant="two_dummy"), batch_size=2)
    engine.reset(seed=3)
    engine.legal_action_mask()
    state = copier(engine.state)
    assert _same_arrays(engine.state) and _same_arrays(state)
    if copier is not copy.copy:
        assert state.phase is not engine.state.phase
        np.testing.assert_array_equal(state.hand_bits, engine.state.hand_bits)
    assert _same_arrays(engine.clone().state)


def test_groups_cannot_be_rebound_and_a_field_without_a_start_value_is_refused():
    state = AbracadabraState.allocate(1, 2, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.play = state.play  # type: ignore[misc]
    from typing import NamedTuple

    class Bad(NamedTuple):
        ok: np.ndarray = StateArray(np.int8)
        missing: np.ndarray = None

    with pytest.raises(TypeError, match="missing"):
        class _State(GroupedState, groups={"bad": Bad}):
            pass
