"""OpenSkill ratings of the agents of a tournament, from the per-seat table (``games.csv``).

Every (deal, rotation) is one table whose agents are ranked by their points; the tables
are rated one after another, in (deal, rotation) order. The columns used are ``deal``,
``rotation``, ``agent`` and ``points`` (see :mod:`arena.stats`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def openskill_ratings(games: pd.DataFrame, agents: list[str] | None = None) -> pd.DataFrame:
    """OpenSkill (Plackett-Luce) ratings from every table, one table per (deal, rotation),
    in (deal, rotation) order. The agents at a table are ranked by points (higher is
    better, equal points tie); an agent holding several seats of a table enters it once,
    with its mean points. Tables with one distinct agent are skipped. Returns mu, sigma
    and ``rating`` = mu - 3 sigma (the ordinal), indexed by agent."""
    from openskill.models import PlackettLuce

    agents = agents if agents is not None else sorted(games["agent"].unique())
    model = PlackettLuce()
    current = {agent: model.rating(name=agent) for agent in agents}
    tables = games.groupby(["deal", "rotation", "agent"], sort=True)["points"].mean().reset_index()
    keys = tables[["deal", "rotation"]].to_numpy()
    names = tables["agent"].to_numpy()
    scores = tables["points"].to_numpy(dtype=np.float64)
    # boundaries of the (deal, rotation) tables in the sorted rows
    starts = np.flatnonzero(np.r_[True, (keys[1:] != keys[:-1]).any(axis=1)])
    stops = np.r_[starts[1:], len(keys)]
    for start, stop in zip(starts, stops, strict=True):
        if stop - start < 2:
            continue
        table = names[start:stop]
        teams = [[current[name]] for name in table]
        new = model.rate(teams, scores=scores[start:stop].tolist())
        for name, (rating,) in zip(table, new, strict=True):
            current[name] = rating
    return pd.DataFrame(
        {
            "mu": [current[a].mu for a in agents],
            "sigma": [current[a].sigma for a in agents],
            "rating": [current[a].ordinal() for a in agents],
        },
        index=pd.Index(agents, name="agent"),
    )
