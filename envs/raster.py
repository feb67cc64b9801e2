"""RGB pictures of a card table: :mod:`envs.table_layout` drawn with Pillow's ImageDraw.

The same picture as :mod:`envs.svg`, as a ``uint8 [720, 1000, 3]`` array (PettingZoo's
``render_mode="rgb_array"``). Pillow comes with matplotlib; it is imported on first use.
Text uses the DejaVu Sans font matplotlib ships (Pillow's default font otherwise).

Speed (``python -m bench.render`` times the frames): nothing is drawn twice. Every card (each
card, face down too, at each size, plain, raised as legal or edged as shown) is drawn once
into a sprite and pasted after that, and every text is rasterised once per size into a
mask through which its colour is pasted. :func:`warm_up` draws all the card sprites and
loads the fonts ahead (the environments call it when built with
``render_mode="rgb_array"``), so that the first frame of an episode is as quick as the
others. Sprites are pasted at whole pixels: a card placed at a fractional position moves
by less than a pixel.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from envs import registry
from envs.cards import CARD_NAMES
from envs.table_layout import (
    BIG,
    FELT,
    HEIGHT,
    SMALL,
    WIDTH,
    Box,
    CardItem,
    Circle,
    Label,
    Polygon,
    card_item,
    layout,
)
from envs.table_view import SCENE_BUILDERS, Scene, game_of, scene_of

__all__ = ["engine_rgb", "scene_image", "scene_rgb", "warm_up"]

_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}
#: the text sizes and weights the layout uses (loaded by :func:`warm_up`)
_FONT_SIZES = ((20, True), (16, True), (15, True), (14, True), (13, True), (13, False),
               (11, False))


def _font_file(bold: bool) -> str | None:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        return None
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    path = Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf" / name
    return str(path) if path.exists() else None


@lru_cache(maxsize=64)
def _font(size: int, bold: bool):
    from PIL import ImageFont

    path = _font_file(bold)
    if path is not None:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size)


@lru_cache(maxsize=64)
def _rgb(color: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` (or a colour name) as an RGB triple."""
    from PIL import ImageColor

    return ImageColor.getrgb(color)[:3]


@lru_cache(maxsize=8192)
def _text_mask(text: str, size: int, bold: bool, anchor: str):
    """(the text's coverage, an ``L`` image; its top-left relative to the anchor point),
    or None for a text that covers no pixel."""
    from PIL import Image, ImageDraw

    font = _font(size, bold)
    left, top, right, bottom = font.getbbox(text, anchor=_ANCHORS[anchor])
    if right <= left or bottom <= top:
        return None
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=font,
                              anchor=_ANCHORS[anchor])
    return mask, (left, top)


def _draw(draw, p, dx: float = 0.0, dy: float = 0.0) -> None:
    """Draw primitive ``p`` moved by (dx, dy), text included (the slow way: the sprites
    are drawn with it)."""
    if isinstance(p, Box):
        shape = [p.x + dx, p.y + dy, p.x + dx + p.w, p.y + dy + p.h]
        width = max(1, round(p.width)) if p.stroke else 0
        draw.rounded_rectangle(shape, radius=p.radius, fill=p.fill, outline=p.stroke,
                               width=width)
    elif isinstance(p, Label):
        draw.text((p.x + dx, p.y + dy), p.text, fill=p.fill, font=_font(round(p.size), p.bold),
                  anchor=_ANCHORS[p.anchor])
    elif isinstance(p, Circle):
        x, y = p.x + dx, p.y + dy
        draw.ellipse([x - p.r, y - p.r, x + p.r, y + p.r], fill=p.fill)
    elif isinstance(p, Polygon):
        draw.polygon([(x + dx, y + dy) for x, y in p.points], fill=p.fill)
    elif isinstance(p, CardItem):
        for q in p.parts:
            _draw(draw, q, dx, dy)
    else:
        raise TypeError(f"unknown primitive {type(p).__name__}")


#: (card, w, h, legal, shown) -> (RGB image, L mask, top-left offset): see _card_sprite
_SPRITES: dict[tuple, tuple] = {}
_SPRITES_LOCK = threading.Lock()


def _card_sprite(card: str | None, size: tuple[int, int], legal: bool, shown: bool) -> tuple:
    """(RGB image, ``L`` mask of its pixels, (dx, dy)) of one card: pasted at the card's
    (x, y) + (dx, dy) it is the card drawn there."""
    shown = shown and not legal  # a legal card's edge is the legal one (table_layout)
    key = (card, size, legal, shown)
    sprite = _SPRITES.get(key)
    if sprite is not None:
        return sprite
    from PIL import Image, ImageDraw

    item = card_item(card, 0.0, 0.0, size, -1, legal, shown)  # legal: raised, y < 0
    outer = item.parts[0]  # the card's outline: every other part lies inside it
    w, h = int(outer.w) + 1, int(outer.h) + 1  # Pillow's boxes include both edges
    image = Image.new("RGB", (w, h))
    _draw(ImageDraw.Draw(image), item, -outer.x, -outer.y)
    mask = Image.new("L", (w, h), 0)
    _draw(ImageDraw.Draw(mask), Box(0, 0, outer.w, outer.h, 255, 255 if outer.stroke else None,
                                    outer.width, outer.radius))
    sprite = (image, mask, (outer.x - item.x, outer.y - item.y))
    with _SPRITES_LOCK:
        _SPRITES.setdefault(key, sprite)
    return sprite


def _paste(image, draw, p) -> None:
    """Put primitive ``p`` on ``image``: cards and text from their caches."""
    if isinstance(p, CardItem):
        sprite, mask, (dx, dy) = _card_sprite(p.card, (round(p.w), round(p.h)), p.legal,
                                              p.shown)
        image.paste(sprite, (round(p.x + dx), round(p.y + dy)), mask)
    elif isinstance(p, Label):
        found = _text_mask(p.text, round(p.size), p.bold, p.anchor)
        if found is not None:
            mask, (left, top) = found
            image.paste(_rgb(p.fill), (round(p.x) + left, round(p.y) + top), mask)
    else:
        _draw(draw, p)


def _compose(scene: Scene, image, draw) -> None:
    """Draw ``scene`` over all of ``image`` (RGB, 1000 x 720; ``draw`` its ImageDraw)."""
    items = layout(scene)
    background = items[0]  # the felt: the whole canvas
    image.paste(_rgb(background.fill), (0, 0, WIDTH, HEIGHT))
    for p in items[1:]:
        _paste(image, draw, p)


def scene_image(scene: Scene):
    """``scene`` as a Pillow RGB image (1000 x 720), a new one."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT))
    _compose(scene, image, ImageDraw.Draw(image))
    return image


#: per thread, the canvas that :func:`scene_rgb` draws on and copies out (a new 2.9 MB
#: image per frame costs more in page faults than the drawing itself)
_LOCAL = threading.local()


def _canvas() -> tuple:
    """(image, its ImageDraw): this thread's canvas, made on first use."""
    canvas = getattr(_LOCAL, "canvas", None)
    if canvas is None:
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (WIDTH, HEIGHT), _rgb(FELT))
        canvas = _LOCAL.canvas = (image, ImageDraw.Draw(image))
    return canvas


def scene_rgb(scene: Scene) -> np.ndarray:
    """``scene`` as uint8 [720, 1000, 3] (a new, read-only array)."""
    image, draw = _canvas()
    _compose(scene, image, draw)
    return np.asarray(image, dtype=np.uint8)


def engine_rgb(engine, game: int = 0, seat: int | None = None,
               face_up: bool = False) -> np.ndarray:
    """uint8 [720, 1000, 3]: game ``game`` of ``engine`` as ``seat`` sees it (default the
    seat to act), or face up (see :func:`envs.table_view.scene_of`)."""
    return scene_rgb(scene_of(engine, game, seat, face_up))


def warm_up(engine=None) -> None:
    """Do now what the first picture would do (once per process): import Pillow, load the
    fonts, draw every card sprite (every card and the back, at both sizes, plain, legal
    and shown), make this thread's canvas and convert it (the allocator's first large
    blocks), and import the modules :func:`envs.table_view.scene_of` needs for ``engine`` (for
    every game when None); later calls do nothing."""
    from PIL import ImageFile  # noqa: F401 - what the first tobytes() imports

    for size, bold in _FONT_SIZES:
        _font(size, bold)
    for card in [*CARD_NAMES, None]:
        for size in (BIG, SMALL):
            for legal, shown in ((False, False), (True, False), (False, True)):
                _card_sprite(card, size, legal, shown)
    games = registry.GAMES if engine is None else (game_of(engine),)  # imports engines
    for name in (g for g in games if g in SCENE_BUILDERS):
        importlib.import_module(SCENE_BUILDERS[name].partition(":")[0])
    image, _ = _canvas()  # this thread's canvas, its pages touched
    image.paste(*_card_sprite(None, BIG, False, False)[:2])
    for _ in range(2):  # the allocator settles on a frame's blocks after two
        np.asarray(image, dtype=np.uint8)
