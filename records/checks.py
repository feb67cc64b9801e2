"""Checks of one game record's fields, each failure naming the field, what was found and
what was expected (:class:`RecordError`).

:func:`check_fields` checks the game-specific fields of a record before any replay (the
plain fields are :func:`records.format.check_record`'s): the options against the game's
config, every deal against the game's deal layout (``deal_layout`` of its ``deal_io``
module: the form of each field and the deck), the form and range of every action, and
that the engine lays out the first deal.
What only a replay can tell (an action illegal at its step, a result that differs) is
:mod:`records.replay`'s.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections import Counter

import numpy as np

from envs import registry
from envs.cards import CARD_NAMES, parse_card

#: the largest game key (keys are 64-bit unsigned)
MAX_KEY = 2**64 - 1

#: card name -> card index, for the names as the recorder writes them
_CARD_INDEX = {name: index for index, name in enumerate(CARD_NAMES)}

CARD_EXPECTED = "a card name such as \"TH\", \"AS\" or \"JK\""


class RecordError(ValueError):
    """One field of a record (``field``: its path such as ``deal.hands[1][4]``, or None
    for the record as a whole) that is not what a game record holds."""

    def __init__(self, field: str | None, found: str, expected: str | None = None):
        self.field = field
        text = found if expected is None else f"found {found}, expected {expected}"
        super().__init__(text if field is None else f"field {field}: {text}")


def shown(value: object, limit: int = 60) -> str:
    """``value`` as it reads in the file (JSON), cut to ``limit`` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_int(value: object) -> bool:
    """A JSON integer (``true``/``false`` are not)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_int_field(field: str, value: object, low: int, high: int) -> None:
    """Raise :class:`RecordError` unless ``value`` is an integer in ``low..high``."""
    if not is_int(value) or not low <= value <= high:
        raise RecordError(field, shown(value), f"an integer {low}..{high}")


def check_options(game: str, options: object) -> object:
    """The validated config of ``game`` built from a record's ``options``; raises
    :class:`RecordError` for options that are not an object, an option name the game does
    not have (saying when it is another game's) or a value its config refuses."""
    if not isinstance(options, dict):
        raise RecordError("options", shown(options), "an object of the game's options")
    names = _option_names(game)
    for name in options:
        if name not in names:
            hint = ""
            others = [g for g in registry.GAMES if g != game
                      and name in _option_names(g)]
            if others:
                hint = f" ({name!r} is an option of {others[0]}: is the game {others[0]}?)"
            raise RecordError(f"options.{name}", f"an option {game} does not have",
                              "options among " + ", ".join(names) + hint)
    try:
        return registry.make_config(game, **options)
    except (TypeError, ValueError, OverflowError) as err:
        text = str(err)
        named = [n for n in options if text.startswith(f"{n}=")]
        raise RecordError(f"options.{named[0]}" if named else "options", text) from None


def _option_names(game: str) -> list[str]:
    """The option names of ``game``'s config."""
    return [f.name for f in dataclasses.fields(registry.get(game).load("config"))]


def check_deal(game: str, config: object, deal: object, field: str = "deal") -> None:
    """Raise :class:`RecordError` unless ``deal`` has the form of a deal of ``config``'s
    table (the game's ``deal_layout``): every field there, of the right size, every card a
    known card of this table's deck and no card more often than the deck holds it."""
    layout, deck = registry.get(game).load("deal_io").deal_layout(config)
    if not isinstance(deal, dict):
        raise RecordError(field, shown(deal), "an object with " + ", ".join(layout))
    cards: list[tuple[str, object]] = []  # (field, card name) in deal order
    for name, form in layout.items():
        where = f"{field}.{name}"
        if name not in deal:
            raise RecordError(where, "nothing (the field is missing)", _describe(form))
        value = deal[name]
        kind = form[0]
        if kind == "seat":
            check_int_field(where, value, 0, form[1] - 1)
        elif kind == "rows":
            count, size = form[1], form[2]
            if not isinstance(value, list) or len(value) != count:
                raise RecordError(where, _size_of(value), _describe(form))
            for r, row in enumerate(value):
                if not isinstance(row, list) or len(row) != size:
                    raise RecordError(f"{where}[{r}]", _size_of(row), f"a list of {size} cards")
                cards += [(f"{where}[{r}][{k}]", card) for k, card in enumerate(row)]
        elif kind == "cards":
            if not isinstance(value, list) or len(value) != form[1]:
                raise RecordError(where, _size_of(value), _describe(form))
            cards += [(f"{where}[{k}]", card) for k, card in enumerate(value)]
        elif kind == "card_or_none":
            if value is not None:
                cards.append((where, value))
        else:  # pragma: no cover - a deal_layout written wrong
            raise ValueError(f"unknown deal field form {form!r}")
    _check_cards(cards, deck)


def _check_cards(cards: list[tuple[str, object]], deck: np.ndarray) -> None:
    """Every card a known card of ``deck``, none more often than ``deck`` holds it."""
    left = Counter(int(c) for c in deck)
    first: dict[int, str] = {}
    for where, text in cards:
        card = _CARD_INDEX.get(text) if isinstance(text, str) else None
        if card is None and isinstance(text, str):
            try:  # the other spellings the engine reads ("10h", "joker")
                card = parse_card(text)
            except ValueError:
                card = None
        if card is None:
            raise RecordError(where, shown(text), CARD_EXPECTED)
        if card not in first and left[card] == 0:
            raise RecordError(where, f"{shown(text)}, a card that is not in this table's deck",
                              f"a card of its {len(deck)}-card deck")
        if left[card] == 0:
            raise RecordError(where, f"{shown(text)} again (also at {first[card]})",
                              "every card of the deck once (each joker of the deck once)")
        left[card] -= 1
        first.setdefault(card, where)


def _size_of(value: object) -> str:
    """How a value that should be a list reads: "a list of 3" or the value itself."""
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return shown(value)


def _describe(form: tuple) -> str:
    """What a deal field of ``form`` holds, in words."""
    kind = form[0]
    if kind == "seat":
        return f"a seat 0..{form[1] - 1}"
    if kind == "rows":
        return f"a list of {form[1]} lists of {form[2]} cards"
    if kind == "cards":
        return f"a list of {form[1]} cards"
    return f"{CARD_EXPECTED} or null"


def check_actions(actions: object, num_players: int, action_names: tuple[str, ...]) -> None:
    """Raise :class:`RecordError` unless ``actions`` is a list of ``[seat, action name]``
    pairs with a seat of the table and a name the game knows."""
    if not isinstance(actions, list):
        raise RecordError("actions", shown(actions), "a list of [seat, action name] pairs")
    known = set(action_names)
    for k, action in enumerate(actions):
        where = f"actions[{k}]"
        if not isinstance(action, list) or len(action) != 2:
            raise RecordError(where, shown(action), "a [seat, action name] pair")
        seat, name = action
        check_int_field(f"{where}[0]", seat, 0, num_players - 1)
        if not isinstance(name, str) or name not in known:
            raise RecordError(f"{where}[1]", shown(name),
                              f"an action name of the game such as {shown(action_names[1])}")


@functools.lru_cache(maxsize=16)
def _engine(game: str, config) -> object:
    """A one-game engine of ``config``'s table, shared by the checks of records of that
    table (each check lays out its own first deal in it)."""
    return registry.get(game).load("engine")(config, 1)


def check_fields(record: dict) -> None:
    """Check a record's game-specific fields (``record["game"]`` is a known game): the
    options, the game key, every deal, the actions and the players; finally the first deal
    is laid out in an engine (what the engine refuses is a deal error too). Raises
    :class:`RecordError`."""
    game = record["game"]
    descriptor = registry.get(game)
    config = check_options(game, record["options"])
    key = record.get("game_key")
    if key is not None:
        check_int_field("game_key", key, 0, MAX_KEY)
    check_deal(game, config, record["deal"])
    later = record.get("later_deals")
    if later is not None:
        if not isinstance(later, list):
            raise RecordError("later_deals", shown(later), "a list of deals")
        for k, deal in enumerate(later):
            check_deal(game, config, deal, f"later_deals[{k}]")
    engine = _engine(game, config)
    players = engine.num_players
    check_actions(record["actions"], players, tuple(engine.action_names))
    seats = record.get("players")
    if seats is not None and (not isinstance(seats, list) or len(seats) != players):
        raise RecordError("players", _size_of(seats),
                          f"a list of {players} names (one per seat) or null")
    try:
        descriptor.load("deal_io").start_record(engine, record)
    except (TypeError, ValueError, OverflowError) as err:
        raise RecordError("deal", f"a deal the engine refuses: {err}") from None
