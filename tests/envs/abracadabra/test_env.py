"""The PettingZoo adapter ``abracadabra_v1``: API conformance, seeding, options, bad inputs,
rendering, and the framework-free rules engine."""

from __future__ import annotations

import functools
import subprocess
import sys

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs import abracadabra_v1
from envs.abracadabra import (
    ACTION_NAMES,
    LAYOUT,
    NUM_ACTIONS,
    AbracadabraConfig,
    AbracadabraEngine,
)
from envs.cards import parse_card, pretty_card


def cards(text: str) -> list[str]:
    """Card strings from a space-separated list ("AC KC" -> ["AC", "KC"])."""
    return text.split()

VARIANTS = ["four", "three", "two_dummy", "two"]
FOUR_HANDS = [
    cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"),
    cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"),
    cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"),
    cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS JK"),
]


@pytest.mark.parametrize("episode", ["deal", "match"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_api_test(variant, episode):
    env = abracadabra_v1.env(variant=variant, episode=episode, target_points=30)
    api_test(env, num_cycles=200)


@pytest.mark.parametrize("episode", ["deal", "match"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_pettingzoo_seed_test(variant, episode):
    seed_test(functools.partial(abracadabra_v1.env, variant=variant, episode=episode,
                                target_points=30), num_cycles=100)


def test_same_seed_same_deal_different_seed_different_deal():
    def hand(seed):
        env = abracadabra_v1.env()
        env.reset(seed=seed)
        return env.observe(env.agent_selection)["observation"][LAYOUT["hand"]]

    assert (hand(1) == hand(1)).all()
    assert not all((hand(1) == hand(s)).all() for s in (2, 3))


def test_metadata_spaces_and_action_names():
    env = abracadabra_v1.env(variant="two_dummy")
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.metadata["name"] == "abracadabra_v1"
    assert raw.possible_agents == ["player_0", "player_1"]  # the dummy is no agent
    assert raw.action_names == list(ACTION_NAMES) and len(raw.action_names) == NUM_ACTIONS
    assert raw.action_names[:2] == ["bid:0", "bid:1"]
    assert raw.action_names[14] == "show:2C" and raw.action_names[67] == "stop"
    assert raw.action_names[68 + 52] == "play:JK" and raw.action_names[121:] == ["call",
                                                                                 "no_call"]
    assert env.action_space("player_0").n == 123
    assert env.observation_space("player_0")["observation"].shape == (LAYOUT.size,)
    # only the agent to act gets a mask
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


def test_registered_in_pettingzoo_registry():
    import pettingzoo

    if not hasattr(pettingzoo, "make"):
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry (pettingzoo.make "
                    "came in 1.27): nothing to register in")
    env = pettingzoo.make("aec", "cardgames/abracadabra_v1", variant="three")
    assert env.unwrapped.metadata["name"] == "abracadabra_v1"
    assert len(env.unwrapped.possible_agents) == 3


def test_docstring_holds_the_observation_and_action_tables():
    doc = abracadabra_v1.__doc__
    for line in LAYOUT.table().splitlines():
        assert line.rstrip() in doc
    for text in ("0..13", "bid:N", "14..66", "67", "68..120", "121", "122", "Version History"):
        assert text in doc


def test_every_seat_gets_its_end_of_deal_reward():
    env = abracadabra_v1.env(variant="two", reward="points")
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        _, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    points = info["result"]["points"]
    assert [totals[a] for a in env.possible_agents] == points


# -- reset options --------------------------------------------------------------------------
def test_reset_with_fixed_deal():
    env = abracadabra_v1.env()
    env.reset(seed=0, options={"dealer": 1, "hands": FOUR_HANDS, "leftover": None})
    assert env.agent_selection == "player_2"  # C1: left of the dealer
    obs = env.observe("player_2")["observation"]
    assert np.flatnonzero(obs[LAYOUT["hand"]]).tolist() == sorted(
        parse_card(c) for c in FOUR_HANDS[2]
    )
    assert obs[LAYOUT["dealer"]].tolist() == [0, 0, 0, 1]  # seat 1 = 3 to the left of 2
    assert env.unwrapped.engine.hand_cards(0, 3)[-1] == 52  # JK in seat 3


def test_reset_with_dealer_only_keeps_a_random_deal():
    env = abracadabra_v1.env(variant="three")
    env.reset(seed=5, options={"dealer": 2})
    assert env.agent_selection == "player_0"
    assert env.unwrapped.engine.state.hands()[0].sum() == 36


@pytest.mark.parametrize(
    "options, message",
    [
        ({"hands": FOUR_HANDS[:3]}, "list of 4 hands"),
        ({"hands": [FOUR_HANDS[0][:12], *FOUR_HANDS[1:]]}, "hand 0 must hold 13"),
        ({"hands": [["2C"] + FOUR_HANDS[0][1:], ["2C"] + FOUR_HANDS[1][1:],
                    *FOUR_HANDS[2:]]}, "duplicate card '2C'"),
        ({"hands": [["ZZ"] + FOUR_HANDS[0][1:], *FOUR_HANDS[1:]]}, "unknown card 'ZZ'"),
        ({"hands": FOUR_HANDS, "dealer": 4}, "dealer=4"),
        ({"hands": FOUR_HANDS, "dealer": -1}, "dealer=-1"),
        ({"hands": FOUR_HANDS, "leftover": "JK"}, "leftover='JK' .* already in hand 3"),
        ({"hands": FOUR_HANDS, "leftover": "ZZ"}, "leftover: unknown card"),
        ({"leftover": "AS"}, "leftover needs hands"),
    ],
)
def test_bad_reset_options_raise(options, message):
    env = abracadabra_v1.raw_env()
    env.reset(seed=0)
    before = env.engine.snapshot()
    with pytest.raises(ValueError, match=message):
        env.reset(seed=1, options=options)
    after = env.engine.snapshot()
    assert all((before[k] == after[k]).all() for k in before)  # nothing changed


def test_card_not_in_variant_deck_raises():
    engine = AbracadabraEngine(AbracadabraConfig(variant="two", joker=False), 1)
    hands = [cards("9C TC JC QC KC AC 9D TD JD QD KD AD"),
             cards("9H TH JH QH KH AH 9S TS JS QS KS 8S")]
    with pytest.raises(ValueError, match="'8S' is not in the deck"):
        engine.reset_with_deal(0, 0, hands)
    hands[1][-1] = "AS"
    with pytest.raises(ValueError, match="no leftover"):
        engine.reset_with_deal(0, 0, hands, "JK")
    engine.reset_with_deal(0, 0, hands)
    assert engine.state.leftover[0] == -1 and engine.state.trump[0] == -1  # B2


# -- bad config and illegal actions ---------------------------------------------------------
@pytest.mark.parametrize(
    "option, value",
    [
        ("variant", "five"),
        ("joker", "yes"),
        ("ante", 0),
        ("ante", 1.5),
        ("raise_mode", "double"),
        ("raise_increment", 0),
        ("call_mode", "sometimes"),
        ("episode", "season"),
        ("reward", "money"),
        ("target_points", 0),
        ("max_deals", 0),
    ],
)
def test_bad_config_values_raise_naming_the_option(option, value):
    with pytest.raises(ValueError, match=option):
        abracadabra_v1.env(**{option: value})


def test_four_needs_the_joker_A1_and_win_needs_a_match():
    with pytest.raises(ValueError, match="joker"):
        AbracadabraConfig(variant="four", joker=False)
    with pytest.raises(ValueError, match="reward='win'"):
        AbracadabraConfig(reward="win")
    assert AbracadabraConfig(reward="win", episode="match").deals_limit == 1000  # M3


def test_render_mode_is_validated():
    with pytest.raises(ValueError, match="render_mode='svg' is not allowed"):
        abracadabra_v1.env(render_mode="svg")


@pytest.mark.parametrize(("action", "message"), [
    (ACTION_NAMES.index("play:2C"), "illegal action 'play:2C': phase is 'bid'"),
    (ACTION_NAMES.index("bid:13"), "illegal action 'bid:13': phase is 'bid'"),  # C1: 0..12
    (NUM_ACTIONS, r"action 123 is out of range: expected an integer 0\.\.122"),
    (-1, r"action -1 is out of range: expected an integer 0\.\.122"),
    (1.0, r"action 1\.0 \(float\) is not an action id"),
])
def test_illegal_step_raises_and_changes_nothing(action, message):
    env = abracadabra_v1.raw_env(variant="two")
    env.reset(seed=0)
    agent = env.agent_selection
    before = env.observe(agent)
    snapshot = env.engine.snapshot()
    with pytest.raises(ValueError, match=message):
        env.step(action)
    after = env.observe(agent)
    assert (before["observation"] == after["observation"]).all()
    assert (before["action_mask"] == after["action_mask"]).all()
    assert env.agent_selection == agent
    assert all((snapshot[k] == env.engine.snapshot()[k]).all() for k in snapshot)


def test_batch_illegal_action_names_the_game_and_changes_no_game():
    engine = AbracadabraEngine(AbracadabraConfig(variant="three"), 3)
    engine.reset(seed=0)
    snapshot = engine.snapshot()
    with pytest.raises(ValueError, match="'stop' in game 1: phase is 'bid'"):
        engine.step(np.array([0, ACTION_NAMES.index("stop"), 0]))
    assert all((snapshot[k] == engine.snapshot()[k]).all() for k in snapshot)


# -- rendering ------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_render_ansi_shows_own_hand(variant):
    env = abracadabra_v1.env(variant=variant, render_mode="ansi")
    env.reset(seed=0)
    for _ in range(env.unwrapped.engine.num_players + 3):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))
    text = env.render()
    assert isinstance(text, str) and "Your hand" in text and "Trump" in text
    seat = int(env.agent_selection.split("_")[1])
    for card in env.unwrapped.engine.hand_cards(0, seat):
        assert pretty_card(card) in text
    if variant == "two_dummy":
        assert "Dummy" in text


def test_render_human_prints(capsys):
    env = abracadabra_v1.env(render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "Your hand" in capsys.readouterr().out


# -- the rules engine is framework-free -----------------------------------------------------
def test_engine_imports_no_rl_framework():
    code = ("import envs.abracadabra.engine, envs.abracadabra.render, sys; "
            "assert not any(m.startswith(('pettingzoo', 'gymnasium')) for m in sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)
