"""The AEC environments' shortcuts (envs/pettingzoo_base.py): ``env()``'s
``OrderEnforcing`` calls the environment directly once reset, with the games, checks,
errors and warnings of PettingZoo's own wrapper stack."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from envs import abracadabra_v1, four_aces_v0

CONFIGS = [
    (abracadabra_v1, {"variant": "four"}),
    (abracadabra_v1, {"variant": "two_dummy", "episode": "match", "target_points": 30}),
    (abracadabra_v1, {"variant": "three", "call_mode": "auto", "reward": "chips"}),
    (four_aces_v0, {"num_players": 3}),
    (four_aces_v0, {"num_players": 5, "episode": "match", "max_rounds": 4,
                    "reward": "win"}),
]


def config_id(config) -> str:
    module, options = config
    return module.__name__.rpartition(".")[2] + "-" + "-".join(map(str, options.values()))


def standard_stack(module, options):
    """``module.raw_env`` in PettingZoo's own wrappers (``OrderEnforcingWrapper`` over
    ``AssertOutOfBoundsWrapper``), whose calls go through every layer."""
    raw = module.raw_env(**options)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw))


def snapshot(value):
    """A comparable copy: arrays by dtype, shape and bytes; floats by repr."""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return ("dict", tuple((k, snapshot(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(snapshot(v) for v in value))
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def trace(env, seed: int, episodes: int, illegal_every: int = 0) -> list:
    """Everything a user can see over ``episodes`` of masked random play (every
    ``illegal_every``-th decision an illegal action first, when > 0)."""
    raw = env.unwrapped
    rng = np.random.default_rng(seed)
    seen = []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        decisions = 0
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            seen.append(snapshot((agent, observation, reward, termination, truncation,
                                  info, [env.observe(a) for a in env.agents])))
            action = None
            if not (termination or truncation):
                decisions += 1
                if illegal_every and decisions % illegal_every == 0:
                    illegal = np.flatnonzero(observation["action_mask"] == 0)[0]
                    try:
                        env.step(int(illegal))
                    except ValueError as error:
                        seen.append(("error", str(error)))
                    else:
                        seen.append(snapshot((raw.rewards, raw.infos)))
                        continue
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            env.step(action)
            seen.append(snapshot((raw.rewards, raw._cumulative_rewards, raw.terminations,
                                  raw.truncations, raw.infos, raw.agents, raw.state())))
    return seen


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@pytest.mark.parametrize("illegal_action", ["raise", "terminate"])
def test_the_shortcuts_of_env_play_the_standard_wrappers_games(config, illegal_action):
    """``env()``'s ``OrderEnforcing`` calls the environment directly (step, observe,
    last, agent_iter); everything a user sees equals PettingZoo's wrapper stack's."""
    module, options = config
    options = {**options, "illegal_action": illegal_action}
    ours = trace(module.env(**options), seed=11, episodes=3, illegal_every=23)
    standard = trace(standard_stack(module, options), seed=11, episodes=3, illegal_every=23)
    assert ours == standard
    assert any(entry[0] == "error" for entry in ours) == (illegal_action == "raise")


@pytest.mark.parametrize("module", [abracadabra_v1, four_aces_v0])
def test_order_enforcing_shortcuts_keep_pettingzoo_checks(module):
    env = module.env()
    with pytest.raises(AttributeError, match="before reset"):
        env.agents  # noqa: B018
    for call in (lambda: env.step(0), lambda: env.observe("player_0"),
                 lambda: env.agent_iter()):
        with pytest.raises(AssertionError, match="reset.. needs to be called before"):
            call()
    env.reset(seed=1)
    # the loop must step between two agents (PettingZoo's assertion)
    agents = iter(env.agent_iter())
    next(agents)
    with pytest.raises(AssertionError, match="need to call step"):
        next(agents)
    # max_iter bounds the loop
    env.reset(seed=1)
    count = 0
    for _agent in env.agent_iter(max_iter=5):
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation
                 else int(np.flatnonzero(observation["action_mask"])[0]))
        count += 1
    assert count == 5
    # every agent stepped out: a further step warns and changes nothing
    env.reset(seed=1)
    for _agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation
                 else int(np.flatnonzero(observation["action_mask"])[0]))
    assert env.agents == []
    EnvLogger.mqueue.clear()
    env.step(None)
    assert any("step() called after all agents" in m for m in EnvLogger.mqueue)
    EnvLogger.mqueue.clear()
