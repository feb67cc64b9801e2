"""A card table as plain data: what one seat sees of a game, or every card face up.

A :class:`Scene` is built from an engine by the game's ``scene`` module
(:mod:`envs.abracadabra.scene`, :mod:`envs.four_aces.scene`) and drawn by
:mod:`envs.svg` (SVG text) and :mod:`envs.raster` (an RGB array, PettingZoo's
``render_mode="rgb_array"``); both draw the same :mod:`envs.table_layout`. Cards are card
strings (``"QS"``, ``"TH"``, ``"JK"``, :mod:`envs.cards`); a card the viewer may not see is
``None`` (drawn face down).

>>> from envs import registry
>>> engine = registry.make_engine("four_aces", 1, num_players=3)
>>> engine.reset(seed=1)
>>> scene = scene_of(engine, seat=0)
>>> [s.label for s in scene.seats]
['player_0', 'player_1', 'player_2']
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from envs import registry

#: game -> "module:function" building its scene: ``(engine, game, seat, face_up) -> Scene``,
#: as each game's descriptor declares it (:attr:`envs.registry.Game.scene`)
SCENE_BUILDERS = registry.Declared("scene")


@dataclass
class SeatView:
    """One hand at the table (a seat, or Abracadabra's dummy)."""

    hand_index: int  #: the seat, or the dummy's hand index (= number of players)
    label: str  #: "player_0", "dummy"
    hand: list[str | None]  #: the hand in display order; None: a card face down
    table: list[str] = field(default_factory=list)  #: face-up cards before it (Four Aces)
    shown: list[str] = field(default_factory=list)  #: cards of the hand shown to all (D1)
    facts: list[str] = field(default_factory=list)  #: short facts: "bid 3", "tricks 2"
    badges: list[str] = field(default_factory=list)  #: "dealer", "declarer", "called" …
    to_act: bool = False  #: this hand's decision is being made now
    viewer: bool = False  #: the seat the scene is seen from
    legal: list[str] = field(default_factory=list)  #: cards of this hand the viewer may
    #: choose now (its actions are in Scene.card_actions)


@dataclass
class Scene:
    """A whole table, ready to draw (see the module docstring)."""

    game: str  #: registry name
    title: str  #: "Abracadabra (three)"
    headline: str  #: "Deal 1 · bidding · player_1 to act"
    phase: str  #: the engine's phase name ("bid", "play", "turn", "over" …)
    seats: list[SeatView]  #: every hand, in hand order (the dummy last)
    center_title: str  #: "Trick 3, led by player_0" / "Discard pile (12 cards)"
    #: the centre cards: (hand index that played it, card) of the current trick, or
    #: (-1, card) for the top cards of the discard pile, bottom first
    center: list[tuple[int, str]]
    info: list[str]  #: lines beside the centre: trump, target, pot, stock …
    stock: int | None = None  #: cards left in a face-down stock to draw (Four Aces)
    viewer: int | None = None  #: seat seen from (None: face up, seat 0 at the bottom)
    face_up: bool = False  #: every card is shown
    to_act: int = -1  #: the seat to act, -1 when over
    #: card -> action name for a click on that card now ("play:QS", "discard:7D")
    card_actions: dict[str, str] = field(default_factory=dict)
    result: list[str] = field(default_factory=list)  #: the last deal's result, in words

    def to_dict(self) -> dict:
        """The scene as JSON-ready plain data."""
        return dataclasses.asdict(self)


def game_of(engine) -> str:
    """The registry name of ``engine``'s game (by its engine class)."""
    for name in registry.GAMES:
        if isinstance(engine, registry.get(name).load("engine")):
            return name
    raise ValueError(f"{type(engine).__name__} is not the engine of a registered game")


def scene_of(engine, game: int = 0, seat: int | None = None, face_up: bool = False) -> Scene:
    """The :class:`Scene` of game ``game`` of ``engine`` seen from ``seat`` (default: the
    seat to act, seat 0 once over), or with every card face up (``face_up``; then
    ``seat`` only chooses who sits at the bottom)."""
    build = registry.get(game_of(engine)).load("scene")  # or "game X provides no scene"
    if seat is None and not face_up:
        seat = max(int(engine.current_player[game]), 0)
    return build(engine, game, seat, face_up)
