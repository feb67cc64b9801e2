"""Duplicate-deal tournaments on the batch engines, for both games.

>>> result = run_tournament("abracadabra", ["random", "random"], deals=100, seed=0,
...                         options={"variant": "two"}, progress=False)  # doctest: +SKIP
>>> result.summary[["agent", "mean_points", "ci_low", "ci_high", "rating"]]  # doctest: +SKIP

**Duplicate deals.** Deal ``i`` has a 64-bit key derived from the tournament seed alone,
``SeedSequence(seed, spawn_key=(0, i)).generate_state(1, uint64)[0]``; the engines replay
the same cards (and, in match mode, the same sequence of deals) for the same key. Every
deal is played once under each of the P seat rotations of its line-up, so every agent of
the line-up holds every hand of the deal and the luck of the cards cancels.

**Line-ups.** With ``k`` agents and ``P`` seats, the line-up of deal ``i`` is a tuple of P
agent indices in line-up positions 0..P-1:

- ``k >= P``: the ``i mod C(k, P)``-th combination of P distinct agents, in the order of
  ``itertools.combinations(range(k), P)``. Over every ``C(k, P)`` consecutive deals each
  agent plays equally often and every pair of agents meets.
- ``k < P``: agents repeat: position ``j`` holds agent ``(i + j) mod k``. Over every ``k``
  consecutive deals each agent holds the same number of positions.

Under rotation ``r`` (0..P-1) line-up position ``j`` sits in seat ``(j + r) mod P``, i.e.
seat ``s`` holds line-up position ``(s - r) mod P``.

**Chunks and determinism.** Deals are played in chunks of ``chunk_size`` consecutive deals
(chunk ``c`` holds deals ``c*chunk_size ..``), all rotations of a chunk in one batch of
``chunk_size * P`` games. Each step groups the games by the agent in the current seat and
calls that agent's ``act_batch`` once; then one ``engine.step`` advances the batch. Agents
are built afresh for every chunk with seed
``SeedSequence(seed, spawn_key=(1, c, agent_index)).generate_state(1)[0]``. A chunk is
thus a pure function of (arguments, chunk index): the results do not depend on the number
of workers, the backend, or the order in which chunks finish (rows are sorted by deal).

**Resumption.** With ``out_dir``, the arguments are stored in ``DIR/tournament.json`` and
each finished chunk is appended to ``DIR/games.csv`` at once. A rerun with the same
arguments keeps the complete chunks found there and plays only the missing ones; a rerun
with different arguments is refused (use another directory). When every chunk is done
``games.csv`` is rewritten sorted by (deal, rotation, seat) and the summary files are
written (see :func:`write_outputs`).

**Results.** ``points`` is the seat's points of the deal (``episode="deal"``; a round in
Four Aces) or its match total (``episode="match"``); ``chips`` its net chips
(Abracadabra); ``won`` whether it won the match (match mode); ``n_deals`` how many deals
the episode lasted. Statistics: :mod:`arena.stats`.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import itertools
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from agents.base import act_grouped
from arena import stats
from envs import registry as games_mod

#: default number of deals in a chunk (a batch holds chunk_size * P games)
CHUNK_SIZE = 512
#: bump when the meaning of stored results changes, so that old runs are not resumed
FORMAT_VERSION = 1
COLUMNS = ("deal", "rotation", "seat", "agent", "points", "chips", "won", "n_deals")
_SPEC_FILE = "tournament.json"
_GAMES_FILE = "games.csv"


# -- arguments ----------------------------------------------------------------------------
def parse_agents(entries: list[str]) -> tuple[list[str], list[str]]:
    """(labels, registry names) of the agent list. An entry is ``name`` or ``label=name``
    (to enter the same agent twice with different kwargs); a name may be ``policy:PATH``
    (a trained checkpoint). Repeated labels get ``#2``,
    ``#3`` … so every entrant has its own label."""
    labels, names = [], []
    for entry in entries:
        label, _, name = entry.strip().rpartition("=")
        name = name.strip()
        label = label.strip() or name
        if not name:
            raise ValueError(f"empty agent name in {entries!r}")
        base, n = label, 2
        while label in labels:
            label, n = f"{base}#{n}", n + 1
        labels.append(label)
        names.append(name)
    return labels, names


@dataclass(frozen=True)
class TournamentSpec:
    """Everything that determines a tournament's results (stored as tournament.json)."""

    game: str
    labels: tuple[str, ...]  # one per entrant, unique
    names: tuple[str, ...]  # registry name of each entrant
    deals: int
    seed: int
    options: dict  # every field of the game's config, episode included
    chunk_size: int
    agent_kwargs: dict  # label or name -> kwargs for agents.make
    version: int = FORMAT_VERSION

    @property
    def num_chunks(self) -> int:
        return math.ceil(self.deals / self.chunk_size)

    def chunk_deals(self, chunk: int) -> range:
        start = chunk * self.chunk_size
        return range(start, min(self.deals, start + self.chunk_size))

    def to_json(self) -> dict:
        return {
            "game": self.game,
            "labels": list(self.labels),
            "names": list(self.names),
            "deals": self.deals,
            "seed": self.seed,
            "options": self.options,
            "chunk_size": self.chunk_size,
            "agent_kwargs": self.agent_kwargs,
            "version": self.version,
        }

    @classmethod
    def from_json(cls, data: dict) -> TournamentSpec:
        data = dict(data)
        data["labels"] = tuple(data["labels"])
        data["names"] = tuple(data["names"])
        return cls(**data)


def make_spec(
    game: str,
    agent_names: list[str],
    deals: int,
    seed: int,
    options: dict | None = None,
    episode: str = "deal",
    agent_kwargs: dict | None = None,
    chunk_size: int = CHUNK_SIZE,
) -> TournamentSpec:
    """Validate the arguments of :func:`run_tournament` and bundle them."""
    import agents

    games_mod.make_config(game)  # checks the game name
    if episode not in games_mod.EPISODES[game]:
        raise ValueError(f"episode={episode!r} is not allowed: expected 'deal' or 'match'")
    if not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals={deals!r} is not allowed: expected an integer >= 1")
    if not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size={chunk_size!r} is not allowed: expected an integer >= 1")
    labels, names = parse_agents(list(agent_names))
    if not labels:
        raise ValueError("a tournament needs at least one agent")
    known = agents.available(game)
    for name in names:
        if name not in known and not name.startswith("policy:"):
            raise ValueError(f"unknown agent {name!r} for {game}: expected one of "
                             f"{sorted(known)} or policy:PATH")
    options = dict(options or {})
    if "episode" in options:
        raise ValueError("pass the episode as episode=..., not inside options")
    options["episode"] = games_mod.EPISODES[game][episode]
    # every config field, defaults included, so that equal games compare equal on resume
    options = dataclasses.asdict(games_mod.make_config(game, **options))
    kwargs = {key: dict(value) for key, value in (agent_kwargs or {}).items()}
    unknown = set(kwargs) - set(labels) - set(names)
    if unknown:
        raise ValueError(f"agent_kwargs for {sorted(unknown)}, which are not in the line-up")
    return TournamentSpec(
        game, tuple(labels), tuple(names), deals, int(seed), options, chunk_size, kwargs
    )


def _make_entrants(spec: TournamentSpec, chunk: int) -> list:
    """The entrants of ``chunk``, each built afresh with its seed for this chunk."""
    import agents

    entrants = []
    for index, (label, name) in enumerate(zip(spec.labels, spec.names, strict=True)):
        kwargs = {**spec.agent_kwargs.get(name, {}), **spec.agent_kwargs.get(label, {})}
        kwargs["seed"] = agent_seed(spec.seed, chunk, index)
        entrant = agents.make_from_spec(name, spec.game, **kwargs)
        entrant.reset()
        entrants.append(entrant)
    return entrants


def _check_agents(spec: TournamentSpec) -> None:
    """Build every entrant once, so that a bad agent argument fails before any play."""
    _make_entrants(spec, chunk=0)


# -- seeding and seating ------------------------------------------------------------------
def deal_keys(seed: int, deals: range) -> np.ndarray:
    """uint64 [len(deals)]: the key of each deal index (a pure function of seed and index)."""
    return np.array(
        [np.random.SeedSequence(seed, spawn_key=(0, i)).generate_state(1, np.uint64)[0]
         for i in deals],
        dtype=np.uint64,
    )  # fmt: skip


def agent_seed(seed: int, chunk: int, agent_index: int) -> int:
    """The seed of entrant ``agent_index`` for chunk ``chunk``."""
    ss = np.random.SeedSequence(seed, spawn_key=(1, chunk, agent_index))
    return int(ss.generate_state(1, np.uint64)[0])


@functools.lru_cache(maxsize=16)
def _combinations(num_agents: int, num_seats: int) -> tuple[tuple[int, ...], ...]:
    return tuple(itertools.combinations(range(num_agents), num_seats))


def lineup(deal: int, num_agents: int, num_seats: int) -> tuple[int, ...]:
    """Agent indices of deal ``deal``'s line-up, by line-up position (module docstring)."""
    if num_agents >= num_seats:
        combos = _combinations(num_agents, num_seats)
        return combos[deal % len(combos)]
    return tuple((deal + j) % num_agents for j in range(num_seats))


def seating(deal: int, rotation: int, num_agents: int, num_seats: int) -> tuple[int, ...]:
    """Agent index in each seat of (deal, rotation): seat s holds position (s - r) mod P."""
    up = lineup(deal, num_agents, num_seats)
    return tuple(up[(s - rotation) % num_seats] for s in range(num_seats))


# -- playing one chunk --------------------------------------------------------------------
def play_chunk(
    spec: TournamentSpec | dict, chunk: int, games_out: list[dict] | None = None
) -> pd.DataFrame:
    """Play every (deal, rotation) of chunk ``chunk`` in one batch; one row per seat.

    With ``games_out`` (a list), every game is recorded (:class:`records.replay.
    GameRecorder`) and its record appended to it, for ``--save-games``."""
    if isinstance(spec, dict):
        spec = TournamentSpec.from_json(spec)
    deals = spec.chunk_deals(chunk)
    num_seats = games_mod.num_seats(spec.game, **spec.options)
    num_agents = len(spec.labels)
    batch = len(deals) * num_seats
    engine = games_mod.make_engine(spec.game, batch, **spec.options)

    # game g = local deal * P + rotation; seat_agent[g, s] = entrant index in seat s
    seat_agent = np.array(
        [seating(d, r, num_agents, num_seats) for d in deals for r in range(num_seats)],
        dtype=np.int64,
    ).reshape(batch, num_seats)
    entrants = _make_entrants(spec, chunk)

    engine.reset(game_seeds=np.repeat(deal_keys(spec.seed, deals), num_seats))
    recorder = None
    if games_out is not None:
        from records.replay import GameRecorder

        recorder = GameRecorder(spec.game)
        recorder.start(
            engine,
            players=[[spec.labels[a] for a in row] for row in seat_agent],
            info=[{"deal": d, "rotation": r} for d in deals for r in range(num_seats)],
            seed=spec.seed,
        )
    points = np.zeros((batch, num_seats), dtype=np.float64)
    chips = np.zeros((batch, num_seats), dtype=np.float64)
    n_deals = np.zeros(batch, dtype=np.int64)
    has_chips = hasattr(engine, "last_chips")
    rows = np.arange(batch)
    while not engine.game_over.all():
        active = ~engine.game_over
        current = np.maximum(engine.current_player.astype(np.int64), 0)
        who = seat_agent[rows, current]
        observations = engine.observe(current)
        masks = engine.legal_action_mask()
        actions = act_grouped(entrants, who, observations, masks, active)
        if recorder is not None:
            recorder.record(engine, actions, active)
        engine.step(actions, active)
        ended = active & engine.deal_over
        points[ended] += engine.last_points[ended]
        if has_chips:
            chips[ended] += engine.last_chips[ended]
        n_deals[ended] += 1

    if recorder is not None:
        games_out.extend(recorder.finish(engine))
    match = spec.options["episode"] == "match"
    won = np.asarray(engine.winners, dtype=np.float64) if match else np.full(points.shape, np.nan)
    deal_index = np.repeat(np.asarray(deals, dtype=np.int64), num_seats)
    frame = pd.DataFrame(
        {
            "deal": np.repeat(deal_index, num_seats),
            "rotation": np.tile(np.repeat(np.arange(num_seats), num_seats), len(deals)),
            "seat": np.tile(np.arange(num_seats), batch),
            "agent": np.asarray(spec.labels, dtype=object)[seat_agent.ravel()],
            "points": points.ravel(),
            "chips": chips.ravel() if has_chips else np.nan,
            "won": won.ravel(),
            "n_deals": np.repeat(n_deals, num_seats),
        }
    )
    return _normalize(frame)


def _normalize(frame: pd.DataFrame) -> pd.DataFrame:
    """Fixed column order and dtypes, so played and re-read chunks compare equal."""
    frame = frame.loc[:, list(COLUMNS)].copy()
    for column in ("deal", "rotation", "seat", "n_deals"):
        frame[column] = frame[column].astype(np.int64)
    for column in ("points", "chips", "won"):
        frame[column] = frame[column].astype(np.float64)
    frame["agent"] = frame["agent"].astype(str)
    return frame.reset_index(drop=True)


# -- backends -----------------------------------------------------------------------------
ChunkOutput = tuple[int, pd.DataFrame, list[dict]]  # chunk, its rows, its game records


def play_chunk_job(job: tuple[dict, int, bool]) -> ChunkOutput:
    """Play one chunk (``job`` = spec as JSON, chunk index, whether to record games)."""
    spec, chunk, record = job
    records: list[dict] | None = [] if record else None
    return chunk, play_chunk(spec, chunk, records), records or []


def _run_local(
    spec: TournamentSpec, chunks: list[int], workers: int, record: bool
) -> Iterator[ChunkOutput]:
    """Chunks in this process (workers=1) or a pool of ``workers`` processes, yielded as
    they finish."""
    jobs = [(spec.to_json(), chunk, record) for chunk in chunks]
    if workers <= 1 or len(chunks) <= 1:
        yield from map(play_chunk_job, jobs)
        return
    import multiprocessing

    # spawn: no fork of a process that may hold torch/ray threads
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(workers, len(chunks))) as pool:
        yield from pool.imap_unordered(play_chunk_job, jobs)


BACKENDS = ("local", "ray")


def _run_chunks(
    spec: TournamentSpec, chunks: list[int], workers: int, backend: str, record: bool
) -> Iterator[ChunkOutput]:
    if backend == "local":
        return _run_local(spec, chunks, workers, record)
    if backend == "ray":
        from arena.ray_backend import run_chunks_ray

        return run_chunks_ray(spec.to_json(), chunks, record)
    raise ValueError(f"backend={backend!r} is not allowed: expected one of {BACKENDS}")


# -- the run ------------------------------------------------------------------------------
@dataclass
class TournamentResult:
    """A finished tournament: the per-seat table and its statistics."""

    spec: TournamentSpec
    games: pd.DataFrame  # one row per (deal, rotation, seat), COLUMNS
    summary: pd.DataFrame  # stats.agent_summary
    head_to_head: pd.DataFrame  # stats.head_to_head
    elapsed_s: float  # wall time of this call, statistics included
    play_s: float = 0.0  # wall time spent playing the chunks of this call
    played_deals: int = 0  # deals played by this call (resumed ones excluded)
    out_dir: Path | None = None
    files: list[Path] = field(default_factory=list)


class TournamentMismatch(ValueError):
    """``out_dir`` holds a tournament played with other arguments."""


def _prepare_dir(spec: TournamentSpec, out_dir: Path) -> dict[int, pd.DataFrame]:
    """Create or check ``out_dir``; return the complete chunks already in games.csv."""
    out_dir.mkdir(parents=True, exist_ok=True)
    spec_path = out_dir / _SPEC_FILE
    games_path = out_dir / _GAMES_FILE
    if spec_path.exists():
        stored = json.loads(spec_path.read_text())
        if stored != json.loads(json.dumps(spec.to_json())):
            changed = sorted(
                key for key in set(stored) | set(spec.to_json())
                if stored.get(key) != json.loads(json.dumps(spec.to_json())).get(key)
            )  # fmt: skip
            raise TournamentMismatch(
                f"{out_dir} holds a tournament with other arguments (differ: "
                f"{', '.join(changed)}); refusing to resume it. Use another --out "
                f"directory, or delete {spec_path} and {games_path} to start over."
            )
    else:
        if games_path.exists():
            raise TournamentMismatch(
                f"{games_path} exists without {spec_path}; refusing to "
                "mix results. Use another --out directory."
            )
        spec_path.write_text(json.dumps(spec.to_json(), indent=2) + "\n")
    done: dict[int, pd.DataFrame] = {}
    if games_path.exists() and games_path.stat().st_size > 0:
        # rows are only ever appended, each ending in a newline: whatever follows the last
        # newline is a row cut short by an interruption (its chunk is then incomplete)
        text = games_path.read_bytes()
        text = text[: text.rfind(b"\n") + 1]
        try:
            table = pd.read_csv(io.BytesIO(text), on_bad_lines="skip")
        except pd.errors.EmptyDataError:
            table = pd.DataFrame(columns=list(COLUMNS))
        table = table.dropna(subset=["deal", "rotation", "seat", "agent", "points", "n_deals"])
        table = _normalize(table)
        seats = games_mod.num_seats(spec.game, **spec.options)
        chunk_of = table["deal"] // spec.chunk_size
        for chunk, rows in table.groupby(chunk_of):
            rows = rows.drop_duplicates(["deal", "rotation", "seat"])
            if len(rows) == len(spec.chunk_deals(int(chunk))) * seats * seats:
                done[int(chunk)] = rows.sort_values(["deal", "rotation", "seat"])
    # rewrite without partial chunks so that appends continue from a clean file
    _write_games(games_path, [done[c] for c in sorted(done)])
    return done


def _write_games(path: Path, frames: list[pd.DataFrame]) -> None:
    table = pd.concat(frames) if frames else pd.DataFrame(columns=list(COLUMNS))
    tmp = path.with_suffix(".csv.tmp")
    table.to_csv(tmp, index=False)
    os.replace(tmp, path)


def _append_games(path: Path, frame: pd.DataFrame) -> None:
    header = not path.exists() or path.stat().st_size == 0
    with open(path, "a") as f:
        frame.to_csv(f, index=False, header=header)
        f.flush()
        os.fsync(f.fileno())


def run_tournament(
    game: str,
    agent_names: list[str],
    deals: int,
    seed: int,
    options: dict | None = None,
    workers: int = 1,
    out_dir: str | os.PathLike | None = None,
    backend: str = "local",
    episode: str = "deal",
    progress: bool = True,
    agent_kwargs: dict | None = None,
    chunk_size: int = CHUNK_SIZE,
    command: str | None = None,
    on_chunk: Callable[[int], None] | None = None,
    save_games: str | os.PathLike | None = None,
) -> TournamentResult:
    """Play a duplicate-deal tournament (module docstring) and compute its statistics.

    Args:
        game: ``"abracadabra"`` or ``"four_aces"``.
        agent_names: entrants, each ``name`` or ``label=name`` (see :func:`parse_agents`).
        deals: number of dealt keys; each is played P times (P seat rotations).
        seed: the tournament seed; deal keys and agent seeds derive from it.
        options: the game config's fields (``variant``, ``num_players``, …), not episode.
        workers: processes for the local backend (results do not depend on it).
        out_dir: where to store/resume games.csv and write summary files; None keeps
            everything in memory.
        backend: ``"local"`` or ``"ray"`` (arena.ray_backend).
        episode: ``"deal"`` (one deal / round per game) or ``"match"``.
        progress: show a tqdm bar of deals.
        agent_kwargs: label or registry name -> extra kwargs for ``agents.make``.
        chunk_size: deals per chunk (part of the arguments: results depend on it).
        command: the command line to print at the top of summary.md.
        on_chunk: called with the chunk index after each chunk is stored (tests use it
            to interrupt a run).
        save_games: append every game played by this call to this JSON-lines file
            (:mod:`records.replay`; ``cardrl replay FILE`` tells or checks them).
    """
    from tqdm import tqdm

    spec = make_spec(game, agent_names, deals, seed, options, episode, agent_kwargs, chunk_size)
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} is not allowed: expected one of {BACKENDS}")
    _check_agents(spec)
    start = time.perf_counter()
    out = Path(out_dir) if out_dir is not None else None
    done = _prepare_dir(spec, out) if out is not None else {}
    missing = [c for c in range(spec.num_chunks) if c not in done]
    bar = tqdm(
        total=spec.deals,
        initial=sum(len(spec.chunk_deals(c)) for c in done),
        unit="deal",
        desc=f"{game} tournament",
        disable=not progress,
    )
    played = sum(len(spec.chunk_deals(c)) for c in missing)
    try:
        for chunk, frame, records in _run_chunks(
            spec, missing, workers, backend, save_games is not None
        ):
            done[chunk] = frame
            if save_games is not None:
                from records.replay import write_games

                write_games(save_games, records, append=True)
            if out is not None:
                _append_games(out / _GAMES_FILE, frame)
            bar.update(len(spec.chunk_deals(chunk)))
            if on_chunk is not None:
                on_chunk(chunk)
    finally:
        bar.close()
    play_s = time.perf_counter() - start
    table = pd.concat([done[c] for c in sorted(done)], ignore_index=True)
    result = TournamentResult(
        spec=spec,
        games=table,
        summary=stats.agent_summary(table, list(spec.labels)),
        head_to_head=stats.head_to_head(table, list(spec.labels)),
        elapsed_s=time.perf_counter() - start,
        play_s=play_s,
        played_deals=played,
        out_dir=out,
    )
    if out is not None:
        _write_games(out / _GAMES_FILE, [table])
        result.files = write_outputs(result, out, command)
    return result


# -- outputs ------------------------------------------------------------------------------
def _machine() -> str:
    import platform

    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, numpy {np.__version__}"
    )


def _fmt(value: float, digits: int = 3) -> str:
    return (
        ""
        if value is None or (isinstance(value, float) and math.isnan(value))
        else (f"{value:.{digits}f}")
    )


def summary_markdown(result: TournamentResult, command: str | None = None) -> str:
    """The summary as a markdown document: command, machine and date, then the tables."""
    spec = result.spec
    seats = games_mod.num_seats(spec.game, **spec.options)
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [
        f"# Tournament: {spec.game}",
        "",
        f"- command: `{command or command_line(spec)}`",
        f"- machine: {_machine()}",
        f"- date: {when}",
        f"- options: {json.dumps(spec.options, sort_keys=True)}; {seats} seats; "
        f"{spec.deals} deals x {seats} rotations = {spec.deals * seats} games; "
        f"seed {spec.seed}",
        f"- wall time of the last call: {result.elapsed_s:.1f} s, of which "
        f"{result.play_s:.1f} s playing {result.played_deals} deals (the rest: resumed)"
        if result.played_deals < spec.deals
        else f"- wall time: {result.elapsed_s:.1f} s, of which {result.play_s:.1f} s playing",
        "",
        "mean_points: mean points per deal (match total in match mode), with its 95 % "
        "CI paired by deal; rating: OpenSkill ordinal (mu - 3 sigma).",
        "",
    ]
    has_chips = bool(result.summary["mean_chips"].notna().any())
    has_wins = bool(result.summary["win_rate"].notna().any())
    header = ["agent", "games", "mean_points", "95% CI"]
    header += ["mean_chips"] * has_chips + ["win_rate"] * has_wins
    header += ["rating", "mu", "sigma"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in result.summary.itertuples():
        cells = [row.agent, str(row.games), _fmt(row.mean_points),
                 f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}]"]  # fmt: skip
        cells += [_fmt(row.mean_chips)] * has_chips + [_fmt(row.win_rate)] * has_wins
        cells += [_fmt(row.rating, 2), _fmt(row.mu, 2), _fmt(row.sigma, 2)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Head to head",
        "",
        "mean_diff: agent's mean points per deal minus the opponent's, over the deals both "
        "played, with its 95 % CI.",
        "",
        "| agent | opponent | deals | mean_diff | 95% CI |",
        "|---|---|---|---|---|",
    ]
    order = {label: i for i, label in enumerate(spec.labels)}
    for row in result.head_to_head.itertuples():
        if order[row.agent] < order[row.opponent]:  # (b, a) mirrors (a, b)
            lines.append(
                f"| {row.agent} | {row.opponent} | {row.deals} | {_fmt(row.mean_diff)} | "
                f"[{_fmt(row.ci_low)}, {_fmt(row.ci_high)}] |"
            )
    return "\n".join(lines) + "\n"


def command_line(spec: TournamentSpec) -> str:
    """An equivalent ``cardrl tournament`` command for ``spec``."""
    import shlex

    # labels made by parse_agents for a repeated name ("random#2") are written as the name
    entries = [
        name if label == name or label.startswith(f"{name}#") else f"{label}={name}"
        for label, name in zip(spec.labels, spec.names, strict=True)
    ]
    words = ["cardrl", "tournament", "--game", spec.game, "--agents", ",".join(entries),
             "--deals", str(spec.deals), "--seed", str(spec.seed)]  # fmt: skip
    defaults = dataclasses.asdict(games_mod.make_config(spec.game))
    options = {key: value for key, value in spec.options.items() if value != defaults[key]}
    episode = spec.options["episode"]
    options.pop("episode", None)
    if episode == "match":
        words += ["--episode", "match"]
    if "variant" in options:
        words += ["--variant", str(options.pop("variant"))]
    if "num_players" in options:
        words += ["--players", str(options.pop("num_players"))]
    for key, value in sorted(options.items()):
        text = value if isinstance(value, str) else json.dumps(value)
        words += ["--option", f"{key}={text}"]
    for agent, kwargs in sorted(spec.agent_kwargs.items()):
        for key, value in sorted(kwargs.items()):
            text = value if isinstance(value, str) else json.dumps(value)
            words += ["--agent-arg", f"{agent}.{key}={text}"]
    if spec.chunk_size != CHUNK_SIZE:
        words += ["--chunk-size", str(spec.chunk_size)]
    return shlex.join(words)


def write_outputs(
    result: TournamentResult, out_dir: Path, command: str | None = None
) -> list[Path]:
    """Write summary.csv, head_to_head.csv, summary.md, points.png, head_to_head.png."""
    paths = {
        "summary": out_dir / "summary.csv",
        "h2h": out_dir / "head_to_head.csv",
        "md": out_dir / "summary.md",
        "points": out_dir / "points.png",
        "matrix": out_dir / "head_to_head.png",
    }
    result.summary.to_csv(paths["summary"], index=False)
    result.head_to_head.to_csv(paths["h2h"], index=False)
    paths["md"].write_text(summary_markdown(result, command))
    plot_points(result, paths["points"])
    plot_head_to_head(result, paths["matrix"])
    return [out_dir / _GAMES_FILE, *paths.values()]


def plot_points(result: TournamentResult, path: Path) -> None:
    """Mean points per deal of each agent with its 95 % CI as error bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    summary = result.summary.sort_values("mean_points", kind="stable")
    y = np.arange(len(summary))
    mean = summary["mean_points"].to_numpy()
    low = np.nan_to_num(mean - summary["ci_low"].to_numpy())
    high = np.nan_to_num(summary["ci_high"].to_numpy() - mean)
    fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.45 * len(summary)))
    ax.errorbar(mean, y, xerr=[low, high], fmt="o", capsize=4)
    ax.set_yticks(y, summary["agent"])
    unit = "match" if result.spec.options["episode"] == "match" else "deal"
    ax.set_xlabel(f"mean points per {unit} (95 % CI, paired by deal)")
    ax.set_title(f"{result.spec.game}: {result.spec.deals} deals x all seat rotations")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_head_to_head(result: TournamentResult, path: Path) -> None:
    """Heat map of the mean per-deal point difference, row agent minus column agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(result.spec.labels)
    matrix = (
        result.head_to_head.pivot(index="agent", columns="opponent", values="mean_diff")
        .reindex(index=labels, columns=labels)
        .to_numpy(dtype=np.float64)
        if len(result.head_to_head)
        else np.full((len(labels), len(labels)), np.nan)
    )
    limit = np.nanmax(np.abs(matrix)) if np.isfinite(matrix).any() else 1.0
    limit = limit if limit > 0 else 1.0
    size = 2.5 + 0.7 * len(labels)
    fig, ax = plt.subplots(figsize=(size + 1.0, size))
    image = ax.imshow(matrix, cmap="RdBu", vmin=-limit, vmax=limit)
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    for i in range(len(labels)):
        for j in range(len(labels)):
            if np.isfinite(matrix[i, j]):
                color = "white" if abs(matrix[i, j]) > 0.6 * limit else "black"
                ax.text(j, i, f"{matrix[i, j]:+.2f}", ha="center", va="center", fontsize=8,
                        color=color)  # fmt: skip
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title("mean points per deal, agent minus opponent")
    fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
