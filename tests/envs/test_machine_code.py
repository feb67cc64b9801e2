"""The engines call their per-step kernels' machine code directly (envs.compiled.
machine_code), without numba's per-call typing: that is only sound while every argument
keeps the type the code was found for. These tests hold the guarantees it rests on: a
state's arrays cannot be rebound, the step's and the observation's arguments are brought
to one type per cache key (C-contiguous actions and ``active`` whatever the caller
gives), and copies of a state find their own machine code."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from envs import registry
from envs.compiled import machine_code
from envs.core import sample_uniform_legal
from envs.four_aces import kernels

CONFIGS = [("abracadabra", {"variant": "four"}), ("abracadabra", {"variant": "two_dummy"}),
           ("four_aces", {"num_players": 3}), ("four_aces", {"num_players": 5})]
IDS = [f"{game}-{next(iter(options.values()))}" for game, options in CONFIGS]


def engine_pair(game: str, options: dict, batch: int = 6):
    engines = [registry.make_engine(game, batch, **options) for _ in range(2)]
    for engine in engines:
        engine.reset(seed=11)
    return engines


def same_games(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.state.arrays().values(),
                                                    b.state.arrays().values(), strict=True))


@pytest.mark.parametrize(("game", "options"), CONFIGS, ids=IDS)
def test_state_arrays_cannot_be_rebound(game, options):
    engine = registry.make_engine(game, 2, **options)
    with pytest.raises(dataclasses.FrozenInstanceError):
        engine.state.game_over = np.zeros(2, bool)


@pytest.mark.parametrize(("game", "options"), CONFIGS, ids=IDS)
def test_any_layout_of_actions_and_active_steps_as_a_contiguous_copy_does(game, options):
    """Each engine first steps with contiguous arrays (its step's machine code is found
    for them), then one gets strided, read-only views: were they passed on as they are,
    the code for contiguous arrays would read the wrong entries."""
    plain, strided = engine_pair(game, options)
    rng = np.random.default_rng(0)
    for turn in range(120):
        mask = plain.legal_action_mask()
        assert np.array_equal(mask, strided.legal_action_mask())
        actions = sample_uniform_legal(rng, np.where(plain.game_over[:, None], True, mask))
        active = ~plain.game_over
        if turn % 3 == 2:
            active[rng.integers(len(active))] = False
        wide_actions = np.repeat(actions, 3)[::3]  # the same values, stride 24 bytes
        wide_active = np.repeat(active, 2)[::2]
        wide_actions.flags.writeable = wide_active.flags.writeable = False
        if turn == 0:
            wide_actions, wide_active = actions.copy(), active.copy()
        rewards = plain.step(actions.copy(), active.copy())
        assert np.array_equal(rewards, strided.step(wide_actions, wide_active))
        assert same_games(plain, strided)
        if plain.game_over.all():
            for engine in (plain, strided):
                engine.reset(seed=turn)


@pytest.mark.parametrize(("game", "options"), CONFIGS, ids=IDS)
def test_observations_in_any_order_of_dtypes_and_seats(game, options):
    """float32 and int8, from the seats to act and from given seats, in turn: each call
    finds its own machine code (the int8 observation is the float32 one over the scale,
    the seats to act are the seats given)."""
    engine, _ = engine_pair(game, options)
    rng = np.random.default_rng(1)
    B = engine.batch_size
    for _ in range(40):
        seats = rng.integers(0, engine.num_players, B)
        as_float = engine.observe(seats)
        as_int8 = engine.observe(seats, dtype=np.int8)
        assert np.array_equal(np.rint(as_float / engine.observation_scale), as_int8)
        to_act = engine.observe(dtype=np.int8)
        live = ~engine.game_over
        assert np.array_equal(to_act[live], engine.observe(
            np.where(live, engine.state.current_player, 0), dtype=np.int8)[live])
        mask = np.where(engine.game_over[:, None], True, engine.legal_action_mask())
        engine.step(sample_uniform_legal(rng, mask))
        if engine.game_over.all():
            engine.reset()


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s))],
                         ids=["deepcopy", "pickle"])
@pytest.mark.parametrize(("game", "options"), CONFIGS[::2], ids=IDS[::2])
def test_copies_of_a_state_start_with_their_own_cache(game, options, copier):
    original, twin = engine_pair(game, options)
    original.observe()
    original.step(sample_uniform_legal(np.random.default_rng(2), original.legal_action_mask()))
    assert original.state.kernel_cache
    state = copier(original.state)
    assert state.kernel_cache == {} and state.arrays().keys() == original.state.arrays().keys()
    clone = original.clone()
    assert clone.state.kernel_cache is not original.state.kernel_cache
    twin.step(sample_uniform_legal(np.random.default_rng(2), twin.legal_action_mask()))
    for engine in (original, clone, twin):
        engine.step(sample_uniform_legal(np.random.default_rng(3), engine.legal_action_mask()))
    assert same_games(original, clone) and same_games(original, twin)


def test_machine_code_is_found_once_per_key():
    calls = []

    class Dispatcher:  # the two methods machine_code uses
        def typeof_pyval(self, value):
            return type(value).__name__

        def compile(self, signature):
            calls.append(signature)
            return lambda *args: sum(args)

    cache = {}
    assert machine_code(cache, "k", Dispatcher(), (1, 2))(1, 2) == 3
    assert machine_code(cache, "k", Dispatcher(), (1, 2))(3, 4) == 7
    assert machine_code(cache, "other", Dispatcher(), (1.0,))(1.0) == 1.0
    assert calls == [("int", "int"), ("float",)]


def test_bound_kernel_builds_the_fixed_arguments_once_per_key():
    engine = registry.make_engine("four_aces", 2, num_players=3)
    state = engine.state
    calls = []

    def fixed():
        calls.append(1)
        return state.match, state.round

    mask = np.empty((2, engine.num_actions), bool)
    first = state.bound_kernel("test mask", kernels.legal_action_mask, (mask,), fixed)
    again = state.bound_kernel("test mask", kernels.legal_action_mask, (mask,), fixed)
    assert first is again and len(calls) == 1
    code, arrays = first
    code(mask, *arrays)
    np.testing.assert_array_equal(mask, engine.legal_action_mask())
    assert "test mask" not in copy.copy(state).kernel_cache  # a copy finds its own
