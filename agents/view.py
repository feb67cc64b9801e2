"""Read observation batches by segment name (the engines' layouts are the interface).

Agents never touch engine state; they decode the observation vector through the game's
:class:`~envs.core.ObservationLayout`. This helper keeps that decoding short and uniform:

>>> from envs.abracadabra.observation import LAYOUT  # doctest: +SKIP
>>> view = ObsView(LAYOUT, observations)             # doctest: +SKIP
>>> view["hand"].shape                               # doctest: +SKIP
(N, 53)
>>> view.index("trump_suit")                         # argmax of a one-hot, -1 where all zero
"""

from __future__ import annotations

import numpy as np

from envs.core import ObservationLayout


class ObsView:
    """Named views of an observation batch ``[N, D]`` (a 1-d vector is a batch of one)."""

    def __init__(self, layout: ObservationLayout, observations: np.ndarray):
        obs = np.asarray(observations, dtype=np.float32)
        if obs.ndim == 1:
            obs = obs[None, :]
        if obs.shape[1] != layout.size:
            raise ValueError(
                f"observations have {obs.shape[1]} columns, the layout has {layout.size}"
            )
        self.layout = layout
        self.obs = obs
        self.n = obs.shape[0]

    def __getitem__(self, name: str) -> np.ndarray:
        """float32 [N, size] of segment ``name`` (a view, do not write)."""
        return self.obs[:, self.layout[name]]

    def blocks(self, name: str, count: int) -> np.ndarray:
        """Segment ``name`` split into ``count`` equal blocks: [N, count, size / count]."""
        return self[name].reshape(self.n, count, -1)

    def flag(self, name: str) -> np.ndarray:
        """bool [N, size]: entries of segment ``name`` that are set (> 0.5)."""
        return self[name] > 0.5

    def index(self, name: str) -> np.ndarray:
        """int64 [N]: the set position of a one-hot segment, -1 where none is set."""
        seg = self[name]
        return np.where(seg.max(axis=1) > 0.5, seg.argmax(axis=1), -1).astype(np.int64)

    def block_index(self, name: str, count: int) -> np.ndarray:
        """int64 [N, count]: per block, the set position of a one-hot, -1 where none."""
        seg = self.blocks(name, count)
        return np.where(seg.max(axis=2) > 0.5, seg.argmax(axis=2), -1).astype(np.int64)

    def scalar(self, name: str) -> np.ndarray:
        """float32 [N] of a one-entry segment."""
        return self[name][:, 0]
