"""Where the limit is: the machine's copy bandwidth, and the bytes a batch row writes.

* **Copy bandwidth** (:func:`copy_bandwidth`): ``np.copyto`` of a large array (256 MiB by
  default, far beyond the caches) into a preallocated one of the same size, median of
  several copies. Counted as bytes read + bytes written per second (2 × the array size per
  copy), the convention of STREAM's *Copy* kernel.
* **Bytes written per agent-step** (:func:`step_bytes`): what a batch row hands the
  learner for one decision, i.e. one row of the observation buffer
  (``observation_size × itemsize`` of the row's dtype, written by ``observe(out=...)``)
  plus one row of the legal-action mask (``num_actions`` bools, one byte each, returned
  by ``legal_action_mask()``). Not counted: the engine's own state updates in ``step``,
  temporaries, and reads.
* **Achieved bandwidth** (:func:`achieved_bandwidth`): bytes per agent-step × agent-steps
  per second. Its share of the copy bandwidth says how close a row is to what the memory
  system can move; since the copy counts reads and writes and the row only its writes, a
  row that wrote at the machine's limit would show about 50-100% (write-only streams are
  often faster than half a copy).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

#: size of each of the two arrays of the copy measurement (``--copy-mib``)
COPY_MIB = 256
#: timed copies; the median is reported
COPY_REPEATS = 5
#: bytes of one legal-action mask entry (numpy bool)
MASK_ITEMSIZE = np.dtype(bool).itemsize


def copy_bandwidth(mib: float = COPY_MIB, repeats: int = COPY_REPEATS,
                   clock: Callable[[], float] = time.perf_counter) -> dict:
    """The machine's copy bandwidth: the median over ``repeats`` copies of a ``mib`` MiB
    array into a preallocated one, timed on ``clock``.

    Returns ``{"bytes": array size, "repeats", "seconds": median time of one copy,
    "bytes_per_s": 2 * bytes / seconds}`` (read + written, as STREAM's Copy counts)."""
    if not mib > 0:
        raise ValueError(f"copy size {mib!r} MiB: expected a size > 0")
    if not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"copy repeats {repeats!r}: expected an integer >= 1")
    nbytes = int(mib * 2**20)
    source = np.ones(nbytes, dtype=np.uint8)  # touched: no page faults inside the timing
    target = np.empty_like(source)
    np.copyto(target, source)  # first touch of the target, not timed
    times = []
    for _ in range(repeats):
        start = clock()
        np.copyto(target, source)
        times.append(clock() - start)
    seconds = max(statistics.median(times), 1e-9)
    return {"bytes": nbytes, "repeats": repeats, "seconds": seconds,
            "bytes_per_s": 2 * nbytes / seconds}


def step_bytes(observation_size: int, num_actions: int, obs_dtype: str) -> int:
    """Bytes written per agent-step by a batch row: one observation row of ``obs_dtype``
    (``observation_size`` entries) plus one bool mask row (``num_actions`` entries)."""
    if observation_size < 1 or num_actions < 1:
        raise ValueError(
            f"observation_size={observation_size!r}, num_actions={num_actions!r}: "
            "expected sizes >= 1"
        )
    return observation_size * np.dtype(obs_dtype).itemsize + num_actions * MASK_ITEMSIZE


def achieved_bandwidth(bytes_per_step: float, steps_per_s: float) -> float:
    """Bytes per second a row writes: bytes per agent-step × agent-steps per second."""
    return bytes_per_step * steps_per_s
