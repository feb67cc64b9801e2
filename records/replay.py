"""Replay a stored game through a fresh engine and check it against the record.

:func:`replay_game` lays out the record's first deal (``reset_with_deal``), steps every
stored action, lays out or checks each later deal (the game's ``deal_io`` module:
Abracadabra's later deals are laid out again, Four Aces' come from ``game_key``) and
tells the game as it goes (:class:`records.narrate.Narrator`). :func:`check_game` lists
what differs from the stored actors, deals and results (:func:`compare_results`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envs import registry
from records.format import plain
from records.narrate import Narrator, seat_name


class ReplayMismatch(ValueError):
    """A stored game that does not replay to its stored actors, deals or results."""


def replay_game(record: dict, on_step: Callable | None = None,
                narrator_kwargs: dict | None = None) -> tuple[object, list[str], list[dict]]:
    """Replay ``record`` through a fresh engine of one game; return the engine, the
    narrator's lines and the result of every finished deal. ``on_step(engine)`` is
    called after every action; ``narrator_kwargs`` go to the :class:`Narrator`.

    Raises :class:`ReplayMismatch` saying what differs (an actor not the seat to act, an
    illegal or unknown action, a deal or a result not the stored one)."""
    game = record["game"]
    descriptor = registry.get(game)
    deal_io = descriptor.load("deal_io")
    engine = registry.make_engine(game, 1, **record["options"])
    try:
        deal_io.start_record(engine, record)
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
            # a later deal of a match that the record lays out (deal_io.next_deal)
            if engine.deal_over[0] and not engine.game_over[0] and deal_io.next_deal is not None:
                if k >= len(later):
                    raise ReplayMismatch(f"after {where}: the file has no deal {k + 2} "
                                         "to lay out")
                deal_io.next_deal(engine, later[k])

        try:
            lines += narrator.step(action, do_step)
        except ReplayMismatch:
            raise
        except (ValueError, OverflowError) as err:  # the engine refuses the action
            raise ReplayMismatch(f"{where}: {err}") from None
        if engine.deal_over[0]:
            results.append(plain(engine.result(0)))
            if not engine.game_over[0]:
                dealt = deal_io.deal_of(engine, 0)
                if deals_seen >= len(later) or dealt != later[deals_seen]:
                    raise ReplayMismatch(f"after {where}: {descriptor.deal_word} "
                                         f"{deals_seen + 2} dealt differs from the stored one")
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
    return compare_results(record, engine, results)


def compare_results(record: dict, engine, results: list[dict]) -> list[str]:
    """What differs between ``record``'s stored results and those of its replay
    (:func:`replay_game`'s ``engine`` and ``results``)."""
    problems = []
    stored = record.get("results")
    if stored is not None and stored != results:
        problems.append(_diff("results", stored, results))
    final = plain(engine.result(0))
    if record["result"] != final:
        problems.append(_diff("result", record["result"], final))
    return problems


def _diff(what: str, stored, replayed) -> str:
    """One line saying how a stored value and its replay differ."""
    if isinstance(stored, dict) and isinstance(replayed, dict):
        keys = [k for k in sorted(set(stored) | set(replayed))
                if stored.get(k) != replayed.get(k)]
        parts = [f"{k}: stored {stored.get(k)!r}, replayed {replayed.get(k)!r}" for k in keys]
        return f"{what} differs — " + "; ".join(parts)
    return f"{what} differs — stored {stored!r}, replayed {replayed!r}"
