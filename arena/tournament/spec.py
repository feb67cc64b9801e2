"""A tournament's arguments: the entrant list, the validated spec, its command line.

A :class:`TournamentSpec` holds everything that determines a tournament's results; it is
stored as ``tournament.json`` (:mod:`arena.tournament.storage`) and compared on resume.
It also carries how the entrants are built where that does not change what they play
(:data:`BUILD_FIELDS`: ``trust_pickle``); those fields travel to the workers but are
neither stored nor compared, so a resume with or without them is the same tournament.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shlex
from dataclasses import dataclass

from agents.registry import is_policy_spec
from envs import registry

#: default number of deals in a chunk (a batch holds chunk_size * P games)
CHUNK_SIZE = 512
#: the most deals of a tournament (games.csv holds P * P rows a deal: at 5 seats about
#: 2.5 billion rows, tens of GB) and of a chunk (one batch of chunk_size * P games in memory)
MAX_DEALS = 100_000_000
MAX_CHUNK_SIZE = 65_536
#: bump when the meaning of stored results changes, so that old runs are not resumed
FORMAT_VERSION = 1
#: the ``cardrl tournament`` flag of each table option (``registry.Game.table_option``)
TABLE_FLAGS = {"variant": "--variant", "num_players": "--players"}
#: spec fields about how entrants are built, not about the results: not in tournament.json
BUILD_FIELDS = ("trust_pickle",)
#: agent keyword arguments the tournament sets itself (seeds derive from the tournament
#: seed; ``trust_pickle`` is the ``--trust-pickle`` flag)
RESERVED_KWARGS = ("seed", "trust_pickle")



def parse_agents(entries: list[str]) -> tuple[list[str], list[str]]:
    """(labels, registry names) of the agent list. An entry is ``name`` or ``label=name``
    (to enter the same agent twice with different kwargs); a name may be ``policy:PATH``
    (a trained checkpoint). Repeated labels get ``#2``,
    ``#3`` … so every entrant has its own label."""
    labels, names = [], []
    for entry in entries:
        label, _, name = entry.strip().rpartition("=")
        name = name.strip()
        label = label.strip() or name
        if not name:
            raise ValueError(f"empty agent name in {entries!r}")
        base, n = label, 2
        while label in labels:
            label, n = f"{base}#{n}", n + 1
        labels.append(label)
        names.append(name)
    return labels, names


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that determines a tournament's results (stored as tournament.json)."""

    game: str
    labels: tuple[str, ...]  # one per entrant, unique
    names: tuple[str, ...]  # registry name of each entrant
    deals: int
    seed: int
    options: dict  # every field of the game's config, episode included
    chunk_size: int
    agent_kwargs: dict  # label or name -> kwargs for agents.make
    version: int = FORMAT_VERSION
    #: policy entrants also load pickled checkpoints (``--trust-pickle``; a BUILD_FIELD)
    trust_pickle: bool = False

    @property
    def num_chunks(self) -> int:
        """How many chunks the deals fill (the last one may be short)."""
        return math.ceil(self.deals / self.chunk_size)

    @property
    def num_seats(self) -> int:
        """The seats of the game's table under these options."""
        return registry.num_seats(self.game, **self.options)

    def chunk_deals(self, chunk: int) -> range:
        """The deal indices of chunk ``chunk``."""
        start = chunk * self.chunk_size
        return range(start, min(self.deals, start + self.chunk_size))

    def entrant_kwargs(self, label: str, name: str) -> dict:
        """The keyword arguments of entrant ``label`` (registry name ``name``): its
        ``agent_kwargs`` by name, then by label, and ``trust_pickle`` for a policy."""
        kwargs = {**self.agent_kwargs.get(name, {}), **self.agent_kwargs.get(label, {})}
        if self.trust_pickle and is_policy_spec(name):
            kwargs["trust_pickle"] = True
        return kwargs

    def stored_json(self) -> dict:
        """The content of tournament.json: :meth:`to_json` without :data:`BUILD_FIELDS`."""
        return {k: v for k, v in self.to_json().items() if k not in BUILD_FIELDS}

    def to_json(self) -> dict:
        """The spec as JSON-ready data, every field (what the workers are sent)."""
        return {
            "game": self.game,
            "labels": list(self.labels),
            "names": list(self.names),
            "deals": self.deals,
            "seed": self.seed,
            "options": self.options,
            "chunk_size": self.chunk_size,
            "agent_kwargs": self.agent_kwargs,
            "version": self.version,
            "trust_pickle": self.trust_pickle,
        }

    @classmethod
    def from_json(cls, data: dict) -> TournamentSpec:
        """The spec of :meth:`to_json`'s (or :meth:`stored_json`'s) data."""
        data = dict(data)
        data["labels"] = tuple(data["labels"])
        data["names"] = tuple(data["names"])
        return cls(**data)


def make_spec(
    game: str,
    agent_names: list[str],
    deals: int,
    seed: int,
    options: dict | None = None,
    episode: str = "deal",
    agent_kwargs: dict | None = None,
    chunk_size: int = CHUNK_SIZE,
    trust_pickle: bool = False,
) -> TournamentSpec:
    """Validate the arguments of :func:`arena.tournament.run_tournament` and bundle them."""
    import agents

    episodes = registry.get(game).episodes  # checks the game name
    if episode not in episodes:
        raise ValueError(f"episode={episode!r} is not allowed: expected 'deal' or 'match'")
    if not isinstance(deals, int) or not 1 <= deals <= MAX_DEALS:
        raise ValueError(f"deals={deals!r} is not allowed: expected an integer "
                         f"1..{MAX_DEALS:,}")
    if not isinstance(chunk_size, int) or not 1 <= chunk_size <= MAX_CHUNK_SIZE:
        raise ValueError(f"chunk_size={chunk_size!r} is not allowed: expected an integer "
                         f"1..{MAX_CHUNK_SIZE:,}")
    labels, names = parse_agents(list(agent_names))
    if not labels:
        raise ValueError("a tournament needs at least one agent")
    known = agents.available(game)
    for name in names:
        if name not in known and not name.startswith("policy:"):
            agents.registry.check_provided(name, game)
            raise ValueError(f"unknown agent {name!r} for {game}: expected one of "
                             f"{sorted(known)} or policy:PATH")
    if not isinstance(trust_pickle, bool):
        raise ValueError(f"trust_pickle={trust_pickle!r} is not allowed: expected True or False")
    options = dict(options or {})
    if "episode" in options:
        raise ValueError("pass the episode as episode=..., not inside options")
    fields = [f.name for f in dataclasses.fields(registry.get(game).load("config"))]
    unknown = sorted(set(options) - set(fields))
    if unknown:
        raise ValueError(f"unknown {game} option(s) {unknown}: expected options among {fields}")
    options["episode"] = episodes[episode]
    # every config field, defaults included, so that equal games compare equal on resume
    options = dataclasses.asdict(registry.make_config(game, **options))
    kwargs = {key: dict(value) for key, value in (agent_kwargs or {}).items()}
    unknown = set(kwargs) - set(labels) - set(names)
    if unknown:
        raise ValueError(f"agent_kwargs for {sorted(unknown)}, which are not in the line-up")
    for agent, values in sorted(kwargs.items()):
        reserved = [key for key in RESERVED_KWARGS if key in values]
        if reserved:
            raise ValueError(f"agent_kwargs (--agent-arg) of {agent!r} set {reserved}: the "
                             "tournament sets them itself (agent seeds derive from the "
                             "tournament seed; pickled checkpoints load with "
                             "trust_pickle=True, --trust-pickle)")
    return TournamentSpec(
        game, tuple(labels), tuple(names), deals, int(seed), options, chunk_size, kwargs,
        trust_pickle=trust_pickle,
    )


def command_line(spec: TournamentSpec) -> str:
    """An equivalent ``cardrl tournament`` command for ``spec``."""
    # labels made by parse_agents for a repeated name ("random#2") are written as the name
    entries = [
        name if label == name or label.startswith(f"{name}#") else f"{label}={name}"
        for label, name in zip(spec.labels, spec.names, strict=True)
    ]
    words = ["cardrl", "tournament", "--game", spec.game, "--agents", ",".join(entries),
             "--deals", str(spec.deals), "--seed", str(spec.seed)]  # fmt: skip
    defaults = dataclasses.asdict(registry.make_config(spec.game))
    options = {key: value for key, value in spec.options.items() if value != defaults[key]}
    episode = spec.options["episode"]
    options.pop("episode", None)
    if episode == "match":
        words += ["--episode", "match"]
    table_option = registry.get(spec.game).table_option
    if table_option in options:
        words += [TABLE_FLAGS[table_option], str(options.pop(table_option))]
    for key, value in sorted(options.items()):
        text = value if isinstance(value, str) else json.dumps(value)
        words += ["--option", f"{key}={text}"]
    for agent, kwargs in sorted(spec.agent_kwargs.items()):
        for key, value in sorted(kwargs.items()):
            text = value if isinstance(value, str) else json.dumps(value)
            words += ["--agent-arg", f"{agent}.{key}={text}"]
    if spec.chunk_size != CHUNK_SIZE:
        words += ["--chunk-size", str(spec.chunk_size)]
    if spec.trust_pickle:
        words.append("--trust-pickle")
    return shlex.join(words)
