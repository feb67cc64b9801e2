"""``cardrl bench``: throughput of our engines against OpenSpiel, measured in one run.

Every row plays uniformly random legal actions and, at every step, produces what a learner
needs: the observation of the player(s) to act and the legal-action mask. It reports

* agent-steps per second: decisions taken by players (a batch step of B live games is B
  agent-steps; chance events and bookkeeping are not counted), and
* deals per second: complete deals (Abracadabra) or rounds (Four Aces) per second.

Rows (``engine`` in the JSON records):

=====================  ==================================================================
engine                 what is timed
=====================  ==================================================================
batch                  the batch engine at each batch size: ``observe(out=buffer)``
                       (current players, written into one preallocated buffer, as
                       OpenSpiel's observer row does), ``legal_action_mask()``, a uniform
                       random legal action per game
                       (:func:`envs.core.sample_uniform_legal`), ``step``; finished games
                       are reset in place (``reset(games=engine.game_over)``). Two rows
                       per size (``obs`` in the records): the float32 observation, and
                       the int8 one (``observation_scale`` documents its per-column
                       scale; int8 * scale is the float32 observation)
aec                    the PettingZoo AEC environment ``env()`` (standard wrappers), one
                       game, as a user's loop runs it: ``agent_iter`` / ``last`` /
                       ``step``, the mask read from the observation dict, ``reset`` when
                       the episode is over
vecenv                 the stable-baselines3 ``VecEnv`` view (``training.vec_env``) where it
                       exists, against random opponents: ``action_masks()`` then ``step``.
                       Counts the learner's steps only (the opponents' moves, made inside
                       ``step``, are not counted), so it is not comparable one to one
openspiel_bare         OpenSpiel ``oh_hell(players=4,num_tricks_fixed=12)``:
                       ``legal_actions`` + ``apply_action`` only
openspiel_obs          the same plus the observation tensor at every decision. ``oh_hell``
                       implements no ``observation_tensor()`` (pyspiel raises
                       "unimplemented"), so this calls ``information_state_tensor()``, the
                       only tensor it provides (a Python list of 4644 floats)
openspiel_observer     the same with the preallocated observer of
                       ``open_spiel.python.observation.make_observation`` (information-
                       state type, the only one ``oh_hell`` provides): ``set_from`` into a
                       reused numpy buffer at every decision
=====================  ==================================================================

OpenSpiel chance nodes (dealer, the deal, the trump card) are sampled uniformly over
``chance_outcomes()``, which is their exact distribution in ``oh_hell``; only player
decisions count as agent-steps. The single-game loops (AEC, OpenSpiel) draw actions with
the same sampler (Python's ``random.Random`` over the legal ids); the batched loops use
:func:`envs.core.sample_uniform_legal` (exactly uniform, one random integer per game).

Each row runs a warm-up and then ``--repeats`` timed runs of ``--seconds`` each; the
figures are the medians, in one process. Memory is measured in subprocesses: state bytes
per game (the engine's numpy arrays / batch size) and the peak memory of a batch of 8192
games while it plays.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from envs.core import sample_uniform_legal

#: (game, variant label) -> engine/environment options
VARIANTS: dict[tuple[str, str], dict] = {
    ("abracadabra", "four"): {"variant": "four"},
    ("abracadabra", "two_dummy"): {"variant": "two_dummy"},
    ("four_aces", "3p"): {"num_players": 3},
    ("four_aces", "5p"): {"num_players": 5},
}
GAMES = ("abracadabra", "four_aces")
OPENSPIEL_GAME = "oh_hell(players=4,num_tricks_fixed=12)"
OPENSPIEL_MODES = ("openspiel_bare", "openspiel_obs", "openspiel_observer")
#: the issue's targets: batch engine at batch >= 1024 vs OpenSpiel bare steps/s
TARGETS = {"abracadabra": 5.0, "four_aces": 3.0}
TARGET_BATCH = 1024
MEMORY_BATCH = 8192
MEMORY_STEPS = 200
#: observation dtypes of the batch rows (--obs)
OBS_DTYPES = ("float32", "int8")
#: --clock choices: what a "second" is
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass
class Record:
    """One row of the benchmark (the ``--json`` record, plus the spread of the repeats)."""

    engine: str
    game: str
    variant: str
    batch: int
    steps_per_s: float
    games_per_s: float
    #: the observation produced: "float32" or "int8" for ours, "none" (OpenSpiel bare),
    #: "list" (information_state_tensor) or "float32" (OpenSpiel's observer)
    obs: str = "float32"
    runs_steps_per_s: list[float] = field(default_factory=list)

    def public(self) -> dict:
        d = asdict(self)
        del d["runs_steps_per_s"]
        return d


# -- what we measure: factories ------------------------------------------------------------
def make_batch_engine(game: str, variant: str, batch_size: int):
    """The batch engine of ``(game, variant)`` holding ``batch_size`` games."""
    options = VARIANTS[(game, variant)]
    if importlib.util.find_spec("envs.registry") is not None:
        from envs.registry import make_engine

        return make_engine(game, batch_size, **options)
    if game == "abracadabra":
        from envs.abracadabra.engine import AbracadabraConfig, AbracadabraEngine

        return AbracadabraEngine(AbracadabraConfig(**options), batch_size)
    from envs.four_aces.engine import FourAcesConfig, FourAcesEngine

    return FourAcesEngine(FourAcesConfig(**options), batch_size)


def make_aec_env(game: str, variant: str):
    """The PettingZoo AEC environment a user gets: ``<game>_v0.env(**options)``."""
    module = importlib.import_module(f"envs.{game}_v0")
    return module.env(**VARIANTS[(game, variant)])


def make_vec_env(game: str, variant: str, batch_size: int):
    """The stable-baselines3 VecEnv view of ``batch_size`` games, or None where the
    project has none yet. Adapting to its constructor is this one function."""
    if importlib.util.find_spec("training.vec_env") is None:
        return None
    vec_env = importlib.import_module("training.vec_env")
    factory = getattr(vec_env, "make_vec_env", None)
    if factory is None:
        return None
    return factory(game, batch_size, options=VARIANTS[(game, variant)], opponents=("random",))


# -- the timed loops -----------------------------------------------------------------------
# Each loop plays for ``seconds`` and returns (agent-steps, complete deals, elapsed seconds).
Loop = Callable[[float], tuple[int, int, float]]


def batch_loop(engine, seed: int = 0, clock: Callable[[], float] = time.perf_counter,
               obs: str = "float32") -> Loop:
    """Random play on a batch engine with observations (of dtype ``obs``) and masks at
    every step."""
    rng = np.random.default_rng(seed)
    engine.reset(seed=seed)
    observations = np.zeros((engine.batch_size, engine.observation_size), np.dtype(obs))

    def run(seconds: float) -> tuple[int, int, float]:
        # The games carry on from the previous run: with every game of a big batch
        # starting together, a fresh reset per run would time a transient.
        steps = deals = 0
        start = clock()
        while True:
            live = engine.batch_size - int(engine.game_over.sum())
            engine.observe(out=observations)
            mask = engine.legal_action_mask()
            engine.step(sample_uniform_legal(rng, mask))
            steps += live
            deal_over = getattr(engine, "deal_over", engine.game_over)
            deals += int(deal_over.sum())
            if engine.game_over.any():
                engine.reset(games=engine.game_over)
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, deals, elapsed

    return run


def aec_loop(env, seed: int = 0, clock: Callable[[], float] = time.perf_counter) -> Loop:
    """A user's PettingZoo loop: agent_iter / last / step, mask from the observation."""
    choose = random.Random(seed).choice

    def run(seconds: float) -> tuple[int, int, float]:
        env.reset(seed=seed)
        steps = deals = 0
        start = clock()
        while True:
            for _agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    action = None
                else:
                    action = choose(np.flatnonzero(observation["action_mask"]))
                    steps += 1
                env.step(action)
            deals += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, deals, elapsed
            env.reset()

    return run


def vec_env_loop(venv, seed: int = 0, clock: Callable[[], float] = time.perf_counter
                 ) -> Loop:
    """The SB3 VecEnv: masks from ``action_masks()``, one step for all its games."""
    rng = np.random.default_rng(seed)
    venv.seed(seed)
    venv.reset()

    def run(seconds: float) -> tuple[int, int, float]:
        steps = deals = 0
        start = clock()
        while True:
            masks = np.asarray(venv.action_masks())
            _, _, dones, _ = venv.step(sample_uniform_legal(rng, masks.astype(bool)))
            steps += venv.num_envs
            deals += int(np.sum(dones))
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, deals, elapsed

    return run


def openspiel_loop(mode: str, seed: int = 0,
                   clock: Callable[[], float] = time.perf_counter) -> Loop:
    """Random play of OpenSpiel's oh_hell in one of :data:`OPENSPIEL_MODES`."""
    import pyspiel

    game = pyspiel.load_game(OPENSPIEL_GAME)
    choose = random.Random(seed).choice
    observer = None
    if mode == "openspiel_observer":
        from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation

        observer = make_observation(game, INFO_STATE_OBS_TYPE)
    provides_obs = game.get_type().provides_observation_tensor

    def run(seconds: float) -> tuple[int, int, float]:
        steps = deals = 0
        start = clock()
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choose(state.chance_outcomes())[0])
                    continue
                if mode == "openspiel_obs":
                    if provides_obs:
                        state.observation_tensor()
                    else:
                        state.information_state_tensor()
                elif observer is not None:
                    observer.set_from(state, state.current_player())
                state.apply_action(choose(state.legal_actions()))
                steps += 1
            deals += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, deals, elapsed

    return run


def measure(
    loops: list[Loop], seconds: float, repeats: int, labels: list[str]
) -> list[tuple[list[float], float]]:
    """Per loop: steps/s of ``repeats`` timed runs after a warm-up, and deals per step.

    The runs are interleaved (pass 1 over all loops, then pass 2, …) so that a change in
    the machine's load during the benchmark affects every row, ours and OpenSpiel's, alike.
    Deals per step is over all runs, warm-up included: in a big batch deals end in bursts,
    so a short window's count of them is noisy, while deals/step is not.
    """
    rates: list[list[float]] = [[] for _ in loops]
    totals = [[0, 0] for _ in loops]
    for r in range(repeats):
        for i, loop in enumerate(loops):
            runs = [max(seconds / 2, 0.01), seconds] if r == 0 else [seconds]
            for length in runs:
                steps, deals, elapsed = loop(length)
                totals[i][0] += steps
                totals[i][1] += deals
            rates[i].append(steps / elapsed)
            print(
                f"pass {r + 1}/{repeats} [{i + 1:2d}/{len(loops)}] {labels[i]}: "
                f"{steps / elapsed:12,.0f} steps/s, {deals / elapsed:10,.1f} deals/s",
                flush=True,
            )
    return [(rate, deals / max(steps, 1)) for rate, (steps, deals) in zip(rates, totals,
                                                                           strict=True)]


# -- memory ---------------------------------------------------------------------------------
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

    def play(engine) -> None:
        rng = np.random.default_rng(0)
        engine.reset(seed=0)
        for _ in range(steps):
            engine.observe()
            engine.step(sample_uniform_legal(rng, engine.legal_action_mask()))
            if engine.game_over.any():
                engine.reset(games=engine.game_over)

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
    play(engine)
    rss = peak_rss() - base_rss
    state = state_nbytes(engine)
    del engine
    tracemalloc.start()
    engine = make_batch_engine(game, variant, batch_size)
    play(engine)
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
        "import json; from bench.engines import memory_child; "
        f"print(json.dumps(memory_child({game!r}, {variant!r}, {batch_size}, {MEMORY_STEPS})))"
    )
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- the report -----------------------------------------------------------------------------
def machine_info() -> dict:
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    info = {
        "platform": platform.platform(),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "open_spiel": _version("open_spiel"),
        "pettingzoo": _version("pettingzoo"),
    }
    if hasattr(os, "getloadavg"):
        info["loadavg"] = os.getloadavg()
    return info


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def _spread(r: Record) -> str:
    """(max - min) / median of the timed runs' steps/s."""
    runs = r.runs_steps_per_s
    return f"±{50 * (max(runs) - min(runs)) / r.steps_per_s:.0f}%" if len(runs) > 1 else "—"


def _ratio(ours: float, theirs: float | None) -> str:
    return f"{ours / theirs:.2f}×" if theirs else "—"


def render_markdown(
    records: list[Record],
    memory: list[dict],
    info: dict,
    command: str,
    notes: list[str],
    plot_name: str | None,
) -> str:
    os_rate = {r.engine: r.steps_per_s for r in records if r.engine in OPENSPIEL_MODES}
    bare, obs, observer = (os_rate.get(m) for m in OPENSPIEL_MODES)
    lines = [
        "# Throughput benchmark",
        "",
        "Uniformly random legal play; every step of ours produces the observation of the "
        "player(s) to act and the legal-action mask. Agent-steps/s count player decisions; "
        "deals/s count complete deals (Abracadabra) or rounds (Four Aces), as the median "
        "steps/s times the deals per step over all the row's runs. Median of the "
        "timed runs after a warm-up, one process (spread: half the range of the runs "
        "over the median). The batch rows write each step's observations into one "
        "preallocated buffer (`observe(out=...)`), exactly as the OpenSpiel observer "
        "row does with `set_from`: float32 (`obs` float32), or the int8 observation "
        "(`obs` int8: the same entries as integers, `int8 * engine.observation_scale` is "
        "the float32 observation; a quarter of the bytes); actions are drawn by "
        "`envs.core.sample_uniform_legal` (exactly uniform over the mask). The AEC rows "
        "return a fresh observation dict per `last()`, as PettingZoo expects. Ratios are "
        "our steps/s over OpenSpiel "
        f"`{OPENSPIEL_GAME}` measured in the same run: *bare* (apply_action only), *obs* "
        "(`information_state_tensor()` at every decision — oh_hell implements no "
        "`observation_tensor()`), *observer* (preallocated `make_observation(...).set_from`).",
        "",
        f"Command: `{command}`",
        "",
        "Clock: " + ("this process's CPU time (`--clock cpu`)." if info.get("clock") == "cpu"
                     else "wall time (elapsed)."),
        f"Machine: {info['platform']}; CPU {info['cpu']}; {info['cores']} cores "
        f"({info['usable_cores']} usable). Date: {info['date']}. Python {info['python']}, "
        f"numpy {info['numpy']}, pettingzoo {info['pettingzoo']}, "
        f"open_spiel {info['open_spiel']}.",
    ]
    if "loadavg_before" in info:
        before = ", ".join(f"{x:.2f}" for x in info["loadavg_before"])
        after = ", ".join(f"{x:.2f}" for x in info["loadavg_after"])
        lines.append(f"Load average (1, 5, 15 min) before the run: {before}; after: {after}.")
    lines += [""] + [f"Note: {n}" for n in notes] + ([""] if notes else [])
    lines += [
        "| engine | game | variant | batch | obs | agent-steps/s | deals/s "
        "| spread | × OS bare | × OS obs | × OS observer |",
        "|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        lines.append(
            f"| {r.engine} | {r.game} | {r.variant} | {r.batch} | {r.obs} "
            f"| {_fmt(r.steps_per_s)} "
            f"| {_fmt(r.games_per_s)} | {_spread(r)} | {_ratio(r.steps_per_s, bare)} "
            f"| {_ratio(r.steps_per_s, obs)} | {_ratio(r.steps_per_s, observer)} |"
        )
    lines += ["", "## Targets", ""]
    if bare:
        for game in dict.fromkeys(r.game for r in records if r.game in TARGETS):
            target = TARGETS[game]
            rows = [
                r for r in records
                if r.engine == "batch" and r.game == game and r.batch >= TARGET_BATCH
            ]
            if not rows:
                lines.append(f"- {game}: no batch size ≥ {TARGET_BATCH} was measured.")
            for variant, dtype in dict.fromkeys((r.variant, r.obs) for r in rows):
                best = max((r for r in rows if (r.variant, r.obs) == (variant, dtype)),
                           key=lambda r: r.steps_per_s)
                ratio = best.steps_per_s / bare
                verdict = "met" if ratio >= target else "NOT met"
                lines.append(
                    f"- {game} `{variant}` batch engine, {dtype} observations, best at batch "
                    f"≥ {TARGET_BATCH}: {ratio:.1f}× OpenSpiel bare (batch {best.batch}); "
                    f"target ≥ {target:g}×: {verdict}."
                )
        for r in records:
            if r.engine == "aec" and obs:
                verdict = "met" if r.steps_per_s >= obs else "NOT met"
                lines.append(
                    f"- {r.game} `{r.variant}` AEC: {r.steps_per_s / obs:.2f}× OpenSpiel obs "
                    f"(target ≥ 1×: {verdict}), {_ratio(r.steps_per_s, observer)} its "
                    "preallocated observer."
                )
    else:
        lines.append("- OpenSpiel was not measured in this run, so no ratios.")
    if memory:
        lines += [
            "",
            f"## Memory (batch of {memory[0]['batch']} games, {MEMORY_STEPS} steps of play "
            "with observations and masks)",
            "",
            "State bytes per game: the engine's numpy state arrays / batch size. Peak RSS "
            "growth: peak resident set (`VmHWM`) after play minus before the engine was "
            "built (fresh subprocess; includes temporaries). Peak traced: `tracemalloc` peak over "
            "construction, reset and play.",
            "",
            "| game | variant | state bytes/game | peak RSS growth | peak traced |",
            "|---|---|---:|---:|---:|",
        ]
        for m in memory:
            lines.append(
                f"| {m['game']} | {m['variant']} | {m['state_bytes_per_game']:,.0f} "
                f"| {m['peak_rss_delta_bytes'] / 2**20:,.1f} MiB "
                f"| {m['peak_traced_bytes'] / 2**20:,.1f} MiB |"
            )
    if plot_name:
        lines += ["", f"![agent-steps/s against batch size]({plot_name})"]
    return "\n".join(lines) + "\n"


def plot(records: list[Record], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.5))
    styles = {"batch": ("o", "-"), "vecenv": ("s", "--"), "aec": ("*", "")}
    for engine, (marker, line) in styles.items():
        keys = dict.fromkeys((r.game, r.variant, r.obs) for r in records if r.engine == engine)
        for game, variant, obs in keys:
            rows = sorted(
                (r for r in records
                 if (r.engine, r.game, r.variant, r.obs) == (engine, game, variant, obs)),
                key=lambda r: r.batch,
            )
            int8 = obs == "int8"
            ax.plot(
                [r.batch for r in rows],
                [r.steps_per_s for r in rows],
                marker=marker,
                linestyle=":" if int8 and line else line or "none",
                markersize=12 if engine == "aec" else 6,
                label=f"{engine}: {game} {variant}" + (" (int8 obs)" if int8 else ""),
            )
    colours = {"openspiel_bare": "black", "openspiel_obs": "grey", "openspiel_observer": "brown"}
    for r in records:
        if r.engine in OPENSPIEL_MODES:
            ax.axhline(r.steps_per_s, color=colours[r.engine], linestyle=":", label=r.engine)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("batch size (games per engine)")
    ax.set_ylabel("agent-steps per second")
    ax.set_title("Random play with observations and masks (OpenSpiel oh_hell as lines)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# -- the command ----------------------------------------------------------------------------
def _batch_sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--batch {text!r}: expected integers like 1,64,1024"
        ) from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"--batch {text!r}: sizes must be >= 1")
    return sizes


def _obs_dtypes(text: str) -> list[str]:
    dtypes = [x.strip() for x in text.split(",") if x.strip()]
    if not dtypes or any(d not in OBS_DTYPES for d in dtypes):
        raise argparse.ArgumentTypeError(
            f"--obs {text!r}: expected a comma-separated subset of {', '.join(OBS_DTYPES)}"
        )
    return list(dict.fromkeys(dtypes))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Throughput of random legal play with observations and masks at every step: "
        "the batch engines at each batch size, the PettingZoo AEC environments, the SB3 "
        "VecEnv view (where it exists) and OpenSpiel's oh_hell (when the [bench] extra "
        "is installed), with ratios to OpenSpiel, memory figures and a plot."
    )
    parser.add_argument(
        "--game",
        choices=(*GAMES, "all"),
        default="all",
        help="which game's rows to run (default: all). Abracadabra: variants four and "
        "two_dummy; Four Aces: 3 and 5 players",
    )
    parser.add_argument(
        "--batch",
        type=_batch_sizes,
        default=[1, 64, 1024, 8192],
        metavar="N,N,...",
        help="batch sizes of the batch engine and VecEnv rows (default: 1,64,1024,8192)",
    )
    parser.add_argument(
        "--seconds", type=float, default=2.0, metavar="S",
        help="length of each timed run in seconds (default: 2)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, metavar="R",
        help="timed runs per row after one warm-up; the median is reported (default: 3)",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("results/bench.md"), metavar="FILE",
        help="Markdown report; the plot is written beside it as FILE with suffix .png "
        "(default: results/bench.md)",
    )
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE",
        help="also write the figures as a JSON list of records "
        "{engine, game, variant, batch, steps_per_s, games_per_s}",
    )
    parser.add_argument(
        "--no-openspiel", action="store_true",
        help="skip the OpenSpiel rows (they are skipped anyway when open_spiel is missing)",
    )
    parser.add_argument(
        "--no-memory", action="store_true",
        help=f"skip the memory measurement (subprocesses with {MEMORY_BATCH}-game batches)",
    )
    parser.add_argument(
        "--memory-batch", type=int, default=MEMORY_BATCH, metavar="N",
        help=f"batch size of the peak-memory measurement (default: {MEMORY_BATCH})",
    )
    parser.add_argument(
        "--clock", choices=tuple(CLOCKS), default="wall",
        help="wall: elapsed time (default); cpu: this process's CPU time, steadier on a "
        "machine shared with other jobs",
    )
    parser.add_argument(
        "--obs", type=_obs_dtypes, default=list(OBS_DTYPES), metavar="DTYPE,...",
        help="observation dtypes of the batch-engine rows: float32 and/or int8 (the int8 "
        "observation times engine.observation_scale is the float32 one; default: both)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random play (default 0)")


def command_line(args: argparse.Namespace) -> str:
    """The canonical command that reproduces ``args``."""
    parts = [
        "cardrl bench",
        f"--game {args.game}",
        "--batch " + ",".join(str(b) for b in args.batch),
        f"--seconds {args.seconds:g}",
        f"--repeats {args.repeats}",
        f"--out {args.out}",
    ]
    if args.json:
        parts.append(f"--json {args.json}")
    if args.no_openspiel:
        parts.append("--no-openspiel")
    if args.no_memory:
        parts.append("--no-memory")
    elif args.memory_batch != MEMORY_BATCH:
        parts.append(f"--memory-batch {args.memory_batch}")
    if args.clock != "wall":
        parts.append(f"--clock {args.clock}")
    if args.obs != list(OBS_DTYPES):
        parts.append("--obs " + ",".join(args.obs))
    if args.seed:
        parts.append(f"--seed {args.seed}")
    return " ".join(parts)


def run(args: argparse.Namespace) -> int:
    if args.repeats < 1 or args.seconds <= 0:
        print("--repeats must be >= 1 and --seconds > 0", file=sys.stderr)
        return 2
    clock = CLOCKS[args.clock]
    games = GAMES if args.game == "all" else (args.game,)
    variants = [key for key in VARIANTS if key[0] in games]
    info = machine_info()
    info["date"] = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    info["loadavg_before"] = info.pop("loadavg", None)
    info["clock"] = args.clock
    notes: list[str] = []
    records: list[Record] = []
    # (engine, game, variant, batch, obs, factory of the timed loop or None)
    jobs: list[tuple[str, str, str, int, str, Callable[[], Loop | None]]] = []

    for game, variant in variants:
        for b in args.batch:
            for obs in args.obs:
                jobs.append(("batch", game, variant, b, obs,
                             lambda g=game, v=variant, b=b, o=obs: batch_loop(
                                 make_batch_engine(g, v, b), args.seed, clock, o)))
        jobs.append(("aec", game, variant, 1, "float32",
                     lambda g=game, v=variant: aec_loop(make_aec_env(g, v), args.seed, clock)))
        for b in args.batch:
            def vec(g=game, v=variant, b=b):
                venv = make_vec_env(g, v, b)
                return None if venv is None else vec_env_loop(venv, args.seed, clock)

            jobs.append(("vecenv", game, variant, b, "float32", vec))
    if args.no_openspiel:
        notes.append("OpenSpiel rows skipped (--no-openspiel).")
    elif importlib.util.find_spec("pyspiel") is None:
        notes.append(
            "OpenSpiel rows skipped: open_spiel is not installed "
            "(pip install -e '.[bench]')."
        )
    else:
        for mode, obs in zip(OPENSPIEL_MODES, ("none", "list", "float32"), strict=True):
            jobs.append((mode, "oh_hell", "players=4,num_tricks_fixed=12", 1, obs,
                         lambda m=mode: openspiel_loop(m, args.seed, clock)))

    if importlib.util.find_spec("training.vec_env") is None:
        notes.append("no VecEnv rows: training.vec_env does not exist yet.")
    start = time.perf_counter()
    rows, loops = [], []
    for engine, game, variant, b, obs, factory in jobs:
        loop = factory()
        if loop is not None:
            rows.append((engine, game, variant, b, obs))
            loops.append(loop)
    labels = [f"{e:18s} {g:11s} {v:14.14s} batch {b:5d} {o:7s}" for e, g, v, b, o in rows]
    rates = measure(loops, args.seconds, args.repeats, labels)
    for (engine, game, variant, b, obs), (step_rates, deals_per_step) in zip(rows, rates,
                                                                              strict=True):
        steps_per_s = statistics.median(step_rates)
        records.append(
            Record(engine, game, variant, b, steps_per_s, steps_per_s * deals_per_step,
                   obs, step_rates)
        )
    del loops

    memory: list[dict] = []
    if not args.no_memory:
        for game, variant in variants:
            m = measure_memory(game, variant, args.memory_batch)
            memory.append(m)
            print(
                f"memory {game} {variant}: {m['state_bytes_per_game']:,.0f} state bytes/game; "
                f"batch {args.memory_batch}: peak RSS "
                f"+{m['peak_rss_delta_bytes'] / 2**20:.1f} MiB, "
                f"traced {m['peak_traced_bytes'] / 2**20:.1f} MiB",
                flush=True,
            )
    info["loadavg_after"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    if info["loadavg_before"] is None:
        del info["loadavg_before"], info["loadavg_after"]
    print(f"benchmark took {time.perf_counter() - start:.0f} s", flush=True)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    png = args.out.with_suffix(".png")
    plot(records, png)
    text = render_markdown(records, memory, info, command_line(args), notes, png.name)
    args.out.write_text(text)
    print(f"wrote {args.out} and {png}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([r.public() for r in records], indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardrl bench")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
