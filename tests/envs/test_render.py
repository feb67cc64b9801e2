"""Rendering: the deal (round) number is the same in the text, the picture and
``info["result"]``; the ``rgb_array`` picture made of cached sprites and text masks is the
picture drawn primitive by primitive; and an environment built with ``render_mode=
"rgb_array"`` has done before its first frame everything a first frame used to do
(imports, fonts, card sprites), so that the first frame is as quick as the others. Frame
times themselves are measured by ``python -m bench.render``, not asserted here."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from envs import abracadabra_v1, four_aces_v0, raster, registry
from envs.table_layout import HEIGHT, WIDTH, layout
from envs.table_view import scene_of

ROOT = Path(__file__).resolve().parents[2]


def _play_out(env, seed: int = 0, steps: int | None = None):
    """Random legal moves until the episode ends (or ``steps`` moves); the last info."""
    rng = np.random.default_rng(seed)
    info = {}
    for k, _ in enumerate(env.agent_iter()):
        observation, _, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if steps is not None and k >= steps:
            break
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return info


def _numbers(env) -> tuple[int, int]:
    """(the number in the text's first line, the number in the picture's headline)."""
    text = env.unwrapped.render_text(0).splitlines()[0]
    headline = scene_of(env.unwrapped.engine).headline
    return (int(re.search(r"(?:deal|round) (\d+)", text).group(1)),
            int(re.search(r"(?:Deal|Round) (\d+)", headline).group(1)))


@pytest.mark.parametrize("variant", ["four", "two_dummy"])
def test_abracadabra_one_deal_episode_says_deal_1_everywhere(variant):
    env = abracadabra_v1.env(variant=variant, render_mode="ansi")
    env.reset(seed=1)
    assert _numbers(env) == (1, 1)
    info = _play_out(env)
    assert info["result"]["deal"] == 0
    assert _numbers(env) == (1, 1)  # was "deal 2 ... phase over" in the text
    assert "deal 1," in env.render().splitlines()[0] and "phase over" in env.render()


def test_abracadabra_match_counts_the_deal_being_played():
    env = abracadabra_v1.env(variant="two", episode="match", target_points=40,
                             render_mode="ansi")
    env.reset(seed=2)
    deals_seen = set()
    rng = np.random.default_rng(2)
    for _ in env.agent_iter():
        observation, _, termination, truncation, info = env.last()
        text_number, picture_number = _numbers(env)
        assert text_number == picture_number
        if "result" in info and not info["result"]["match_over"]:
            assert text_number == info["result"]["deal"] + 2  # the next deal is on
        deals_seen.add(text_number)
        if termination or truncation:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert _numbers(env) == (info["result"]["deal"] + 1,) * 2
    assert deals_seen == set(range(1, info["result"]["deal"] + 2))


def test_four_aces_round_number_agrees_with_the_result():
    env = four_aces_v0.env(render_mode="ansi")
    env.reset(seed=4)
    info = _play_out(env)
    assert _numbers(env) == (info["result"]["round"] + 1,) * 2 == (1, 1)


# -- the picture ---------------------------------------------------------------------------
def _reference(scene) -> np.ndarray:
    """The picture drawn primitive by primitive (no sprite, no text cache)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT))
    draw = ImageDraw.Draw(image)
    for p in layout(scene):
        raster._draw(draw, p)
    return np.asarray(image)


def _positions(game: str, options: dict, seed: int, every: int):
    engine = registry.make_engine(game, 1, **options)
    engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not engine.game_over[0]:
        if k % every == 0:
            yield engine
        engine.step(np.array([rng.choice(np.flatnonzero(engine.legal_action_mask()[0]))]))
        k += 1
    yield engine


@pytest.mark.parametrize(("game", "options"), [("abracadabra", {"variant": "four"}),
                                               ("abracadabra", {"variant": "two_dummy"}),
                                               ("four_aces", {"num_players": 5})])
def test_sprites_draw_the_same_picture(game, options):
    """Cards from sprites (legal ones raised, shown ones edged) and text from cached masks
    give the picture of the primitives, up to a pixel's shift of a card placed at a
    fractional position: under 0.5% of the pixels differ by more than a little."""
    raster.warm_up()
    kinds = set()
    for engine in _positions(game, options, seed=5, every=12):
        for face_up in (False, True):
            scene = scene_of(engine, face_up=face_up)
            kinds |= {"legal" for v in scene.seats if v.legal}
            kinds |= {"shown" for v in scene.seats if v.shown}
            fast, slow = raster.scene_rgb(scene), _reference(scene)
            assert fast.shape == (HEIGHT, WIDTH, 3) and fast.dtype == np.uint8
            differ = (np.abs(fast.astype(int) - slow.astype(int)).max(axis=2) > 60).mean()
            assert differ < 0.005, (scene.headline, differ)
            assert np.array_equal(np.asarray(raster.scene_image(scene)), fast)
    assert "legal" in kinds


def test_frames_are_independent_arrays_and_threads_draw_alike():
    """scene_rgb draws on a canvas kept per thread: each frame is its own array, later
    frames leave it unchanged, and threads drawing at once get what one thread gets."""
    engine = registry.make_engine("four_aces", 1, num_players=3)
    engine.reset(seed=1)
    first_scene = scene_of(engine, seat=0)
    first = raster.scene_rgb(first_scene)
    kept = first.copy()
    engine.step(np.array([np.flatnonzero(engine.legal_action_mask()[0])[0]]))
    second = raster.scene_rgb(scene_of(engine, seat=1))
    assert np.array_equal(first, kept) and not np.array_equal(first, second)
    results = {}

    def draw(name, scene):
        results[name] = [raster.scene_rgb(scene) for _ in range(3)]

    threads = [threading.Thread(target=draw, args=(k, first_scene)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(frame, kept) for frames in results.values() for frame in frames)


#: in a fresh interpreter: build an rgb_array env, then compare what its first frame
#: imports and draws with nothing
FIRST_FRAME = """
import json, sys
from envs import registry
env = registry.make_env({game!r}, render_mode="rgb_array", **{options!r})
env.reset(seed=0)
from envs import raster
sprites, texts = len(raster._SPRITES), raster._text_mask.cache_info().currsize
fonts = raster._font.cache_info().currsize
modules = set(sys.modules)
picture = env.render()
print(json.dumps({{"new_modules": sorted(set(sys.modules) - modules), "sprites": sprites,
                   "new_sprites": len(raster._SPRITES) - sprites,
                   "new_fonts": raster._font.cache_info().currsize - fonts,
                   "shape": list(picture.shape)}}))
"""


def test_first_frame_finds_everything_prepared():
    """What made the first frame of a process slow (importing Pillow and the scene
    modules, other games' engines included; loading fonts; drawing the cards) is done
    when the environment is built: its first frame imports no module, loads no font
    and draws no card sprite. (Four Aces: its first frame also imported Abracadabra's
    engine, which the scene's game lookup reads first.)"""
    code = FIRST_FRAME.format(game="four_aces", options={"num_players": 4})
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["shape"] == [HEIGHT, WIDTH, 3]
    assert out["new_modules"] == [] and out["new_sprites"] == 0 and out["new_fonts"] == 0, out
    assert out["sprites"] == 2 * 3 * 54  # every card and the back, 2 sizes, 3 edges
