"""RGB pictures of a card table: :mod:`envs.table_layout` drawn with Pillow's ImageDraw.

The same picture as :mod:`envs.svg`, as a ``uint8 [720, 1000, 3]`` array (PettingZoo's
``render_mode="rgb_array"``). Pillow comes with matplotlib; it is imported on first use.
Text uses the DejaVu Sans font matplotlib ships (Pillow's default font otherwise).
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path

import numpy as np

from envs.table_layout import HEIGHT, WIDTH, Box, CardItem, Circle, Label, Polygon, layout
from envs.table_view import Scene, scene_of

_ANCHORS = {"start": "ls", "middle": "ms", "end": "rs"}


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


def _draw(draw, p) -> None:
    if isinstance(p, Box):
        shape = [p.x, p.y, p.x + p.w, p.y + p.h]
        width = max(1, round(p.width)) if p.stroke else 0
        draw.rounded_rectangle(shape, radius=p.radius, fill=p.fill, outline=p.stroke,
                               width=width)
    elif isinstance(p, Label):
        draw.text((p.x, p.y), p.text, fill=p.fill, font=_font(round(p.size), p.bold),
                  anchor=_ANCHORS[p.anchor])
    elif isinstance(p, Circle):
        draw.ellipse([p.x - p.r, p.y - p.r, p.x + p.r, p.y + p.r], fill=p.fill)
    elif isinstance(p, Polygon):
        draw.polygon(p.points, fill=p.fill)
    elif isinstance(p, CardItem):
        for q in p.parts:
            _draw(draw, q)
    else:
        raise TypeError(f"unknown primitive {type(p).__name__}")


def scene_image(scene: Scene):
    """``scene`` as a Pillow RGB image (1000 x 720)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT))
    draw = ImageDraw.Draw(image)
    for p in layout(scene):
        _draw(draw, p)
    return image


def scene_rgb(scene: Scene) -> np.ndarray:
    """``scene`` as uint8 [720, 1000, 3]."""
    return np.asarray(scene_image(scene), dtype=np.uint8)


def engine_rgb(engine, game: int = 0, seat: int | None = None,
               face_up: bool = False) -> np.ndarray:
    """uint8 [720, 1000, 3]: game ``game`` of ``engine`` as ``seat`` sees it (default the
    seat to act), or face up (see :func:`envs.table_view.scene_of`)."""
    return scene_rgb(scene_of(engine, game, seat, face_up))
