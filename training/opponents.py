"""The opponent pool: who plays the seats the learner does not.

A pool is a weighted list of entries, written in the YAML configs as::

    opponents:
      - {name: heuristic, weight: 0.5}          # any registered agent (agents.make)
      - {name: random, weight: 0.1, kwargs: {}}  # kwargs go to agents.make
      - {name: self, weight: 0.2}                # the learner's current weights
      - {name: snapshot, weight: 0.2}            # a frozen past copy of the learner

At the start of every episode each non-learner seat of each game draws one entry by
weight (:meth:`OpponentPool.sample`). The pool turns entries into **actors**, numbered
from 0, each with a vectorised ``act_batch(obs [N, D], masks [N, A]) -> int64 [N]``:

======== ==========================================================================
0..K-1   the registered agents of the entries, in order (built once)
SELF     the learner itself (``set_self``); the trainer decides whether seats played by
         it are also trained on (batch PPO: ``train_self_seats``)
K+1..    snapshots, frozen copies of the learner added by ``add_snapshot`` (the last
         ``max_snapshots`` are kept); a ``snapshot`` entry picks one of them uniformly,
         or falls back to SELF while there is none yet
======== ==========================================================================

:meth:`OpponentPool.act` takes one actor id per row and calls each actor once on all of
its rows, so opponents are vectorised across games.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

#: reserved entry names that are not registered agents
SELF = "self"
SNAPSHOT = "snapshot"

ActFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class OpponentSpec:
    """One entry of the pool: ``name`` (an agent name, ``self`` or ``snapshot``), its
    sampling ``weight`` and the ``kwargs`` given to ``agents.make``."""

    name: str
    weight: float = 1.0
    kwargs: dict = field(default_factory=dict)


def parse_pool(entries: Sequence[dict | str]) -> list[OpponentSpec]:
    """Opponent specs from the config list (a bare string means weight 1)."""
    specs = []
    for entry in entries:
        if isinstance(entry, str):
            entry = {"name": entry}
        unknown = set(entry) - {"name", "weight", "kwargs"}
        if unknown or "name" not in entry:
            raise ValueError(f"opponent entry {entry!r}: expected keys name, weight, kwargs")
        spec = OpponentSpec(str(entry["name"]), float(entry.get("weight", 1.0)),
                            dict(entry.get("kwargs") or {}))
        if spec.weight < 0:
            raise ValueError(f"opponent {spec.name!r}: weight must be >= 0")
        specs.append(spec)
    if not specs or sum(s.weight for s in specs) <= 0:
        raise ValueError("the opponent pool needs at least one entry with a positive weight")
    return specs


class OpponentPool:
    """Actors for the non-learner seats, sampled per seat and episode, acting in batches."""

    def __init__(self, game: str, specs: Sequence[OpponentSpec], seed: int | None = None,
                 max_snapshots: int = 10):
        import agents

        self.game = game
        self.specs = list(specs)
        self.rng = np.random.default_rng(seed)
        self.max_snapshots = max_snapshots
        weights = np.array([s.weight for s in self.specs], dtype=np.float64)
        self.probs = weights / weights.sum()
        # actor 0..K-1: one agent per entry (None for self/snapshot entries)
        self.agents: list[object | None] = []
        for i, spec in enumerate(self.specs):
            if spec.name in (SELF, SNAPSHOT):
                self.agents.append(None)
            else:
                kwargs = {"seed": None if seed is None else seed + 1000 + i, **spec.kwargs}
                self.agents.append(agents.make(spec.name, game, **kwargs))
        self.self_id = len(self.specs)
        self.self_fn: ActFn | None = None
        self.snapshots: list[ActFn] = []

    # -- the learner and its snapshots ------------------------------------------------------
    @property
    def uses_self(self) -> bool:
        return any(s.name in (SELF, SNAPSHOT) and s.weight > 0 for s in self.specs)

    def set_self(self, act_fn: ActFn) -> None:
        """The learner's current policy, ``act_fn(obs, masks) -> actions``."""
        self.self_fn = act_fn

    def add_snapshot(self, act_fn: ActFn) -> None:
        """Add a frozen copy of the learner; the oldest goes beyond ``max_snapshots``."""
        self.snapshots.append(act_fn)
        del self.snapshots[: -self.max_snapshots]

    @property
    def num_actors(self) -> int:
        return self.self_id + 1 + len(self.snapshots)

    def actor_name(self, actor: int) -> str:
        if actor < self.self_id:
            return self.specs[actor].name
        return SELF if actor == self.self_id else f"snapshot{actor - self.self_id - 1}"

    # -- sampling and acting ----------------------------------------------------------------
    def sample(self, shape: int | tuple[int, ...]) -> np.ndarray:
        """int64 actor ids of the given shape, drawn by the entries' weights."""
        entry = self.rng.choice(len(self.specs), size=shape, p=self.probs)
        actors = entry.astype(np.int64)
        names = np.array([s.name for s in self.specs])[entry]
        actors[names == SELF] = self.self_id
        snap = names == SNAPSHOT
        if self.snapshots:
            pick = self.rng.integers(len(self.snapshots), size=int(snap.sum()))
            actors[snap] = self.self_id + 1 + pick
        else:
            actors[snap] = self.self_id
        return actors

    def _actor(self, actor: int) -> ActFn:
        if actor < self.self_id:
            return self.agents[actor].act_batch
        if actor == self.self_id:
            if self.self_fn is None:
                raise RuntimeError("the pool has 'self' opponents but set_self was not called")
            return self.self_fn
        return self.snapshots[actor - self.self_id - 1]

    def act(self, actors: np.ndarray, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """int64 [N]: row i played by actor ``actors[i]``; each actor is called once."""
        actions = np.zeros(len(actors), dtype=np.int64)
        for actor in np.unique(actors):
            rows = np.flatnonzero(actors == actor)
            actions[rows] = self._actor(int(actor))(observations[rows], masks[rows])
        return actions
