"""Four Aces scripted rule scenarios (docs/rules.md sections G, H, K), dealt through
reset_with_deal."""

from __future__ import annotations

import numpy as np
import pytest

from envs.cards import CARD_NAMES, JOKER, parse_card
from envs.core import shuffled
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.rules import ACE_OF_SPADES, DRAW, FULL_DECK
from envs.four_aces.scoring import score_cards


def deal(num_players, hands, tables, stock_top=()):
    """A full 54-card deal: the given cards, then the rest of the deck under ``stock_top``
    (aces and jokers at the very bottom so that they do not turn up by accident)."""
    used = [c for row in hands for c in row] + [c for row in tables for c in row]
    used += list(stock_top)
    left = list(FULL_DECK.tolist())
    for c in used:
        left.remove(parse_card(c))
    late = [c for c in left if c == JOKER or CARD_NAMES[c][0] == "A"]
    rest = [CARD_NAMES[c] for c in left if c not in late] + [CARD_NAMES[c] for c in late]
    assert len(hands) == len(tables) == num_players
    return list(stock_top) + rest


def engine_with(num_players, dealer, hands, tables, stock_top=(), **config):
    e = FourAcesEngine(FourAcesConfig(num_players=num_players, **config), batch_size=1)
    e.reset(seed=0)
    e.reset_with_deal(0, dealer, hands, tables, deal(num_players, hands, tables, stock_top))
    return e


def act(e, name):
    return e.step(np.array([e.action_names.index(name)]))


def hand_of(e, seat):
    return sorted(
        CARD_NAMES[c]
        for c in np.flatnonzero(e.state.hand[0, seat])
        for _ in range(int(e.state.hand[0, seat, c]))
    )


HANDS4 = [["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["2S", "3S", "4S"]]
TABLES4 = [["5C", "6D", "7H"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["5S", "6C", "7D"]]


def test_h1_left_of_dealer_moves_first():
    """H1: the player left of the dealer moves first; turns go clockwise."""
    e = engine_with(4, 3, HANDS4, TABLES4)
    assert e.current_player[0] == 0  # left of dealer 3 is seat 0
    act(e, "draw")
    assert e.current_player[0] == 1
    e = engine_with(4, 1, HANDS4, TABLES4)
    assert e.current_player[0] == 2


def test_g4_prefill_with_dealt_joker_in_order_from_left_of_dealer():
    """G4/G7: jokers dealt into hands 3 and 0 raise L; dealer 1, so the pre-fill order is
    2, 3, 0, 1: seat 3 draws the stock's top card, then seat 0 the next."""
    hands = [["JK", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["JK", "3S", "4S"]]
    tables = [["2C", "6D", "7H"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["2S", "6C", "7D"]]
    e = engine_with(4, 1, hands, tables, stock_top=["8C", "9C"])
    assert e.state.hand_limit[0].tolist() == [4, 3, 3, 4]
    assert e.state.hand_size[0].tolist() == [4, 3, 3, 4]
    assert hand_of(e, 3) == sorted(["JK", "3S", "4S", "8C"])  # first to fill
    assert hand_of(e, 0) == sorted(["JK", "3C", "4C", "9C"])
    assert e.current_player[0] == 2  # H1: left of dealer 1
    assert e.state.stock_top[0] == 24 + 2


def test_g4_joker_dealt_on_table_stays_and_scores_nothing():
    """G4: a table joker stays there, L is not raised, and it scores nothing (K1)."""
    tables = [["JK", "6D", "7H"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["5S", "6C", "7D"]]
    hands = [["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["2S", "3S", "JK"]]
    e = engine_with(4, 3, hands, tables, stock_top=["8C"])
    assert e.state.hand_limit[0, 0] == 3 and e.state.table[0, 0, JOKER] == 1
    assert e.state.hand_limit[0, 3] == 4  # hand joker: seat 3 filled 8C
    assert hand_of(e, 3) == sorted(["2S", "3S", "JK", "8C"])


def test_h2a_discard_then_fill():
    """H2 a / G6: the discard goes on the pile, then the hand is filled from the stock."""
    e = engine_with(4, 3, HANDS4, TABLES4, stock_top=["8C", "9C"])
    act(e, "discard:3C")
    assert hand_of(e, 0) == sorted(["2C", "4C", "8C"])
    assert e.state.discard[0, : e.state.discard_size[0]].tolist() == [parse_card("3C")]
    assert e.current_player[0] == 1


def test_h2b_turn_up_normal_card_and_joker():
    """H2 b: a turned-up card goes on the discard pile; a joker goes into the hand
    instead (L+1, G7) and the turn ends without filling."""
    e = engine_with(4, 3, HANDS4, TABLES4, stock_top=["8C", "JK", "9C"])
    act(e, "draw")  # seat 0 turns up 8C
    assert e.state.discard[0, 0] == parse_card("8C") and e.state.hand_size[0, 0] == 3
    act(e, "draw")  # seat 1 turns up the joker
    assert hand_of(e, 1) == sorted(["2D", "3D", "4D", "JK"])
    assert e.state.hand_limit[0, 1] == 4 and e.state.hand_size[0, 1] == 4
    assert e.state.discard_size[0] == 1  # the joker never reached the pile
    assert e.current_player[0] == 2  # his turn ended
    assert e.state.stock_top[0] == 24 + 2  # 9C is still on the stock


def test_g7_refill_chain_jokers_drawn_while_filling():
    """G7: a joker drawn while filling raises L at once, so he draws again (twice here)."""
    e = engine_with(4, 3, HANDS4, TABLES4, stock_top=["JK", "JK", "8C", "9C"])
    act(e, "discard:2C")  # hand 2/3 -> JK (L4), JK (L5), 8C: hand 5/5
    assert e.state.hand_limit[0, 0] == 5 and e.state.hand_size[0, 0] == 5
    assert hand_of(e, 0) == sorted(["3C", "4C", "JK", "JK", "8C"])
    assert e.observe(np.array([0]))[0, e.layout["jokers_seen"]][0] == 1.0  # 2 jokers / 2


def test_g7_discarding_a_joker_keeps_l():
    """G7: a joker raises L for the rest of the round, even after it is discarded."""
    e = engine_with(4, 3, HANDS4, TABLES4, stock_top=["JK", "8C", "9C", "TC", "JC"])
    act(e, "discard:2C")  # draws JK (L4) and 8C
    for _ in range(3):
        act(e, "draw")  # seats 1, 2, 3 turn up 9C, TC, JC
    act(e, "discard:JK")  # the joker goes to the pile; L stays 4; he fills 1 card
    assert e.state.hand_limit[0, 0] == 4 and e.state.hand_size[0, 0] == 4
    assert e.state.discard_counts[0, JOKER] == 1


def test_illegal_discard_of_someone_elses_joker_changes_nothing():
    """H2: only cards in one's own hand may be discarded (checked before any change)."""
    e = engine_with(4, 3, HANDS4, TABLES4, stock_top=["JK", "JK", "8C", "9C"])
    act(e, "discard:2C")
    before = {k: v.copy() for k, v in e.state.arrays().items()}
    with pytest.raises(ValueError, match="discard:JK"):
        act(e, "discard:JK")
    for k, v in before.items():
        assert np.array_equal(getattr(e.state, k), v), k


def _draw_until_stock_left(e, left):
    """Everyone turns up cards until ``left`` stock cards remain (0: the round ends)."""
    while 54 - e.state.stock_top[0] > left:
        act(e, "draw")
        if e.deal_over[0]:
            return


def test_h3_round_ends_mid_refill_when_stock_runs_out():
    """H3: the stock runs out while filling (the last card is a joker: L+1 but nothing
    left to draw), and the round ends at the end of that turn, hand short of L."""
    tables = [["JK", "6D", "7H"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["5S", "6C", "7D"]]
    e = engine_with(4, 3, HANDS4, tables)  # other joker: bottom of the stock
    assert e.state.deal_order[0, 53] == JOKER
    _draw_until_stock_left(e, 1)
    assert not e.game_over[0]
    seat = int(e.current_player[0])
    hand = [CARD_NAMES[c] for c in np.flatnonzero(e.state.hand[0, seat])]
    rewards = act(e, f"discard:{hand[0]}")
    assert e.deal_over[0] and e.game_over[0]  # episode="round"
    assert e.state.hand_limit[0, seat] == 4 and e.state.hand_size[0, seat] == 3
    assert e.state.stock_top[0] == 54
    # every seat is paid its round points (K2/K3) at once
    for p in range(4):
        cards = [CARD_NAMES[c] for c in np.flatnonzero(e.state.hand[0, p] + e.state.table[0, p])]
        assert rewards[0, p] == score_cards(cards) == e.last_points[0, p]


def test_h3_round_ends_when_turn_up_empties_the_stock():
    """H3: turning up the last stock card ends the round at the end of that turn."""
    e = engine_with(4, 3, HANDS4, TABLES4)
    _draw_until_stock_left(e, 1)
    assert not e.deal_over[0]
    act(e, "draw")
    assert e.deal_over[0] and e.game_over[0] and e.current_player[0] == -1


def test_h4_four_aces_in_hand_win_at_once_via_fill():
    """H4: seat 0 holds AC AD AH, turns up a joker (L4), later discards it and fills AS:
    four aces in hand win the match at once (points reward: target to him, 0 others)."""
    hands = [["AC", "AD", "AH"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["2S", "3S", "4S"]]
    tables = [["2C", "3C", "4C"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["5S", "6C", "7D"]]
    e = engine_with(4, 3, hands, tables, stock_top=["JK", "8C", "9C", "TC", "AS"])
    act(e, "draw")  # seat 0: joker into the hand, L = 4
    for _ in range(3):
        act(e, "draw")  # seats 1..3 turn up 8C 9C TC
    rewards = act(e, "discard:JK")  # fills AS
    assert e.game_over[0] and e.deal_over[0]
    assert e.state.four_aces_winner[0] == 0
    assert rewards[0].tolist() == [20, 0, 0, 0]
    assert e.winners[0].tolist() == [True, False, False, False]
    r = e.result(0)
    assert r["four_aces"] == 0 and r["round_points"] is None and r["winners"] == [0]
    assert e.state.stock_top[0] < 54  # the round did not run to the end


def test_h4_ends_a_match_at_once():
    """H4/K4: in match mode four aces end the whole match, not only the round."""
    hands = [["AC", "AD", "AH"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["2S", "3S", "4S"]]
    tables = [["2C", "3C", "4C"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["5S", "6C", "7D"]]
    e = engine_with(
        4,
        3,
        hands,
        tables,
        stock_top=["JK", "8C", "9C", "TC", "AS"],
        episode="match",
        reward="win",
    )
    act(e, "draw")
    for _ in range(3):
        act(e, "draw")
    rewards = act(e, "discard:JK")
    assert e.game_over[0] and e.state.match_over[0] and e.state.rounds_played[0] == 1
    assert np.allclose(rewards[0], [1, -1 / 3, -1 / 3, -1 / 3])


def test_k1_four_aces_across_hand_and_table_at_round_end():
    """K1: AC AD in hand and AH AS on the table: at round end seat 0 wins the match."""
    hands = [["AC", "AD", "3C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["2S", "3S", "4S"]]
    tables = [["AH", "AS", "2C"], ["JK", "6H", "7S"], ["JK", "6S", "7C"], ["5S", "6C", "7D"]]
    e = engine_with(4, 3, hands, tables, episode="match")
    _draw_until_stock_left(e, 0)
    assert e.game_over[0] and e.state.four_aces_winner[0] == 0
    assert e.last_points[0].tolist() == [20, 0, 0, 0]
    assert e.totals[0].tolist() == [20, 0, 0, 0]
    assert e.result(0)["round_points"] is None and e.result(0)["winners"] == [0]


def test_k2_round_points_and_k4_match_end_with_a_tie():
    """K2: nobody ever discards, so the scoring cards are the dealt ones. K4: seats 0 and
    1 both reach 20 and share the win (win reward +1/2 each, -1/2 each other)."""
    hands = [["9H", "TH", "JH"], ["9S", "TS", "JS"], ["2D", "5S", "7C"], ["3D", "6S", "8C"]]
    tables = [["QH", "KH", "2C"], ["QS", "KS", "3C"], ["JK", "4H", "9D"], ["JK", "5H", "TD"]]
    # seat 0: 9-K of hearts run +14, 2C loose = 14; seat 1 likewise 14
    # seat 2: 2D 9D suit -2, 5S 7C 4H loose = -2; seat 3: 3D TD -2, 6S 8C 5H loose = -2
    e = engine_with(4, 3, hands, tables, episode="match", reward="win")
    e.totals[0] = [6, 6, 0, 0]
    rewards = None
    while not e.deal_over[0]:
        rewards = act(e, "draw")
    assert e.last_points[0].tolist() == [14, 14, -2, -2]
    assert e.totals[0].tolist() == [20, 20, -2, -2]
    assert e.state.match_over[0] and e.winners[0].tolist() == [True, True, False, False]
    assert np.allclose(rewards[0], [0.5, 0.5, -0.5, -0.5])
    assert e.result(0)["winners"] == [0, 1]


@pytest.mark.parametrize(
    ("reward", "expected"),
    [
        ("points", [14, 14, -2, -2]),
        ("relative", [14 - 10 / 3, 14 - 10 / 3, -2 - 26 / 3, -2 - 26 / 3]),
    ],
)
def test_rewards_points_and_relative(reward, expected):
    """Rewards at round end: points, or own points minus the mean of the others'."""
    hands = [["9H", "TH", "JH"], ["9S", "TS", "JS"], ["2D", "5S", "7C"], ["3D", "6S", "8C"]]
    tables = [["QH", "KH", "2C"], ["QS", "KS", "3C"], ["JK", "4H", "9D"], ["JK", "5H", "TD"]]
    e = engine_with(4, 3, hands, tables, reward=reward)
    total = np.zeros(4)
    while not e.game_over[0]:
        total += act(e, "draw")[0]
    assert np.allclose(total, expected)


def test_k4_match_continues_and_deals_next_round_inside_step():
    """K4: below the target the next round is dealt within the same step (G2 dealer)."""
    e = engine_with(4, 3, HANDS4, TABLES4, episode="match", target_points=100)
    _draw_until_stock_left(e, 0)
    assert e.deal_over[0] and not e.game_over[0] and e.state.rounds_played[0] == 1
    assert e.state.stock_top[0] >= 24 and e.state.discard_size[0] == 0
    assert e.current_player[0] == (e.state.dealer[0] + 1) % 4


def test_k4_max_rounds_bounds_a_match():
    e = engine_with(4, 3, HANDS4, TABLES4, episode="match", target_points=100, max_rounds=1)
    _draw_until_stock_left(e, 0)
    assert e.game_over[0] and e.state.match_over[0] and e.result(0)["winners"]


def _play_round(e, rng):
    while True:
        mask = e.legal_action_mask()[0]
        e.step(np.array([rng.choice(np.flatnonzero(mask))]))
        if e.deal_over[0] or e.game_over[0]:
            return


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_g2_dealer_draw_first_round_from_seat_0_then_left_of_previous_dealer(num_players):
    """G2 ace_of_spades: dealer = (start + position of AS in the draw shuffle) mod n with
    start = seat 0 in the first round, then the player left of the previous dealer.
    G3: the deal is the next shuffle (hands, tables, then the stock)."""
    rng = np.random.default_rng(num_players)
    for key in (1, 2, 3, 12345):
        e = FourAcesEngine(
            FourAcesConfig(num_players=num_players, episode="match", target_points=500),
            batch_size=1,
        )
        e.reset(game_seeds=[key])
        keys = np.array([key], dtype=np.uint64)
        draw = shuffled(keys, np.array([0]), FULL_DECK)[0]
        assert e.state.dealer[0] == list(draw).index(ACE_OF_SPADES) % num_players
        dealt = shuffled(keys, np.array([1]), FULL_DECK)[0]
        assert np.array_equal(e.state.deal_order[0], dealt)
        for r in (1, 2):
            previous = int(e.state.dealer[0])
            _play_round(e, rng)
            draw = shuffled(keys, np.array([2 * r]), FULL_DECK)[0]
            start = (previous + 1) % num_players
            expected = (start + list(draw).index(ACE_OF_SPADES)) % num_players
            assert e.state.dealer[0] == expected
            assert e.current_player[0] == (expected + 1) % num_players  # H1


def test_g2_rotate_mode():
    """G2 rotate: the ace-of-spades draw for the first round, then the deal passes left."""
    rng = np.random.default_rng(0)
    e = FourAcesEngine(
        FourAcesConfig(num_players=5, dealer="rotate", episode="match", target_points=500),
        batch_size=1,
    )
    e.reset(game_seeds=[77])
    draw = shuffled(np.array([77], dtype=np.uint64), np.array([0]), FULL_DECK)[0]
    first = list(draw).index(ACE_OF_SPADES) % 5
    assert e.state.dealer[0] == first
    for r in (1, 2, 3):
        _play_round(e, rng)
        assert e.state.dealer[0] == (first + r) % 5


def test_draw_is_illegal_action_name_in_error():
    e = engine_with(4, 3, HANDS4, TABLES4)
    with pytest.raises(ValueError, match=r"discard:AS"):
        act(e, "discard:AS")
    with pytest.raises(ValueError, match="out of range"):
        e.step(np.array([99]))
    assert e.legal_action_mask()[0, DRAW]
