"""The games of this project, one descriptor each: the single list every layer reads.

>>> from envs import registry
>>> registry.GAMES
('abracadabra', 'four_aces')
>>> engine = registry.make_engine("abracadabra", batch_size=8, variant="three")  # doctest: +SKIP
>>> registry.num_seats("four_aces", num_players=5)
5

A :class:`Game` names its pieces as ``"module:attribute"`` strings that are imported on
first use, so that reading the registry imports no engine (and no layer above ``envs``
is imported by it). ``options`` are the fields of the game's config
(``AbracadabraConfig`` / ``FourAcesConfig``) and are validated there. Agents register
themselves per game in :mod:`agents.registry`, keyed by these names.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Game:
    """Everything the layers above need to know about one game."""

    name: str  #: the game's name on the command line and in records
    title: str  #: its name in prose
    config: str  #: "module:Class" of the frozen, validated config
    engine: str  #: "module:Class" of the batch engine
    env_module: str  #: the PettingZoo module (``env()``, ``raw_env()``)
    deal_io: str  #: module with ``deal_of``, ``start_record`` and ``next_deal`` (records)
    narration: str  #: module with the game's ``Narrator`` (records)
    deal_word: str  #: what one episode of ``episode="deal"`` is called: "deal" / "round"
    #: the tournament's episode names ("deal" | "match") in the config's terms
    episodes: dict[str, str] = field(default_factory=dict)
    #: the config option that picks the table size on the command line, and its choices
    table_option: str = "variant"

    def load(self, what: str) -> Any:
        """The object named by one of the ``"module:attribute"`` fields (or a module)."""
        target = getattr(self, what)
        module_name, _, attribute = target.partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, attribute) if attribute else module


_GAMES: dict[str, Game] = {
    game.name: game
    for game in (
        Game(
            name="abracadabra",
            title="Abracadabra",
            config="envs.abracadabra.config:AbracadabraConfig",
            engine="envs.abracadabra.engine:AbracadabraEngine",
            env_module="envs.abracadabra_v1",
            deal_io="envs.abracadabra.deal_io",
            narration="envs.abracadabra.narration",
            deal_word="deal",
            episodes={"deal": "deal", "match": "match"},
            table_option="variant",
        ),
        Game(
            name="four_aces",
            title="Four Aces",
            config="envs.four_aces.config:FourAcesConfig",
            engine="envs.four_aces.engine:FourAcesEngine",
            env_module="envs.four_aces_v0",
            deal_io="envs.four_aces.deal_io",
            narration="envs.four_aces.narration",
            deal_word="round",
            episodes={"deal": "round", "match": "match"},
            table_option="num_players",
        ),
    )
}

#: the game names, in a fixed order
GAMES: tuple[str, ...] = tuple(_GAMES)

#: the tournament's episode names ("deal" | "match") in each game's config terms
EPISODES: dict[str, dict[str, str]] = {name: game.episodes for name, game in _GAMES.items()}


def get(game: str) -> Game:
    """The descriptor of ``game``; an unknown name raises ``ValueError`` with the choices."""
    if game not in _GAMES:
        raise ValueError(f"unknown game {game!r}: expected one of {GAMES}")
    return _GAMES[game]


def make_config(game: str, **options):
    """The validated config of ``game`` built from ``options``; an option the game does not
    have raises ``ValueError`` listing the ones it has."""
    config_class = get(game).load("config")
    known = tuple(field.name for field in dataclasses.fields(config_class))
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"unknown option(s) {unknown} for {game}: expected some of {known}")
    return config_class(**options)


def make_engine(game: str, batch_size: int, **options):
    """A batch engine of ``batch_size`` games of ``game`` with config ``options``."""
    config = make_config(game, **options)
    return get(game).load("engine")(config, batch_size)


def make_env(game: str, **options):
    """The PettingZoo AEC environment of ``game`` (``env(**options)``, wrappers included)."""
    return get(game).load("env_module").env(**options)


def num_seats(game: str, **options) -> int:
    """The number of seats that act (agents at a table) under ``options``."""
    return int(make_config(game, **options).num_players)
