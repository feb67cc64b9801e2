"""SVG pictures of a card table (:mod:`envs.table_layout` written as SVG text).

>>> from envs import registry
>>> engine = registry.make_engine("abracadabra", 1, variant="three")
>>> engine.reset(seed=3)
>>> engine_svg(engine, seat=0).startswith("<svg")
True

Every card is a ``<g class="card">`` with ``data-card`` (its card string, absent face
down) and ``data-hand`` (the hand holding it, -1 in the centre); a card the viewer may
choose now has the class ``legal``. The web app (:mod:`web`) makes those clickable.
"""

from __future__ import annotations

import os
from html import escape

from envs.table_layout import HEIGHT, WIDTH, Box, CardItem, Circle, Label, Polygon, layout
from envs.table_view import Scene, scene_of

_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _primitive(p) -> str:
    if isinstance(p, Box):
        attrs = [f'x="{_num(p.x)}" y="{_num(p.y)}" width="{_num(p.w)}" height="{_num(p.h)}"']
        if p.radius:
            attrs.append(f'rx="{_num(p.radius)}"')
        attrs.append(f'fill="{p.fill or "none"}"')
        if p.stroke:
            attrs.append(f'stroke="{p.stroke}" stroke-width="{_num(p.width)}"')
        return f"<rect {' '.join(attrs)}/>"
    if isinstance(p, Label):
        weight = ' font-weight="bold"' if p.bold else ""
        return (f'<text x="{_num(p.x)}" y="{_num(p.y)}" font-size="{_num(p.size)}" '
                f'fill="{p.fill}" text-anchor="{p.anchor}"{weight}>{escape(p.text)}</text>')
    if isinstance(p, Circle):
        return f'<circle cx="{_num(p.x)}" cy="{_num(p.y)}" r="{_num(p.r)}" fill="{p.fill}"/>'
    if isinstance(p, Polygon):
        points = " ".join(f"{_num(x)},{_num(y)}" for x, y in p.points)
        return f'<polygon points="{points}" fill="{p.fill}"/>'
    if isinstance(p, CardItem):
        classes = "card" + (" legal" if p.legal else "") + (" shown" if p.shown else "")
        data = f' data-card="{p.card}"' if p.card else ""
        inner = "".join(_primitive(q) for q in p.parts)
        return f'<g class="{classes}"{data} data-hand="{p.hand_index}">{inner}</g>'
    raise TypeError(f"unknown primitive {type(p).__name__}")


def scene_svg(scene: Scene) -> str:
    """The SVG text of ``scene`` (scalable; ``viewBox`` 0 0 1000 720)."""
    body = "".join(_primitive(p) for p in layout(scene))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
            f'width="{WIDTH}" height="{HEIGHT}" font-family="{_FONT}" role="img" '
            f'aria-label="{escape(scene.title)}: {escape(scene.headline)}">{body}</svg>')


def engine_svg(engine, game: int = 0, seat: int | None = None, face_up: bool = False) -> str:
    """The SVG of game ``game`` of ``engine`` as ``seat`` sees it (default the seat to
    act), or face up (see :func:`envs.table_view.scene_of`)."""
    return scene_svg(scene_of(engine, game, seat, face_up))


def write_svg(path: str | os.PathLike, engine, game: int = 0, seat: int | None = None,
              face_up: bool = False) -> None:
    """Write :func:`engine_svg` to ``path``."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(engine_svg(engine, game, seat, face_up))
