"""The throughput benchmark behind ``cardrl bench``: our engines against OpenSpiel, measured
in one run (:func:`run_bench`).

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
vecenv                 the stable-baselines3 ``VecEnv`` view (``training.vec_env``, with the
                       ``[train]`` extra), against random opponents: ``action_masks()``
                       then ``step``.
                       Counts the learner's steps only (the opponents' moves, made inside
                       ``step``, are not counted), so it is not comparable one to one
seat                   the single-agent seat view of training (``training.seat_env.SeatEnv``,
                       one game, random opponents); learner steps only
                       (:mod:`bench.entry_points`)
tournament, ppo        with ``entry_points``: a tournament of heuristics and batch-PPO
                       training iterations with their time split (:mod:`bench.entry_points`)
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
figures are the medians, in one process. Every timed run follows a short run of each
OpenSpiel loop (:data:`bench.loops.REFERENCE_SHARE` of its length), and a row's ratios to OpenSpiel
are the medians of its runs' rates over those runs' (paired: the VM's drift within
minutes cancels). Memory is measured in subprocesses: state bytes
per game (the engine's numpy arrays / batch size) and the peak memory of a batch of 8192
games while it plays.

Where the limit is (:mod:`bench.bandwidth`): the machine's copy bandwidth is measured once
per run (``np.copyto`` of a large array, bytes read + written per second), and every batch
row carries the bytes it writes per agent-step (observation row + mask row), so the report
shows its achieved bandwidth as a share of the copy bandwidth. Where the time goes: the
batch rows at the smallest and largest batch size are timed once more call by call
(:func:`bench.loops.batch_time_split`: observe, mask, sampler, step, reset, in ns per
agent-step), next to the time per agent-step the throughput goals allow.

Modules: :mod:`bench.loops` (the games, the timed loops and the timer),
:mod:`bench.entry_points` (seat view, tournament and PPO rows), :mod:`bench.openspiel` (the
OpenSpiel rows), :mod:`bench.bandwidth` (copy bandwidth, bytes per step),
:mod:`bench.memory` (the memory figures), :mod:`bench.compile_cost` (the compilation's
cost on a fresh install and after),
:mod:`bench.report` (records, Markdown, plot, JSON); the command line is :mod:`cli.bench`.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bench import entry_points, openspiel
from bench.bandwidth import COPY_MIB, copy_bandwidth, step_bytes
from bench.compile_cost import measure_compile_cost
from bench.loops import (
    CLOCKS,
    VARIANTS,
    Loop,
    aec_loop,
    batch_loop,
    batch_time_split,
    make_aec_env,
    make_batch_engine,
    make_vec_env,
    measure,
    variants,
    vec_env_available,
    vec_env_loop,
)
from bench.memory import MEMORY_BATCH, measure_memory
from bench.report import TARGET_BATCH, Record
from records.provenance import machine_info, utc_now


@dataclass
class BenchResult:
    """What one benchmark run measured, ready for :func:`bench.report.write_report`."""

    records: list[Record]  #: one per timed row, in the order they ran
    memory: list[dict]  #: one per (game, variant), from :func:`bench.memory.measure_memory`
    info: dict  #: machine, date, clock and load averages for the report header
    notes: list[str] = field(default_factory=list)  #: rows skipped, and why


def run_bench(
    games: Sequence[str],
    batch_sizes: Sequence[int],
    obs_dtypes: Sequence[str],
    *,
    seconds: float,
    repeats: int,
    clock: str = "wall",
    seed: int = 0,
    with_openspiel: bool = True,
    memory_batch: int | None = MEMORY_BATCH,
    copy_mib: float | None = COPY_MIB,
    with_entry_points: bool = False,
    tournament_deals: int = entry_points.TOURNAMENT_DEALS,
    ppo_games: int | None = None,
    ppo_threads: int = entry_points.PPO_THREADS,
    with_compile_cost: bool = True,
) -> BenchResult:
    """Time every row of ``games`` (their :data:`bench.loops.VARIANTS`) at ``batch_sizes``
    with the observation dtypes ``obs_dtypes``, plus OpenSpiel's rows when
    ``with_openspiel`` and open_spiel is installed, for ``repeats`` runs of ``seconds``
    each on ``clock`` (a key of :data:`bench.loops.CLOCKS`); then the memory figures at
    ``memory_batch`` games (None: skipped). The seat-view rows always run; with
    ``with_entry_points`` also a tournament of heuristics per game (``tournament_deals``
    dealt keys) and batch-PPO training per config of
    :data:`bench.entry_points.PPO_CONFIGS` (``ppo_games`` games instead of the config's,
    if given) on ``ppo_threads`` torch threads. The copy bandwidth is measured first on a
    ``copy_mib`` MiB array (None: skipped). With ``with_compile_cost``, the seconds of
    the engines' first use with an empty and with a filled compilation cache
    (:func:`bench.compile_cost.measure_compile_cost`, in ``info["compile_cost"]``).
    Prints its progress."""
    timer = CLOCKS[clock]
    rows_to_run = variants(games)
    info = machine_info()
    info["date"] = utc_now()
    info["loadavg_before"] = info.pop("loadavg", None)
    info["clock"] = clock
    notes: list[str] = []
    records: list[Record] = []
    # (engine, game, variant, batch, obs, factory of the timed loop or None)
    jobs: list[tuple[str, str, str, int, str, Callable[[], Loop | None]]] = []

    for game, variant in rows_to_run:
        for b in batch_sizes:
            for obs in obs_dtypes:
                jobs.append(("batch", game, variant, b, obs,
                             lambda g=game, v=variant, b=b, o=obs: batch_loop(
                                 make_batch_engine(g, v, b), seed, timer, o)))
        jobs.append(("aec", game, variant, 1, "float32",
                     lambda g=game, v=variant: aec_loop(make_aec_env(g, v), seed, timer)))
        for b in batch_sizes:
            def vec(g=game, v=variant, b=b):
                venv = make_vec_env(g, v, b)
                return None if venv is None else vec_env_loop(venv, seed, timer)

            jobs.append(("vecenv", game, variant, b, "float32", vec))
        jobs.append(("seat", game, variant, 1, "float32",
                     lambda g=game, v=variant: entry_points.seat_loop(
                         g, VARIANTS[(g, v)], seed, timer)))
    ppo_ok = entry_points.ppo_available()
    if with_entry_points and not ppo_ok:
        notes.append("no PPO rows: torch is not installed (pip install -e '.[train]').")
    if with_entry_points:
        for game in dict.fromkeys(g for g, _ in rows_to_run):
            jobs.append(("tournament", game, entry_points.table_label(game),
                         tournament_deals, "float32",
                         lambda g=game: entry_points.tournament_loop(
                             g, tournament_deals, seed, timer)))
            for config in entry_points.PPO_CONFIGS.get(game, ()) if ppo_ok else ():
                def ppo(c=config):
                    return entry_points.PPOLoop(c, seed, timer, ppo_games, ppo_threads)

                jobs.append(("ppo", game, entry_points.ppo_label(config),
                             ppo_games or 0, "float32", ppo))
    if not with_openspiel:
        notes.append("OpenSpiel rows skipped (--no-openspiel).")
    elif not openspiel.available():
        notes.append(
            "OpenSpiel rows skipped: open_spiel is not installed "
            "(pip install -e '.[bench]')."
        )
    else:
        os_game, os_variant = openspiel.OPENSPIEL_LABEL
        for mode, obs in openspiel.OPENSPIEL_OBS.items():
            jobs.append((mode, os_game, os_variant, 1, obs,
                         lambda m=mode: openspiel.openspiel_loop(m, seed, timer)))

    if not vec_env_available():
        notes.append(
            "no VecEnv rows: stable-baselines3 is not installed (pip install -e '.[train]')."
        )
    start = time.perf_counter()
    if copy_mib is not None:
        info["copy_bandwidth"] = copy_bandwidth(copy_mib, clock=timer)
        print(f"copy bandwidth: {info['copy_bandwidth']['bytes_per_s'] / 1e9:.2f} GB/s "
              f"(np.copyto of {copy_mib:g} MiB, read + written)", flush=True)
    rows, loops = [], []
    for engine, game, variant, b, obs, factory in jobs:
        loop = factory()
        if loop is not None:
            rows.append((engine, game, variant, b, obs))
            loops.append(loop)
    labels = [f"{e:18s} {g:11s} {v:14.14s} batch {b:5d} {o:7s}" for e, g, v, b, o in rows]
    # OpenSpiel's loops also run just before every timed run: the ratios are paired
    modes = [row[0] for row in rows if row[0] in openspiel.OPENSPIEL_MODES]
    references = [loop for row, loop in zip(rows, loops, strict=True)
                  if row[0] in openspiel.OPENSPIEL_MODES]
    rates = measure(loops, seconds, repeats, labels, references)
    bytes_per_step: dict[tuple[str, str, str], int] = {}
    for (engine, game, variant, b, obs), loop, (step_rates, deals_per_step, pairs) in zip(
            rows, loops, rates, strict=True):
        steps_per_s = statistics.median(step_rates)
        record = Record(engine, game, variant, b, steps_per_s, steps_per_s * deals_per_step,
                        obs, step_rates)
        record.paired = {mode: statistics.median(rate / pair[k] for rate, pair in zip(
            step_rates, pairs, strict=True)) for k, mode in enumerate(modes)}
        if engine == "batch":
            if (game, variant, obs) not in bytes_per_step:
                one = make_batch_engine(game, variant, 1)
                bytes_per_step[(game, variant, obs)] = step_bytes(
                    one.observation_size, one.num_actions, obs)
            record.bytes_per_step = bytes_per_step[(game, variant, obs)]
        if isinstance(loop, entry_points.PPOLoop):
            record.detail = loop.detail()
            record.batch = loop.cfg.num_games
        records.append(record)
    del loops
    # the smallest and the largest batch, and the goals' smallest batch if measured
    split_sizes = {min(batch_sizes), max(batch_sizes)} if batch_sizes else set()
    split_sizes |= {TARGET_BATCH} & set(batch_sizes)
    for record in records:
        if record.engine == "batch" and record.batch in split_sizes:
            record.detail = batch_time_split(
                make_batch_engine(record.game, record.variant, record.batch), seconds,
                repeats, seed, record.obs)
            print(f"split {record.game} {record.variant} batch {record.batch} {record.obs}: "
                  + ", ".join(f"{k[:-3]} {v:,.0f} ns" for k, v in record.detail.items()),
                  flush=True)

    memory: list[dict] = []
    if memory_batch is not None:
        for game, variant in rows_to_run:
            m = measure_memory(game, variant, memory_batch)
            memory.append(m)
            print(
                f"memory {game} {variant}: {m['state_bytes_per_game']:,.0f} state bytes/game; "
                f"batch {memory_batch}: peak RSS "
                f"+{m['peak_rss_delta_bytes'] / 2**20:.1f} MiB, "
                f"traced {m['peak_traced_bytes'] / 2**20:.1f} MiB",
                flush=True,
            )
    if with_compile_cost:
        info["compile_cost"] = cost = measure_compile_cost()
        print("first use, cold / warm cache: " + ", ".join(
            f"{part} {cost['cold'][part]:.2f} / {cost['warm'][part]:.2f} s"
            for part in cost["cold"]), flush=True)
    info["loadavg_after"] = os.getloadavg() if hasattr(os, "getloadavg") else None
    if info["loadavg_before"] is None:
        del info["loadavg_before"], info["loadavg_after"]
    print(f"benchmark took {time.perf_counter() - start:.0f} s", flush=True)
    return BenchResult(records, memory, info, notes)
