"""A finished tournament: its per-seat table and the statistics computed from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from arena import ratings, stats
from arena.tournament.spec import TournamentSpec


@dataclass
class TournamentResult:
    """A finished tournament: the per-seat table and its statistics."""

    spec: TournamentSpec
    games: pd.DataFrame  # one row per (deal, rotation, seat), chunk.COLUMNS
    summary: pd.DataFrame  # summary_table
    head_to_head: pd.DataFrame  # stats.head_to_head
    elapsed_s: float  # wall time of this call, statistics included
    play_s: float = 0.0  # wall time spent playing the chunks of this call
    played_deals: int = 0  # deals played by this call (resumed ones excluded)
    out_dir: Path | None = None
    files: list[Path] = field(default_factory=list)
    #: the files the entrants load and the project version (:mod:`arena.tournament.inputs`)
    inputs: dict | None = None


def summary_table(games: pd.DataFrame, agents: list[str]) -> pd.DataFrame:
    """One row per agent: :func:`arena.stats.agent_summary` followed by the OpenSkill mu,
    sigma and ``rating`` (the ordinal mu - 3 sigma) of :mod:`arena.ratings`; sorted by
    rating, best first (equal ratings in the order of ``agents``)."""
    summary = stats.agent_summary(games, agents)
    rated = ratings.openskill_ratings(games, agents).reindex(summary["agent"])
    for column in rated.columns:
        summary[column] = rated[column].to_numpy()
    return summary.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
