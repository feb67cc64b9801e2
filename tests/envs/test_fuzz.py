"""The fuzz (envs.fuzz) in ``make test``: a bounded random play of a third of the
configurations (every variant and player count, every option value), with the invariants
checked after every step, at batch 16 and at batch 1 (what the AEC environment drives;
the same compiled code as any batch); the checkers must also catch a corrupted state.
``cardrl fuzz`` runs the long version.
"""

from __future__ import annotations

import numpy as np
import pytest

from cli.main import main
from envs import registry
from envs.core import sample_uniform_legal
from envs.fuzz import (
    CHECKERS,
    InvariantViolation,
    all_cases,
    run_case,
)

#: every third configuration: every Abracadabra variant (and joker), Four Aces player
#: count and option value is among them (checked below)
ABRA = all_cases("abracadabra")[::3]
FOUR = all_cases("four_aces")[::3]


def test_the_fuzz_covers_every_game_variant_and_option():
    assert set(CHECKERS) == set(registry.GAMES) == {c.game for c in all_cases()}
    for cases in (ABRA, FOUR):
        for key in {k for c in cases for k in c.options} - {"reward", "target_points",
                                                            "max_deals", "max_rounds",
                                                            "ante", "raise_increment"}:
            full = {str(c.options[key]) for c in all_cases(cases[0].game)}
            assert {str(c.options[key]) for c in cases} == full, key
    assert {(c.options["variant"], c.options["joker"]) for c in ABRA} == {
        (c.options["variant"], c.options["joker"]) for c in all_cases("abracadabra")}


@pytest.mark.parametrize("case", ABRA + FOUR, ids=lambda c: c.label)
def test_random_play_keeps_every_invariant(case):
    steps = 80 if case.game == "abracadabra" else 60
    result = run_case(case, batch=16, seed=7, max_steps=steps, probe_every=5)
    assert result.violations == []
    assert result.deals >= 16 and result.probes == steps // 5
    assert result.agent_steps > 0.9 * 16 * steps


@pytest.mark.parametrize("case", ABRA[::3] + FOUR[::2], ids=lambda c: c.label)
def test_random_play_of_a_single_game_keeps_every_invariant(case):
    """A batch of one (both games: the same compiled code as any batch)."""
    result = run_case(case, batch=1, seed=3, max_steps=160, probe_every=3)
    assert result.violations == []
    assert result.deals >= 1 and result.probes >= 40


# -- the checkers can fail ----------------------------------------------------------------
def _flip_card(e):
    s = e.state
    if hasattr(s, "hand_bits"):
        s.hand_bits[0, 0] ^= np.uint64(1) << np.uint64(7)
    else:
        s.hand[0, 0, 7] += 1


def _add_point(e):
    e.state.totals[0, 0] += 1


def _next_seat(e):
    s = e.state
    s.current_player[0] = (s.current_player[0] + 1) % e.num_players


def _raise_stake(e):
    if hasattr(e.state, "stakes"):
        e.state.stakes[0, 0] += 1
    else:
        e.state.stock_top[0] += 1


@pytest.mark.parametrize("tamper", [_flip_card, _add_point, _next_seat, _raise_stake])
@pytest.mark.parametrize("game", ["abracadabra", "four_aces"])
def test_a_corrupted_state_is_caught(game, tamper):
    case = next(c for c in all_cases(game) if c.options["episode"] == "match")
    engine = registry.make_engine(game, batch_size=4, **case.options)
    checker = CHECKERS[game](engine)
    engine.reset(seed=0)
    checker.started(np.arange(4))
    rng = np.random.default_rng(0)
    with pytest.raises(InvariantViolation, match=r"\(game 0"):
        for step in range(400):
            mask = engine.legal_action_mask()
            checker.check_before(mask)
            active = mask.any(axis=1)
            actions = np.zeros(4, np.int64)
            actions[active] = sample_uniform_legal(rng, mask[active])
            rewards = engine.step(actions, active)
            if step == 20:
                tamper(engine)
            checker.after_step(actions, active, rewards)
            if engine.game_over.any():
                break


# -- the command ---------------------------------------------------------------------------
def test_cardrl_fuzz_writes_its_report(tmp_path, capsys):
    out = tmp_path / "fuzz"
    status = main(["fuzz", "--deals", "40", "--batch", "8", "--game", "four_aces",
                   "--only", FOUR[0].label, "--out", str(out), "--no-progress"])
    assert status == 0
    report = (out / "fuzz.md").read_text()
    assert report.splitlines()[2].startswith("Command: `cardrl fuzz --deals 40 --batch 8")
    assert "| four_aces | 1 |" in report and "None." in report
    assert "four_aces: 1 configurations" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--batch", "0"], ["--minutes", "-1"],
                                  ["--only", "chess"], ["--deals", "0"]])
def test_cardrl_fuzz_refuses_bad_arguments(argv, tmp_path, capsys):
    assert main(["fuzz", *argv, "--out", str(tmp_path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cardrl fuzz: error: --") and len(err.splitlines()) == 1
    assert not (tmp_path / "fuzz.md").exists()
