"""The shortcuts give exactly what the general paths give.

* ``observe(out=...)`` writes every entry of a preallocated buffer (filled with garbage
  first) and equals a fresh ``observe()``;
* a batch of one (what the AEC environment drives) runs the same compiled code as any
  batch: game 0 of a batch of one must stay identical, array for array, to game 0 of a
  bigger batch given the same key and the same actions;
* the AEC environment's observation cache returns fresh copies and follows every step.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import sample_legal
from envs import abracadabra_v1, four_aces_v0
from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine

ABRA = [dict(variant=v, episode=ep, call_mode=c)
        for v in ("four", "three", "two_dummy", "two")
        for ep, c in (("deal", "manual"), ("match", "manual"), ("deal", "auto"))]
FOUR = [dict(num_players=p, episode=ep) for p in (3, 4, 5) for ep in ("round", "match")]
CONFIGS = [("abra", o) for o in ABRA] + [("four", o) for o in FOUR]


def make(kind: str, options: dict, batch_size: int):
    if kind == "abra":
        return AbracadabraEngine(AbracadabraConfig(**options), batch_size)
    return FourAcesEngine(FourAcesConfig(**options), batch_size)


def state(engine) -> dict[str, np.ndarray]:
    """Every per-game state array of ``engine`` (leading axis = the batch)."""
    arrays = engine.state.arrays()
    assert arrays and all(v.shape[0] == engine.batch_size for v in arrays.values())
    return arrays


@pytest.mark.parametrize(("kind", "options"), CONFIGS)
def test_observe_into_garbage_buffer_equals_fresh_observe(kind, options):
    rng = np.random.default_rng(1)
    for B in (1, 5):
        e = make(kind, options, B)
        e.reset(seed=2)
        out = np.empty((B, e.layout.size), np.float32)
        for _ in range(300):
            seats = rng.integers(0, e.num_players, B)
            for who in (None, seats):
                out.fill(np.nan)
                out[:, ::7] = 1e9
                got = e.observe(who, out=out)
                assert got is out
                assert np.array_equal(out, e.observe(who))
            e.step(sample_legal(rng, np.where(e.game_over[:, None], True,
                                              e.legal_action_mask())))
            if e.game_over.any():
                e.reset(games=e.game_over)


@pytest.mark.parametrize("kind", ["abra", "four"])
def test_observe_out_is_validated(kind):
    e = make(kind, {}, 2)
    e.reset(seed=0)
    D = e.layout.size
    for bad in (np.zeros((2, D), np.float64), np.zeros((1, D), np.float32),
                np.zeros((2, D + 1), np.float32), np.zeros((D, 2), np.float32).T,
                [[0.0] * D] * 2):
        with pytest.raises(ValueError, match="out must"):
            e.observe(out=bad)


@pytest.mark.parametrize(("kind", "options"), CONFIGS)
def test_batch_of_one_equals_game_zero_of_a_batch(kind, options):
    rng = np.random.default_rng(3)
    one, many = make(kind, options, 1), make(kind, options, 3)
    keys = [11, 22, 33]
    one.reset(game_seeds=keys[:1])
    many.reset(game_seeds=keys)
    resets = 0
    for _ in range(1500):
        mask = one.legal_action_mask()
        assert np.array_equal(mask, many.legal_action_mask()[:1])
        for seat in range(one.num_players):
            seats = np.full(3, seat)
            assert np.array_equal(one.observe(seats[:1]), many.observe(seats)[:1])
        assert np.array_equal(one.observe(), many.observe()[:1])
        actions = sample_legal(rng, np.where(many.game_over[:, None], True,
                                             many.legal_action_mask()))
        actions[0] = sample_legal(rng, mask)[0]
        assert np.array_equal(one.step(actions[:1]), many.step(actions)[:1])
        ref = state(many)
        for name, value in state(one).items():
            assert np.array_equal(value, ref[name][:1]), name
        assert one.result(0) == many.result(0)
        if one.game_over[0]:
            resets += 1
            key = [100 + resets]
            one.reset(games=np.ones(1, bool), game_seeds=key)
            many.reset(games=np.array([True, False, False]), game_seeds=key)
        if many.game_over[1:].any():
            many.reset(games=np.r_[False, many.game_over[1:]])
    assert resets > 0 or options.get("episode") == "match"


@pytest.mark.parametrize("kind", ["abra", "four"])
def test_batch_of_one_illegal_action_changes_nothing(kind):
    e = make(kind, {}, 1)
    e.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(60):
        mask = e.legal_action_mask()[0]
        before = {k: v.copy() for k, v in state(e).items()}
        for bad in (int(np.flatnonzero(~mask)[0]), e.num_actions, -1):
            with pytest.raises(ValueError):
                e.step(np.array([bad]))
            for name, value in state(e).items():
                assert np.array_equal(value, before[name]), name
        e.step(sample_legal(rng, mask[None]))
        if e.game_over[0]:
            e.reset()
    assert not e.step(np.array([0]), active=np.zeros(1, bool)).any()


@pytest.mark.parametrize(("module", "options"), [
    (abracadabra_v1, dict(variant="four")), (abracadabra_v1, dict(variant="two_dummy")),
    (abracadabra_v1, dict(variant="three", episode="match")),
    (four_aces_v0, dict(num_players=3)), (four_aces_v0, dict(num_players=5, episode="match")),
])
def test_aec_observation_cache_follows_the_state(module, options):
    env = module.env(**options)
    raw = env.unwrapped
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        for other in env.agents:
            seat = raw.possible_agents.index(other)
            expected = raw.engine.observe(np.array([seat]))[0]
            first, again = env.observe(other), env.observe(other)
            assert np.array_equal(first["observation"], expected)
            assert first["observation"] is not again["observation"]
            first["observation"][:] = -1  # the caller's copy: the cache is unaffected
            assert np.array_equal(env.observe(other)["observation"], expected)
        if term or trunc:
            env.step(None)
            continue
        assert info["action_mask"] is not None
        if info.get("result") is not None:
            assert info["result"] == raw.fixed_result()
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
        steps += 1
        if steps > 400:
            break
