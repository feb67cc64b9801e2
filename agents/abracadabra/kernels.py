"""Compiled kernels of the Abracadabra heuristics (numba, one row at a time, cached on
disk). Each computes exactly what the numpy expression it replaces computed (integer
counts), only without the temporaries of a batch expression."""

from __future__ import annotations

import numba
import numpy as np

from envs.cards import JOKER, NUM_RANKS


@numba.njit(cache=True)
def threats(in_play: np.ndarray, holder: np.ndarray, trump: np.ndarray,
            higher: np.ndarray, per_suit: np.ndarray) -> None:
    """For every row ``i``: the cards out (``in_play`` and not ``holder``, bool [N, 53])
    above each standard card in its suit into ``higher`` (int64 [N, 53]; the joker's
    entry 0), and the cards out per suit into ``per_suit`` (int64 [N, 4]). The joker out
    belongs to the trump suit ``trump[i]`` (0..3; -1: no trump) and is above all its
    cards (B3, E3)."""
    for i in range(in_play.shape[0]):
        t = trump[i]
        joker_out = t >= 0 and in_play[i, JOKER] and not holder[i, JOKER]
        for s in range(4):
            count = 1 if joker_out and s == t else 0  # cards out above, from the top
            for r in range(NUM_RANKS - 1, -1, -1):
                c = s * NUM_RANKS + r
                higher[i, c] = count
                if in_play[i, c] and not holder[i, c]:
                    count += 1
            per_suit[i, s] = count
        higher[i, JOKER] = 0


@numba.njit(cache=True)
def one_hot_indices(obs: np.ndarray, starts: np.ndarray, width: np.ndarray,
                    out: np.ndarray) -> None:
    """``out[i, j]`` (int64 [N, J]): the position in segment ``j`` (columns ``starts[j]``
    onwards, ``width[j]`` of them) of row ``i`` of ``obs`` (float32 [N, D]) of its first
    maximum (the first NaN, if any: as ``argmax``), where that entry is > 0.5, else -1:
    :meth:`agents.view.ObsView.index` of every segment at once."""
    for i in range(obs.shape[0]):
        for j in range(starts.shape[0]):
            c0 = starts[j]
            at = 0
            top = obs[i, c0]
            if not np.isnan(top):
                for k in range(1, width[j]):
                    x = obs[i, c0 + k]
                    if np.isnan(x):
                        at = k
                        top = x
                        break
                    if x > top:
                        at = k
                        top = x
            out[i, j] = at if top > 0.5 else -1
