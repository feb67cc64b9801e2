"""What the engines' compiled kernels cost before the first step, for ``cardrl bench``.

The kernels are compiled by numba on first use and cached on disk
(:mod:`envs.compiled`), so a fresh install pays the compilation once and every later
process loads machine code instead. :func:`measure_compile_cost` times both in fresh
interpreters that share one empty cache folder (``NUMBA_CACHE_DIR``, a temporary folder:
the cache beside the sources is neither read nor written):

* *cold*: the first process, as after a fresh install, compiling every kernel it uses;
* *warm*: a second process, loading what the first one cached.

Each process times the import of the engines, then per game (Abracadabra ``four``, Four
Aces 4 players) its first use: a batch engine of two games playing
:data:`FIRST_USE_STEPS` random steps with float32 and int8 observations, masks and
resets (the deal end and the next deal included), and the PettingZoo AEC environment
playing :data:`FIRST_USE_STEPS` of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def timed_games() -> list[tuple[str, dict]]:
    """The games whose first use is timed, with their engine options (each game's
    ``default_table``)."""
    from envs import registry

    return [(game, dict(registry.get(game).default_table)) for game in registry.GAMES]


#: random steps of each first use (enough for deals and rounds to end)
FIRST_USE_STEPS = 300


def first_use() -> dict[str, float]:
    """Run in a fresh interpreter: seconds of the engines' import, and per game of the
    batch engine's and the AEC environment's first :data:`FIRST_USE_STEPS` steps
    (keys ``import``, ``<game> engine``, ``<game> aec``)."""
    start = time.perf_counter()
    import numpy as np

    from envs import registry

    seconds = {"import": time.perf_counter() - start}
    from bench.loops import play_random  # (the engines are imported: not timed)

    for game, options in timed_games():
        start = time.perf_counter()
        engine = registry.make_engine(game, 2, **options)
        play_random(engine, FIRST_USE_STEPS, np.zeros((2, engine.observation_size), np.int8))
        seconds[f"{game} engine"] = time.perf_counter() - start
        start = time.perf_counter()
        env = registry.make_env(game, **options)
        env.reset(seed=0)
        for _ in env.agent_iter(FIRST_USE_STEPS):
            observation, _, termination, truncation, _ = env.last()
            done = termination or truncation
            env.step(None if done else int(np.flatnonzero(observation["action_mask"])[0]))
        seconds[f"{game} aec"] = time.perf_counter() - start
    return seconds


def measure_compile_cost() -> dict[str, dict[str, float]]:
    """``{"cold": seconds, "warm": seconds}``: :func:`first_use` in two fresh interpreters
    sharing one new, empty numba cache folder (see the module doc)."""
    root = Path(__file__).resolve().parent.parent
    code = "import json; from bench.compile_cost import first_use; print(json.dumps(first_use()))"
    result = {}
    with tempfile.TemporaryDirectory(prefix="cardrl-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for run in ("cold", "warm"):
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                 cwd=root, env=env, check=True)
            result[run] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def compile_section(cost: dict[str, dict[str, float]]) -> list[str]:
    """The report's Markdown section on ``cost`` (:func:`measure_compile_cost`)."""
    parts = list(cost["cold"])
    lines = [
        "",
        "## Compilation (first use on a fresh install, and after)",
        "",
        "Seconds before and during the first steps, in fresh interpreters sharing one new, "
        "empty numba cache folder (`bench.compile_cost`): *cold* is the first, which "
        "compiles every kernel it uses (a fresh install), *warm* the second, which loads "
        "the machine code the first one cached (every later process, the tests' "
        "included). *import*: importing the engines; *engine*: a batch engine of two "
        f"games playing its first {FIRST_USE_STEPS} random steps with float32 and int8 "
        f"observations, masks and resets; *aec*: the PettingZoo environment's first "
        f"{FIRST_USE_STEPS} steps, after the engine's.",
        "",
        "| run | " + " | ".join(parts) + " | total |",
        "|---|" + "---:|" * (len(parts) + 1),
    ]
    for run in ("cold", "warm"):
        row = cost[run]
        lines.append(f"| {run} | " + " | ".join(f"{row[p]:.2f}" for p in parts)
                     + f" | {sum(row.values()):.2f} |")
    return lines
