"""Saved games: record them from any batch loop, read them back, tell them, check them.

>>> recorder = GameRecorder("abracadabra")                         # doctest: +SKIP
>>> recorder.start(engine, np.ones(engine.batch_size, bool))       # after engine.reset
>>> recorder.record(engine, actions, active)                       # before engine.step
>>> write_games("games.jsonl", recorder.finish(engine, engine.game_over))

**File format** (JSON lines, one game per line)::

    format       "cardrl-game"
    version      1
    game         "abracadabra" | "four_aces"
    options      the engine config's fields (AbracadabraConfig / FourAcesConfig)
    game_key     the game's 64-bit key: its deals are a pure function of it
    seed         the seed the caller played with, if any
    players      who sat in each seat (agent names), if known
    info         anything else the caller stored (tournament deal, rotation …)
    deal         the first deal, in the engine's ``reset_with_deal`` form: Abracadabra
                 {"dealer", "hands" (seat order, the dummy last), "leftover"};
                 Four Aces {"dealer", "hands", "tables", "stock" (top first)}
    later_deals  the deals after the first one (match episodes), same form
    actions      [[actor seat, action name], ...] in order ("bid:3", "play:QS",
                 "discard:7D", "draw" …)
    results      the engine's ``result()`` after every finished deal / round
    result       the engine's ``result()`` at the end

:func:`check_game` replays ``actions`` through a fresh engine (``reset_with_deal`` and
``step``; Abracadabra's later deals with ``set_deal``, Four Aces' from ``game_key``) and
compares every actor, deal and result with the stored ones. ``cardrl replay FILE``
prints a readable account of each game (:func:`describe_game`); ``--check`` checks them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from envs import registry as games_mod
from envs.cards import SUIT_SYMBOLS, names, parse_card, pretty_card, sort_key

FORMAT = "cardrl-game"
VERSION = 1


# =========================================================================================
# per-game pieces: snapshot a deal, lay it out again, key, names of the hands
# =========================================================================================
def _abra_deal(engine, g: int) -> dict:
    leftover = int(engine._leftover[g])
    return {
        "dealer": int(engine._dealer[g]),
        "hands": [names(engine.hand_cards(g, h)) for h in range(engine.num_hands)],
        "leftover": names([leftover])[0] if leftover >= 0 else None,
    }


def _abra_start(engine, record: dict) -> None:
    deal = record["deal"]
    engine.reset_with_deal(0, deal["dealer"], deal["hands"], deal["leftover"])


def _abra_next(engine, deal: dict) -> None:
    engine.set_deal(0, deal["hands"], deal["leftover"])  # the dealer passes left (B1)


def _four_deal(engine, g: int) -> dict:
    P = engine.num_players
    row = engine.deck[g]
    return {
        "dealer": int(engine.dealer[g]),
        "hands": [names(row[3 * p : 3 * p + 3]) for p in range(P)],
        "tables": [names(row[3 * P + 3 * p : 3 * P + 3 * p + 3]) for p in range(P)],
        "stock": names(row[6 * P :]),
    }


def _four_start(engine, record: dict) -> None:
    deal = record["deal"]
    if record.get("game_key") is not None:  # later rounds of a match come from the key
        engine.reset(game_seeds=np.array([record["game_key"]], dtype=np.uint64))
    engine.reset_with_deal(0, deal["dealer"], deal["hands"], deal["tables"], deal["stock"])


@dataclass(frozen=True)
class _GameSpec:
    """How replays handle one game's engine."""

    snapshot: Callable  # (engine, game) -> deal dict (reset_with_deal form)
    start: Callable  # (engine of one game, record) -> lay out the first deal
    next_deal: Callable | None  # (engine, deal) -> force a later deal; None: from the key
    key_field: str  # engine attribute holding the per-game keys
    deal_word: str  # "deal" or "round"


_SPECS: dict[str, _GameSpec] = {
    "abracadabra": _GameSpec(_abra_deal, _abra_start, _abra_next, "_key", "deal"),
    "four_aces": _GameSpec(_four_deal, _four_start, None, "keys", "round"),
}


def _spec(game: str) -> _GameSpec:
    if game not in _SPECS:
        raise ValueError(f"unknown game {game!r}: expected one of {tuple(_SPECS)}")
    return _SPECS[game]


def _plain(value):
    """``value`` as plain JSON types (what a stored result looks like once read back)."""
    return json.loads(json.dumps(value))


# =========================================================================================
# recording from a batch loop
# =========================================================================================
class GameRecorder:
    """Records the games of a batch engine as they are played (see the module docstring).

    Call :meth:`start` after resetting games, :meth:`record` before every
    ``engine.step(actions, active)``, and :meth:`finish` once games are over (before they
    are reset again). Deals that begin during a step (match episodes) and the result of
    every finished deal are picked up on the next :meth:`record` or :meth:`finish`.
    """

    def __init__(self, game: str):
        self.game = game
        self._spec = _spec(game)
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
        keys = getattr(engine, self._spec.key_field)
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
                "game_key": int(keys[g]),
                "seed": seed,
                "players": list(seats) if seats is not None else None,
                "info": dict(extra) if extra else {},
                "deal": self._spec.snapshot(engine, g),
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
                record["result"] = _plain(engine.result(g))
                out.append(record)
        return out

    def _settle(self, engine) -> None:
        """Pick up what the last step did: finished deals' results, new deals dealt."""
        ended = np.flatnonzero(self._stepped & engine.deal_over)
        for g in ended.tolist():
            record = self._records.get(g)
            if record is None:
                continue
            record["results"].append(_plain(engine.result(g)))
            if not engine.game_over[g]:
                record["later_deals"].append(self._spec.snapshot(engine, g))
        self._stepped[:] = False


# =========================================================================================
# files
# =========================================================================================
class GameFileError(ValueError):
    """A line of a games file that is not a readable game."""

    def __init__(self, path: str | os.PathLike, line: int, reason: str):
        self.path, self.line, self.reason = str(path), line, reason
        super().__init__(f"{self.path}, line {line}: {reason}")


def write_games(path: str | os.PathLike, records: Iterable[dict], append: bool = False) -> int:
    """Write ``records`` to ``path`` as JSON lines (``append`` adds to the file); returns
    the number written."""
    count = 0
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, separators=(",", ":")) + "\n")
            count += 1
    return count


_REQUIRED = ("game", "options", "deal", "actions", "result")


def _validate(record: object) -> str | None:
    """Why ``record`` is not a game, or None."""
    if not isinstance(record, dict):
        return f"expected a JSON object (one game), got {type(record).__name__}"
    missing = [k for k in _REQUIRED if k not in record]
    if missing:
        return f"not a saved game: missing {', '.join(missing)}"
    if record["game"] not in _SPECS:
        return f"unknown game {record['game']!r}: expected one of {tuple(_SPECS)}"
    actions = record["actions"]
    ok = isinstance(actions, list) and all(
        isinstance(a, list) and len(a) == 2 and isinstance(a[0], int) and isinstance(a[1], str)
        for a in actions
    )
    if not ok:
        return "actions must be a list of [seat, action name] pairs"
    if not isinstance(record["deal"], dict) or "hands" not in record["deal"]:
        return "deal must be an object with the hands"
    return None


def read_games(path: str | os.PathLike) -> tuple[list[dict], list[GameFileError]]:
    """The games of a JSON-lines file and the errors of its bad lines.

    Every readable game is returned, in file order, whatever lines around it are
    broken (a truncated last line, a corrupt line in the middle); each bad line gives one
    :class:`GameFileError` naming its line number. A missing file raises
    ``FileNotFoundError``.
    """
    games: list[dict] = []
    errors: list[GameFileError] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                hint = "" if line.endswith("\n") else " (the file looks truncated)"
                errors.append(GameFileError(path, number, f"not valid JSON: {err.msg} "
                                                          f"at column {err.colno}{hint}"))
                continue
            reason = _validate(record)
            if reason:
                errors.append(GameFileError(path, number, reason))
                continue
            record["_line"] = number
            games.append(record)
    return games, errors


# =========================================================================================
# telling what happened
# =========================================================================================
def seat_name(seat: int, viewer: int | None = None) -> str:
    return f"player_{seat}" + (" (you)" if seat == viewer else "")


def _cards_text(cards: Iterable[int], trump: int = -1) -> str:
    cards = sorted((int(c) for c in cards), key=lambda c: sort_key(c, trump))
    return " ".join(pretty_card(c) for c in cards) or "-"


def _by_seat(values: Sequence, viewer: int | None = None) -> str:
    return ", ".join(f"{seat_name(s, viewer)} {v:g}" if isinstance(v, float) else
                     f"{seat_name(s, viewer)} {v}" for s, v in enumerate(values))


class Narrator:
    """Turns the steps of one game of an engine into sentences.

    ``viewer``: the seat of a human player (marked "(you)"; his own draws are told);
    ``reveal``: tell every hidden card (replays). ``compact``: one line per bidding round
    and per trick instead of one per action.
    """

    def __init__(self, game: str, engine, g: int = 0, viewer: int | None = None,
                 reveal: bool = False, compact: bool = False):
        self.game, self.engine, self.g = game, engine, g
        self.viewer, self.reveal, self.compact = viewer, reveal, compact
        self._pending: list[str] = []  # bids or trick cards of a compact line
        self._turn = 0

    def name(self, seat: int) -> str:
        return seat_name(seat, self.viewer)

    def hand_name(self, hand: int) -> str:
        return "dummy" if hand >= self.engine.num_players else self.name(hand)

    # -- deal headers ---------------------------------------------------------------------
    def deal_header(self) -> list[str]:
        """The deal just dealt: dealer, trump / table cards, and every hand if revealed."""
        e, g = self.engine, self.g
        self._turn = 0
        if self.game == "abracadabra":
            trump = int(e._trump[g])
            lo = int(e._leftover[g])
            lines = [
                f"Deal {int(e._deals_done[g]) + 1}: dealer {self.name(int(e._dealer[g]))}, "
                f"leftover {pretty_card(lo) if lo >= 0 else '-'}, trump "
                f"{SUIT_SYMBOLS[trump] if trump >= 0 else 'none'}"
            ]
            hands = range(e.num_hands) if self.reveal else (
                [e.num_players] if e.has_dummy else [])
            lines += [f"  {self.hand_name(h)}: {_cards_text(e.hand_cards(g, h), trump)}"
                      for h in hands]
            return lines
        lines = [f"Round {int(e.rounds_played[g]) + 1}: dealer {self.name(int(e.dealer[g]))}, "
                 f"stock {int(len(e.deck[g]) - e.stock_top[g])} cards"]
        for p in range(e.num_players):
            hand = (f"hand {self._hand_text(p)}, " if self.reveal else "")
            lines.append(f"  {self.name(p)}: {hand}table {self._counts_text(e.table[g, p])}")
        return lines

    def _counts_text(self, counts: np.ndarray) -> str:
        return _cards_text(c for c in np.flatnonzero(counts) for _ in range(int(counts[c])))

    def _hand_text(self, seat: int) -> str:
        return self._counts_text(self.engine.hand[self.g, seat])

    # -- one step -------------------------------------------------------------------------
    def step(self, action: int, do_step: Callable[[], object]) -> list[str]:
        """Call ``do_step()`` (which applies ``action`` to the game) and return what
        happened, in sentences."""
        if self.game == "abracadabra":
            return self._abra_step(action, do_step)
        return self._four_step(action, do_step)

    def flush(self) -> list[str]:
        out, self._pending = self._pending, []
        return ["  " + ", ".join(out)] if out else []

    def _abra_step(self, action: int, do_step) -> list[str]:
        e, g = self.engine, self.g
        P = e.num_players
        name = e.action_names[action]
        seat = int(e.current_player[g])
        hand = int(e._to_play[g])
        won_before = e._tricks_won[g].copy()
        tricks_before = int(e._tricks_done[g])
        do_step()
        lines: list[str] = []
        kind, _, arg = name.partition(":")
        over = bool(e.deal_over[g])
        if kind == "bid":
            if self.compact:
                self._pending.append(f"{self.name(seat)} {arg}")
            else:
                lines.append(f"{self.name(seat)} bids {arg}")
            if over or e._declarer[g] >= 0:
                if self.compact:
                    lines.append("Bidding: " + ", ".join(self._pending))
                    self._pending = []
                res = e.result(g) if over else None
                d = res["declarer"] if res else int(e._declarer[g])
                t = res["target"] if res else int(e._target[g])
                lines.append(f"{self.name(d)} is the declarer; target {t}")
        elif kind == "show":
            if self.compact:
                self._pending.append(pretty_card(parse_card(arg)))
            else:
                lines.append(f"{self.name(seat)} shows {pretty_card(parse_card(arg))}")
        elif kind == "stop":
            if self.compact:
                shown = " ".join(self._pending) or "nothing"
                lines.append(f"{self.name(seat)} shows {shown} "
                             f"(stake {int(e._stakes[g, seat])})")
                self._pending = []
            else:
                lines.append(f"{self.name(seat)} stops showing "
                             f"({int(e._num_shown[g])} shown, stake {int(e._stakes[g, seat])})")
        elif kind == "call":
            lines.append(f"{self.name(seat)} says \"Abracadabra!\"")
        elif kind == "no_call":
            lines.append(f"{self.name(seat)} does not say Abracadabra")
        elif kind == "play":
            card = pretty_card(parse_card(arg))
            who = self.name(seat) + (" for the dummy" if hand >= P else "")
            if self.compact:
                self._pending.append(f"{self.hand_name(hand)} {card}"
                                     + (f" ({self.name(seat)})" if hand >= P else ""))
            else:
                lines.append(f"{who} plays {card}")
            won_after = np.array(e.result(g)["tricks"]) if over else e._tricks_won[g]
            gained = np.flatnonzero(won_after > won_before)
            if len(gained) and (over or int(e._tricks_done[g]) > tricks_before):
                h = int(gained[0])
                n = int(won_after[h])
                text = (f"{self.hand_name(h)} takes trick {tricks_before + 1} "
                        f"({n} trick{'' if n == 1 else 's'})")
                if self.compact:
                    lines.append(f"Trick {tricks_before + 1}: " + ", ".join(self._pending)
                                 + f" -> {self.hand_name(h)}")
                    self._pending = []
                else:
                    lines.append(text)
        if over:
            lines += self.result_lines(e.result(g))
            if not e.game_over[g]:
                lines += self.deal_header()
        return lines

    def _four_step(self, action: int, do_step) -> list[str]:
        e, g = self.engine, self.g
        name = e.action_names[action]
        seat = int(e.current_player[g])
        hand_before = e.hand[g, seat].copy()
        limit_before = int(e.hand_limit[g, seat])
        discards_before = int(e.discard_size[g])
        do_step()
        self._turn += 1
        over = bool(e.deal_over[g])
        prefix = f"Turn {self._turn}: " if self.compact else ""
        if name == "draw":
            if int(e.discard_size[g]) > discards_before:
                card = int(e.discard[g, discards_before])
                text = f"{self.name(seat)} turns up {pretty_card(card)}"
            else:
                text = (f"{self.name(seat)} turns up a joker: it goes into the hand "
                        f"(L={limit_before + 1})")
        else:
            card = parse_card(name.partition(":")[2])
            text = f"{self.name(seat)} discards {pretty_card(card)}"
            if not over and (self.reveal or seat == self.viewer):
                after = e.hand[g, seat].astype(np.int64)
                before = hand_before.astype(np.int64)
                before[card] -= 1
                drawn = [c for c in np.flatnonzero(after > before)
                         for _ in range(int(after[c] - before[c]))]
                if drawn:
                    text += f", draws {_cards_text(drawn)}"
        lines = [prefix + text]
        if over:
            lines += self.result_lines(e.result(g))
            if not e.game_over[g]:
                lines += self.deal_header()
        return lines

    # -- results --------------------------------------------------------------------------
    def result_lines(self, res: dict | None) -> list[str]:
        """A finished deal / round, and the match result when it is over."""
        if res is None:
            return []
        v = self.viewer
        if self.game == "abracadabra":
            tricks = ", ".join(f"{self.hand_name(h)} {t}" for h, t in enumerate(res["tricks"]))
            lines = [
                f"Deal {res['deal'] + 1} over: declarer {self.name(res['declarer'])}, "
                f"target {res['target']}; tricks: {tricks}",
                "  called: " + (", ".join(self.name(s) for s in res["called"]) or "-")
                + "; hit: " + (", ".join(self.name(s) for s in res["hitters"]) or "-")
                + (f"; pot carried over: {res['carry']}" if res["carry"] else ""),
                f"  points: {_by_seat(res['points'], v)}",
                f"  chips:  {_by_seat([round(c, 2) for c in res['chips']], v)}",
            ]
            if self.engine.config.episode == "match":
                lines.append(f"  totals: {_by_seat(res['totals'], v)}")
        else:
            if res["four_aces"] is not None:
                lines = [f"{self.name(res['four_aces'])} holds all four aces and wins the "
                         "match!"]
            else:
                lines = [f"Round {res['round'] + 1} over: points "
                         f"{_by_seat(res['round_points'], v)}"]
                if self.engine.config.episode == "match":
                    lines.append(f"  totals: {_by_seat(res['totals'], v)}")
        if res.get("match_over") and res.get("winners") is not None:
            won = ", ".join(self.name(s) for s in res["winners"])
            lines.append(f"Winner{'s' if len(res['winners']) > 1 else ''}: {won}")
        return lines


# =========================================================================================
# replaying a stored game
# =========================================================================================
class ReplayMismatch(ValueError):
    """A stored game that does not replay to its stored actors, deals or results."""


def _engine_for(record: dict):
    return games_mod.make_engine(record["game"], 1, **record["options"])


def replay_game(record: dict, on_step: Callable | None = None, narrator_kwargs=None):
    """Replay ``record`` through a fresh engine; return (engine, narrator lines).

    Raises :class:`ReplayMismatch` saying what differs (an actor not the seat to act, an
    illegal or unknown action, a deal or a result not the stored one)."""
    game = record["game"]
    spec = _spec(game)
    engine = _engine_for(record)
    try:
        spec.start(engine, record)
    except ValueError as err:
        raise ReplayMismatch(f"the stored deal cannot be dealt: {err}") from None
    narrator = Narrator(game, engine, **(narrator_kwargs or {}))
    lines = narrator.deal_header()
    index = {n: i for i, n in enumerate(engine.action_names)}
    later = list(record.get("later_deals") or [])
    results: list[dict] = []
    deals_seen = 0
    for number, (seat, name) in enumerate(record["actions"], start=1):
        where = f"action {number} ({seat_name(seat)} {name!r})"
        if engine.game_over[0]:
            raise ReplayMismatch(f"{where}: the game is already over")
        if int(engine.current_player[0]) != seat:
            raise ReplayMismatch(f"{where}: {seat_name(int(engine.current_player[0]))} is to "
                                 "act, not the stored actor")
        if name not in index:
            raise ReplayMismatch(f"{where}: unknown action name")
        action = index[name]

        def do_step(action=action, where=where, k=deals_seen):
            engine.step(np.array([action], dtype=np.int64))
            # a later deal of a match: Abracadabra lays out the stored one
            if engine.deal_over[0] and not engine.game_over[0] and spec.next_deal is not None:
                if k >= len(later):
                    raise ReplayMismatch(f"after {where}: the file has no deal {k + 2} "
                                         "to lay out")
                spec.next_deal(engine, later[k])

        try:
            lines += narrator.step(action, do_step)
        except ReplayMismatch:
            raise
        except ValueError as err:
            raise ReplayMismatch(f"{where}: {err}") from None
        if engine.deal_over[0]:
            results.append(_plain(engine.result(0)))
            if not engine.game_over[0]:
                dealt = spec.snapshot(engine, 0)
                if deals_seen >= len(later) or dealt != later[deals_seen]:
                    raise ReplayMismatch(f"after {where}: {spec.deal_word} {deals_seen + 2} "
                                         "dealt differs from the stored one")
                deals_seen += 1
        if on_step is not None:
            on_step(engine)
    lines += narrator.flush()
    return engine, lines, results


def check_game(record: dict) -> list[str]:
    """What differs between ``record`` and its replay (empty: it replays exactly)."""
    try:
        engine, _, results = replay_game(record)
    except ReplayMismatch as err:
        return [str(err)]
    problems = []
    stored = record.get("results")
    if stored is not None and stored != results:
        problems.append(_diff("results", stored, results))
    final = _plain(engine.result(0))
    if record["result"] != final:
        problems.append(_diff("result", record["result"], final))
    return problems


def _diff(what: str, stored, replayed) -> str:
    if isinstance(stored, dict) and isinstance(replayed, dict):
        keys = [k for k in sorted(set(stored) | set(replayed))
                if stored.get(k) != replayed.get(k)]
        parts = [f"{k}: stored {stored.get(k)!r}, replayed {replayed.get(k)!r}" for k in keys]
        return f"{what} differs — " + "; ".join(parts)
    return f"{what} differs — stored {stored!r}, replayed {replayed!r}"


def describe_game(record: dict) -> str:
    """A readable account of a stored game: every hand, the bidding, each trick or
    turn, and the scores (the game is replayed to tell it)."""
    game = record["game"]
    options = record["options"]
    if game == "abracadabra":
        what = f"Abracadabra ({options['variant']}, {options['episode']})"
    else:
        what = f"Four Aces ({options['num_players']} players, {options['scoring']} scoring, " \
               f"{options['episode']})"
    head = [what + f", key {record.get('game_key')}"
            + (f", seed {record['seed']}" if record.get("seed") is not None else "")]
    if record.get("players"):
        head.append("Seats: " + ", ".join(f"{seat_name(s)} {p}"
                                          for s, p in enumerate(record["players"])))
    if record.get("info"):
        head.append("Info: " + ", ".join(f"{k}={v}" for k, v in record["info"].items()))
    try:
        _, lines, _ = replay_game(record, narrator_kwargs={"reveal": True, "compact": True})
    except ReplayMismatch as err:
        lines = [f"(cannot replay this game: {err}; its actions as stored:)"]
        lines += [f"  {seat_name(s)} {n}" for s, n in record["actions"]]
    return "\n".join(head + lines)


# =========================================================================================
# the command
# =========================================================================================
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a games file (JSON lines, e.g. from --save-games)")
    parser.add_argument("--game", type=int, default=None, metavar="K",
                        help="only the K-th game of the file (0 = the first)")
    parser.add_argument("--check", action="store_true",
                        help="replay the actions through the engine and confirm the stored "
                             "results (exit 1 if any game differs)")


def run(args: argparse.Namespace) -> int:
    return replay_command(args.file, args.game, args.check)


def replay_command(path: str | os.PathLike, game: int | None = None, check: bool = False,
                   output=None) -> int:
    """``cardrl replay``: tell (or with ``check`` check) the games of ``path``. The good
    games are handled first, then every bad line is reported; exit status 1 on a bad line,
    a game that does not replay, or a missing game index."""
    out = output or sys.stdout
    err = output or sys.stderr
    if not Path(path).is_file():
        print(f"cardrl replay: no such file: {path}", file=err)
        return 1
    games, errors = read_games(path)
    selected = list(enumerate(games))
    if game is not None:
        if not 0 <= game < len(games):
            print(f"cardrl replay: no game {game}: {path} holds {len(games)} readable "
                  f"game(s), numbered 0..{len(games) - 1}", file=err)
            for error in errors:
                print(f"error: {error}", file=err)
            return 1
        selected = [selected[game]]
    status = 0
    for k, record in selected:
        label = f"game {k} (line {record['_line']})"
        if check:
            problems = check_game(record)
            if problems:
                status = 1
                print(f"{label}: DIFFERS", file=out)
                for p in problems:
                    print(f"  {p}", file=out)
            else:
                print(f"{label}: ok ({len(record['actions'])} actions, results match)",
                      file=out)
        else:
            print(f"=== {label} ===", file=out)
            print(describe_game(record), file=out)
            print(file=out)
    if check and not errors and status == 0:
        print(f"all {len(selected)} game(s) replay exactly", file=out)
    for error in errors:
        print(f"error: {error}", file=err)
    if errors:
        print(f"{len(errors)} bad line(s); {len(games)} good game(s) read", file=err)
        status = 1
    return status
