"""The schedule of a duplicate-deal tournament: deal keys, line-ups, seat rotations, seeds.

This module is the tournament's determinism contract; every function here is a pure
function of its arguments.

**Duplicate deals.** Deal ``i`` has a 64-bit key derived from the tournament seed alone,
``SeedSequence(seed, spawn_key=(0, i)).generate_state(1, uint64)[0]``; the engines replay
the same cards (and, in match mode, the same sequence of deals) for the same key. Every
deal is played once under each of the P seat rotations of its line-up, so every agent of
the line-up holds every hand of the deal and the luck of the cards cancels.

**Line-ups.** With ``k`` agents and ``P`` seats, the line-up of deal ``i`` is a tuple of P
agent indices in line-up positions 0..P-1:

- ``k >= P``: the ``i mod C(k, P)``-th combination of P distinct agents, in the order of
  ``itertools.combinations(range(k), P)``. Over every ``C(k, P)`` consecutive deals each
  agent plays equally often and every pair of agents meets.
- ``k < P``: agents repeat: position ``j`` holds agent ``(i + j) mod k``. Over every ``k``
  consecutive deals each agent holds the same number of positions.

Under rotation ``r`` (0..P-1) line-up position ``j`` sits in seat ``(j + r) mod P``, i.e.
seat ``s`` holds line-up position ``(s - r) mod P``.

**Chunks and determinism.** Deals are played in chunks of ``chunk_size`` consecutive deals
(chunk ``c`` holds deals ``c*chunk_size ..``), all rotations of a chunk in one batch of
``chunk_size * P`` games (:mod:`arena.tournament.chunk`). Agents are built afresh for
every chunk with seed :func:`agent_seed`
(``SeedSequence(seed, spawn_key=(1, c, agent_index)).generate_state(1)[0]``). A chunk is
thus a pure function of (arguments, chunk index): the results do not depend on the number
of workers, the backend, or the order in which chunks finish (rows are sorted by deal).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np


def deal_keys(seed: int, deals: range) -> np.ndarray:
    """uint64 [len(deals)]: the key of each deal index (a pure function of seed and index)."""
    return np.array(
        [np.random.SeedSequence(seed, spawn_key=(0, i)).generate_state(1, np.uint64)[0]
         for i in deals],
        dtype=np.uint64,
    )  # fmt: skip


def agent_seed(seed: int, chunk: int, agent_index: int) -> int:
    """The seed of entrant ``agent_index`` for chunk ``chunk``."""
    ss = np.random.SeedSequence(seed, spawn_key=(1, chunk, agent_index))
    return int(ss.generate_state(1, np.uint64)[0])


@functools.lru_cache(maxsize=16)
def combinations(num_agents: int, num_seats: int) -> tuple[tuple[int, ...], ...]:
    """Every line-up of ``num_seats`` distinct agents, in ``itertools.combinations`` order."""
    return tuple(itertools.combinations(range(num_agents), num_seats))


def lineup(deal: int, num_agents: int, num_seats: int) -> tuple[int, ...]:
    """Agent indices of deal ``deal``'s line-up, by line-up position (module docstring)."""
    if num_agents >= num_seats:
        combos = combinations(num_agents, num_seats)
        return combos[deal % len(combos)]
    return tuple((deal + j) % num_agents for j in range(num_seats))


def lineup_period(num_agents: int, num_seats: int) -> int:
    """How many deals the line-ups take to repeat: ``lineup(d + period) == lineup(d)``."""
    if num_agents >= num_seats:
        return len(combinations(num_agents, num_seats))
    return num_agents


def seating(deal: int, rotation: int, num_agents: int, num_seats: int) -> tuple[int, ...]:
    """Agent index in each seat of (deal, rotation): seat s holds position (s - r) mod P."""
    up = lineup(deal, num_agents, num_seats)
    return tuple(up[(s - rotation) % num_seats] for s in range(num_seats))
