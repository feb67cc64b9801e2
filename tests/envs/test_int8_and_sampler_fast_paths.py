"""The fast paths give what the plain paths give.

* the int8 observation times ``observation_scale`` is the float32 observation, entry for
  entry, over random playouts of every variant (batch and single game, any seats), and
  the float32 observation keeps its dtype; configurations whose integers leave int8 refuse
  it with a ``ValueError`` saying why;
* :func:`envs.core.sample_uniform_legal` picks legal actions, uniformly;
* ``observe_one`` (the AEC hot path) equals ``observe`` and the batch encoder for every
  seat; ``stable_argsort_rows`` (behind every shuffle) is numpy's stable argsort;
  ``random_keys`` (every reset's game keys) draws ``Generator.integers``' numbers;
* the standard wrapper stack of ``env()`` (PettingZoo's wrappers, subclassed to skip
  their per-call forwarding) keeps their classes, checks and errors.

No timing assertions: speed is measured by ``cardrl bench``.
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.core import random_keys, sample_uniform_legal, stable_argsort_rows
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine

INT8_CONFIGS = [("abra", dict(variant=v, call_mode=c))
                for v in ("four", "three", "two_dummy", "two") for c in ("manual", "auto")]
INT8_CONFIGS += [("abra", dict(variant="three", ante=3, raise_mode="add", raise_increment=2))]
INT8_CONFIGS += [("four", dict(num_players=p, scoring=s))
                 for p in (3, 4, 5) for s in ("strict", "free")]


def make(kind: str, options: dict, batch_size: int):
    if kind == "abra":
        return AbracadabraEngine(AbracadabraConfig(**options), batch_size)
    return FourAcesEngine(FourAcesConfig(**options), batch_size)


def random_actions(rng, engine):
    mask = engine.legal_action_mask()
    return sample_uniform_legal(rng, np.where(engine.game_over[:, None], True, mask))


@pytest.mark.parametrize(("kind", "options"), INT8_CONFIGS)
def test_int8_observation_times_scale_is_the_float32_observation(kind, options):
    rng = np.random.default_rng(3)
    for B in (1, 6):
        e = make(kind, options, B)
        e.reset(seed=4)
        scale = e.observation_scale
        assert scale.dtype == np.float32 and scale.shape == (e.observation_size,)
        garbage = np.full((B, e.observation_size), 77, np.int8)
        for _ in range(250):
            seats = rng.integers(0, e.num_players, B)
            for who in (None, seats):
                floats = e.observe(who)
                assert floats.dtype == np.float32  # the default is unchanged
                ints = e.observe(who, dtype=np.int8)
                assert ints.dtype == np.int8
                assert np.array_equal(e.observe(who, out=garbage), ints)  # written in full
                # exact integers, and int8 * scale is the float32 value to float32 rounding
                assert np.array_equal(np.rint(floats / scale), ints)
                np.testing.assert_allclose(ints * scale, floats, rtol=2.5e-7, atol=0)
            e.step(random_actions(rng, e))
            if e.game_over.any():
                e.reset(games=e.game_over)


@pytest.mark.parametrize(("kind", "options", "why"), [
    ("abra", dict(episode="match"), "episode='match'"),
    ("abra", dict(variant="three", ante=10), "pot can reach"),
    ("four", dict(episode="match"), "episode='match'"),
    ("four", dict(target_points=200), "target_points=200"),
])
def test_int8_refused_where_integers_leave_int8(kind, options, why):
    e = make(kind, options, 3)
    e.reset(seed=0)
    with pytest.raises(ValueError, match=why):
        e.observe(dtype=np.int8)
    with pytest.raises(ValueError, match=why):
        e.observe(out=np.zeros((3, e.observation_size), np.int8))
    assert e.observe().dtype == np.float32  # float32 still works


@pytest.mark.parametrize("kind", ["abra", "four"])
def test_observe_dtype_arguments_are_checked(kind):
    e = make(kind, {}, 2)
    e.reset(seed=0)
    with pytest.raises(ValueError, match="float32 or int8"):
        e.observe(dtype=np.float64)
    with pytest.raises(ValueError, match="does not match"):
        e.observe(out=np.zeros((2, e.observation_size), np.float32), dtype=np.int8)
    with pytest.raises(ValueError, match="float32"):
        e.observe(out=np.zeros((2, e.observation_size), np.int16))


def batch_encoder_row(e, seat: int) -> np.ndarray:
    """Game 0's observation from ``seat`` by the batch encoder, called directly (what
    ``observe`` and ``observe_one`` of a batch of one must equal)."""
    ref = np.full((1, e.observation_size), np.nan, np.float32)
    if isinstance(e, AbracadabraEngine):
        e._observe_batch(np.array([seat]), ref)
    else:
        e._observe_batch(np.array([seat]), ref)
    return ref[0]


@pytest.mark.parametrize(("kind", "options"), [("abra", dict(variant="two_dummy")),
                                               ("abra", {}), ("abra", dict(variant="three")),
                                               ("abra", dict(variant="two")),
                                               ("abra", dict(episode="match")),
                                               ("four", dict(num_players=5)),
                                               ("four", dict(num_players=3))])
def test_observe_one_equals_observe(kind, options):
    rng = np.random.default_rng(5)
    e = make(kind, options, 1)
    e.reset(seed=6)
    row = np.full(e.observation_size, np.nan, np.float32)
    for _ in range(300):
        for seat in range(e.num_players):
            e.observe_one(seat, row)
            assert np.array_equal(row, e.observe(np.array([seat]))[0])
            assert np.array_equal(row, batch_encoder_row(e, seat))
        e.step(random_actions(rng, e))
        if e.game_over.any():
            e.reset(games=e.game_over)


# -- the uniform legal sampler ----------------------------------------------------------------
def test_sample_uniform_legal_is_legal_and_uniform():
    rng = np.random.default_rng(7)
    n, width = 60_000, 130  # three 64-bit words per row
    legal = [0, 5, 63, 64, 100, 127, 128, 129]
    masks = np.zeros((n, width), bool)
    masks[:, legal] = True
    masks[1::2, 129] = False  # odd rows: 7 legal actions
    masks[::3] = False
    masks[::3, 77] = True  # every third row: a single legal action
    actions = sample_uniform_legal(rng, masks)
    assert actions.dtype == np.int64
    assert masks[np.arange(n), actions].all()
    assert (actions[::3] == 77).all()
    for rows, k in ((np.arange(n)[(np.arange(n) % 3 != 0) & (np.arange(n) % 2 == 0)], 8),
                    (np.arange(n)[(np.arange(n) % 3 != 0) & (np.arange(n) % 2 == 1)], 7)):
        counts = np.bincount(actions[rows], minlength=width)[legal[:k]]
        expected = len(rows) / k
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert chi2 < 30, (counts, chi2)  # k - 1 <= 7 degrees of freedom: p < 1e-4


def test_sample_uniform_legal_matches_small_exact_distribution():
    # every legal action of a 3-of-5 row, drawn many times: each about a third
    rng = np.random.default_rng(8)
    masks = np.tile(np.array([[False, True, False, True, True]]), (30_000, 1))
    counts = np.bincount(sample_uniform_legal(rng, masks), minlength=5)
    assert counts[[0, 2]].sum() == 0
    assert np.all(np.abs(counts[[1, 3, 4]] / 30_000 - 1 / 3) < 0.015)


def test_sample_uniform_legal_of_one_row_draws_what_a_batch_draws():
    """A batch of one draws what numpy's array call draws: the same action, and the
    generator left in the same state (the random streams of single games are unchanged),
    whatever the generator's buffered 32-bit half."""
    masks = np.zeros((1, 40), bool)
    for seed in range(200):
        picker = np.random.default_rng(seed + 1000)
        masks[:] = False
        masks[0, picker.choice(40, size=int(picker.integers(1, 40)), replace=False)] = True
        ours, reference = np.random.default_rng(seed), np.random.default_rng(seed)
        if seed % 2:  # the bit generator holds half of a 64-bit draw for the next 32-bit one
            ours.integers(2**32, dtype=np.uint32)
            reference.integers(2**32, dtype=np.uint32)
        for _ in range(3):
            r = reference.integers(0, masks.sum(axis=1))  # the array call
            assert sample_uniform_legal(ours, masks)[0] == np.flatnonzero(masks[0])[r[0]]
        assert ours.random() == reference.random()


@pytest.mark.parametrize("width", [3, 8, 40, 64, 123, 130, 200])
def test_sample_uniform_legal_of_a_batch_is_the_rth_legal_action_numpy_draws(width):
    """Every row's action is its r-th legal one, r the number numpy's array call draws,
    whatever the width (whole and partial 8-entry words, a tail of single entries) and
    wherever the legal entries lie (sparse, dense, a single one, the last entry only)."""
    picker = np.random.default_rng(width)
    masks = picker.random((500, width)) < picker.choice([0.02, 0.3, 0.9], size=(500, 1))
    masks[np.arange(500), picker.integers(0, width, 500)] = True  # at least one each
    masks[:5] = False
    masks[:5, width - 1] = True  # the last entry alone
    ours, reference = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(3):
        r = reference.integers(0, masks.sum(axis=1))
        expected = [np.flatnonzero(row)[k] for row, k in zip(masks, r, strict=True)]
        np.testing.assert_array_equal(sample_uniform_legal(ours, masks), expected)
    assert ours.random() == reference.random()


def test_sample_uniform_legal_rejects_bad_masks():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="row 1 of action_masks has no legal action"):
        sample_uniform_legal(rng, np.array([[True, False], [False, False]]))
    with pytest.raises(ValueError, match="bool array"):
        sample_uniform_legal(rng, np.ones((2, 3), np.int8))


# -- the wrapper stack of env() ---------------------------------------------------------------
@pytest.mark.parametrize("module", [abracadabra_v1, four_aces_v0])
def test_env_wrappers_keep_pettingzoo_checks(module):
    env = module.env()
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.env, wrappers.AssertOutOfBoundsWrapper)
    with pytest.raises(AttributeError, match="before reset"):
        env.agent_selection  # noqa: B018
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(AttributeError, match="private attribute"):
        env._mask  # noqa: B018
    env.reset(seed=0)
    n = env.action_space(env.agent_selection).n
    for bad in (n, -1, np.int64(n)):
        with pytest.raises(
            ValueError, match=rf"action {bad} is out of range: expected an integer 0\.\.{n - 1}"
        ):
            env.step(bad)
    for bad in (1.5, "0"):
        with pytest.raises(ValueError, match="is not an action id"):
            env.step(bad)
    with pytest.raises(ValueError, match="action None is only for finished agents"):
        env.step(None)  # None is only for finished agents
    raw = env.unwrapped
    observation, reward, termination, truncation, info = env.last()
    raw_observation = raw.observe(raw.agent_selection)
    assert np.array_equal(observation["observation"], raw_observation["observation"])
    assert np.array_equal(observation["action_mask"], raw_observation["action_mask"])
    assert (reward, termination, truncation) == (0.0, False, False)
    assert env.agents == raw.agents and env.agent_selection == raw.agent_selection
    action = np.int64(np.flatnonzero(observation["action_mask"])[0])  # a numpy integer
    env.step(action)
    assert env.agent_selection == raw.agent_selection


# -- the row sort behind every shuffle ---------------------------------------------------------
@pytest.mark.parametrize("rows", [1, 40, 500])
def test_stable_argsort_rows_is_the_stable_argsort(rows):
    rng = np.random.default_rng(rows)
    values = rng.random((rows, 54))
    assert np.array_equal(stable_argsort_rows(values), np.argsort(values, axis=1, kind="stable"))
    values[::3, 7] = values[::3, 20]  # ties: the stable order keeps them in index order
    values[::5, :4] = 0.5
    assert np.array_equal(stable_argsort_rows(values), np.argsort(values, axis=1, kind="stable"))


def test_sampler_draws_from_each_generator_when_calls_alternate():
    """The sampler keeps the last generator's address: calls that alternate between two
    generators still draw each from its own stream, as the same calls one after another."""
    masks = np.random.default_rng(3).random((5, 40)) < 0.3
    masks[:, 0] = True
    alone = {}
    for seed in (1, 2):
        rng = np.random.default_rng(seed)
        alone[seed] = [sample_uniform_legal(rng, masks) for _ in range(4)]
    rngs = {seed: np.random.default_rng(seed) for seed in (1, 2)}
    for k in range(4):
        for seed in (1, 2):
            np.testing.assert_array_equal(sample_uniform_legal(rngs[seed], masks),
                                          alone[seed][k])


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937])
def test_random_keys_are_the_numbers_and_state_of_generator_integers(bit_generator):
    fast, plain = np.random.Generator(bit_generator(7)), np.random.Generator(bit_generator(7))
    for n in (0, 1, 5, 1000):
        plain.integers(2**16, size=3)  # a buffered 32-bit half in the state, as in play
        fast.integers(2**16, size=3)
        keys = random_keys(fast, n)
        assert keys.dtype == np.uint64
        np.testing.assert_array_equal(
            keys, plain.integers(0, 2**63, size=n, dtype=np.int64).astype(np.uint64))
    # the same state after: the same draws, 32-bit halves included
    assert fast.integers(2**40, size=9).tolist() == plain.integers(2**40, size=9).tolist()
