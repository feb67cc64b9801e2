"""Playing one chunk of a tournament on a batch engine: the per-seat result rows.

All rotations of a chunk's deals (:mod:`arena.tournament.schedule`) are one batch of
``len(deals) * P`` games, game ``g = local deal * P + rotation``. Each step groups the
games by the agent in the current seat and calls that agent's ``act_batch`` once (an agent
that searches, ``needs_engine``, gets the engine itself: ``act_engine(engine, games)``,
see :mod:`agents.base`); then one ``engine.step`` advances the batch.

**Rows.** One row per (deal, rotation, seat), columns :data:`COLUMNS`: ``points`` is the
seat's points of the deal (``episode="deal"``; a round in Four Aces) or its match total
(``episode="match"``); ``chips`` its net chips (Abracadabra); ``won`` whether it won the
match (match mode); ``n_deals`` how many deals the episode lasted. Statistics:
:mod:`arena.stats`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from agents.base import act_grouped
from arena.tournament.schedule import agent_seed, deal_keys, seating
from arena.tournament.spec import TournamentSpec
from envs import registry

COLUMNS = ("deal", "rotation", "seat", "agent", "points", "chips", "won", "n_deals")
#: what a backend yields for a chunk: its index, its rows, its game records
ChunkOutput = tuple[int, pd.DataFrame, list[dict]]


def make_entrants(spec: TournamentSpec, chunk: int) -> list:
    """The entrants of ``chunk``, each built afresh with its seed for this chunk."""
    import agents

    entrants = []
    for index, (label, name) in enumerate(zip(spec.labels, spec.names, strict=True)):
        kwargs = spec.entrant_kwargs(label, name)  # trust_pickle for policies only
        kwargs["seed"] = agent_seed(spec.seed, chunk, index)
        entrant = agents.make_from_spec(name, spec.game, **kwargs)
        entrant.reset()
        entrants.append(entrant)
    return entrants


def check_agents(spec: TournamentSpec) -> list:
    """Build every entrant once, so that a bad agent argument fails before any play; the
    entrants (of chunk 0)."""
    return make_entrants(spec, chunk=0)


def play_chunk(
    spec: TournamentSpec | dict, chunk: int, games_out: list[dict] | None = None
) -> pd.DataFrame:
    """Play every (deal, rotation) of chunk ``chunk`` in one batch; one row per seat.

    With ``games_out`` (a list), every game is recorded
    (:class:`records.recorder.GameRecorder`) and its record appended to it, for
    ``--save-games``."""
    if isinstance(spec, dict):
        spec = TournamentSpec.from_json(spec)
    deals = spec.chunk_deals(chunk)
    num_seats = spec.num_seats
    num_agents = len(spec.labels)
    batch = len(deals) * num_seats
    engine = registry.make_engine(spec.game, batch, **spec.options)

    # game g = local deal * P + rotation; seat_agent[g, s] = entrant index in seat s
    seat_agent = np.array(
        [seating(d, r, num_agents, num_seats) for d in deals for r in range(num_seats)],
        dtype=np.int64,
    ).reshape(batch, num_seats)
    entrants = make_entrants(spec, chunk)

    engine.reset(game_seeds=np.repeat(deal_keys(spec.seed, deals), num_seats))
    recorder = None
    if games_out is not None:
        from records.recorder import GameRecorder

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
        actions = act_grouped(entrants, who, observations, masks, active, engine=engine)
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
    return normalize(frame)


def normalize(frame: pd.DataFrame) -> pd.DataFrame:
    """Fixed column order and dtypes, so played and re-read chunks compare equal."""
    frame = frame.loc[:, list(COLUMNS)].copy()
    for column in ("deal", "rotation", "seat", "n_deals"):
        frame[column] = frame[column].astype(np.int64)
    for column in ("points", "chips", "won"):
        frame[column] = frame[column].astype(np.float64)
    frame["agent"] = frame["agent"].astype(str)
    return frame.reset_index(drop=True)


def play_chunk_job(job: tuple[dict, int, bool]) -> ChunkOutput:
    """Play one chunk (``job`` = spec as JSON, chunk index, whether to record games); the
    picklable unit of work of every backend."""
    spec, chunk, record = job
    records: list[dict] | None = [] if record else None
    return chunk, play_chunk(spec, chunk, records), records or []
