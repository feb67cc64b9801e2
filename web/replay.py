"""Stepping through saved games in the browser.

A :class:`ReplaySession` holds the records of one uploaded file (or of a game the agents
just played, :func:`play_out`). A game is replayed once through a fresh engine when it is
first opened (:class:`Positions`): the narration of every step, the marks to jump to
(deals, tricks, turns), every finished deal's explained result, and a copy of the engine
every :data:`CHECKPOINT_EVERY` steps (fewer in a long game: at most
:data:`MAX_CHECKPOINTS`); a position is rebuilt from the nearest copy. The
replay is checked against the stored results (:func:`records.replay.check_game`).
"""

from __future__ import annotations

import copy
import json
import pickle
import secrets
import sys
import threading

import numpy as np

from envs import registry
from envs.svg import scene_svg
from envs.table_view import scene_of
from web.insight import action_probabilities
from web.records_io import (
    GameRecorder,
    Narrator,
    ReplayMismatch,
    check_game,
    iter_records,
    plain,
    record_line,
    seat_name,
)
from web.results import breakdown, needs_state_before, round_end_cards, step_mark
from web.workers import InUse

#: steps between two kept engines (more in a long game: at most MAX_CHECKPOINTS)
CHECKPOINT_EVERY = 32
#: the most engine copies kept of one game
MAX_CHECKPOINTS = 160
#: the longest summary of a game kept (JSON characters; beyond, its result is left out)
MAX_SUMMARY_CHARS = 4096
#: bytes one step of an open game is counted for (its narration, marks, action), besides
#: the engine copies (measured: 550 for a Four Aces match of five, 1,000 at most)
STEP_BYTES = 1200
#: bytes the parsed record is counted for, per action (an action's [seat, name] pair,
#: its share of the deals and results)
RECORD_BYTES_PER_ACTION = 400
#: the most actions of one game the app replays
MAX_ACTIONS = 20000


class Positions:
    """Every position of one record (see the module docstring)."""

    def __init__(self, record: dict):
        game = record["game"]
        options = record["options"]
        if not isinstance(options, dict):
            raise ReplayMismatch("options must be an object")
        try:
            registry.make_config(game, **options)
        except (TypeError, ValueError) as err:
            raise ReplayMismatch(f"options are not a {game} table: {err}") from None
        if len(record["actions"]) > MAX_ACTIONS:
            raise ReplayMismatch(f"{len(record['actions'])} actions: the app replays at "
                                 f"most {MAX_ACTIONS}")
        self.record, self.game, self.options = record, game, options
        self.problems = check_game(record)
        if self.problems:
            raise ReplayMismatch("; ".join(self.problems))
        deal_io = registry.get(game).load("deal_io")
        engine = registry.make_engine(game, 1, **options)
        deal_io.start_record(engine, record)
        narrator = Narrator(game, engine, reveal=True)
        names = {n: i for i, n in enumerate(engine.action_names)}
        later = list(record.get("later_deals") or [])
        self.lines: list[list[str]] = [narrator.deal_header()]  # what step k told
        self.marks: list[dict] = [{"step": 0, "label": self._label(engine, 0)}]
        self.deal_ends: dict[int, dict] = {}  # step -> {"result", "breakdown"}
        self.checkpoints: dict[int, object] = {0: copy.deepcopy(engine)}
        every = max(CHECKPOINT_EVERY, -(-len(record["actions"]) // MAX_CHECKPOINTS))
        engine_bytes = 2 * len(pickle.dumps(engine))  # a copy in memory: ~1.9x its pickle
        self.actions: list[int] = []
        deals = 0
        for k, (_, name) in enumerate(record["actions"], start=1):
            action = names[name]
            before = copy.deepcopy(engine) if needs_state_before(game, engine) else None

            def do_step(action=action, deals=deals):
                engine.step(np.array([action], np.int64))
                if engine.deal_over[0] and not engine.game_over[0] and deal_io.next_deal:
                    deal_io.next_deal(engine, later[deals])

            self.lines.append(narrator.step(action, do_step))
            self.actions.append(action)
            if engine.deal_over[0]:
                deals += 1
                result = plain(engine.result(0))
                cards = round_end_cards(self.game, before, action) if before is not None else None
                self.deal_ends[k] = {"result": result,
                                     "breakdown": breakdown(game, engine, result, cards)}
            if k % every == 0:
                self.checkpoints[k] = copy.deepcopy(engine)
            label = self._label(engine, k)
            if label != self.marks[-1]["label"]:
                self.marks.append({"step": k, "label": label})
        self.lines[-1] += narrator.flush()
        self.steps = len(self.actions)
        #: an estimate of the bytes held: the engine copies, every step, the parsed record
        self.nbytes = (engine_bytes * len(self.checkpoints) + STEP_BYTES * self.steps
                       + RECORD_BYTES_PER_ACTION * len(self.actions) + 64 * 1024)

    def _label(self, engine, k: int) -> str:
        """The mark a step belongs to: its deal and trick (Abracadabra) or turn."""
        scene = scene_of(engine, 0, face_up=True)
        return step_mark(self.game, engine, scene, k)

    def engine_at(self, step: int):
        """A fresh engine in the position after ``step`` actions."""
        base = max(k for k in self.checkpoints if k <= step)
        engine = copy.deepcopy(self.checkpoints[base])
        later = list(self.record.get("later_deals") or [])
        deal_io = registry.get(self.game).load("deal_io")
        deals = sum(1 for k in self.deal_ends if k <= base)
        for k in range(base, step):
            engine.step(np.array([self.actions[k]], np.int64))
            if engine.deal_over[0] and not engine.game_over[0] and deal_io.next_deal:
                deal_io.next_deal(engine, later[deals])
                deals += 1
            elif engine.deal_over[0]:
                deals += 1
        return engine


class ReplaySession:
    """The games of one uploaded file, opened one at a time.

    The games are held as their JSON lines (about their size in bytes) with a summary
    each; the game opened is parsed and replayed (:class:`Positions`). ``nbytes``
    estimates the whole. Thread-safe: a game is opened by one request at a time
    (another gets :class:`~web.workers.InUse`) and positions are read from copies."""

    kind = "replay"

    def __init__(self, records: list[dict], errors: list[str], source: str):
        self.errors, self.source = errors, source
        self._lines: list[str] = []
        self._summaries: list[dict] = []
        self._held = 0  # bytes of the lines and summaries
        for record in records:
            self._add(record_line({k: v for k, v in record.items() if k != "_line"}),
                      record, record.get("_line"))
        self._open: dict[int, Positions] = {}
        self._opening = threading.Lock()
        self.version = 0

    @classmethod
    def from_text(cls, data: bytes | str, source: str) -> ReplaySession:
        """The games of a JSON-lines file (its bytes or text;
        :func:`web.records_io.iter_records`), each parsed once to be checked and
        summarized, then kept as its line."""
        session = cls([], [], source)
        for number, line, record, error in iter_records(data):
            if record is None:
                session.errors.append(error)
            else:
                session._add(line, record, number)
        return session

    def _add(self, line: str, record: dict, number: int | None) -> None:
        summary = {"game": record["game"], "options": record["options"],
                   "title": registry.get(record["game"]).title,
                   "players": record.get("players"), "actions": len(record["actions"]),
                   "result": record.get("result"), "line": number}
        size = len(record_line(summary))
        if size > MAX_SUMMARY_CHARS:  # a result of a foreign size: shown when opened
            summary["result"] = None
            size = len(record_line(summary))
        self._lines.append(line)
        self._summaries.append(summary)
        self._held += sys.getsizeof(line) + 8 * size + 1024  # a summary: ~8x its JSON

    def __len__(self) -> int:
        return len(self._lines)

    @property
    def nbytes(self) -> int:
        """An estimate of the bytes this session holds."""
        held = self._held + sum(sys.getsizeof(e) for e in self.errors)
        return held + sum(p.nbytes for p in list(self._open.values()))

    def positions(self, index: int) -> Positions:
        """Game ``index``, opened (replayed once) if it is not the open one."""
        if not 0 <= index < len(self._lines):
            raise IndexError(f"no game {index}: this file holds {len(self._lines)}")
        found = self._open.get(index)
        if found is not None:
            return found
        if not self._opening.acquire(blocking=False):
            raise InUse("another game of this file is being opened; try again in a moment")
        try:
            found = self._open.get(index)
            if found is None:
                record = json.loads(self._lines[index])
                record["_line"] = self._summaries[index]["line"]
                self._open = {}  # one open at a time: let the last one go first
                found = Positions(record)
                self._open = {index: found}
            return found
        finally:
            self._opening.release()

    def summary(self, session_id: str) -> dict:
        games = [{"index": k, **s} for k, s in enumerate(self._summaries)]
        return {"id": session_id, "kind": self.kind, "source": self.source,
                "games": games, "errors": self.errors}

    def game_info(self, index: int) -> dict:
        """What the page needs to step through game ``index``."""
        p = self.positions(index)
        seats = registry.num_seats(p.game, **p.options)
        return {"index": index, "game": p.game, "steps": p.steps, "marks": p.marks,
                "players": p.record.get("players") or [None] * seats, "seats": seats,
                "result": p.record["result"], "check": "replays exactly"}

    def position(self, catalog, index: int, step: int, seat: int | None, face_up: bool,
                 svg: bool = True) -> dict:
        """The table after ``step`` actions of game ``index``."""
        p = self.positions(index)
        if not 0 <= step <= p.steps:
            raise IndexError(f"step must be 0..{p.steps}, got {step}")
        engine = p.engine_at(step)
        P = engine.num_players
        if seat is not None and not 0 <= seat < P:
            raise IndexError(f"seat must be 0..{P - 1}, got {seat}")
        scene = scene_of(engine, 0, seat, face_up)
        to_act = int(engine.current_player[0])
        out = {"index": index, "step": step, "steps": p.steps, "title": scene.title,
               "headline": scene.headline, "to_act": to_act,
               "svg": scene_svg(scene) if svg else None,
               "told": p.lines[step], "next": None, "probabilities": None,
               "deal_end": p.deal_ends.get(step), "final": step == p.steps}
        if step < p.steps:
            seat_next, name = p.record["actions"][step]
            out["next"] = f"{seat_name(seat_next)} {name}"
            players = p.record.get("players") or []
            spec = players[to_act] if 0 <= to_act < len(players) else None
            agent = catalog.policy_for(p.game, spec, p.options)
            if agent is not None:
                obs = engine.observe(np.array([to_act]))[0]
                probs = action_probabilities(agent, obs, engine.legal_action_mask()[0])
                if probs is not None:
                    out["probabilities"] = {"agent": spec, "chosen": name, **probs}
        if p.steps and step == p.steps:
            out["result"] = plain(engine.result(0))
        return out


def play_out(catalog, game: str, table: dict, specs: list, seed: int | None = None) -> dict:
    """A game played by agents alone (``specs``, one per seat), as a game record."""
    options = catalog.options(game, table)
    P = registry.num_seats(game, **options)
    if not isinstance(specs, list) or len(specs) != P:
        raise ValueError(f"agents must list {P} agents, one per seat")
    specs = [catalog.check_table(game, s, options) for s in specs]
    seed = secrets.randbits(62) if seed is None else seed
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer 0..2**63-1, got {seed!r}")
    players = [catalog.make_agent(game, s, seed=seed + k) for k, s in enumerate(specs)]
    engine = registry.make_engine(game, 1, **options)
    engine.reset(seed=seed)
    recorder = GameRecorder(game)
    recorder.start(engine, np.ones(1, bool), players=specs, seed=seed)
    for _ in range(MAX_ACTIONS):
        if engine.game_over[0]:
            break
        s = int(engine.current_player[0])
        if getattr(players[s], "needs_engine", False):  # search agents (agents.base)
            action = int(players[s].act_engine(engine, np.zeros(1, np.intp))[0])
        else:
            action = players[s].act(engine.observe(np.array([s]))[0],
                                    engine.legal_action_mask()[0])
        recorder.record(engine, np.array([action]))
        engine.step(np.array([action], np.int64))
    else:
        raise ValueError(f"the game did not end within {MAX_ACTIONS} actions")
    record = recorder.finish(engine, np.ones(1, bool))[0]
    record["info"] = {"source": "cardrl serve, agents only"}
    return plain(record)
