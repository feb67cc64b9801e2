"""Four Aces PettingZoo environment: API and seed tests, reset options, render."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs import four_aces_v0
from envs.four_aces.observation import LAYOUT

CONFIGS = [
    {"num_players": n, "episode": episode} for n in (3, 4, 5) for episode in ("round", "match")
]


def _kwargs(config):
    extra = {"max_rounds": 3} if config["episode"] == "match" else {}
    return {**config, **extra}


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}-{c['episode']}")
def test_api_test(config):
    api_test(four_aces_v0.env(**_kwargs(config)), num_cycles=300)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c['num_players']}-{c['episode']}")
def test_seed_test(config):
    seed_test(lambda: four_aces_v0.env(**_kwargs(config)), num_cycles=300)


def test_env_signature_metadata_and_score_cards():
    e = four_aces_v0.env()
    assert e.metadata["name"] == "four_aces_v0"
    assert four_aces_v0.score_cards(["9H", "TH", "JH"]) == 2
    assert four_aces_v0.score_cards(["2C", "2D"], scoring="free") == 0
    with pytest.raises(ValueError, match="not allowed"):
        four_aces_v0.env(num_players=6)
    with pytest.raises(ValueError, match="render_mode='svg' is not allowed"):
        four_aces_v0.env(render_mode="svg")
    with pytest.raises(ValueError, match="illegal_action='skip' is not allowed"):
        four_aces_v0.env(illegal_action="skip")


def test_docstring_holds_the_observation_table():
    for line in LAYOUT.table().splitlines():
        assert line.rstrip() in four_aces_v0.__doc__
    assert "Version History" in four_aces_v0.__doc__


HANDS = [["JK", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["2S", "3S", "4S"]]
TABLES = [["5C", "6D", "7H"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["5S", "6C", "7D"]]
USED = {c for row in HANDS + TABLES for c in row}
RANKS, SUITS = "23456789TJQKA", "CDHS"
STOCK = ["2C"] + [r + s for s in SUITS for r in RANKS if r + s not in USED | {"2C"}] + ["JK"]


def test_reset_options_deal_a_fixed_round():
    """G4 through reset options: seat 0 was dealt a joker, so he fills 2C first."""
    e = four_aces_v0.env()
    e.reset(seed=1, options={"dealer": 3, "hands": HANDS, "tables": TABLES, "stock": STOCK})
    assert e.agent_selection == "player_0"  # H1: left of dealer 3
    obs = e.observe("player_0")["observation"]
    hand = obs[LAYOUT["hand"]]
    assert hand[52] == 1 and hand[0] == 1  # JK and 2C
    assert obs[LAYOUT["hand_limits"]][0] == 4 / 5


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dealer": 0, "hands": HANDS, "tables": TABLES}, "missing"),
        ({"dealer": 0, "hands": HANDS, "tables": TABLES, "stock": STOCK, "x": 1}, "unknown"),
        ({"dealer": 9, "hands": HANDS, "tables": TABLES, "stock": STOCK}, "dealer"),
        ({"dealer": 0, "hands": HANDS, "tables": TABLES, "stock": STOCK[1:]}, "missing"),
    ],
)
def test_bad_reset_options_change_nothing(options, message):
    e = four_aces_v0.env()
    e.reset(seed=4)
    before = e.observe(e.agent_selection)["observation"].copy()
    with pytest.raises(ValueError, match=message):
        e.reset(options=options)
    assert np.array_equal(e.observe(e.agent_selection)["observation"], before)


def test_round_end_rewards_reach_every_seat():
    e = four_aces_v0.env(num_players=3)
    e.reset(seed=11)
    totals = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        totals[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    result = info["result"]
    assert [totals[a] for a in e.possible_agents] == result["round_points"]


def test_render_smoke():
    e = four_aces_v0.env(render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "your hand" in text and "stock: 30 cards" in text
    assert "player_3" in text


def test_registered_in_pettingzoo_registry():
    import pettingzoo

    if not hasattr(pettingzoo, "make"):
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry (pettingzoo.make "
                    "came in 1.27): nothing to register in")
    e = pettingzoo.make("aec", "cardgames/four_aces_v0", num_players=3)
    assert e.metadata["name"] == "four_aces_v0"
