"""One place mapping a game name to its config and batch engine.

>>> engine = make_engine("abracadabra", batch_size=8, variant="three")  # doctest: +SKIP
>>> num_seats("four_aces", num_players=5)  # doctest: +SKIP
5

``options`` are the fields of the game's config (``AbracadabraConfig`` /
``FourAcesConfig``) and are validated there. Engines are imported on first use.
"""

from __future__ import annotations

import importlib

#: game -> (config "module:Class", engine "module:Class")
GAMES: dict[str, tuple[str, str]] = {
    "abracadabra": (
        "envs.abracadabra.config:AbracadabraConfig",
        "envs.abracadabra.engine:AbracadabraEngine",
    ),
    "four_aces": (
        "envs.four_aces.config:FourAcesConfig",
        "envs.four_aces.engine:FourAcesEngine",
    ),
}

#: the tournament's episode names ("deal" | "match") in each game's config terms
EPISODES: dict[str, dict[str, str]] = {
    "abracadabra": {"deal": "deal", "match": "match"},
    "four_aces": {"deal": "round", "match": "match"},
}


def _load(target: str):
    module_name, name = target.split(":")
    return getattr(importlib.import_module(module_name), name)


def _check_game(game: str) -> None:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}: expected one of {tuple(GAMES)}")


def make_config(game: str, **options):
    """The validated config of ``game`` built from ``options``."""
    _check_game(game)
    return _load(GAMES[game][0])(**options)


def make_engine(game: str, batch_size: int, **options):
    """A batch engine of ``batch_size`` games of ``game`` with config ``options``."""
    config = make_config(game, **options)
    return _load(GAMES[game][1])(config, batch_size)


def num_seats(game: str, **options) -> int:
    """The number of seats that act (agents at a table) under ``options``."""
    return int(make_config(game, **options).num_players)
