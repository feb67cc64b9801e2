"""Tournament statistics and ratings: paired CIs against hand-computed cases, OpenSkill
sanity, the tournament's summary table."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from arena import ratings, stats
from arena.tournament.result import summary_table


def _games(points_by_agent: dict[str, list[list[float]]]) -> pd.DataFrame:
    """A games table: agent -> per deal, the points of each of its seats in that deal."""
    rows = []
    for agent, deals in points_by_agent.items():
        for deal, seats in enumerate(deals):
            for k, points in enumerate(seats):
                rows.append(
                    {"deal": deal, "rotation": k, "seat": k, "agent": agent, "points": points,
                     "chips": np.nan, "won": np.nan, "n_deals": 1}
                )  # fmt: skip
    return pd.DataFrame(rows)


# A's seats per deal average to x_A = 2, 4, 6, 8; B's to x_B = 1, 1, 2, 2.
HAND_CASE = _games(
    {
        "A": [[1, 3], [4, 4], [5, 7], [8, 8]],
        "B": [[1, 1], [0, 2], [2, 2], [3, 1]],
    }
)


def test_mean_ci_hand_computed():
    # x = 2, 4, 6, 8: mean 5; s^2 = (9 + 1 + 1 + 9) / 3 = 20/3, s = 2.581989;
    # se = s / sqrt(4) = 1.290994; t_{0.975, 3} = 3.182446; half = 4.108520
    mean, low, high = stats.mean_ci(np.array([2.0, 4.0, 6.0, 8.0]))
    assert mean == 5.0
    assert low == pytest.approx(0.891480, abs=1e-6)
    assert high == pytest.approx(9.108520, abs=1e-6)


def test_agent_summary_pairs_by_deal():
    summary = stats.agent_summary(HAND_CASE).set_index("agent")
    # A: the per-deal means 2, 4, 6, 8 give the case above (not the 8 raw seat values)
    assert summary.loc["A", "games"] == 8
    assert summary.loc["A", "deals"] == 4
    assert summary.loc["A", "mean_points"] == 5.0
    assert summary.loc["A", "ci_low"] == pytest.approx(0.891480, abs=1e-6)
    assert summary.loc["A", "ci_high"] == pytest.approx(9.108520, abs=1e-6)
    # B: 1, 1, 2, 2: mean 1.5; s^2 = (4 * 0.25) / 3 = 1/3, s = 0.577350, se = 0.288675,
    # half = 3.182446 * 0.288675 = 0.918693
    assert summary.loc["B", "ci_low"] == pytest.approx(0.581307, abs=1e-6)
    assert summary.loc["B", "ci_high"] == pytest.approx(2.418693, abs=1e-6)
    assert math.isnan(summary.loc["A", "win_rate"])  # no matches played


def test_head_to_head_hand_computed():
    h2h = stats.head_to_head(HAND_CASE).set_index(["agent", "opponent"])
    # d = x_A - x_B = 1, 3, 4, 6: mean 3.5; s^2 = (6.25 + 0.25 + 0.25 + 6.25) / 3 = 13/3,
    # s = 2.081666, se = 1.040833, half = 3.182446 * 1.040833 = 3.312395
    row = h2h.loc[("A", "B")]
    assert row["deals"] == 4
    assert row["mean_diff"] == 3.5
    assert row["ci_low"] == pytest.approx(0.187605, abs=1e-5)
    assert row["ci_high"] == pytest.approx(6.812395, abs=1e-5)
    mirror = h2h.loc[("B", "A")]
    assert mirror["mean_diff"] == -3.5
    assert mirror["ci_low"] == pytest.approx(-row["ci_high"])


def test_head_to_head_uses_only_shared_deals():
    games = pd.concat(
        [HAND_CASE, _games({"C": [[0], [0]]})], ignore_index=True
    )  # C played deals 0 and 1 only
    h2h = stats.head_to_head(games).set_index(["agent", "opponent"])
    # x_A - x_C over deals 0, 1 = 2, 4
    assert h2h.loc[("A", "C"), "deals"] == 2
    assert h2h.loc[("A", "C"), "mean_diff"] == 3.0


# t_{0.975, df} to 6 decimals (standard tables; scipy.stats.t.ppf(0.975, df))
T975_REFERENCE = {1: 12.706205, 3: 3.182446, 30: 2.042272, 31: 2.039513, 100: 1.983972,
                  10_000: 1.960201}


def test_t_quantile_matches_the_exact_values():
    for df, exact in T975_REFERENCE.items():
        assert stats.t_quantile_975(df) == pytest.approx(exact, abs=1e-6), df
    assert math.isnan(stats.t_quantile_975(0))


def test_openskill_orders_a_clear_ranking():
    rng = np.random.default_rng(0)
    rows = []
    for deal in range(40):
        for rotation in range(3):
            noise = rng.normal(0, 0.1, 3)
            for seat, (agent, base) in enumerate([("strong", 10), ("middle", 5), ("weak", 0)]):
                rows.append(
                    {"deal": deal, "rotation": rotation, "seat": (seat + rotation) % 3,
                     "agent": agent, "points": base + noise[seat], "chips": np.nan,
                     "won": np.nan, "n_deals": 1}
                )  # fmt: skip
    summary = summary_table(pd.DataFrame(rows), ["weak", "middle", "strong"])
    assert summary["agent"].tolist() == ["strong", "middle", "weak"]  # sorted by rating
    assert (summary["rating"] == summary["mu"] - 3 * summary["sigma"]).all()
    assert summary["sigma"].max() < 25 / 3  # every table moved sigma down from the prior


def test_openskill_ties_give_equal_ratings():
    rows = [
        {"deal": d, "rotation": 0, "seat": s, "agent": a, "points": 1.0, "chips": np.nan,
         "won": np.nan, "n_deals": 1}
        for d in range(10) for s, a in enumerate(["x", "y"])
    ]  # fmt: skip
    rated = ratings.openskill_ratings(pd.DataFrame(rows))
    assert rated.loc["x", "mu"] == pytest.approx(rated.loc["y", "mu"])


def test_agent_summary_keeps_the_agents_order():
    summary = stats.agent_summary(HAND_CASE, ["B", "A"])
    assert summary["agent"].tolist() == ["B", "A"]
    assert list(summary.columns) == list(stats.SUMMARY_COLUMNS)


def test_summary_table_adds_ratings_to_the_statistics():
    table = summary_table(HAND_CASE, ["A", "B"])
    assert list(table.columns) == [*stats.SUMMARY_COLUMNS, "mu", "sigma", "rating"]
    assert table["agent"].tolist() == ["A", "B"]  # A scores more at every table
    rated = ratings.openskill_ratings(HAND_CASE, ["A", "B"])
    assert table.set_index("agent")["rating"].to_dict() == rated["rating"].to_dict()
