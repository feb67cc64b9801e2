"""What the web app offers: the games and their table options, the agents of each game,
and the policy checkpoints this server can see.

A ``policy:PATH`` agent is accepted only for a checkpoint in :meth:`Catalog.checkpoints`
(the committed defaults and ``*.pt`` files under the directories the server was started
with), never for an arbitrary path from a request. Policies load checkpoints that are read
without running code; with ``trust_pickle`` (``cardrl serve --trust-pickle``) they also
load the pickled ones (:data:`agents.policy.checkpoint.TRUST_PICKLE_HELP`).
"""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import agents
from envs import registry


def tables(game: str) -> dict[str, list]:
    """The table options offered for ``game`` and their choices, as its descriptor
    declares them (:attr:`envs.registry.Game.tables`)."""
    return {key: list(choices) for key, choices in registry.get(game).tables.items()}


def episodes(game: str) -> list[str]:
    """The episode choices of ``game``: one deal (round …), or a whole match."""
    return list(dict.fromkeys(registry.get(game).episodes.values())) or ["deal"]


def table_facts(game: str) -> dict:
    """What the page needs to lay out a table of ``game`` without knowing the game: the
    option that sets the seats and the seats of each of its choices, each option's
    default and label, what a click on one's own card does, and the button that starts
    the next game."""
    descriptor = registry.get(game)
    config = descriptor.load("config")
    defaults = {f.name: f.default for f in dataclasses.fields(config)
                if f.default is not dataclasses.MISSING}
    offered = tables(game)
    option = descriptor.table_option
    seats = {str(choice): registry.num_seats(game, **{option: choice})
             for choice in offered.get(option, [])}
    if not seats:
        seats = {"": registry.num_seats(game)}
    return {
        "table_option": option if option in offered else "",
        "seats": seats,
        "defaults": {key: defaults[key] if defaults.get(key) in choices else choices[0]
                     for key, choices in offered.items()},
        "labels": {key: descriptor.table_labels.get(key, key.replace("_", " ", 1))
                   for key in offered},
        "card_action": descriptor.card_action,
        "again": descriptor.again_label,
    }


class Catalog:
    """The games, agents and checkpoints offered, and agents built from their specs."""

    def __init__(self, checkpoint_dirs: list[str | Path] | None = None,
                 trust_pickle: bool = False):
        from agents.policy.agent import CHECKPOINT_DIR

        self.checkpoint_dirs = [Path(CHECKPOINT_DIR)] + [Path(d) for d in checkpoint_dirs or []]
        #: policies also load pickled checkpoints (set before the first policy is built)
        self.trust_pickle = trust_pickle
        self._policies: dict[tuple[str, str], object] = {}
        self._lock = threading.Lock()

    # -- what is offered -------------------------------------------------------------------
    def checkpoints(self) -> list[str]:
        """The ``.pt`` checkpoints this server can see (paths as offered, sorted)."""
        found = set()
        for folder in self.checkpoint_dirs:
            if folder.is_dir():
                found.update(str(p) for p in folder.rglob("*.pt") if p.is_file())
        return sorted(found)

    def describe(self) -> dict:
        """The catalogue as JSON-ready data (``GET /api/catalog``)."""
        games = {}
        for game in registry.GAMES:
            listing = agents.available(game)
            games[game] = {
                "title": registry.get(game).title,
                "tables": tables(game),
                "episodes": episodes(game),
                **table_facts(game),
                "agents": [{"spec": name, "summary": summary}
                           for name, summary in sorted(listing.items())],
            }
        return {"games": games,
                "checkpoints": [f"policy:{p}" for p in self.checkpoints()]}

    def options(self, game: str, table: dict) -> dict:
        """The engine options of a table chosen in the page (validated by the config):
        ``{"variant": ...}`` or ``{"num_players": ..., "scoring": ...}``, and
        ``"episode"``."""
        registry.get(game)
        if not isinstance(table, dict):
            raise ValueError("table must be an object of options")
        options = {}
        offered = tables(game)
        for key, choices in offered.items():
            if key in table:
                if table[key] not in choices:
                    raise ValueError(f"{key}={table[key]!r} is not offered: expected one of "
                                     f"{choices}")
                options[key] = table[key]
        choices = episodes(game)
        episode = table.get("episode", choices[0])
        if episode not in choices:
            raise ValueError(f"episode={episode!r}: expected one of {choices}")
        options["episode"] = "match" if episode == "match" else choices[0]
        extra = sorted(set(table) - set(offered) - {"episode"})
        if extra:
            raise ValueError(f"unknown table options {extra}: expected "
                             f"{sorted(offered) + ['episode']}")
        registry.make_config(game, **options)  # raises ValueError saying what is wrong
        return options

    # -- agents ------------------------------------------------------------------------------
    def check_spec(self, game: str, spec: object) -> str:
        """``spec`` if it names an agent of ``game`` this server offers, else ValueError."""
        if not isinstance(spec, str):
            raise ValueError(f"an agent must be a name like 'random', got {spec!r}")
        name, sep, path = spec.partition(":")
        if not sep:
            if spec not in agents.available(game):
                agents.registry.check_provided(spec, game)
                raise ValueError(f"unknown agent {spec!r} for {game}: expected one of "
                                 f"{sorted(agents.available(game))} or policy:PATH")
            return spec
        if name != "policy" or path not in self.checkpoints():
            raise ValueError(f"agent {spec!r} is not offered: policy:PATH must name one of "
                             f"the checkpoints of GET /api/catalog")
        return spec

    def check_table(self, game: str, spec: str, options: dict) -> str:
        """``spec`` checked, and for a policy: loaded, with a network for this table."""
        spec = self.check_spec(game, spec)
        if spec.startswith("policy"):
            agent = self.make_agent(game, spec)
            if not plays_options(agent, game, options):
                raise ValueError(f"{spec} has no network for this table ({options}): choose "
                                 "another agent or table")
        return spec

    def make_agent(self, game: str, spec: str, seed: int | None = None):
        """The agent of a checked ``spec``. Policies are loaded once and shared (they are
        memoryless and act greedily; :class:`SharedPolicy`); other agents are built per
        call."""
        spec = self.check_spec(game, spec)
        if not spec.startswith("policy"):
            return agents.make(spec, game, seed=seed)
        key = (game, spec)
        with self._lock:
            if key not in self._policies:
                self._policies[key] = SharedPolicy(agents.make_from_spec(
                    spec, game, trust_pickle=self.trust_pickle))
            return self._policies[key]

    def policy_for(self, game: str, spec: object, options: dict):
        """The policy agent named by a record's player ``spec``, if this server can load
        it and it plays these ``options``; else None (a spec that is not a string too)."""
        if not isinstance(spec, str) or not spec.startswith("policy"):
            return None
        try:
            agent = self.make_agent(game, spec)
        except (ValueError, OSError, RuntimeError):
            return None
        return agent if plays_options(agent, game, options) else None


class SharedPolicy:
    """A policy agent shared by every session, used by one request thread at a time (the
    app runs requests in threads, web.workers; its delegates keep random state). Anything
    else is read from the agent."""

    def __init__(self, agent):
        self._agent = agent
        self._lock = threading.Lock()

    def __getattr__(self, name: str):
        if name.startswith("__") or name in ("_agent", "_lock"):  # copy, pickle: not built
            raise AttributeError(name)
        return getattr(self._agent, name)

    def act(self, *args, **kwargs):
        with self._lock:
            return self._agent.act(*args, **kwargs)

    def act_batch(self, *args, **kwargs):
        with self._lock:
            return self._agent.act_batch(*args, **kwargs)

    def action_probabilities(self, *args, **kwargs):
        with self._lock:
            return self._agent.action_probabilities(*args, **kwargs)


def plays_options(agent, game: str, options: dict) -> bool:
    """Whether a policy agent has a network for the table of ``options``."""
    from agents.policy.agent import variant_key

    config = registry.make_config(game, **options)
    key = variant_key(game, dataclasses.asdict(config))
    return key in agent.routes
