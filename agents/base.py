"""The one interface for everything that plays: random, heuristics, trained policies.

An agent sees only what its player may see: the environment's observation vector for the
acting seat and the legal-action mask. It never touches the engine's hidden state.

**Agents that search** (``needs_engine = True``, e.g. :mod:`agents.search`) are handed the
live engine instead: a driver that holds one (the tournament's chunks, ``bidbench``,
``cardrl play``) calls :meth:`Agent.act_engine` with the engine and the games where the
agent is to act, through :func:`act_grouped`. Such an agent learns the state only through
``engine.resample_many`` — complete worlds drawn among those consistent with what the
acting seat has seen — besides the current players and the legal-action masks; it never
reads the engine's state arrays. For every other agent :meth:`Agent.act_engine` observes
the current players and calls :meth:`Agent.act_batch`, so a driver may call it for all.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class Agent:
    """Base class of every agent.

    Subclasses implement :meth:`act_batch`; :meth:`act` is a batch of one. ``game`` is
    ``"abracadabra"`` or ``"four_aces"``; the variant is read from the observation.
    """

    #: registry name, set by :func:`agents.registry.register`
    name: str = "agent"
    #: one line on what the agent does, shown by ``cardrl agents``
    summary: str = ""
    #: True for agents that search on the engine: drivers call :meth:`act_engine`
    needs_engine: bool = False
    #: True for agents that also report their value of every action, ``search(engine,
    #: games) -> (actions, values)`` (what distillation relabels from, training/distill.py)
    reports_values: bool = False

    def __init__(self, game: str, seed: int | None = None):
        self.game = game
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for one observation (the environment's vector) and its mask."""
        actions = self.act_batch(observation[None, :], np.asarray(action_mask)[None, :])
        return int(actions[0])

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """int64 [N]: one legal action per row of ``observations`` [N, D] and
        ``action_masks`` [N, A] (bool or 0/1)."""
        raise NotImplementedError

    def act_engine(self, engine, games: np.ndarray) -> np.ndarray:
        """int64 [len(games)]: one action for the player to act in each of ``games`` (int
        indices into ``engine``'s batch, every one a live game).

        The hook of agents that search (``needs_engine``; module docstring): they read the
        state only through ``engine.resample_many``. This default observes the current
        players and calls :meth:`act_batch`."""
        games = np.asarray(games, dtype=np.intp)
        observations = engine.observe()[games]
        masks = engine.legal_action_mask()[games]
        return self.act_batch(observations, masks)

    def reset(self) -> None:
        """Forget per-game memory, if any (agents here are memoryless by default)."""


def sample_legal(rng: np.random.Generator, action_masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of ``action_masks`` (vectorised)."""
    masks = np.asarray(action_masks)
    # uniform [0, 1) noise plus 1 on the legal entries: the argmax is a uniform legal pick
    scores = rng.random(masks.shape, dtype=np.float32)
    np.add(scores, masks, out=scores, casting="unsafe")
    choice = scores.argmax(axis=1)
    if scores[np.arange(len(choice)), choice].min(initial=1.0) < 1.0:
        raise ValueError("a row of action_masks has no legal action: nothing to choose from")
    return choice.astype(np.int64)


def act_grouped(
    players: Sequence[Agent],
    who: np.ndarray,
    observations: np.ndarray,
    action_masks: np.ndarray,
    active: np.ndarray | None = None,
    engine=None,
) -> np.ndarray:
    """int64 [N]: row i's action chosen by ``players[who[i]]``, one ``act_batch`` call per
    player (in index order) over all its rows; rows where ``active`` is False get 0.

    Row i is game i of ``engine`` when one is given: a player with ``needs_engine`` then
    gets one :meth:`Agent.act_engine` call over its games instead (without an engine it
    cannot act: ``ValueError``)."""
    live = np.ones(len(who), dtype=bool) if active is None else np.asarray(active, dtype=bool)
    actions = np.zeros(len(who), dtype=np.int64)
    for index in np.unique(who[live]):
        rows = np.flatnonzero(live & (who == index))
        player = players[index]
        if getattr(player, "needs_engine", False):
            if engine is None:
                raise ValueError(f"agent {player.name!r} searches on the engine: this "
                                 "driver must pass engine= to act_grouped")
            actions[rows] = player.act_engine(engine, rows)
        else:
            actions[rows] = player.act_batch(observations[rows], action_masks[rows])
    return actions


class RandomAgent(Agent):
    """Uniformly random legal actions."""

    summary = "uniformly random legal action (the floor every agent must beat)"

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return sample_legal(self.rng, action_masks)
