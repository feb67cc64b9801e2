"""Statistics of a duplicate-deal tournament: means with paired CIs, head-to-head, OpenSkill.

Every function is pure: it takes the per-seat table of a tournament (``games.csv``, one
row per deal, rotation and seat) and returns a new DataFrame. The columns used are

======== ================================================================================
deal     index of the dealt key (all rotations of a deal share its cards)
rotation which seat rotation of the deal's line-up was played (0..P-1)
seat     the seat (0..P-1)
agent    label of the agent in that seat
points   points the seat scored (one deal/round, or the match total in match mode)
chips    chips won minus chips staked (Abracadabra; empty for Four Aces)
won      1 if the seat won the match, else 0 (match mode; empty in deal mode)
======== ================================================================================

**Pairing by deal.** Every deal is played under every rotation, so each agent of the
deal's line-up holds every hand. For agent ``a`` and deal ``d`` let ``x[a, d]`` be the mean
of ``a``'s points over all its (rotation, seat) rows in deal ``d``: the luck of the cards
is averaged out inside the deal, and the deals are independent draws. Over the ``n`` deals
in which ``a`` played::

    mean     = (1/n) * sum_d x[a, d]
    s^2      = (1/(n-1)) * sum_d (x[a, d] - mean)^2
    CI 95 %  = mean -/+ t_{0.975, n-1} * s / sqrt(n)

Head-to-head uses the same interval on the paired differences
``x[a, d] - x[b, d]`` over the deals in which both ``a`` and ``b`` played.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

# two-sided 95 % Student t quantiles t_{0.975, df} for df = 1..30
_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
    2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
    2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip
_Z975 = 1.959963984540054


def t_quantile_975(df: int) -> float:
    """t_{0.975, df}, the 97.5 % quantile of Student's t (half-width factor of a 95 % CI).

    Uses scipy (``scipy.special.stdtrit``, the inverse of Student's t CDF, which is what
    ``scipy.stats.t.ppf`` calls) when installed; otherwise a table for df <= 30 and the
    Cornish-Fisher expansion in 1/df beyond (error below 1e-4 there).
    """
    if df < 1:
        return math.nan
    try:
        from scipy.special import stdtrit
    except ImportError:
        stdtrit = None
    if stdtrit is not None:
        return float(stdtrit(df, 0.975))
    if df <= len(_T975):
        return _T975[df - 1]
    z, v = _Z975, float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def mean_ci(values: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high): the mean of independent ``values`` and its 95 % t-interval.

    With fewer than two values the interval is (nan, nan); with zero spread it is a point.
    """
    x = np.asarray(values, dtype=np.float64)
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan
    mean = float(x.mean())
    if n < 2:
        return mean, math.nan, math.nan
    half = t_quantile_975(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def per_deal_points(games: pd.DataFrame, column: str = "points") -> pd.DataFrame:
    """``x[a, d]``: deals as rows, agents as columns, the agent's mean ``column`` over its
    rows in that deal (NaN where the agent did not play the deal)."""
    return games.groupby(["deal", "agent"], sort=True)[column].mean().unstack("agent")


def agent_summary(games: pd.DataFrame, agents: list[str] | None = None) -> pd.DataFrame:
    """One row per agent: games (seats played), deals, mean_points with its 95 % CI paired
    by deal, mean_chips (if any), win_rate (if matches were played; NaN otherwise) and the
    OpenSkill mu, sigma and ``rating`` (the ordinal mu - 3 sigma). Sorted by rating."""
    agents = agents if agents is not None else sorted(games["agent"].unique())
    x = per_deal_points(games)
    chips = per_deal_points(games, "chips") if games["chips"].notna().any() else None
    has_wins = games["won"].notna().any()
    ratings = openskill_ratings(games, agents)
    rows = []
    for agent in agents:
        rows_a = games[games["agent"] == agent]
        mean, low, high = mean_ci(x[agent].dropna().to_numpy()) if agent in x else (math.nan,) * 3
        row = {
            "agent": agent,
            "games": len(rows_a),
            "deals": int(rows_a["deal"].nunique()),
            "mean_points": mean,
            "ci_low": low,
            "ci_high": high,
            "mean_chips": (
                float(chips[agent].dropna().mean())
                if chips is not None and agent in chips
                else math.nan
            ),
            "win_rate": float(rows_a["won"].mean()) if has_wins and len(rows_a) else math.nan,
        }
        row.update(ratings.loc[agent].to_dict())
        rows.append(row)
    summary = pd.DataFrame(rows)
    return summary.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)


def head_to_head(games: pd.DataFrame, agents: list[str] | None = None) -> pd.DataFrame:
    """One row per ordered pair (a, b), a != b: the deals in which both played and the mean
    per-deal difference ``x[a, d] - x[b, d]`` with its 95 % CI (see the module docstring)."""
    agents = agents if agents is not None else sorted(games["agent"].unique())
    x = per_deal_points(games)
    rows = []
    for a in agents:
        for b in agents:
            if a == b:
                continue
            both = a in x and b in x
            diff = (x[a] - x[b]).dropna().to_numpy() if both else np.empty(0)
            mean, low, high = mean_ci(diff)
            rows.append(
                {"agent": a, "opponent": b, "deals": len(diff), "mean_diff": mean,
                 "ci_low": low, "ci_high": high}
            )  # fmt: skip
    return pd.DataFrame(
        rows, columns=["agent", "opponent", "deals", "mean_diff", "ci_low", "ci_high"]
    )


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
