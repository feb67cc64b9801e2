"""``cardrl bench``: throughput of the engines against OpenSpiel (:mod:`bench.engines`),
written as a Markdown report with a plot and, optionally, JSON records."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bench.bandwidth import COPY_MIB
from bench.engines import run_bench
from bench.entry_points import PPO_CONFIGS, PPO_THREADS, TOURNAMENT_AGENTS, TOURNAMENT_DEALS
from bench.loops import CLOCKS, OBS_DTYPES
from bench.memory import MEMORY_BATCH
from bench.report import write_report
from envs import registry


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


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected an integer >= 1") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected an integer >= 1")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number > 0") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number > 0")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of ``cardrl bench``."""
    parser.description = (
        "Throughput of random legal play with observations and masks at every step: "
        "the batch engines at each batch size, the PettingZoo AEC environments, the SB3 "
        "VecEnv view (where it exists), the training seat view (SeatEnv) and OpenSpiel's "
        "oh_hell (when the [bench] extra is installed), with ratios to OpenSpiel (paired: "
        "each timed run follows a short run of every OpenSpiel loop), each "
        "batch row's bytes per step and achieved bandwidth against the machine's copy "
        "bandwidth, memory figures and a plot. --entry-points adds a tournament of "
        "heuristics and batch-PPO training with its time split."
    )
    parser.add_argument(
        "--game",
        choices=(*registry.GAMES, "all"),
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
        "--out", type=Path, default=Path("runs/bench/bench.md"), metavar="FILE",
        help="Markdown report; the plot is written beside it as FILE with suffix .png "
        "(default: runs/bench/bench.md, not committed; --out results/bench.md regenerates "
        "the committed report)",
    )
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE",
        help="also write the figures as a JSON list of records "
        "{engine, game, variant, batch, steps_per_s, games_per_s, obs, bytes_per_step, "
        "detail} (bytes_per_step: batch rows, else null; detail: the ppo rows' time split)",
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
        "--no-compile-cost", action="store_true",
        help="skip the compilation figures (two subprocesses timing the engines' first use "
        "with an empty and then a filled numba cache, about 15 s)",
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
    parser.add_argument(
        "--copy-mib", type=_positive_float, default=COPY_MIB, metavar="MIB",
        help="size of the array whose np.copyto gives the machine's copy bandwidth, the "
        f"limit the batch rows are compared with (default: {COPY_MIB}; far beyond the caches)",
    )
    tournaments = "; ".join(f"{g}: {', '.join(a)}" for g, a in TOURNAMENT_AGENTS.items())
    configs = ", ".join(c for cs in PPO_CONFIGS.values() for c in cs)
    parser.add_argument(
        "--entry-points", action="store_true",
        help="also time the slow entry points (each at least --seconds per run): a "
        f"duplicate tournament of the heuristics at the game's default table ({tournaments}) "
        f"in deals/s, and batch-PPO training of {configs} in learner decisions/s, split into "
        "env, features, policy forward and update time (tens of seconds more)",
    )
    parser.add_argument(
        "--tournament-deals", type=_positive_int, default=TOURNAMENT_DEALS, metavar="N",
        help="dealt keys per tournament of --entry-points, each played once per seat "
        f"rotation (default: {TOURNAMENT_DEALS})",
    )
    parser.add_argument(
        "--ppo-games", type=_positive_int, default=None, metavar="N",
        help="games of the PPO rows' batch engine instead of each config's num_games "
        "(default: the config's; smaller is quicker but measures a different rollout)",
    )
    parser.add_argument(
        "--ppo-threads", type=_positive_int, default=PPO_THREADS, metavar="N",
        help=f"torch threads of the PPO rows (default: {PPO_THREADS}, one core like every "
        "other row, whatever the config's torch_threads)",
    )
    parser.add_argument(
        "--agents", nargs="?", const="all", default=None, metavar="NAME,...",
        help="instead: decisions/s and ms/decision of every registered agent (or the named "
        "ones) of --game on positions from heuristic self-play, one core, at batch sizes 1 "
        "and 8192 unless --batch is given; search agents at batch 1 and a small batch. "
        "Written to runs/bench/agents.md unless --out is given (bench.agents)",
    )
    parser.add_argument(
        "--search-batch", type=_batch_sizes, default=None, metavar="N,N,...",
        help="with --agents: the games a search agent is timed on per call (default: 1 and "
        "8); a teacher's batch, e.g. 64, measures its labels per second",
    )
    parser.set_defaults(_bench_defaults={"out": parser.get_default("out"),
                                         "batch": parser.get_default("batch")})


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
    if args.no_compile_cost:
        parts.append("--no-compile-cost")
    if args.clock != "wall":
        parts.append(f"--clock {args.clock}")
    if args.obs != list(OBS_DTYPES):
        parts.append("--obs " + ",".join(args.obs))
    if args.seed:
        parts.append(f"--seed {args.seed}")
    if args.copy_mib != COPY_MIB:
        parts.append(f"--copy-mib {args.copy_mib:g}")
    if args.entry_points:
        parts.append("--entry-points")
        if args.tournament_deals != TOURNAMENT_DEALS:
            parts.append(f"--tournament-deals {args.tournament_deals}")
        if args.ppo_games is not None:
            parts.append(f"--ppo-games {args.ppo_games}")
        if args.ppo_threads != PPO_THREADS:
            parts.append(f"--ppo-threads {args.ppo_threads}")
    return " ".join(parts)


def run(args: argparse.Namespace) -> int:
    """Run the benchmark ``args`` describe and write its report; 2 on bad budgets."""
    if getattr(args, "agents", None) is not None:
        return run_agents(args)
    if args.repeats < 1 or args.seconds <= 0:
        print("--repeats must be >= 1 and --seconds > 0", file=sys.stderr)
        return 2
    if args.game != "all":  # a game without rows: refused in one line
        registry.get(args.game).require("bench_tables", "bench rows")
    result = run_bench(
        tuple(g for g in registry.GAMES if registry.get(g).bench_tables)
        if args.game == "all" else (args.game,),
        args.batch,
        args.obs,
        seconds=args.seconds,
        repeats=args.repeats,
        clock=args.clock,
        seed=args.seed,
        with_openspiel=not args.no_openspiel,
        memory_batch=None if args.no_memory else args.memory_batch,
        copy_mib=args.copy_mib,
        with_entry_points=args.entry_points,
        tournament_deals=args.tournament_deals,
        ppo_games=args.ppo_games,
        ppo_threads=args.ppo_threads,
        with_compile_cost=not args.no_compile_cost,
    )
    write_report(result.records, result.memory, result.info, command_line(args),
                 result.notes, args.out, args.json)
    return 0


def run_agents(args: argparse.Namespace) -> int:
    """``cardrl bench --agents``: time the agents (:mod:`bench.agents`), write the report."""
    from bench.agents import (
        DEFAULT_BATCHES,
        DEFAULT_OUT,
        load_average,
        measure_agents,
        render_markdown,
        write_report,
    )

    defaults = args._bench_defaults
    out = DEFAULT_OUT if args.out == defaults["out"] else args.out
    batches = list(DEFAULT_BATCHES) if args.batch == defaults["batch"] else args.batch
    names = None if args.agents == "all" else tuple(
        n.strip() for n in args.agents.split(",") if n.strip())
    games = registry.GAMES if args.game == "all" else (args.game,)
    load = load_average()
    rows, notes = measure_agents(games, names, batches, args.seconds, args.repeats,
                                 clock=args.clock, seed=args.seed,
                                 search_batches=args.search_batch)
    parts = ["cardrl bench --agents" + ("" if names is None else " " + ",".join(names)),
             f"--game {args.game}", "--batch " + ",".join(str(b) for b in batches),
             f"--seconds {args.seconds:g}", f"--repeats {args.repeats}", f"--out {out}"]
    if args.no_compile_cost:
        parts.append("--no-compile-cost")
    if args.clock != "wall":
        parts.append(f"--clock {args.clock}")
    if args.seed:
        parts.append(f"--seed {args.seed}")
    if args.search_batch:
        parts.append("--search-batch " + ",".join(str(b) for b in args.search_batch))
    text = render_markdown(rows, notes, " ".join(parts), args.clock, args.seconds,
                           args.repeats, load)
    print(f"wrote {write_report(text, out)}")
    return 0
