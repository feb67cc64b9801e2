"""A game played in the browser: one human seat, agents in the others.

:class:`PlaySession` holds an engine of one game, the agents, the narration and the
records of the finished games. Every move is checked before it touches the engine: a
move that is malformed, out of turn or illegal raises :class:`MoveError` (the app answers
4xx with its message) and changes nothing. The agents move at once after the human, up to
the human's next decision; at the end of a deal the session waits for :meth:`next_deal`.
"""

from __future__ import annotations

import copy
import secrets
import sys
import threading

import numpy as np

from envs import registry
from envs.svg import scene_svg
from envs.table_view import scene_of
from web.records_io import GameRecorder, Narrator, plain, record_line
from web.results import breakdown, needs_state_before, round_end_cards

#: lines of narration kept per session
LOG_LINES = 400
#: finished games kept per session for the record download (the latest ones)
MAX_RECORDS = 50
#: bytes of finished games kept per session (the latest ones; at least the last game)
MAX_RECORD_BYTES = 2 * 1024 * 1024
#: bytes a session is counted for besides its records: the engine, the agents, the log
BASE_BYTES = 160 * 1024


class MoveError(ValueError):
    """A move the session refuses: ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def button_label(name: str) -> str:
    """The label of a non-card action's button."""
    kind, _, arg = name.partition(":")
    return {"bid": f"Bid {arg}", "stop": "Stop showing", "call": "Say Abracadabra!",
            "no_call": "Don't call", "draw": "Draw (turn up)"}.get(kind, name)


class PlaySession:
    """One human at a table of agents (see the module docstring)."""

    kind = "play"

    def __init__(self, catalog, game: str, table: dict, seat: int, agent_specs: list,
                 seed: int | None = None):
        self.game = game
        self.options = catalog.options(game, table)
        P = registry.num_seats(game, **self.options)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < P:
            raise MoveError(f"seat must be 0..{P - 1}, got {seat!r}")
        if not isinstance(agent_specs, list) or len(agent_specs) != P:
            raise MoveError(f"agents must list {P} entries, one per seat (null for yours)")
        self.seat = seat
        self.specs = []
        for s, spec in enumerate(agent_specs):
            self.specs.append(
                "human" if s == seat else catalog.check_table(game, spec, self.options))
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)
                                 or not 0 <= seed < 2**63):
            raise MoveError(f"seed must be an integer 0..2**63-1, got {seed!r}")
        self.seed = seed if seed is not None else secrets.randbits(62)
        self.agents = {s: catalog.make_agent(game, spec, seed=self.seed + s)
                       for s, spec in enumerate(self.specs) if s != seat}
        self.engine = registry.make_engine(game, 1, **self.options)
        self.deals = 0  # deals (episodes) started in this session
        self.version = 0  # bumped by every change: clients can tell stale answers
        self.record_lines: list[str] = []  # the latest finished games, as JSON lines
        self.results: list[dict] = []  # every finished deal: result and breakdown
        self.log: list[str] = []
        self.waiting = False  # a deal is over and the match goes on: wait for next_deal
        #: held by the request using the session (the app runs requests in threads)
        self.lock = threading.Lock()
        self._start()

    # -- the game ---------------------------------------------------------------------------
    def _start(self) -> None:
        self.engine.reset(seed=(self.seed + 7919 * self.deals) % 2**63)
        self.deals += 1
        self.recorder = GameRecorder(self.game)
        self.recorder.start(self.engine, np.ones(1, bool), players=self.specs, seed=self.seed)
        self.narrator = Narrator(self.game, self.engine, viewer=self.seat)
        self._say(self.narrator.deal_header())
        if self.engine.game_over[0]:  # over at the deal (Four Aces: four aces dealt, H4)
            self._deal_ended(None, None)
        self._advance()

    @property
    def over(self) -> bool:
        """The episode (a deal, or the match) is over."""
        return bool(self.engine.game_over[0])

    def _say(self, lines: list[str]) -> None:
        self.log.extend(lines)
        del self.log[:-LOG_LINES]

    def _step(self, action: int) -> None:
        e = self.engine
        before = copy.deepcopy(e) if needs_state_before(self.game, e) else None
        self.recorder.record(e, np.array([action]))
        self._say(self.narrator.step(action, lambda: e.step(np.array([action], np.int64))))
        if e.deal_over[0]:
            self._deal_ended(before, action)

    def _deal_ended(self, before, action) -> None:
        result = plain(self.engine.result(0))
        cards = round_end_cards(self.game, before, action) if before is not None else None
        self.results.append({"result": result,
                             "breakdown": breakdown(self.game, self.engine, result, cards)})
        if self.over:
            for record in self.recorder.finish(self.engine, np.ones(1, bool)):
                self._keep(record_line(record))
        else:
            self.waiting = True

    def _advance(self) -> None:
        """Agents move until the human's decision, the end of a deal or of the game."""
        e = self.engine
        while not self.over and not self.waiting and int(e.current_player[0]) != self.seat:
            s = int(e.current_player[0])
            if getattr(self.agents[s], "needs_engine", False):  # search (agents.base)
                self._step(int(self.agents[s].act_engine(e, np.zeros(1, np.intp))[0]))
                continue
            obs = e.observe(np.array([s]))[0]
            mask = e.legal_action_mask()[0]
            self._step(int(self.agents[s].act(obs, mask)))

    def _keep(self, line: str) -> None:
        """Keep a finished game's line; the oldest go beyond :data:`MAX_RECORDS` or
        :data:`MAX_RECORD_BYTES`."""
        self.record_lines.append(line)
        while len(self.record_lines) > 1 and (
                len(self.record_lines) > MAX_RECORDS
                or sum(map(len, self.record_lines)) > MAX_RECORD_BYTES):
            del self.record_lines[0]

    @property
    def nbytes(self) -> int:
        """An estimate of the bytes this session holds."""
        return BASE_BYTES + sum(sys.getsizeof(line) for line in self.record_lines)

    def records_jsonl(self) -> str:
        """The finished games kept, as a record file (JSON lines)."""
        return "".join(line + "\n" for line in self.record_lines)

    # -- requests --------------------------------------------------------------------------
    def act(self, name: object, version: object = None) -> None:
        """The human's move ``name`` (an action name such as ``"play:QS"``); raises
        :class:`MoveError` (nothing changed) for anything but a legal move in turn.
        ``version``, if given, must be the current one (a stale page gets 409)."""
        e = self.engine
        if version is not None and version != self.version:
            raise MoveError("the table has changed since this page saw it: reload", 409)
        if not isinstance(name, str) or name not in e.action_names:
            raise MoveError(f"unknown move {name!r}: expected an action name such as "
                            f"{e.action_names[0]!r}")
        if self.over:
            raise MoveError("this game is over: start the next deal or a new game", 409)
        if self.waiting:
            raise MoveError("the deal is over: continue with the next deal", 409)
        if int(e.current_player[0]) != self.seat:
            raise MoveError(f"it is player_{int(e.current_player[0])}'s turn, not yours", 409)
        action = e.action_names.index(name)
        mask = e.legal_action_mask()[0]
        if not mask[action]:
            legal = [e.action_names[a] for a in np.flatnonzero(mask)]
            rules = registry.get(self.game).load("narration")
            raise MoveError(f"{name} is not allowed: {rules.why_illegal(e, name, legal)}")
        self._step(action)
        self._advance()
        self.version += 1

    def next_deal(self) -> None:
        """Go on after a finished deal: the match's next deal, or a new game (deal / round
        episodes, and after a match)."""
        if self.waiting:
            self.waiting = False
        elif self.over:
            self._start()
        else:
            raise MoveError("the deal is still being played", 409)
        self._advance()
        self.version += 1

    # -- what the page shows ---------------------------------------------------------------
    def state(self, session_id: str, svg: bool = True) -> dict:
        """The table as the human sees it, with the moves open to him."""
        e = self.engine
        scene = scene_of(e, 0, self.seat)
        mine = not self.over and not self.waiting and int(e.current_player[0]) == self.seat
        legal = ([e.action_names[a] for a in np.flatnonzero(e.legal_action_mask()[0])]
                 if mine else [])
        card_moves = set(scene.card_actions.values())
        last = self.results[-1] if self.results and (self.over or self.waiting) else None
        return {
            "id": session_id, "kind": self.kind, "version": self.version,
            "game": self.game, "options": self.options, "seat": self.seat,
            "players": self.specs, "title": scene.title, "headline": scene.headline,
            "your_turn": mine, "legal": legal,
            "buttons": [{"action": n, "label": button_label(n)}
                        for n in legal if n not in card_moves],
            "card_actions": scene.card_actions if mine else {},
            "hand": [c for c in scene.seats[self.seat].hand if c],
            "svg": scene_svg(scene) if svg else None,
            "log": self.log[-60:], "over": self.over, "waiting": self.waiting,
            "deal_over": last is not None, "last": last,
            "deals": self.deals, "games_recorded": len(self.record_lines),
        }
