"""Statistics of a duplicate-deal tournament: means with CIs paired by deal, head-to-head.

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

#: the columns of :func:`agent_summary`
SUMMARY_COLUMNS = ("agent", "games", "deals", "mean_points", "ci_low", "ci_high", "mean_chips",
                   "win_rate")  # fmt: skip


def t_quantile_975(df: int) -> float:
    """t_{0.975, df}, the 97.5 % quantile of Student's t (half-width factor of a 95 % CI),
    exact (scipy's inverse t CDF, what ``scipy.stats.t.ppf`` calls); nan for df < 1."""
    if df < 1:
        return math.nan
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.975))


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
    """One row per agent, in the order of ``agents``: games (seats played), deals,
    mean_points with its 95 % CI paired by deal, mean_chips (if any) and win_rate (if
    matches were played; NaN otherwise)."""
    agents = agents if agents is not None else sorted(games["agent"].unique())
    x = per_deal_points(games)
    chips = per_deal_points(games, "chips") if games["chips"].notna().any() else None
    has_wins = games["won"].notna().any()
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
        rows.append(row)
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


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
