"""The one-seat evaluation (arena/one_seat.py): the pairing by deal against a hand-computed
table, the line-up, the candidate against its own copies, a refused entrant."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from arena.one_seat import (
    check_one_seat,
    evaluate_one_seat,
    one_seat_lineup,
    paired_by_deal,
    table_options,
)
from arena.stats import mean_ci
from arena.tournament import run_tournament


def test_paired_by_deal_hand_computed():
    # two deals, three seats, every rotation: the candidate "c" holds seat r in rotation r
    rows = []
    points = {0: [[3, 1, 2], [0, 4, 2], [6, 0, 0]],  # deal 0: rotation -> seat points
              1: [[1, 1, 1], [2, 2, 5], [0, 3, 3]]}
    for deal, rotations in points.items():
        for r, seats in enumerate(rotations):
            for seat, p in enumerate(seats):
                rows.append({"deal": deal, "rotation": r, "seat": seat,
                             "agent": "c" if seat == r else f"f{(seat - r) % 3}",
                             "points": float(p)})
    per_deal = paired_by_deal(pd.DataFrame(rows), "c")
    # deal 0: c holds 3, 4, 0 -> 7/3; the field holds 1, 2, 0, 2, 6, 0 -> 11/6
    # deal 1: c holds 1, 2, 3 -> 2; the field holds 1, 1, 2, 5, 0, 3 -> 2
    assert list(per_deal.columns) == ["deal", "candidate", "field", "diff"]
    np.testing.assert_allclose(per_deal["candidate"], [7 / 3, 2.0])
    np.testing.assert_allclose(per_deal["field"], [11 / 6, 2.0])
    np.testing.assert_allclose(per_deal["diff"], [7 / 3 - 11 / 6, 0.0])


def test_lineup_and_table_options():
    assert one_seat_lineup("policy", "heuristic", 4, "cand") == [
        "cand=policy", "heuristic", "heuristic", "heuristic"]
    assert table_options({"variant": "three", "reward": "relative", "episode": "deal"}) == {
        "variant": "three"}


def test_evaluation_is_the_tournament_paired_by_deal():
    """The result is the tournament of the line-up, paired by deal; the candidate sits in
    seat r in rotation r."""
    measured = evaluate_one_seat("four_aces", "greedy", "random", 5, 3, {"num_players": 3})
    games = run_tournament("four_aces", ["candidate=greedy", "random", "random"], 5, 3,
                           {"num_players": 3}, progress=False).games
    mine = games[games["agent"] == "candidate"]
    assert sorted(zip(mine["rotation"], mine["seat"], strict=True)) == [
        (r, r) for r in range(3) for _ in range(5)]
    pd.testing.assert_frame_equal(measured.tournament.games, games)
    assert list(measured.per_deal["deal"]) == list(range(5))
    assert (measured.diff, measured.diff_low, measured.diff_high) == mean_ci(
        measured.per_deal["diff"].to_numpy())
    assert measured.candidate_points == mine["points"].mean()
    assert measured.deals == 5 and measured.label == "candidate"


def test_a_deterministic_candidate_against_its_own_copies_is_zero():
    measured = evaluate_one_seat("abracadabra", "heuristic", "heuristic", 4, 1,
                                 {"reward": "relative"}, label="me")
    np.testing.assert_array_equal(measured.per_deal["diff"], np.zeros(4))
    assert measured.candidate_points == measured.field_points


def test_a_candidate_that_cannot_play_is_refused_before_playing(tmp_path):
    with pytest.raises(ValueError, match="unknown agent 'nosuch'"):
        check_one_seat("four_aces", "nosuch", "random", 2, 0)
    with pytest.raises(ValueError, match="not allowed"):
        evaluate_one_seat("four_aces", "random", "random", 0, 0, out_dir=tmp_path / "t")
    assert not (tmp_path / "t").exists()
