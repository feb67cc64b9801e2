"""A readable account of a stored game: who sat where, every hand, the bidding, each trick
or turn, and the scores (the game is replayed to tell it)."""

from __future__ import annotations

import dataclasses

from envs import registry
from records.narrate import seat_name
from records.replay import ReplayMismatch, compare_results, replay_game


def describe_game(record: dict) -> str:
    """The account of ``record``; a game that does not replay is told by its stored
    actions, with the reason."""
    return tell_game(record)[0]


def tell_game(record: dict) -> tuple[str, list[str]]:
    """The account of ``record`` (:func:`describe_game`) and what differs between the
    record and its replay (:func:`records.replay.check_game`'s list; empty when it replays
    exactly)."""
    game = record["game"]
    options = dataclasses.asdict(registry.make_config(game, **record["options"]))
    what = registry.get(game).load("narration").title(options)
    head = [what + f", key {record.get('game_key')}"
            + (f", seed {record['seed']}" if record.get("seed") is not None else "")]
    if record.get("players"):
        head.append("Seats: " + ", ".join(f"{seat_name(s)} {p}"
                                          for s, p in enumerate(record["players"])))
    if record.get("info"):
        head.append("Info: " + ", ".join(f"{k}={v}" for k, v in record["info"].items()))
    try:
        engine, lines, results = replay_game(
            record, narrator_kwargs={"reveal": True, "compact": True})
    except ReplayMismatch as err:
        problems = [str(err)]
        lines = [f"(cannot replay this game: {err}; its actions as stored:)"]
        lines += [f"  {seat_name(s)} {n}" for s, n in record["actions"]]
    else:
        problems = compare_results(record, engine, results)
    return "\n".join(head + lines), problems
