"""Pictures of a state: scenes hide what a seat may not see, SVG and RGB draw them, and the
Four Aces result is explained by combination (docs/rules.md K2/K3)."""

from __future__ import annotations

import itertools
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from envs import registry
from envs.four_aces.explain import best_split, combination
from envs.four_aces.scoring import score_cards
from envs.svg import engine_svg
from envs.table_view import scene_of

TABLES = [("abracadabra", {"variant": v}) for v in ("four", "three", "two_dummy", "two")] + [
    ("four_aces", {"num_players": n}) for n in (3, 4, 5)]


def _random_positions(game, options, seed, every=7):
    """Engines (copies) along one random game, every ``every`` steps."""
    import copy

    engine = registry.make_engine(game, 1, **options)
    engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not engine.game_over[0]:
        if k % every == 0:
            yield copy.deepcopy(engine)
        legal = np.flatnonzero(engine.legal_action_mask()[0])
        engine.step(np.array([rng.choice(legal)]))
        k += 1
    yield engine


@pytest.mark.parametrize(("game", "options"), TABLES)
def test_scene_shows_only_what_the_seat_sees(game, options):
    for engine in _random_positions(game, options, seed=3):
        P = engine.num_players
        for seat in range(P):
            scene = scene_of(engine, seat=seat)
            for view in scene.seats:
                mine = view.hand_index == seat
                dummy = view.hand_index >= P
                if mine or dummy:
                    assert None not in view.hand
                else:  # hidden except shown cards (D1)
                    assert sum(c is not None for c in view.hand) == len(view.shown)
            up = scene_of(engine, face_up=True)
            assert all(None not in v.hand for v in up.seats)
            # face up, the hands hold exactly the engine's cards
            sizes = [len(v.hand) for v in up.seats]
            assert sizes == [len(v.hand) for v in scene.seats]


@pytest.mark.parametrize(("game", "options"), TABLES)
def test_svg_is_wellformed_and_marks_the_legal_cards(game, options):
    for engine in _random_positions(game, options, seed=5, every=11):
        seat = max(int(engine.current_player[0]), 0)
        svg = engine_svg(engine, seat=seat)
        root = ET.fromstring(svg)
        ns = "{http://www.w3.org/2000/svg}"
        cards = [g for g in root.iter(ns + "g") if "card" in g.get("class", "")]
        legal = sorted(g.get("data-card") for g in cards if "legal" in g.get("class"))
        scene = scene_of(engine, seat=seat)
        assert legal == sorted(c for v in scene.seats for c in v.legal)
        mask = engine.legal_action_mask()[0]
        names = {engine.action_names[a] for a in np.flatnonzero(mask)}
        assert {scene.card_actions[c] for c in legal} <= names


@pytest.mark.parametrize("game", registry.GAMES)
def test_rgb_array_render_mode(game):
    assert "rgb_array" in registry.get(game).load("env_module").raw_env.metadata["render_modes"]
    env = registry.make_env(game, render_mode="rgb_array")
    env.reset(seed=1)
    picture = env.render()
    assert picture.shape == (720, 1000, 3) and picture.dtype == np.uint8
    assert picture.std() > 10  # a picture, not a blank canvas


def test_rgb_array_of_both_games_through_the_base_class():
    from envs.pettingzoo_base import BatchEngineAEC
    from envs.raster import engine_rgb

    assert "rgb_array" in BatchEngineAEC.metadata["render_modes"]
    for game, options in (("abracadabra", {"variant": "two_dummy"}), ("four_aces", {})):
        engine = registry.make_engine(game, 1, **options)
        engine.reset(seed=2)
        picture = engine_rgb(engine, seat=0)
        assert picture.shape == (720, 1000, 3)


def test_combinations_named_and_valued_by_k2():
    def c(*names):
        from envs.cards import parse_card

        return [parse_card(n) for n in names]

    assert combination(c("7H", "7C")) == ("one pair", -1)
    assert combination(c("2S", "3S", "4S", "5S", "6S")) == ("5 in sequence", 14)
    assert combination(c("2S", "9S", "KS")) == ("3 of one suit", 0)
    assert combination(c("7H", "7C", "7S", "9D", "9C")) == ("three of a kind + a pair", 10)
    assert combination(c("7H", "8C")) is None


@pytest.mark.parametrize("scoring", ["strict", "free"])
def test_best_split_reaches_the_engine_score(scoring):
    rng = np.random.default_rng(11)
    for _ in range(150):
        n = int(rng.integers(0, 9))
        cards = rng.choice(52, size=n, replace=False).tolist()
        split = best_split(cards, scoring)
        assert split["total"] == score_cards(cards, scoring)
        used = list(itertools.chain.from_iterable(x["cards"] for x in split["combinations"]))
        assert sorted(used + split["loose"]) == sorted(
            registry.make_engine("four_aces", 1).action_names[c].split(":")[1] for c in cards)
