"""Record the games of any batch loop as game records (:mod:`records.format`).

>>> recorder = GameRecorder("abracadabra")                         # doctest: +SKIP
>>> recorder.start(engine, np.ones(engine.batch_size, bool))       # after engine.reset
>>> recorder.record(engine, actions, active)                       # before engine.step
>>> write_games("games.jsonl", recorder.finish(engine, engine.game_over))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from envs import registry
from records.format import FORMAT, VERSION, plain


class GameRecorder:
    """Records the games of a batch engine as they are played.

    Call :meth:`start` after resetting games, :meth:`record` before every
    ``engine.step(actions, active)``, and :meth:`finish` once games are over (before they
    are reset again). Deals that begin during a step (match episodes) and the result of
    every finished deal are picked up on the next :meth:`record` or :meth:`finish`. The
    deals are written by the game's ``deal_io`` module (:attr:`envs.registry.Game.deal_io`).
    """

    def __init__(self, game: str):
        self.game = game
        self._deal_io = registry.get(game).load("deal_io")
        self._records: dict[int, dict] = {}  # open record of each started game
        self._stepped = np.zeros(0, bool)  # games advanced by the last recorded step

    def start(
        self,
        engine,
        games: np.ndarray | None = None,
        players: Sequence | None = None,
        info: dict | Sequence[dict] | None = None,
        seed: int | None = None,
    ) -> None:
        """Open a record for every game in the bool mask ``games`` (default all), freshly
        reset: snapshot its deal and key. ``players``: agent names by seat, one list for
        all games or one per started game; ``info``: a dict (or one per started game)
        stored as the record's ``info``."""
        B = engine.batch_size
        if len(self._stepped) != B:
            self._stepped = np.zeros(B, bool)
        started = np.flatnonzero(np.ones(B, bool) if games is None else np.asarray(games, bool))
        options = dataclasses.asdict(engine.config)
        for i, g in enumerate(started.tolist()):
            seats = players
            if players is not None and len(players) and not isinstance(players[0], str):
                seats = players[i]
            extra = info[i] if isinstance(info, Sequence) else info
            self._records[g] = {
                "format": FORMAT,
                "version": VERSION,
                "game": self.game,
                "options": options,
                "game_key": self._deal_io.game_key(engine, g),
                "seed": seed,
                "players": list(seats) if seats is not None else None,
                "info": dict(extra) if extra else {},
                "deal": self._deal_io.deal_of(engine, g),
                "later_deals": [],
                "actions": [],
                "results": [],
                "result": None,
            }
        self._stepped[started] = False

    def record(self, engine, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        """Store the action of every live recorded game (where ``active``, default all);
        call it just before ``engine.step(actions, active)``."""
        self._settle(engine)
        live = ~engine.game_over
        if active is not None:
            live = live & np.asarray(active, bool).reshape(-1)
        actions = np.asarray(actions).reshape(-1)
        seats = engine.current_player
        action_names = engine.action_names
        for g in np.flatnonzero(live).tolist():
            record = self._records.get(g)
            if record is not None:
                record["actions"].append([int(seats[g]), action_names[int(actions[g])]])
                self._stepped[g] = True

    def finish(self, engine, games: np.ndarray | None = None) -> list[dict]:
        """Close the records of the games in the bool mask ``games`` (default all): store
        their results and return them, in game order. Games never started are skipped."""
        self._settle(engine)
        B = engine.batch_size
        done = np.flatnonzero(np.ones(B, bool) if games is None else np.asarray(games, bool))
        out = []
        for g in done.tolist():
            record = self._records.pop(g, None)
            if record is not None:
                record["result"] = plain(engine.result(g))
                out.append(record)
        return out

    def _settle(self, engine) -> None:
        """Pick up what the last step did: finished deals' results, new deals dealt."""
        ended = np.flatnonzero(self._stepped & engine.deal_over)
        for g in ended.tolist():
            record = self._records.get(g)
            if record is None:
                continue
            record["results"].append(plain(engine.result(g)))
            if not engine.game_over[g]:
                record["later_deals"].append(self._deal_io.deal_of(engine, g))
        self._stepped[:] = False
