"""One candidate in one seat against the field, paired by deal.

The line-up is ``LABEL=CANDIDATE, FIELD, FIELD, …``: the candidate is entrant 0 and a copy
of the field agent fills every other seat (:func:`one_seat_lineup`). The duplicate-deal
tournament (:mod:`arena.tournament`) plays every deal under every seat rotation, so the
candidate holds every hand of every deal, and the copies the others. For deal ``d``::

    c[d]    = the candidate's mean points over its rows in deal d (one per rotation)
    f[d]    = the field's mean points over all its rows in deal d (every copy, every rotation)
    diff[d] = c[d] - f[d]

The deals are independent draws: the result is the mean of ``diff`` over the deals with
its 95 % t-interval (:func:`arena.stats.mean_ci`). :func:`evaluate_one_seat` plays the
tournament and pairs it; :func:`check_one_seat` builds its entrants without playing, so
that a candidate or field that cannot play the table is refused before anything runs.

Who uses it: the strength ladder (:mod:`arena.ladder`, the field the game's reference
heuristic), a training run's evaluation (``training.evaluate``, the field
``eval.opponent``) and the exploitability measurement (:mod:`arena.exploit`, which plays it
twice on the same deals: the best response, then the target itself, as the candidate).
"""

from __future__ import annotations

import dataclasses
import os

import pandas as pd

from arena.stats import mean_ci
from arena.tournament import (
    CHUNK_SIZE,
    TournamentResult,
    TournamentSpec,
    make_spec,
    run_tournament,
)
from envs.registry import num_seats

#: the candidate's label in the line-up unless the caller names it
CANDIDATE = "candidate"
#: game options that are not part of the table: how an episode ends (a tournament's own
#: ``episode`` argument) and how a learner is paid (``reward``)
NOT_TABLE = ("episode", "reward")


def table_options(options: dict | None) -> dict:
    """The game options of the table: ``options`` without :data:`NOT_TABLE`."""
    return {k: v for k, v in (options or {}).items() if k not in NOT_TABLE}


def one_seat_lineup(candidate: str, field: str, seats: int,
                    label: str = CANDIDATE) -> list[str]:
    """The tournament's entries: ``label=candidate``, then ``field`` in each of the
    other ``seats - 1`` seats (the copies are labelled ``field``, ``…#2``, …)."""
    return [f"{label}={candidate}", *[field] * (seats - 1)]


def _tournament(game: str, candidate: str, field: str, options: dict | None, label: str,
                candidate_kwargs: dict | None) -> tuple[list[str], dict, dict | None]:
    """(entries, table options, agent_kwargs) of the evaluation's tournament."""
    table = table_options(options)
    entries = one_seat_lineup(candidate, field, num_seats(game, **table), label)
    return entries, table, {label: dict(candidate_kwargs)} if candidate_kwargs else None


def one_seat_spec(game: str, candidate: str, field: str, deals: int, seed: int,
                  options: dict | None = None, label: str = CANDIDATE,
                  candidate_kwargs: dict | None = None,
                  chunk_size: int = CHUNK_SIZE) -> TournamentSpec:
    """The validated tournament of :func:`evaluate_one_seat` (``ValueError`` for a bad
    argument); ``candidate_kwargs`` go to the candidate's ``agents.make``."""
    entries, table, kwargs = _tournament(game, candidate, field, options, label,
                                         candidate_kwargs)
    return make_spec(game, entries, deals, seed, table, agent_kwargs=kwargs,
                     chunk_size=chunk_size)


def check_one_seat(game: str, candidate: str, field: str, deals: int, seed: int,
                   options: dict | None = None, label: str = CANDIDATE,
                   candidate_kwargs: dict | None = None, chunk_size: int = CHUNK_SIZE) -> None:
    """``ValueError`` (the tournament's message) unless the evaluation's arguments are valid
    and its entrants are built and play the table
    (:func:`arena.tournament.runner.build_entrants`). Plays no game, creates nothing."""
    from arena.tournament.runner import build_entrants

    build_entrants(one_seat_spec(game, candidate, field, deals, seed, options, label,
                                 candidate_kwargs, chunk_size))


def paired_by_deal(games: pd.DataFrame, label: str) -> pd.DataFrame:
    """One row per deal of a tournament's per-seat table ``games``: ``deal``, the
    candidate's (entrant ``label``) mean points ``candidate``, the mean points of every
    other seat ``field``, and ``diff``, their difference (module doc)."""
    mine = games["agent"] == label
    candidate = games[mine].groupby("deal")["points"].mean()
    others = games[~mine].groupby("deal")["points"].mean()
    per_deal = pd.DataFrame({"candidate": candidate, "field": others.reindex(candidate.index)})
    per_deal["diff"] = per_deal["candidate"] - per_deal["field"]
    return per_deal.reset_index()


@dataclasses.dataclass(frozen=True)
class OneSeatResult:
    """The candidate against the field on duplicate deals (module doc)."""

    label: str  # the candidate's label in the tournament
    diff: float  # mean over deals of candidate points - field points
    diff_low: float  # 95 % t-interval of the difference
    diff_high: float
    candidate_points: float  # the candidate's mean points per deal
    field_points: float  # the field's mean points per deal at the candidate's table
    deals: int
    #: the tournament played: its spec, per-seat games table and wall time
    tournament: TournamentResult = dataclasses.field(repr=False)
    per_deal: pd.DataFrame = dataclasses.field(repr=False)  # deal, candidate, field, diff


def evaluate_one_seat(game: str, candidate: str, field: str, deals: int, seed: int,
                      options: dict | None = None, *, label: str = CANDIDATE,
                      candidate_kwargs: dict | None = None, workers: int = 1,
                      chunk_size: int = CHUNK_SIZE, out_dir: str | os.PathLike | None = None,
                      progress: bool = False) -> OneSeatResult:
    """Play ``candidate`` (an agent spec: a registered name or ``policy:PATH``) in one seat
    and ``field`` in every other, ``deals`` duplicate deals of tournament seed
    ``seed`` under every seat rotation, and pair the result by deal (module doc).

    ``options`` are the game's options (:data:`NOT_TABLE` fields are dropped);
    ``candidate_kwargs`` go to the candidate's ``agents.make``; ``out_dir`` keeps the
    tournament's files there, resumable (None: in memory). ``workers``, ``chunk_size`` and
    ``progress`` are the tournament's."""
    entries, table, kwargs = _tournament(game, candidate, field, options, label,
                                         candidate_kwargs)
    result = run_tournament(game, entries, deals, seed, table, workers=workers,
                            out_dir=out_dir, progress=progress, agent_kwargs=kwargs,
                            chunk_size=chunk_size)
    per_deal = paired_by_deal(result.games, label)
    diff, low, high = mean_ci(per_deal["diff"].to_numpy())
    return OneSeatResult(label=label, diff=diff, diff_low=low, diff_high=high,
                         candidate_points=float(per_deal["candidate"].mean()),
                         field_points=float(per_deal["field"].mean()), deals=deals,
                         tournament=result, per_deal=per_deal)
