"""What the PettingZoo adapters of both games share (envs/pettingzoo_base.py): a
fixed-shape ``info["result"]``, integer actions at every layer, ``illegal_action="terminate" |
"raise"``, the global state for centralised critics, the true observation bounds,
and the registry of the PettingZoo versions that have one."""

from __future__ import annotations

import importlib.util
import inspect
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test, state_test
from pettingzoo.utils import average_total_reward
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from envs import abracadabra_v1, four_aces_v0, registry
from envs.abracadabra.observation import LAYOUT as ABRA_LAYOUT
from envs.cards import NUM_CARDS
from envs.core import sample_uniform_legal
from envs.four_aces.observation import LAYOUT as FOUR_LAYOUT
from envs.pettingzoo_base import ILLEGAL_ACTION_MESSAGE, IllegalActionWarning, register_aec

MODULES = {"abracadabra": abracadabra_v1, "four_aces": four_aces_v0}
#: (game, options): every table size, both episode kinds; small matches
CONFIGS = (
    [("abracadabra", {"variant": v, "episode": e, "target_points": 30})
     for v in ("four", "three", "two_dummy", "two") for e in ("deal", "match")]
    + [("four_aces", {"num_players": p, "episode": e, "max_rounds": 3})
       for p in (3, 4, 5) for e in ("round", "match")]
)
SMALL = [("abracadabra", {"variant": "two"}), ("four_aces", {"num_players": 3})]


def config_id(config: tuple[str, dict]) -> str:
    game, options = config
    return "-".join([game, *(str(v) for k, v in options.items() if k in (
        "variant", "num_players", "episode"))])


def play(env, rng: np.random.Generator, episodes: int, seed: int = 0):
    """Masked random play of ``episodes`` episodes; yields ``(agent, info)`` at every
    ``last()``."""
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        for agent in env.agent_iter():
            obs, _, term, trunc, info = env.last()
            yield agent, info
            env.step(None if term or trunc
                     else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def game_arrays(raw) -> dict:
    """Copies of every state array of the engine, and the adapter's own bookkeeping."""
    arrays = {k: v.copy() for k, v in raw.engine.state.arrays().items()}
    return {"arrays": arrays, "selection": raw.agent_selection, "agents": list(raw.agents),
            "rewards": dict(raw._cumulative_rewards), "terminations": dict(raw.terminations)}


def same(before: dict, after: dict) -> bool:
    arrays = before["arrays"].keys() == after["arrays"].keys() and all(
        np.array_equal(v, after["arrays"][k]) for k, v in before["arrays"].items())
    return arrays and all(before[k] == after[k] for k in before if k != "arrays")


# -- info["result"]: fixed keys and shapes, no None -------------------------------------------
def shapes_of(result: dict) -> tuple:
    """``((key, shape, kind), ...)`` of a result: its structure, not its values."""
    return tuple((key, np.shape(value), np.asarray(value).dtype.kind)
                 for key, value in result.items())


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_result_has_the_same_keys_and_shapes_on_every_episode(config):
    game, options = config
    env = MODULES[game].env(**options)
    raw, players = env.unwrapped, len(env.possible_agents)
    structures, results = set(), 0
    for _, info in play(env, np.random.default_rng(0), episodes=6):
        if "result" not in info:
            continue
        result, results = info["result"], results + 1
        assert None not in result.values()
        structures.add(shapes_of(result))
        # the fixed-shape entries say what the engine's result says
        res = raw.engine.result(0)
        assert [s for s in range(players) if result["winners"][s]] == res.get("winners", [])
        if game == "abracadabra":
            for key in ("called", "hitters"):
                assert [s for s in range(players) if result[key][s]] == res[key]
            assert len(result["tricks"]) == raw.engine.num_hands
        else:
            assert result["four_aces"] == (-1 if res["four_aces"] is None else res["four_aces"])
            if res["round_points"] is not None:
                assert result["round_points"] == res["round_points"]
    assert results > 0 and len(structures) == 1
    (structure,) = structures
    per_seat = {"called", "hitters", "points", "stakes", "pot_share", "final_share", "chips",
                "totals", "winners", "round_points"}
    for key, shape, kind in structure:
        assert shape == ((players,) if key in per_seat else (
            (raw.engine.num_hands,) if key == "tricks" else ())), key
        assert kind in "biuf", key  # numbers and booleans only


HANDS = [["AC", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["2S", "3S", "4S"]]
TABLES = [["AS", "AH", "AD"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["5S", "6C", "7D"]]


def test_four_aces_result_after_a_four_aces_win_has_the_same_shape_K1():
    """K1: seat 0 keeps AC in hand and AS AH AD on his table until the stock is empty
    (everyone draws every turn): he wins; the result keeps its shape, no None."""
    used = {c for row in HANDS + TABLES for c in row}
    stock = [r + s for s in "CDHS" for r in "23456789TJQKA" if r + s not in used] + ["JK"] * 2
    env = four_aces_v0.env(target_points=20)
    env.reset(seed=0, options={"dealer": 3, "hands": HANDS, "tables": TABLES, "stock": stock})
    for _agent in env.agent_iter():
        _, _, term, trunc, info = env.last()
        env.step(None if term or trunc else 53)  # draw
    assert info["result"] == {"round": 0, "round_points": [20, 0, 0, 0], "four_aces": 0,
                              "totals": [20, 0, 0, 0], "match_over": True,
                              "winners": [True, False, False, False]}
    normal = four_aces_v0.env()
    *_, (_, last) = play(normal, np.random.default_rng(0), episodes=1)
    assert shapes_of(last["result"]) == shapes_of(info["result"])


# -- actions are integer ids, at every layer ------------------------------------------------------
NOT_ACTION_IDS = [1.5, 2.0, np.float64(2.0), np.float32(1.0), "3", True, np.bool_(True),
                  np.array([1]), np.array(1.0), [1], object()]


@pytest.mark.parametrize("illegal_action", ["raise", "terminate"])
@pytest.mark.parametrize("layer", ["env", "raw_env"])
@pytest.mark.parametrize("game", MODULES)
def test_non_integer_and_out_of_range_actions_raise_and_change_nothing(game, layer,
                                                                       illegal_action):
    env = getattr(MODULES[game], layer)(illegal_action=illegal_action)
    env.reset(seed=0)
    raw, n = env.unwrapped, env.action_space(env.agent_selection).n
    before = game_arrays(raw)
    for action in NOT_ACTION_IDS:
        with pytest.raises(ValueError, match=r"is not an action id: expected an integer "
                                             rf"0\.\.{n - 1}"):
            env.step(action)
        assert same(before, game_arrays(raw)), action
    for action in (n, 999, -1, np.int64(n), 2**70):
        with pytest.raises(ValueError, match=rf"action {action} is out of range: expected an "
                                             rf"integer 0\.\.{n - 1}"):
            env.step(action)
        assert same(before, game_arrays(raw)), action
    with pytest.raises(ValueError, match="action None is only for finished agents"):
        env.step(None)
    assert same(before, game_arrays(raw))


@pytest.mark.parametrize("game", MODULES)
def test_raw_env_refuses_a_float_that_would_round_to_a_legal_action(game):
    """``raw_env().step(1.5)`` is not action 1, even when action 1 is legal."""
    env = MODULES[game].raw_env()
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    before = game_arrays(env)
    with pytest.raises(ValueError, match=rf"action {legal}\.5 \(float\) is not an action id"):
        env.step(legal + 0.5)
    with pytest.raises(ValueError, match=rf"action {legal}\.0 \(float\) is not an action id"):
        env.step(float(legal))
    assert same(before, game_arrays(env))


@pytest.mark.parametrize("game", MODULES)
def test_integer_ids_of_every_kind_are_accepted(game):
    """``int``, numpy integer scalars of any width and 0-d integer arrays are action ids."""
    played = set()
    for kind in (int, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.array):
        env = MODULES[game].env()
        env.reset(seed=0)
        action = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
        env.step(kind(action))
        played.add(tuple(env.unwrapped.engine.state.arrays()["current_player"]))
    assert len(played) == 1  # every kind played the same action


NON_IDS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3), st.booleans(),
    st.builds(np.float32, st.floats(width=32)), st.builds(np.bool_, st.booleans()),
    st.lists(st.integers(0, 5), max_size=2), st.builds(lambda v: np.array([v]), st.integers(0, 5)),
)


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(sorted(MODULES)), action=NON_IDS,
       offset=st.integers(-(2**70), 2**70))
def test_property_anything_but_an_integer_id_in_range_is_refused(game, action, offset):
    env = MODULES[game].raw_env(illegal_action="terminate")
    env.reset(seed=1)
    before = game_arrays(env)
    n = int(env.action_space(env.agent_selection).n)
    for bad in (action, offset if offset < 0 else n + offset):  # out of range: < 0 or >= n
        with pytest.raises(ValueError, match="is not an action id|is out of range"):
            env.step(bad)
    assert same(before, game_arrays(env))


@pytest.mark.parametrize(("game", "options"), SMALL)
def test_raw_env_after_the_game_takes_none_and_refuses_an_action_in_one_clear_error(game,
                                                                                     options):
    """Once every agent has left, ``step(None)`` does nothing (PettingZoo's convention for
    finished agents) and an action is a ValueError saying to reset, not a KeyError; before
    the first reset, a ValueError too."""
    raw = MODULES[game].raw_env(**options)
    with pytest.raises(ValueError, match=r"step\(0\) before reset\(\): call reset\(\) first"):
        raw.step(0)
    for _ in play(raw, np.random.default_rng(0), episodes=1):
        pass
    assert raw.agents == []
    before = game_arrays(raw)
    raw.step(None)
    for action in (0, np.int64(1)):
        with pytest.raises(ValueError, match=rf"step\({re.escape(repr(action))}\) after the "
                                             r"game ended: every agent has finished .*call "
                                             r"reset\(\) to play"):
            raw.step(action)
    assert same(before, game_arrays(raw))
    raw.reset(seed=1)  # and it plays again
    assert raw.agents == raw.possible_agents


# -- illegal actions: terminate (env's default) or raise (raw_env's default, debugging) ----------
def illegal_action_of(env) -> int:
    """An action in range that the mask of the agent to act forbids."""
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])


@pytest.mark.parametrize("make", [
    lambda module: module.env(illegal_action="raise"), lambda module: module.raw_env()],
    ids=["env-raise", "raw_env-default"])
@pytest.mark.parametrize("game", MODULES)
def test_illegal_action_raises_when_asked_naming_it(game, make):
    """``env(illegal_action="raise")`` (for debugging) and ``raw_env()`` by default: a
    ValueError naming the action, nothing changed."""
    env = make(MODULES[game])
    env.reset(seed=0)
    raw = env.unwrapped
    action = illegal_action_of(env)
    before = game_arrays(raw)
    with pytest.raises(ValueError, match=f"illegal action .*{raw.action_names[action]}"):
        env.step(action)
    assert same(before, game_arrays(raw))


@pytest.mark.parametrize("game", MODULES)
def test_env_terminates_by_default_with_a_warning(game):
    """``env()`` follows PettingZoo's classic convention unless told otherwise: the game
    ends, -1 to the offender, with an ``IllegalActionWarning`` pointing at the caller's
    line and ``info["illegal_action"]``."""
    assert inspect.signature(MODULES[game].env).parameters["illegal_action"].default == (
        "terminate")
    assert inspect.signature(MODULES[game].raw_env).parameters["illegal_action"].default == (
        "raise")
    env = MODULES[game].env()
    env.reset(seed=0)
    offender, action = env.agent_selection, illegal_action_of(env)
    expected = r"illegal action \(not in the action mask\): the game ends, -1 to the player"
    with pytest.warns(IllegalActionWarning, match=expected) as caught:
        env.step(action)
    assert [w.filename for w in caught] == [__file__]  # the line of the step, not ours
    assert env.rewards[offender] == -1.0 and all(env.terminations.values())
    assert env.infos[offender]["illegal_action"]["action"] == action


@pytest.mark.parametrize("game", MODULES)
def test_bad_illegal_action_option_is_refused(game):
    with pytest.raises(ValueError, match="illegal_action='ignore' is not allowed"):
        MODULES[game].env(illegal_action="ignore")


@pytest.mark.parametrize(("game", "options"), SMALL + [
    ("abracadabra", {"variant": "four", "episode": "match"}),
    ("four_aces", {"num_players": 5, "episode": "match"})])
def test_terminate_ends_the_game_with_minus_one_for_the_offender(game, options):
    env = MODULES[game].env(**options)  # illegal_action="terminate", the default
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(5):  # a few legal moves first
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)[
            "action_mask"]))))
    raw, offender = env.unwrapped, env.agent_selection
    action = illegal_action_of(env)
    arrays = game_arrays(raw)["arrays"]
    with pytest.warns(IllegalActionWarning):
        env.step(action)
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert same({"arrays": arrays}, {"arrays": game_arrays(raw)["arrays"]})  # game as it was
    for agent in env.agents:
        why = env.infos[agent]["illegal_action"]
        assert why["agent"] == offender and why["action"] == action
        assert why["name"] == raw.action_names[action] and "illegal action" in why["reason"]
        assert not env.observe(agent)["action_mask"].any()
        assert not env.infos[agent]["action_mask"].any()
    returns = {}
    for agent in env.agent_iter():  # every agent sees the end, once, and steps None
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc and agent not in returns
        returns[agent] = reward
        with pytest.raises(ValueError, match="only valid action is None"):
            env.step(0)
        env.step(None)
    assert returns == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    assert env.agents == []
    env.reset(seed=4)  # and the next game is an ordinary one
    assert "illegal_action" not in env.infos[env.agent_selection]
    assert env.observe(env.agent_selection)["action_mask"].any()


@pytest.mark.parametrize(("game", "options"), SMALL)
def test_api_and_seed_tests_pass_with_raise(game, options):
    """The masked tests pass in the debugging mode too (they never step an illegal
    action); every configuration with the defaults: tests/envs/test_pettingzoo_utilities.py."""
    api_test(MODULES[game].env(illegal_action="raise", **options), num_cycles=100)
    seed_test(lambda: MODULES[game].env(illegal_action="raise", **options), num_cycles=100)


@pytest.mark.parametrize("game", MODULES)
def test_average_total_reward_runs_by_default_and_raises_when_asked(game):
    """PettingZoo's ``average_total_reward`` steps unmasked random actions: by default
    (``illegal_action="terminate"``) each episode ends at its first illegal one, with -1
    for the offender, so the average lies in [-1, 0) for Abracadabra's random bids (a
    legal episode pays >= 0) and the call returns; with ``"raise"`` it raises."""
    env = MODULES[game].env(**dict(SMALL)[game])
    for agent in env.possible_agents:
        env.action_space(agent).seed(0)
    with pytest.warns(IllegalActionWarning):
        average = average_total_reward(env, max_episodes=20, max_steps=10_000)
    assert -1.0 <= average < 50.0
    strict = MODULES[game].env(illegal_action="raise", **dict(SMALL)[game])
    strict.action_space(strict.possible_agents[0]).seed(0)
    with pytest.raises(ValueError, match="illegal action"):
        average_total_reward(strict, max_episodes=20, max_steps=10_000)


# -- the global state --------------------------------------------------------------------------
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_state_is_in_its_space_and_holds_every_hidden_card(config):
    game, options = config
    env = MODULES[game].env(**options)
    raw = env.unwrapped
    layout = MODULES[game].STATE_LAYOUT
    size = raw.engine.observation_size
    assert env.state_space is raw.state_space and env.state_space.shape == (layout.size,)
    for agent, _ in play(env, np.random.default_rng(1), episodes=2):
        state = env.state()
        assert state.dtype == np.float32 and env.state_space.contains(state)
        assert np.array_equal(state[:size], raw.observe("player_0")["observation"])
        hands = state[layout["hands"]].reshape(-1, NUM_CARDS)
        s = raw.engine.state
        if game == "abracadabra":
            H = raw.engine.num_hands
            assert np.array_equal(hands[:H], s.hands()[0]) and not hands[H:].any()
        else:
            P = raw.engine.num_players
            assert np.array_equal(hands[:P], s.hand[0]) and not hands[P:].any()
            stock = state[layout["stock"]].reshape(-1, NUM_CARDS)
            rows = np.flatnonzero(stock.any(axis=1))
            assert np.array_equal(rows, np.arange(len(rows)))  # from the top, no gaps
            assert np.array_equal(stock[rows].argmax(axis=1),
                                  s.deal_order[0, s.stock_top[0]:])
        to_act = state[layout["to_act"]]
        if env.terminations[agent]:
            assert not to_act.any()
        else:
            assert to_act.tolist().index(1.0) == env.possible_agents.index(env.agent_selection)


@pytest.mark.parametrize(("game", "options"), SMALL)
def test_pettingzoo_state_test_warns_only_of_illegal_actions(game, options):
    """PettingZoo's ``state_test`` (it steps unmasked random actions, ended by the default
    "terminate") on the AEC game and on ``turn_based_aec_to_parallel``: no warning but the
    illegal actions'."""
    make = MODULES[game].env
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        state_test(make(**options), turn_based_aec_to_parallel(make(**options)))
    assert {(w.category, str(w.message)) for w in caught} <= {
        (IllegalActionWarning, ILLEGAL_ACTION_MESSAGE)}


# -- the true observation bounds ---------------------------------------------------------------
def test_observation_bounds_are_the_true_bounds_of_each_segment():
    low, high = abracadabra_v1.observation_bounds(registry.make_config("abracadabra"))
    assert (low == 0).all() and high.max() == pytest.approx(1.7)
    assert high[ABRA_LAYOUT["scores"]] == pytest.approx((40 + 13 + 8) / 100)  # S1–S3
    assert high[ABRA_LAYOUT["pot"]] == pytest.approx((4 + 13) / 10)  # C2, D2: 4 antes, 13
    assert (high[:ABRA_LAYOUT["scores"].start] == 1).all()
    low, high = abracadabra_v1.observation_bounds(registry.make_config(
        "abracadabra", variant="two", episode="match", target_points=50, max_deals=10))
    assert high[ABRA_LAYOUT["scores"]] == pytest.approx((20 + 12 + 8 + 49) / 50)
    assert high[ABRA_LAYOUT["pot"]] == pytest.approx(10 * (2 + 12) / 10)

    low, high = four_aces_v0.observation_bounds(registry.make_config("four_aces",
                                                                     num_players=3))
    joker = np.zeros(FOUR_LAYOUT.size, bool)
    for name in ("hand", "tables", "discard_pile"):
        joker[FOUR_LAYOUT[name].start + 52:FOUR_LAYOUT[name].stop:53] = True
    assert (high[joker] == 2).all() and joker.sum() == 1 + 5 + 1
    assert high[FOUR_LAYOUT["stock_size"]] == pytest.approx((54 - 18) / 54)  # G3
    assert low[FOUR_LAYOUT["scores"]] == pytest.approx(-8 / 20)
    assert high[FOUR_LAYOUT["scores"]] == pytest.approx(22 / 20)
    low, high = four_aces_v0.observation_bounds(registry.make_config(
        "four_aces", num_players=5, episode="match", target_points=30, max_rounds=4))
    assert low[FOUR_LAYOUT["scores"]] == pytest.approx(-8 * 4 / 30)
    assert high[FOUR_LAYOUT["scores"]] == pytest.approx((30 + 29) / 30)  # four aces at 29
    assert high[FOUR_LAYOUT["stock_size"]] == pytest.approx((54 - 30) / 54)
    assert ((low == 0) | np.isin(np.arange(len(low)), np.r_[FOUR_LAYOUT["scores"]])).all()


BOUND_CONFIGS = (
    [("abracadabra", {"variant": v, "episode": "deal"}) for v in ("four", "two_dummy")]
    + [("abracadabra", {"variant": "three", "episode": "match", "target_points": 40,
                        "raise_mode": "add", "raise_increment": 3})]
    + [("four_aces", {"num_players": p, "episode": "round"}) for p in (3, 5)]
    + [("four_aces", {"num_players": 4, "episode": "match", "target_points": 8})]
)


@pytest.mark.parametrize("config", BOUND_CONFIGS, ids=config_id)
def test_every_observation_of_random_play_lies_inside_the_space(config):
    """A batch of games played at random (the engine the adapter drives), every seat's
    observation at every step, float32 and (where the configuration has it) int8 times
    its scale: inside the adapter's bounds; the AEC observations inside its space."""
    game, options = config
    env = MODULES[game].env(**options)
    space = env.observation_space(env.possible_agents[0])["observation"]
    engine = registry.make_engine(game, 64, **options)
    int8 = options.get("episode") in ("deal", "round")
    rng = np.random.default_rng(0)
    seen_low, seen_high = np.full(space.shape, np.inf), np.full(space.shape, -np.inf)

    def check_every_seat() -> None:
        nonlocal seen_low, seen_high
        for seat in range(engine.num_players):
            views = [engine.observe(np.full(64, seat))]
            if int8:
                views.append(engine.observe(np.full(64, seat), dtype=np.int8)
                             * engine.observation_scale)
            for view in views:
                assert (view >= space.low).all() and (view <= space.high).all()
                seen_low = np.minimum(seen_low, view.min(axis=0))
                seen_high = np.maximum(seen_high, view.max(axis=0))

    engine.reset(seed=0)
    check_every_seat()
    for _ in range(400):
        masks = np.where(engine.game_over[:, None], True, engine.legal_action_mask())
        engine.step(sample_uniform_legal(rng, masks))
        check_every_seat()  # finished games too: their final observation
        if engine.game_over.any():
            engine.reset(games=engine.game_over)
            check_every_seat()
    scores = engine.layout["scores"]
    assert seen_high[scores].max() > 0  # the play reached the scores
    for obs_agent, _ in play(env, rng, episodes=2):
        assert env.observation_space(obs_agent).contains(env.observe(obs_agent))


# -- PettingZoo versions -----------------------------------------------------------------------
def test_registers_only_where_pettingzoo_has_a_registry():
    """PettingZoo >= 1.27 has ``pettingzoo.make`` and its registry; 1.24 has neither and
    the env modules import and work without registering."""
    has_registry = importlib.util.find_spec("pettingzoo.env_registry") is not None
    assert register_aec("cardgames/abracadabra_v1", "envs.abracadabra_v1:env") is has_registry
    if has_registry:
        from pettingzoo.env_registry.registration import aec_registry

        assert {"cardgames/abracadabra-v1", "cardgames/four_aces-v0"} <= set(aec_registry)


def test_abracadabra_v0_says_to_use_v1():
    """The observation changed in v1 (``voids``): the old version's constructors raise,
    naming the new one, as PettingZoo's deprecated versions do."""
    from envs import abracadabra_v0

    for make in (abracadabra_v0.env, abracadabra_v0.raw_env):
        with pytest.raises(abracadabra_v0.DeprecatedEnv, match="abracadabra_v1"):
            make(variant="four")
