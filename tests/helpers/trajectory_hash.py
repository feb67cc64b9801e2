"""A SHA-256 over everything a trajectory produced, to compare engines step for step.

The engines' kernel tests (``tests/envs/*/test_kernels.py``) hold hashes recorded from the
numpy engines the kernels replaced; the bytes hashed must stay exactly these.
"""

from __future__ import annotations

import hashlib

import numpy as np


class TrajectoryHash:
    """Feeds arrays (dtype name, then bytes) and engine states (each field's name, then
    the field) into one SHA-256."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def put(self, array: np.ndarray) -> None:
        """One array: its dtype's name and its C-ordered bytes."""
        self._hash.update(str(array.dtype).encode())
        self._hash.update(np.ascontiguousarray(array).tobytes())

    def put_state(self, engine) -> None:
        """Every state array of ``engine``, in the order of their names."""
        for name, value in sorted(engine.state.arrays().items()):
            self._hash.update(name.encode())
            self.put(value)

    def hexdigest(self) -> str:
        return self._hash.hexdigest()
