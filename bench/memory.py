"""Memory of the batch engines for ``cardrl bench``: state bytes per game, and the peak
memory of a batch while it plays, measured in a fresh interpreter.

* State bytes per game: the engine's numpy state arrays / batch size.
* Peak RSS growth: peak resident set (``VmHWM``) after play minus before the engine was
  built (includes temporaries).
* Peak traced: the ``tracemalloc`` peak over construction, reset and play.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from bench.loops import make_batch_engine, play_random

#: batch size of the peak-memory measurement (``--memory-batch``)
MEMORY_BATCH = 8192
#: steps of play in the peak-memory measurement
MEMORY_STEPS = 200


def state_nbytes(engine) -> int:
    """Bytes held by the engine's numpy state arrays (attributes, one level into any
    attribute object such as a state dataclass; constant tables shared by class are not
    instance attributes and are not counted)."""
    seen: set[int] = set()
    total = 0

    def arrays(obj):
        for value in vars(obj).values():
            if isinstance(value, np.ndarray):
                yield value
            elif hasattr(value, "__dict__") and not isinstance(value, type):
                yield from (v for v in vars(value).values() if isinstance(v, np.ndarray))

    for array in arrays(engine):
        if id(array) not in seen:
            seen.add(id(array))
            total += array.nbytes
    return total


def memory_child(game: str, variant: str, batch_size: int, steps: int) -> dict:
    """Run in a fresh interpreter: peak RSS growth and peak traced allocation of a batch
    of ``batch_size`` games constructed, reset and played ``steps`` steps."""
    import resource
    import tracemalloc

    def peak_rss() -> int:
        # VmHWM belongs to this process image; ru_maxrss would carry the parent's peak
        # across fork and exec on Linux
        try:
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

    make_batch_engine(game, variant, 1).reset(seed=0)  # imports and tables, not counted
    base_rss = peak_rss()
    engine = make_batch_engine(game, variant, batch_size)
    play_random(engine, steps)
    rss = peak_rss() - base_rss
    state = state_nbytes(engine)
    del engine
    tracemalloc.start()
    engine = make_batch_engine(game, variant, batch_size)
    play_random(engine, steps)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "game": game,
        "variant": variant,
        "batch": batch_size,
        "state_bytes_per_game": state / batch_size,
        "peak_rss_delta_bytes": rss,
        "peak_traced_bytes": peak,
    }


def measure_memory(game: str, variant: str, batch_size: int = MEMORY_BATCH) -> dict:
    """:func:`memory_child` in a subprocess (so that peaks are this batch's alone)."""
    code = (
        "import json; from bench.memory import memory_child; "
        f"print(json.dumps(memory_child({game!r}, {variant!r}, {batch_size}, {MEMORY_STEPS})))"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])
