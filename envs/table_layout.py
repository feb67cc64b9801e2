"""Where everything of a :class:`~envs.table_view.Scene` goes on a picture.

:func:`layout` turns a scene into a flat list of drawing primitives (:class:`Box`,
:class:`Label`, :class:`Circle`, :class:`Polygon`, grouped per card in :class:`CardItem`)
on a :data:`WIDTH` x :data:`HEIGHT` canvas; :mod:`envs.svg` and :mod:`envs.raster` only
translate primitives, so both draw the same picture. Cards are drawn from shapes (suit
symbols are circles and polygons), nothing is loaded from files.

The seat seen from sits at the bottom; the others follow clockwise (the seat on one's
left comes next, docs/rules.md: play goes clockwise).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envs.cards import RANK_OF, SUIT_OF, parse_card
from envs.table_view import Scene, SeatView

WIDTH, HEIGHT = 1000, 720

FELT = "#1f6b3a"
SEAT_FILL = "#185a30"
INK = "#f4f4ec"
DIM = "#cfe3d3"
GOLD = "#ffd24a"
CARD_FILL = "#fdfdf8"
CARD_EDGE = "#555555"
RED = "#c8102e"
BLACK = "#151515"
BACK = "#2b4c8c"
LEGAL = "#ffb300"
SHOWN = "#ff7a1a"

BIG = (62, 88)  #: card size of the viewer's hand and of the centre
SMALL = (46, 64)  #: card size of the other hands


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float
    fill: str | None
    stroke: str | None = None
    width: float = 1.0
    radius: float = 0.0


@dataclass
class Label:
    x: float
    y: float  #: the baseline
    text: str
    size: float
    fill: str = INK
    anchor: str = "start"  #: "start" | "middle" | "end"
    bold: bool = False


@dataclass
class Circle:
    x: float
    y: float
    r: float
    fill: str


@dataclass
class Polygon:
    points: list[tuple[float, float]]
    fill: str


@dataclass
class CardItem:
    """One card: its primitives and what the web page needs to make it clickable."""

    card: str | None  #: None: face down
    x: float
    y: float
    w: float
    h: float
    hand_index: int  #: the hand holding it, -1 in the centre
    legal: bool = False
    shown: bool = False
    parts: list = field(default_factory=list)


# -- where the hands go ------------------------------------------------------------------
_REGIONS = {
    "bottom": (200, 540, 600, 172),
    "top": (250, 48, 500, 150),
    "top_left": (20, 48, 460, 150),
    "top_right": (520, 48, 460, 150),
    "left": (20, 222, 268, 236),
    "right": (712, 222, 268, 236),
}
_PLACES = {
    2: ("bottom", "top"),
    3: ("bottom", "top_left", "top_right"),
    4: ("bottom", "left", "top", "right"),
    5: ("bottom", "left", "top_left", "top_right", "right"),
}
CENTER = (500, 378)


def seat_regions(scene: Scene) -> dict[int, tuple[float, float, float, float]]:
    """hand index -> (x, y, w, h) of its place: the viewer (seat 0 face up) at the bottom,
    then clockwise."""
    n = len(scene.seats)
    bottom = scene.viewer if scene.viewer is not None else 0
    places = _PLACES[n]
    return {s.hand_index: _REGIONS[places[(s.hand_index - bottom) % n]] for s in scene.seats}


# -- cards ---------------------------------------------------------------------------------
def suit_shapes(suit: int, cx: float, cy: float, s: float, fill: str) -> list:
    """A suit symbol (0..3 = ♣ ♦ ♥ ♠) of half-height ``s`` centred on (cx, cy)."""
    if suit == 1:  # diamond
        return [Polygon([(cx, cy - s), (cx + 0.72 * s, cy), (cx, cy + s), (cx - 0.72 * s, cy)],
                        fill)]
    if suit == 2:  # heart
        return [Circle(cx - 0.45 * s, cy - 0.35 * s, 0.5 * s, fill),
                Circle(cx + 0.45 * s, cy - 0.35 * s, 0.5 * s, fill),
                Polygon([(cx - 0.94 * s, cy - 0.2 * s), (cx + 0.94 * s, cy - 0.2 * s),
                         (cx, cy + s)], fill)]
    if suit == 3:  # spade
        return [Circle(cx - 0.45 * s, cy + 0.22 * s, 0.5 * s, fill),
                Circle(cx + 0.45 * s, cy + 0.22 * s, 0.5 * s, fill),
                Polygon([(cx - 0.94 * s, cy + 0.08 * s), (cx + 0.94 * s, cy + 0.08 * s),
                         (cx, cy - s)], fill),
                Polygon([(cx, cy + 0.1 * s), (cx - 0.38 * s, cy + s), (cx + 0.38 * s, cy + s)],
                        fill)]
    # club
    return [Circle(cx, cy - 0.45 * s, 0.42 * s, fill),
            Circle(cx - 0.48 * s, cy + 0.12 * s, 0.42 * s, fill),
            Circle(cx + 0.48 * s, cy + 0.12 * s, 0.42 * s, fill),
            Polygon([(cx, cy), (cx - 0.34 * s, cy + s), (cx + 0.34 * s, cy + s)], fill)]


def _star(cx: float, cy: float, r: float, fill: str) -> Polygon:
    import math

    points = []
    for k in range(10):
        radius = r if k % 2 == 0 else r * 0.45
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return Polygon(points, fill)


def card_item(card: str | None, x: float, y: float, size: tuple[int, int], hand_index: int,
              legal: bool = False, shown: bool = False) -> CardItem:
    """A card at (x, y) (top-left; a legal card is raised) with its primitives."""
    w, h = size
    if legal:
        y -= 12
    edge, width = (LEGAL, 3.0) if legal else (SHOWN, 2.5) if shown else (CARD_EDGE, 1.0)
    if card is None:
        parts = [Box(x, y, w, h, BACK, edge if legal or shown else "#1b2f57", width, 5),
                 Box(x + 4, y + 4, w - 8, h - 8, None, "#9fb4e0", 1.0, 3)]
        return CardItem(None, x, y, w, h, hand_index, legal, shown, parts)
    parts = [Box(x, y, w, h, CARD_FILL, edge, width, 5)]
    c = parse_card(card)
    if c == 52:
        parts += [Label(x + 4, y + 0.24 * h, "JK", 0.2 * h, "#6a1b9a", bold=True),
                  _star(x + w / 2, y + 0.6 * h, 0.26 * h, "#6a1b9a")]
    else:
        suit = int(SUIT_OF[c])
        ink = RED if suit in (1, 2) else BLACK
        rank = "23456789TJQKA"[int(RANK_OF[c])]
        rank = "10" if rank == "T" else rank
        parts.append(Label(x + 4, y + 0.24 * h, rank, 0.22 * h, ink, bold=True))
        parts += suit_shapes(suit, x + 4 + 0.085 * h, y + 0.37 * h, 0.085 * h, ink)
        parts += suit_shapes(suit, x + w / 2 + 0.06 * w, y + 0.64 * h, 0.2 * h, ink)
    return CardItem(card, x, y, w, h, hand_index, legal, shown, parts)


def _row(cards: list, x: float, y: float, width: float, size: tuple[int, int],
         hand_index: int, legal: set, shown: set, center: bool = False) -> list[CardItem]:
    """Cards side by side from (x, y), overlapping as much as ``width`` needs."""
    if not cards:
        return []
    w = size[0]
    step = min(w + 4, (width - w) / max(len(cards) - 1, 1))
    if center:
        x += (width - (step * (len(cards) - 1) + w)) / 2
    return [card_item(c, x + k * step, y, size, hand_index, c in legal, c in shown)
            for k, c in enumerate(cards)]


def _seat(seat: SeatView, region: tuple, big: bool) -> list:
    x, y, w, h = region
    items: list = [Box(x, y, w, h, SEAT_FILL, GOLD if seat.to_act else "#2c7a49",
                       3.0 if seat.to_act else 1.0, 10)]
    name = seat.label + (" (you)" if seat.viewer else "")
    head = " · ".join([name, *seat.badges])
    items.append(Label(x + 10, y + 20, head, 15, GOLD if seat.to_act else INK, bold=True))
    items.append(Label(x + 10, y + 38, " · ".join(seat.facts), 13, DIM))
    size = BIG if big else SMALL
    legal, shown = set(seat.legal), set(seat.shown)
    top = y + 48 + (12 if big else 0)
    inner = w - 20
    hand = seat.hand
    if seat.table:  # Four Aces: table cards, then the hand
        if inner >= (size[0] + 4) * (len(seat.table) + len(hand)) + 24:
            table_width = size[0] * len(seat.table) + 4 * (len(seat.table) - 1)
            items += _row(seat.table, x + 10, top, table_width, size, -1, set(), set())
            items.append(Label(x + 10 + table_width / 2, top + size[1] + 13, "table", 11, DIM,
                               "middle"))
            items += _row(hand, x + 10 + table_width + 24, top, inner - table_width - 24, size,
                          seat.hand_index, legal, shown)
        else:
            items += _row(seat.table, x + 10, top, inner, size, -1, set(), set())
            items += _row(hand, x + 10, top + size[1] + 8, inner, size, seat.hand_index,
                          legal, shown)
        return items
    if len(hand) > 1 and (inner - size[0]) / (len(hand) - 1) < 22 and h > 2 * size[1] + 60:
        half = (len(hand) + 1) // 2  # two rows when one would hide the ranks
        items += _row(hand[:half], x + 10, top, inner, size, seat.hand_index, legal, shown)
        items += _row(hand[half:], x + 10, top + size[1] + 8, inner, size, seat.hand_index,
                      legal, shown)
    else:
        items += _row(hand, x + 10, top, inner, size, seat.hand_index, legal, shown)
    return items


def layout(scene: Scene) -> list:
    """The drawing primitives of ``scene``, back to front (see the module docstring)."""
    items: list = [Box(0, 0, WIDTH, HEIGHT, FELT)]
    items.append(Label(16, 30, scene.title, 20, INK, bold=True))
    items.append(Label(WIDTH - 16, 30, scene.headline, 16, GOLD, "end", bold=True))
    regions = seat_regions(scene)
    bottom = scene.viewer if scene.viewer is not None else 0
    for seat in scene.seats:
        items += _seat(seat, regions[seat.hand_index], big=seat.hand_index == bottom)
    cx, cy = CENTER
    items.append(Label(cx, 226, scene.center_title, 14, DIM, "middle", bold=True))
    w, h = BIG
    if scene.stock is not None:  # Four Aces: stock and discard pile
        if scene.stock:
            items.append(card_item(None, cx - 190, cy - h / 2, BIG, -1))
        else:
            items.append(Box(cx - 190, cy - h / 2, w, h, None, DIM, 1.0, 5))
        items.append(Label(cx - 190 + w / 2, cy + h / 2 + 18, f"stock {scene.stock}", 13, DIM,
                           "middle"))
        cards = [c for _, c in scene.center]
        items += _row(cards, cx - 90, cy - h / 2, 260, BIG, -1, set(), set())
    else:  # the current trick: each card pushed toward the hand that played it
        for hand, card in scene.center:
            rx, ry, rw, rh = regions[hand]
            px, py = rx + rw / 2, ry + rh / 2
            x = cx + 0.3 * (px - cx) - w / 2
            y = cy + 0.3 * (py - cy) - h / 2
            items.append(card_item(card, x, y, BIG, -1))
    for k, line in enumerate(scene.info):
        items.append(Label(20, 488 + 18 * k, line, 13, INK))
    for k, line in enumerate(scene.result[-3:]):
        items.append(Label(cx, 478 + 18 * k, line, 13, GOLD, "middle", bold=k == 0))
    return items
