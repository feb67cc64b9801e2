"""The environment's own keyword chooses a policy's table: ``num_players=`` for Four Aces
(the same as ``variant="4p"``), ``variant=`` for Abracadabra; a keyword that names no
table, or two different ones, is one ``ValueError`` line."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import agents
from agents.policy.agent import PolicyAgent, table_variant
from agents.policy.checkpoint import make_checkpoint
from agents.policy.net import PolicyNet
from envs.registry import make_engine


def _rows(game: str, **options):
    engine = make_engine(game, 4, **options)
    engine.reset(seed=0)
    return engine.observe(), engine.legal_action_mask()


@pytest.mark.parametrize("players", [3, 4, 5])
def test_four_aces_num_players_is_variant_np(players):
    by_players = agents.make("policy", "four_aces", num_players=players)
    by_variant = agents.make("policy", "four_aces", variant=f"{players}p")
    assert list(by_players.routes) == [f"{players}p"] == list(by_variant.routes)
    assert by_players.sources == by_variant.sources
    observations, masks = _rows("four_aces", num_players=players)
    np.testing.assert_array_equal(by_players.act_batch(observations, masks),
                                  by_variant.act_batch(observations, masks))


def test_numpy_integer_and_matching_variant_are_accepted():
    assert table_variant("four_aces", None, np.int64(4)) == "4p"
    assert table_variant("four_aces", "4p", 4) == "4p"
    assert table_variant("four_aces", "5p", None) == "5p"
    assert table_variant("abracadabra", "two_dummy", None) == "two_dummy"
    assert table_variant("abracadabra", None, None) is None


def test_abracadabra_variant_selects_its_network():
    agent = agents.make("policy", "abracadabra", variant="three")
    assert list(agent.routes) == ["three"]
    observations, masks = _rows("abracadabra", variant="three")
    actions = agent.act_batch(observations, masks)
    assert masks[np.arange(len(actions)), actions].all()


@pytest.mark.parametrize(("game", "kwargs", "message"), [
    ("four_aces", {"num_players": 6}, r"num_players=6 is not a table of four_aces: "
                                      r"expected one of \[3, 4, 5\]"),
    ("four_aces", {"num_players": "4"}, r"num_players='4' is not a table of four_aces"),
    ("four_aces", {"num_players": True}, r"num_players=True is not a table of four_aces"),
    ("four_aces", {"num_players": 4, "variant": "3p"},
     r"variant='3p' and num_players=4 name two different four_aces tables"),
    ("four_aces", {"variant": "4"}, r"variant='4' is not a variant of four_aces: expected "
                                    r"one of \['3p', '4p', '5p'\]"),
    ("abracadabra", {"num_players": 4}, r"num_players=4 does not choose a abracadabra "
                                        r"table: expected variant= \(one of \['four'"),
])
def test_wrong_table_keywords_are_one_line(game, kwargs, message):
    with pytest.raises(ValueError, match=message) as error:
        agents.make("policy", game, **kwargs)
    assert "\n" not in str(error.value)


def test_bidder_takes_the_keywords_too():
    assert list(agents.make("bidder", "abracadabra", variant="four").routes) == ["four"]
    with pytest.raises(ValueError, match="does not choose a abracadabra table"):
        agents.make("bidder", "abracadabra", num_players=4)


def test_a_given_checkpoint_is_checked_against_the_table_asked_for():
    torch.manual_seed(0)
    checkpoint = make_checkpoint(PolicyNet(450, 54, [8]), "four_aces", {"num_players": 3})
    assert list(PolicyAgent("four_aces", checkpoint=checkpoint, num_players=3).routes) == [
        "3p"]
    with pytest.raises(ValueError, match=r"no network for four_aces variant '4p' "
                                         r"\(num_players=4; the table asked for\)"):
        PolicyAgent("four_aces", checkpoint=checkpoint, num_players=4)


@pytest.mark.parametrize("name", ["random", "heuristic", "pimc", "pimc_policy", "pimc_pruned"])
def test_every_agent_takes_the_envs_table_keywords(name):
    """agents.make takes variant= / num_players= for any agent; an agent that reads the
    table from its observations checks them as the env does."""
    import agents

    assert agents.make(name, "four_aces", num_players=3).game == "four_aces"
    assert agents.make(name, "abracadabra", variant="three").game == "abracadabra"
    with pytest.raises(ValueError, match="num_players=9"):
        agents.make(name, "four_aces", num_players=9)
    with pytest.raises(ValueError, match="num_players"):
        agents.make(name, "abracadabra", num_players=3)
