"""The time of an ``rgb_array`` frame, the first of each episode included.

    python -m bench.render                    # every configuration, runs/bench_render/
    python -m bench.render --episodes 5 --out runs/my_render

Each configuration (Abracadabra's four variants, Four Aces with 3, 4 and 5 players) runs
in a fresh interpreter, so that its first frame pays whatever a first frame pays in a
new process: it times building the environment with ``render_mode="rgb_array"`` (which
prepares the pictures, :func:`envs.raster.warm_up`), then plays ``--episodes`` episodes
of random legal moves and times every ``env.render()``: one frame before each move and
one at the end. The report gives per configuration the build time, the first frame of
the first episode, the slowest first frame of the later ones, and the median, 99th
percentile and maximum of all frames; ``render.json`` holds every frame's time. Timings
depend on the machine and its load (the load average is in the report): this is a
benchmark, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

DEFAULT_OUT = Path("runs/bench_render")


def configurations() -> list[tuple[str, dict]]:
    """(game, env options) of every configuration measured: each choice of every game's
    table option (its descriptor's ``tables``), for the games that draw a scene."""
    from envs import registry

    return [(game, {registry.get(game).table_option: choice}) for game in registry.GAMES
            if registry.get(game).scene
            for choice in registry.get(game).tables.get(registry.get(game).table_option, ())]

#: the goal of every frame, in milliseconds
BUDGET_MS = 20.0


def frame_times(game: str, options: dict, episodes: int, seed: int) -> dict:
    """In this process: milliseconds to build the ``rgb_array`` environment (``build``) and
    of every ``render()`` of ``episodes`` random episodes (``frames``: one list per
    episode)."""
    import numpy as np

    from envs import registry

    # the engine's import and compiled kernels are not the picture's: load them first
    registry.make_engine(game, 1, **options)
    start = time.perf_counter()
    env = registry.make_env(game, render_mode="rgb_array", **options)
    build = (time.perf_counter() - start) * 1000
    rng = np.random.default_rng(seed)
    frames = []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        times = []
        for _ in env.agent_iter():
            start = time.perf_counter()
            env.render()
            times.append((time.perf_counter() - start) * 1000)
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        start = time.perf_counter()
        env.render()  # the table once the episode is over
        times.append((time.perf_counter() - start) * 1000)
        frames.append(times)
    return {"build": build, "frames": frames}


def measure(game: str, options: dict, episodes: int, seed: int) -> dict:
    """:func:`frame_times` run in a fresh interpreter."""
    code = ("import json, sys; from bench.render import frame_times; "
            f"print(json.dumps(frame_times({game!r}, {options!r}, {episodes}, {seed})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"bench.render: {game} {options} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(result: dict) -> dict:
    """The report's numbers (milliseconds) of one configuration's :func:`frame_times`."""
    import numpy as np

    frames = result["frames"]
    every = np.concatenate([np.asarray(f, float) for f in frames])
    return {
        "build": result["build"],
        "first": frames[0][0],
        "later_first": max((f[0] for f in frames[1:]), default=float("nan")),
        "median": float(np.median(every)),
        "p99": float(np.percentile(every, 99)),
        "max": float(every.max()),
        "frames": int(every.size),
        "over_budget": int((every > BUDGET_MS).sum()),
    }


def render_markdown(rows: list[tuple[str, dict]], command: str, load: float) -> str:
    """The report: one row per configuration."""
    lines = [
        "# rgb_array frame times",
        "",
        f"`{command}` — load average {load:.2f} when started, {os.cpu_count()} CPUs. "
        f"Milliseconds; goal: every frame ≤ {BUDGET_MS:.0f} ms.",
        "",
        "| configuration | build | first frame | later episodes' first (max) | median | p99 "
        "| max | frames | over the goal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, s in rows:
        lines.append(
            f"| {name} | {s['build']:.1f} | {s['first']:.1f} | {s['later_first']:.1f} | "
            f"{s['median']:.1f} | {s['p99']:.1f} | {s['max']:.1f} | {s['frames']} | "
            f"{s['over_budget']} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.render``: measure every configuration, write the report."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.render",
        description="Time every rgb_array frame (the first of each episode included) of "
                    "every configuration, each in a fresh interpreter.")
    parser.add_argument("--episodes", type=int, default=3,
                        help="random episodes per configuration (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the episodes")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"folder of render.md and render.json (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error(f"--episodes {args.episodes} is not allowed: expected an integer >= 1")
    argv = sys.argv[1:] if argv is None else argv
    load = os.getloadavg()[0]
    rows, raw = [], {}
    for game, options in configurations():
        name = f"{game} " + " ".join(f"{k}={v}" for k, v in options.items())
        result = measure(game, options, args.episodes, args.seed)
        raw[name] = result
        rows.append((name, summary(result)))
        print(f"{name}: first frame {rows[-1][1]['first']:.1f} ms, max "
              f"{rows[-1][1]['max']:.1f} ms", flush=True)
    command = "python -m bench.render " + " ".join(shlex.quote(a) for a in argv)
    report = render_markdown(rows, command.strip(), load)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "render.md").write_text(report)
    (args.out / "render.json").write_text(json.dumps(raw) + "\n")
    print(report, end="")
    print(f"wrote {args.out / 'render.md'} and {args.out / 'render.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
