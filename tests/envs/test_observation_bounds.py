"""The declared observation spaces hold every observation of whole matches (issue 40, 4).

In match mode three columns carry match-long quantities: ``scores`` (match totals /
target_points), Abracadabra's ``pot`` (chips carried over / (10 ante)) and the deal or
round count. Their declared bounds (``observation_bounds`` of each env module) are true
bounds under every option: matches played through ``env()`` stay inside the space (and the
global state inside ``state_space``) at every step, for every seat, and the pot's bound is
reached exactly by a declarer who shows every card of every deal while nobody calls. The
scale of those columns is documented in docs/environments.md ("Observation bounds in
match mode"), with the default bounds quoted there checked here.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from envs import abracadabra_v1, four_aces_v0, registry
from envs.abracadabra.observation import LAYOUT as ABRA_LAYOUT
from envs.four_aces.observation import LAYOUT as FOUR_LAYOUT

DOC = Path(__file__).resolve().parents[2] / "docs" / "environments.md"
MODULES = {"abracadabra": abracadabra_v1, "four_aces": four_aces_v0}
#: (game, options, matches): every table with the default options, then options that move
#: the bounds (stakes, raises, targets, limits, scoring, dealer), all in match mode
MATCHES = (
    [("abracadabra", {"variant": v}, 2) for v in ("four", "three", "two_dummy", "two")]
    + [("four_aces", {"num_players": p}, 2) for p in (3, 4, 5)]
    + [("abracadabra", {"variant": "three", "joker": False, "ante": 7, "raise_mode": "add",
                        "raise_increment": 1000, "call_mode": "auto", "target_points": 1}, 3),
       ("abracadabra", {"variant": "two_dummy", "ante": 2**20, "raise_mode": "add",
                        "raise_increment": 2**20, "target_points": 10**6, "max_deals": 4}, 2),
       ("abracadabra", {"variant": "four", "reward": "win", "target_points": 30}, 2),
       ("four_aces", {"num_players": 3, "scoring": "free", "dealer": "rotate",
                      "target_points": 1}, 3),
       ("four_aces", {"num_players": 5, "reward": "win", "target_points": 10**6,
                      "max_rounds": 3}, 2)]
)


def match_id(case: tuple) -> str:
    game, options, _ = case
    return "-".join([game, *(f"{k}={v}" for k, v in options.items())])


def play_matches(env, matches: int, choose, seed: int = 0):
    """Play ``matches`` seeded matches, ``choose(mask, rng) -> action`` for every decision;
    yields after every reset and step."""
    rng = np.random.default_rng(seed)
    for match in range(matches):
        env.reset(seed=seed + match)
        yield
        for _agent in env.agent_iter():
            observation, _, termination, truncation, _ = env.last()
            env.step(None if termination or truncation
                     else choose(observation["action_mask"], rng))
            yield


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def observed_range(env, steps) -> tuple[np.ndarray, np.ndarray, int]:
    """The least and greatest value of every column over every seat's observation at every
    step of ``steps``, checking the global state against ``state_space`` on the way; and
    the number of observations."""
    space = env.observation_space(env.possible_agents[0])["observation"]
    low, high = np.full(space.shape, np.inf), np.full(space.shape, -np.inf)
    seen = 0
    for _ in steps:
        rows = np.stack([env.observe(agent)["observation"] for agent in env.possible_agents])
        low, high = np.minimum(low, rows.min(axis=0)), np.maximum(high, rows.max(axis=0))
        seen += len(rows)
        assert env.state_space.contains(env.state())
    return low, high, seen


@pytest.mark.parametrize("case", MATCHES, ids=match_id)
def test_whole_matches_stay_inside_the_declared_space(case):
    game, options, matches = case
    env = MODULES[game].env(episode="match", **options)
    space = env.observation_space(env.possible_agents[0])["observation"]
    low, high = MODULES[game].observation_bounds(registry.make_config(
        game, episode="match", **options))
    assert np.array_equal(space.low, np.float32(low))  # the space is what the module says
    assert np.array_equal(space.high, np.float32(high))
    seen_low, seen_high, seen = observed_range(env, play_matches(env, matches, random_legal))
    outside = np.flatnonzero((seen_low < space.low) | (seen_high > space.high))
    assert outside.size == 0, [(int(c), float(seen_low[c]), float(seen_high[c]),
                                float(space.low[c]), float(space.high[c])) for c in outside]
    assert seen > 100 and env.unwrapped.fixed_result()["match_over"]
    layout = ABRA_LAYOUT if game == "abracadabra" else FOUR_LAYOUT
    assert seen_high[layout["scores"]].max() > 0  # the matches reached the scores column


def show_everything_call_nothing(mask: np.ndarray, rng: np.random.Generator) -> int:
    """Abracadabra: show a card whenever one may be shown (D1), never say "Abracadabra"
    (F1); any legal bid and card otherwise. No one hits, so the pot keeps every deal's
    antes and raises (S4)."""
    show = np.flatnonzero(mask[14:67])
    if show.size:
        return 14 + int(rng.choice(show))
    if mask[122]:
        return 122  # no_call
    return random_legal(mask, rng)


@pytest.mark.parametrize("variant", ["four", "three", "two_dummy", "two"])
@pytest.mark.parametrize("stakes", [{}, {"ante": 3, "raise_mode": "add", "raise_increment": 5}],
                         ids=["multiple", "add"])
def test_the_pot_reaches_its_declared_bound(variant, stakes):
    """The pot's bound is not only a bound: every deal of a match without hitters puts
    in every ante and a raise for each of the declarer's cards, and the column then
    reaches the declared high exactly (three deals: target points out of reach)."""
    options = {"variant": variant, "episode": "match", "target_points": 10**6,
               "max_deals": 3, **stakes}
    env = abracadabra_v1.env(**options)
    space = env.observation_space(env.possible_agents[0])["observation"]
    _, seen_high, _ = observed_range(env, play_matches(env, 1, show_everything_call_nothing))
    pot = ABRA_LAYOUT["pot"]
    assert seen_high[pot] == space.high[pot]
    config = registry.make_config("abracadabra", **options)
    raise_per_card = config.ante if config.raise_mode == "multiple" else config.raise_increment
    chips = 3 * (config.num_players * config.ante + config.cards_each * raise_per_card)
    assert space.high[pot] == np.float32(chips / (10 * config.ante))


def test_the_docs_quote_the_default_match_bounds():
    """docs/environments.md quotes the default match's largest pot and lowest score."""
    section = DOC.read_text(encoding="utf-8")
    section = section[section.index("## Observation bounds in match mode"):]
    _, high = abracadabra_v1.observation_bounds(registry.make_config(
        "abracadabra", episode="match"))
    low, _ = four_aces_v0.observation_bounds(registry.make_config("four_aces", episode="match"))
    pot, lowest = high[ABRA_LAYOUT["pot"]][0], low[FOUR_LAYOUT["scores"]].min()
    assert re.search(rf"\b{pot:,.0f}\b", section), pot
    assert re.search(rf"−{-lowest:.0f}\b", section), lowest
