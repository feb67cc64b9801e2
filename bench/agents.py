"""``cardrl bench --agents``: decisions per second of every registered agent of each game.

Each game's agents are measured in one configuration (:data:`AGENT_CONFIGS`) on positions
from real play: the game's ``heuristic`` agent plays every seat of a batch of games, every
decision it meets is recorded (observation and legal-action mask), and the positions are
drawn uniformly from those (seeded). So the mix of phases (Abracadabra: bids, shows,
calls, card play) is the one agents meet in a tournament.

- An agent that decides from observations is timed on batches of ``batch`` positions
  (``act_batch``; batch 1 is :meth:`agents.base.Agent.act` row by row).
- An agent that searches on the engine (``needs_engine``, e.g. ``pimc``) is timed on live
  games stopped at random decision points of the same play (``act_engine``), at batch 1
  and at one small batch (at most :data:`SEARCH_BATCH` games).

Every row is one core: the process is pinned to one CPU while it runs (where the system
allows it) and torch, when an agent loads it, uses one thread. A row's rate is the median
over ``repeats`` timed runs of at least ``seconds`` each, after one untimed warm-up call
(which builds the agents' lookup tables). The ``policy`` agent needs torch and the
committed checkpoints; it is skipped with a note when it cannot be built.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import agents
from agents.base import act_grouped
from bench.loops import CLOCKS
from envs import registry
from records.provenance import cpu_model, machine_line, utc_now

#: the configuration each game's agents are measured in (its ``default_table``; none: the
#: config's defaults)
AGENT_CONFIGS = registry.Declared("default_table")
#: batch sizes measured by default: one decision at a time, and large batches
DEFAULT_BATCHES = (1, 8192)
#: the largest batch of games a search agent is timed on
SEARCH_BATCH = 8
#: where the report goes unless ``--out`` is given (not committed)
DEFAULT_OUT = Path("runs/bench/agents.md")
#: games played at once while recording positions
_PLAY_BATCH = 256


@dataclass
class AgentRow:
    """One row of the report: ``agent`` of ``game`` timed at ``batch``."""

    agent: str
    game: str
    batch: int
    decisions_per_s: float
    searches: bool = False

    @property
    def ms_per_decision(self) -> float:
        return 1000.0 / self.decisions_per_s


def config_label(game: str) -> str:
    """The configuration of :data:`AGENT_CONFIGS` as written in the report."""
    return ", ".join(f"{k}={v}" for k, v in AGENT_CONFIGS.get(game, {}).items())


def _heuristic_players(game: str, num_players: int, seed: int) -> list:
    """The players of the recorded positions: the game's ``heuristic`` agent, else its
    reference agent (``Game.reference``), in every seat."""
    name = ("heuristic" if "heuristic" in agents.available(game)
            else registry.get(game).require("reference", "reference agent"))
    return [agents.make(name, game, seed=seed + s) for s in range(num_players)]


def play_positions(game: str, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(observations [count, D], masks [count, A]): decisions of heuristic self-play in the
    configuration of :data:`AGENT_CONFIGS`, drawn uniformly (seeded) from at least
    ``2 * count`` recorded decisions."""
    if count < 1:
        raise ValueError(f"count={count}: expected at least 1 position")
    engine = registry.make_engine(game, _PLAY_BATCH, **AGENT_CONFIGS.get(game, {}))
    rng = np.random.default_rng(seed)
    players = _heuristic_players(game, engine.num_players, seed)
    observations, masks, recorded = [], [], 0
    engine.reset(seed=seed)
    while recorded < 2 * count:
        if engine.game_over.all():
            engine.reset(seed=int(rng.integers(2**31)))
        obs, mask = engine.observe(), engine.legal_action_mask()
        seat = engine.current_player
        live = seat >= 0
        observations.append(obs[live])
        masks.append(mask[live])
        recorded += int(live.sum())
        engine.step(act_grouped(players, seat, obs, mask, live), active=live)
    pick = np.sort(rng.choice(recorded, size=count, replace=False))
    return np.concatenate(observations)[pick], np.concatenate(masks)[pick]


def live_games(game: str, games: int, seed: int = 0):
    """An engine of ``games`` live games of heuristic self-play, each stopped at its own
    random decision point (a uniform number of decisions, 0 to 39, into its play): games
    of a twice larger batch are played so, and live ones are kept (``engine.clone``)."""
    engine = registry.make_engine(game, 2 * games, **AGENT_CONFIGS.get(game, {}))
    engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    target = rng.integers(0, 40, size=engine.batch_size)
    players = _heuristic_players(game, engine.num_players, seed)
    done = np.zeros(engine.batch_size, dtype=np.int64)
    while True:
        seat = engine.current_player
        step = (done < target) & (seat >= 0)
        if not step.any():
            break
        obs, mask = engine.observe(), engine.legal_action_mask()
        engine.step(act_grouped(players, seat, obs, mask, step), active=step)
        done += step
    live = np.flatnonzero(engine.current_player >= 0)
    if len(live) < games:
        raise ValueError(f"only {len(live)} of {engine.batch_size} games stayed live: "
                         f"cannot set up {games} positions")
    return engine.clone(live[:games])


@contextlib.contextmanager
def one_core() -> Iterator[None]:
    """Run the block on one CPU (where the system allows pinning) with torch, if loaded,
    on one thread; the previous settings come back afterwards."""
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if affinity:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {min(affinity)})
    try:
        yield
    finally:
        if affinity:
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, affinity)


def _torch_one_thread() -> None:
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def _rate(run: Callable[[], int], seconds: float, repeats: int,
          clock: Callable[[], float]) -> float:
    """Median decisions/s over ``repeats`` runs: each calls ``run`` (returning the
    decisions it made) until ``seconds`` have passed on ``clock``, at least once."""
    rates = []
    for _ in range(repeats):
        start, decisions = clock(), 0
        while True:
            decisions += run()
            elapsed = clock() - start
            if elapsed >= seconds:
                break
        rates.append(decisions / max(elapsed, 1e-9))
    return statistics.median(rates)


def time_observation_agent(agent, observations: np.ndarray, masks: np.ndarray, batch: int,
                           seconds: float, repeats: int, clock: Callable[[], float]) -> float:
    """Decisions/s of ``agent`` on successive batches of ``batch`` positions."""
    n = len(observations)
    cursor = [0]

    def run() -> int:
        lo = cursor[0] % n
        cursor[0] += batch
        if batch == 1:
            agent.act(observations[lo], masks[lo])
            return 1
        rows = np.arange(lo, lo + batch) % n
        agent.act_batch(observations[rows], masks[rows])
        return batch

    run()  # warm-up: lookup tables, lazily built state
    return _rate(run, seconds, repeats, clock)


def time_search_agent(agent, engine, batch: int, seconds: float, repeats: int,
                      clock: Callable[[], float]) -> float:
    """Decisions/s of a searching ``agent`` on successive groups of ``batch`` of the live
    games of ``engine`` (the engine is not stepped)."""
    n = engine.batch_size
    cursor = [0]

    def run() -> int:
        games = np.arange(cursor[0], cursor[0] + batch) % n
        cursor[0] += batch
        agent.act_engine(engine, games)
        return batch

    run()
    return _rate(run, seconds, repeats, clock)


def measure_agents(
    games: tuple[str, ...],
    names: tuple[str, ...] | None,
    batches: list[int],
    seconds: float,
    repeats: int,
    clock: str = "wall",
    seed: int = 0,
    search_batches: list[int] | None = None,
) -> tuple[list[AgentRow], list[str]]:
    """Time every registered agent of ``games`` (or only ``names``) at ``batches``; a
    search agent at ``search_batches`` games per call (None: 1 and at most
    :data:`SEARCH_BATCH`).

    Returns the rows and notes (agents skipped, and why). ``ValueError`` for a name that
    no measured game has, a batch below 1 or a bad budget."""
    if seconds <= 0 or repeats < 1:
        raise ValueError(f"seconds={seconds}, repeats={repeats}: expected seconds > 0 and "
                         "repeats >= 1")
    if not batches or min(batches) < 1:
        raise ValueError(f"batches={batches}: expected sizes >= 1")
    if clock not in CLOCKS:
        raise ValueError(f"clock={clock!r}: expected one of {tuple(CLOCKS)}")
    timer = CLOCKS[clock]
    if names is not None:
        known = {name for game in games for name in agents.available(game)}
        unknown = sorted(set(names) - known)
        if unknown:
            raise ValueError(f"--agents: unknown agent(s) {', '.join(unknown)}: expected "
                             f"names from {sorted(known)}")
    rows: list[AgentRow] = []
    notes: list[str] = []
    for game in games:
        chosen = [n for n in agents.available(game) if names is None or n in names]
        positions = None
        for name in chosen:
            try:
                agent = agents.make(name, game, seed=seed)
            except (ImportError, FileNotFoundError, ValueError) as err:
                notes.append(f"{game} `{name}` skipped: {' '.join(str(err).split())}")
                continue
            with one_core():
                _torch_one_thread()
                if getattr(agent, "needs_engine", False):
                    sizes = sorted(set(search_batches or
                                       {1, min(max(batches), SEARCH_BATCH)}))
                    engine = live_games(game, max(sizes), seed=seed)
                    for b in sizes:
                        rate = time_search_agent(agent, engine, b, seconds, repeats, timer)
                        rows.append(AgentRow(name, game, b, rate, searches=True))
                    continue
                if positions is None:
                    positions = play_positions(game, max(batches), seed=seed)
                for b in batches:
                    rate = time_observation_agent(agent, *positions, b, seconds, repeats,
                                                  timer)
                    rows.append(AgentRow(name, game, b, rate))
    return rows, notes


def render_markdown(rows: list[AgentRow], notes: list[str], command: str, clock: str,
                    seconds: float, repeats: int, load: float | None) -> str:
    """The report: command, machine, date and budget, then one table line per row."""
    lines = [
        "# Agent decisions per second",
        "",
        f"- command: `{command}`",
        f"- machine: {machine_line()}; CPU: {cpu_model()}",
        f"- date: {utc_now()}",
    ]
    if load is not None:
        lines.append(f"- load average (1 min) at start: {load:.2f}")
    lines += [
        f"- clock: {clock} ({'elapsed time' if clock == 'wall' else 'this process CPU time'}); "
        f"one core; median of {repeats} runs of at least {seconds:g} s after a warm-up call",
        "- positions: decisions of heuristic self-play, drawn uniformly; "
        + "; ".join(f"{g}: {config_label(g)}" for g in AGENT_CONFIGS),
        "- search agents (`needs_engine`): live games at random decision points, the "
        "games per call in the batch column",
        "",
        "| agent | game | batch | decisions/s | ms/decision |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        name = f"{r.agent} (search)" if r.searches else r.agent
        lines.append(f"| {name} | {r.game} | {r.batch:,} | {r.decisions_per_s:,.0f} | "
                     f"{r.ms_per_decision:.4g} |")
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def write_report(text: str, out: Path) -> Path:
    """Write ``text`` to ``out`` (parents created) and return the path."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    return out


def load_average() -> float | None:
    """The 1-minute load average, where the system reports one."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None
