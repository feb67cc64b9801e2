"""The games of this project, one descriptor each: the single list every layer reads.

>>> from envs import registry
>>> registry.GAMES
('abracadabra', 'four_aces')
>>> engine = registry.make_engine("abracadabra", batch_size=8, variant="three")  # doctest: +SKIP
>>> registry.num_seats("four_aces", num_players=5)
5

Each game declares its :class:`Game` itself (``envs/<game>/game.py``) and is added by
:func:`register`: the games of this repository from :data:`BUILT_IN`, any other from the
modules named in ``$CARDRL_GAMES`` (docs/adding-a-game.md). A :class:`Game` names its
pieces as ``"module:attribute"`` strings that are imported on first use, so that reading
the registry imports no engine (and no layer above ``envs`` is imported by it), and
declares what the layers above need (table options, scene, fuzz reference, search
rollouts, bench rows …); a capability left empty is refused in one line
(:meth:`Game.require`). ``options`` are the fields of the game's config and are validated
there. Agents register per game in :mod:`agents.registry`, keyed by these names.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Game:
    """Everything the layers above need to know about one game, declared by the game
    (``envs/<game>/game.py``). Pieces are ``"module:attribute"`` strings (or a module),
    imported on first use by :meth:`load`; an empty string or ``None`` is a capability the
    game does not provide, and :meth:`require` refuses it in one line."""

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
    #: the config option that picks the table size on the command line
    table_option: str = "variant"
    #: the table options people choose (the web app's forms), each with its choices in
    #: the order offered; the table option first
    tables: dict[str, tuple] = field(default_factory=dict)
    #: the label of a table option where it is not the option's name with spaces
    table_labels: dict[str, str] = field(default_factory=dict)
    #: a table's short name from its config options, ``str.format`` style
    #: (``"{variant}"``, ``"{num_players}p"``): how checkpoints and reports name tables
    table_key: str = "{variant}"
    #: the table every tool uses when none is named (bench, demo): config options
    default_table: dict = field(default_factory=dict)
    #: "module:function" ``(engine, game, seat, face_up) -> envs.table_view.Scene``
    scene: str | None = None
    #: module with the web app's result pieces: ``breakdown(engine, result, cards)``
    #: (``{"kind", "rows", "heading", "columns", "cells", "notes"}``), and optionally
    #: ``needs_state_before(engine)``, ``round_end_cards(engine_before, action)`` and
    #: ``step_mark(engine, scene, step)`` (a replay's marks)
    results: str | None = None
    #: what a click on one of one's own cards does in the web app: ``"<this>:<card>"``
    card_action: str = "play"
    #: the web app's button that starts the next game once one is over
    again_label: str = "Deal again"
    #: the fuzz: "module:function" listing its cases (``-> list[envs.fuzz.cases.FuzzCase]``)
    fuzz_cases: str | None = None
    #: the fuzz: "module:Class" of the reference checker (``Checker(engine)``)
    fuzz_checker: str | None = None
    #: the state field holding each game's 64-bit deal key (the fuzz reproduces with it)
    key_field: str = "key"
    #: the registered agent that is the game's strongest heuristic (ladder's reference)
    reference: str | None = None
    #: the agents of the ladder, weakest first
    ladder: tuple[str, ...] = ()
    #: the rollout policies its search agents may use (:mod:`agents.search.rollouts`);
    #: empty: the game provides no search rollouts (no ``pimc``)
    rollouts: tuple[str, ...] = ()
    #: the rollout used when none is named
    default_rollout: str | None = None
    #: the actions a network decides when a delegate heuristic plays the rest,
    #: ``(start, stop)`` (Abracadabra's bids), or None
    network_actions: tuple[int, int] | None = None
    #: the training config of the committed policy (the hint of a missing checkpoint)
    policy_config: str | None = None
    #: bench: the (label, config options) rows of the engine throughput benchmark
    bench_tables: tuple[tuple[str, dict], ...] = ()
    #: bench: the batch engine's target over OpenSpiel's bare steps/s per observation dtype
    bench_targets: dict[str, float] = field(default_factory=dict)
    #: bench: the heuristics of the entry-point tournament row
    bench_agents: tuple[str, ...] = ()
    #: bench: the training configs of the entry-point PPO rows
    bench_configs: tuple[str, ...] = ()
    #: ``cardrl demo``: (training config, table options, line-up beside the policy)
    demo: tuple[str, dict, tuple[str, ...]] | None = None
    #: ``cardrl exploit``: the full-play training recipe (a file of ``configs/``) a best
    #: response starts from, or None: the game provides no exploit recipe
    exploit_config: str | None = None
    #: learner decisions per training second assumed to space a run's evaluations when
    #: no interval is given (a rough figure for a busy 2-core machine)
    train_steps_per_second: int | None = None
    #: the pictures of :mod:`web.screenshots`: ``"table"`` (config options, random steps
    #: before the SVG picture), ``"play"`` (table chosen in the page, agents of the other
    #: seats, moves) and ``"replay"`` (table chosen in the page, the agents watched)
    screenshots: dict[str, tuple] = field(default_factory=dict)

    def load(self, what: str) -> Any:
        """The object named by one of the ``"module:attribute"`` fields (or a module)."""
        target = self.require(what)
        module_name, _, attribute = target.partition(":")
        module = importlib.import_module(module_name)
        return getattr(module, attribute) if attribute else module

    def require(self, what: str, capability: str | None = None):
        """The field ``what``; ``ValueError`` in one line when the game leaves it empty
        (``game X provides no <capability>``)."""
        value = getattr(self, what)
        if _empty(value):
            what = capability or what.replace("_", " ")
            raise ValueError(f"game {self.name!r} provides no {what}")
        return value

    def table_name(self, **options) -> str:
        """The short name of the table of config ``options`` (:attr:`table_key`), the
        config's defaults filling what is not given."""
        config = self.load("config")
        values = {f.name: f.default for f in dataclasses.fields(config)
                  if f.default is not dataclasses.MISSING}
        values.update(options)
        return self.table_key.format(**values)


def _empty(value: object) -> bool:
    """Whether a descriptor field is left empty (a capability the game does not provide)."""
    return value is None or (isinstance(value, (str, tuple, dict)) and not value)


_GAMES: dict[str, Game] = {}

#: the game names, in the order registered
GAMES: tuple[str, ...] = ()

#: the tournament's episode names ("deal" | "match") in each game's config terms
EPISODES: dict[str, dict[str, str]] = {}


def register(game: Game) -> Game:
    """Add ``game`` to the registry (the one call a game makes; the built-in games' own
    ``envs/<game>/game.py`` go through it too). A second game of the same name is a
    ``ValueError``."""
    global GAMES
    if not isinstance(game, Game):
        raise TypeError(f"register() takes an envs.registry.Game, got {type(game).__name__}")
    if game.name in _GAMES:
        raise ValueError(f"game {game.name!r} is registered already")
    _GAMES[game.name] = game
    GAMES = tuple(_GAMES)
    EPISODES[game.name] = game.episodes
    return game


def unregister(name: str) -> None:
    """Remove game ``name`` (tests that register a game for a while)."""
    global GAMES
    get(name)
    del _GAMES[name]
    EPISODES.pop(name, None)
    GAMES = tuple(_GAMES)


class Declared(Mapping):
    """A read-only ``{game: field}`` view of one descriptor field, over the games that
    declare it (a non-empty value), read when asked: ``Declared("rollouts")``; with
    ``load=True`` the values are the objects the ``"module:attribute"`` strings name."""

    def __init__(self, what: str, load: bool = False):
        self.what = what
        self.loads = load

    def __getitem__(self, game: str):
        value = getattr(_GAMES[game], self.what) if game in _GAMES else None
        if _empty(value):
            raise KeyError(game)
        return _GAMES[game].load(self.what) if self.loads else value

    def __iter__(self) -> Iterator[str]:
        return (name for name in GAMES if name in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, game: object) -> bool:
        try:
            self[game]  # type: ignore[index]
        except KeyError:
            return False
        return True


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


def _load(target: str) -> Any:
    """``"module:attribute"`` imported."""
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


#: the games of this repository: each package's descriptor (light modules: no engine)
BUILT_IN = ("envs.abracadabra.game:GAME", "envs.four_aces.game:GAME")
#: more games for this process: modules (comma-separated) that call :func:`register`
#: when imported, such as a game of one's own outside this repository
PLUGINS_VARIABLE = "CARDRL_GAMES"

for _target in BUILT_IN:
    register(_load(_target))
for _module in filter(None, os.environ.get(PLUGINS_VARIABLE, "").split(",")):
    importlib.import_module(_module.strip())
