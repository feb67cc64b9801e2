"""Scripted Abracadabra deals that check docs/rules.md A–M rule by rule.

Most scripts use the ``two`` variant (24 cards 9..A + joker, 12 each, bonus 20 / 10) with
hands chosen so that every trick is forced; the expected arithmetic is worked out in the
comments. Actions are written by name (``bid:2``, ``play:AC``, ``call`` …).
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.abracadabra import ACTION_NAMES, LAYOUT, AbracadabraConfig, AbracadabraEngine
from envs.cards import parse_card


def cards(text: str) -> list[str]:
    """Card strings from a space-separated list ("AC KC" -> ["AC", "KC"])."""
    return text.split()

# -- fixed deals --------------------------------------------------------------------------
# DEAL_A: no trump (the leftover is the joker, B2). Seat 0 wins every club lead; seat 1 wins
# every other trick (it holds the top hearts and diamonds and all spades).
DEAL_A = [
    cards("AC KC QC JC TC 9C JH TH 9H JD TD 9D"),
    cards("AH KH QH AD KD QD AS KS QS JS TS 9S"),
]
# DEAL_C: like A, but seat 0 holds AD KD so it can win two diamond tricks.
DEAL_C = [
    cards("AC KC QC JC TC 9C 9H TH JH AD KD 9D"),
    cards("AH KH QH QD JD TD AS KS QS JS TS 9S"),
]
# DEAL_D: seat 1 wins its spade leads, seat 0 every heart and diamond.
DEAL_D = [
    cards("AC KC QC JC TC 9C AH KH QH AD KD QD"),
    cards("9H TH JH 9D TD JD AS KS QS JS TS 9S"),
]
# DEAL_T: the leftover 9H makes hearts trump (B2); seat 0 holds the joker but no heart.
DEAL_T = [
    cards("JK AC KC QC JC TC 9C AD KD QD JD TD"),
    cards("TH JH QH KH AH AS KS QS JS TS 9S 9D"),
]

# Seat 0 declares T = 2 (dealer 1, so seat 0 bids first and wins the tie, C3), calls after
# its 2nd trick, then takes a 3rd (spoiled, F2); seat 1 is asked once, at its 2nd trick.
SCRIPT_SPOIL = """bid:2 bid:2 stop
    play:AC play:9S  play:KC play:TS  call  play:9C play:JS  play:9H play:QH
    play:AS play:TC  no_call  play:KS play:JC  play:QS play:QC  play:AH play:TH
    play:KH play:JH  play:AD play:9D  play:KD play:TD  play:QD play:JD"""
# DEAL_D after DEAL_A in a match: dealer 0, seat 1 bids first and declares T = 6 (tie, C3);
# both players take exactly 6 tricks and call.
SCRIPT_D = """bid:6 bid:6 stop
    play:AS play:9C  play:KS play:TC  play:QS play:JC  play:JS play:QC  play:TS play:KC
    play:9S play:AC  call  play:9H play:QH  play:KH play:TH  play:AH play:JH
    play:QD play:9D  play:KD play:TD  play:AD play:JD  call"""


def new(variant="two", dealer=0, hands=None, leftover=None, **options) -> AbracadabraEngine:
    engine = AbracadabraEngine(AbracadabraConfig(variant=variant, **options), 1)
    engine.reset_with_deal(0, dealer, hands, leftover, seed=0)
    return engine


def act(engine: AbracadabraEngine, script: str) -> np.ndarray:
    """Play the named actions; returns the summed rewards of every seat."""
    total = np.zeros(engine.num_players)
    for name in script.split():
        total += engine.step(np.array([ACTION_NAMES.index(name)]))[0]
    return total


def legal(engine: AbracadabraEngine) -> set[str]:
    return {ACTION_NAMES[a] for a in np.flatnonzero(engine.legal_action_mask()[0])}


def finish(engine: AbracadabraEngine, seed: int = 0) -> np.ndarray:
    """Play uniformly random legal actions until the current deal ends."""
    rng = np.random.default_rng(seed)
    total = np.zeros(engine.num_players)
    while True:
        actions = np.flatnonzero(engine.legal_action_mask()[0])
        total += engine.step(np.array([rng.choice(actions)]))[0]
        if engine.deal_over[0]:
            return total


def segment(engine: AbracadabraEngine, name: str, seat: int) -> np.ndarray:
    return engine.observe(np.array([seat]))[0, LAYOUT[name]]


def tricks(engine: AbracadabraEngine) -> list[int]:
    return engine.state.tricks_won[0].tolist()


# -- A, B: variants, deal, trump ----------------------------------------------------------
@pytest.mark.parametrize(
    "variant, joker, players, hands, each, deck_size",
    [
        ("four", True, 4, 4, 13, 53),
        ("three", True, 3, 3, 12, 37),
        ("three", False, 3, 3, 12, 36),
        ("two_dummy", True, 2, 3, 12, 37),
        ("two", True, 2, 2, 12, 25),
        ("two", False, 2, 2, 12, 24),
    ],
)
def test_variant_table_A_and_leftover_B2(variant, joker, players, hands, each, deck_size):
    """A: players, hands, cards each, deck; B2: one leftover card with the joker, else none."""
    engine = AbracadabraEngine(AbracadabraConfig(variant=variant, joker=joker), 1)
    engine.reset(seed=3)
    assert (engine.num_players, engine.num_hands, engine.cards_each) == (players, hands, each)
    assert len(engine.deck) == deck_size
    held = engine.state.hands()[0].sum(axis=1)
    assert held.tolist() == [each] * hands
    assert (engine.state.leftover[0] >= 0) == joker
    assert held.sum() + joker == deck_size


def test_trump_is_the_leftover_suit_B2():
    engine = new(dealer=0, hands=DEAL_T, leftover="9H")
    assert segment(engine, "trump_suit", 0).tolist() == [0, 0, 1, 0, 0]  # hearts
    assert segment(engine, "leftover", 1)[parse_card("9H")] == 1


def test_no_trump_when_the_leftover_is_the_joker_B2():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK")
    assert segment(engine, "trump_suit", 0).tolist() == [0, 0, 0, 0, 1]
    # seat 1 discards the ace of spades on a club lead: no trump, the club wins (E3)
    act(engine, "bid:2 bid:0 stop play:9C play:AS")
    assert tricks(engine) == [1, 0]


def test_no_trump_without_joker_B2():
    engine = AbracadabraEngine(AbracadabraConfig(variant="three", joker=False), 4)
    engine.reset(seed=5)
    assert (engine.state.leftover == -1).all() and (engine.state.trump == -1).all()


def test_first_dealer_drawn_from_the_key_B1():
    engine = AbracadabraEngine(AbracadabraConfig(variant="four"), 256)
    engine.reset(seed=11)
    counts = np.bincount(engine.state.dealer, minlength=4)
    assert (counts > 30).all()  # every seat deals sometimes
    assert (engine.current_player == (engine.state.dealer + 1) % 4).all()  # C1


# -- C: bidding ---------------------------------------------------------------------------
@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_bids_start_left_of_dealer_and_go_clockwise_C1(dealer):
    engine = new("four", dealer=dealer)
    order = []
    for _ in range(4):
        order.append(int(engine.current_player[0]))
        act(engine, "bid:1")
    assert order == [(dealer + 1 + i) % 4 for i in range(4)]
    assert engine.pot[0] == 4  # C2: ante 1 with every bid
    assert engine.state.stakes[0].tolist() == [1, 1, 1, 1]


@pytest.mark.parametrize("variant, top", [("four", 13), ("three", 12), ("two", 12)])
def test_bids_range_from_zero_to_cards_each_C1(variant, top):
    engine = new(variant, dealer=0)
    assert legal(engine) == {f"bid:{n}" for n in range(top + 1)}


@pytest.mark.parametrize(
    "dealer, bids, declarer, target",
    [
        (0, "bid:2 bid:5 bid:5 bid:1", 2, 5),  # order 1,2,3,0: seat 2 bid 5 before seat 3
        (2, "bid:4 bid:4 bid:2 bid:3", 3, 4),  # order 3,0,1,2: seat 3 before seat 0
        (3, "bid:0 bid:0 bid:0 bid:0", 0, 0),  # all zero: the first bidder
    ],
)
def test_highest_bid_declares_and_tie_goes_to_first_bidder_C3(dealer, bids, declarer, target):
    engine = new("four", dealer=dealer)
    act(engine, bids)
    assert (engine.state.declarer[0], engine.state.target[0]) == (declarer, target)
    assert engine.phase_name() == "show" and engine.current_player[0] == declarer
    rel = (declarer - 1) % 4
    assert segment(engine, "declarer", 1)[rel] == 1  # seat-relative for observer 1
    assert segment(engine, "target", 1)[target] == 1


def test_ante_is_the_stake_C2():
    engine = new("three", dealer=0, ante=3)
    act(engine, "bid:1 bid:2 bid:3")
    assert engine.pot[0] == 9 and engine.state.stakes[0].tolist() == [3, 3, 3]


# -- D: showing ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "mode, increment, stake, pot",
    [
        ("multiple", 1, 2 * (1 + 3), 4 * 2 + 2 * 3),  # ante × (1 + k) = 8; pot 8 + 6
        ("add", 5, 2 + 3 * 5, 4 * 2 + 3 * 5),  # ante + k × increment = 17; pot 8 + 15
    ],
)
def test_showing_cards_raises_the_declarer_stake_D1_D2(mode, increment, stake, pot):
    engine = new("four", dealer=3, ante=2, raise_mode=mode, raise_increment=increment)
    act(engine, "bid:3 bid:1 bid:1 bid:1")  # seat 0 declares
    hand = engine.hand_cards(0, 0)
    shown = [ACTION_NAMES[14 + c] for c in hand[:3]]
    act(engine, " ".join(shown))
    assert engine.pot[0] == pot and engine.state.stakes[0, 0] == stake
    # D1: shown cards are public and cannot be shown twice
    for observer in range(4):
        assert np.flatnonzero(segment(engine, "shown", observer)).tolist() == hand[:3]
        assert segment(engine, "shown_count", observer)[0] == pytest.approx(3 / 13)
    assert not legal(engine) & set(shown)
    assert "stop" in legal(engine)
    act(engine, "stop")
    assert engine.phase_name() == "play" and engine.current_player[0] == 0  # E1
    # a shown card stays face up only until played
    act(engine, f"play:{ACTION_NAMES[14 + hand[0]][5:]}")
    assert np.flatnonzero(engine.state.shown()[0]).tolist() == hand[1:3]
    finish(engine)
    result = engine.result(0)
    assert result["stakes"] == [stake, 2, 2, 2]


# -- E: play ------------------------------------------------------------------------------
def test_must_follow_suit_E2():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK")
    act(engine, "bid:2 bid:0 stop play:9H")  # seat 0 leads a heart
    assert legal(engine) == {"play:AH", "play:KH", "play:QH"}
    act(engine, "play:QH")
    assert tricks(engine) == [0, 1]  # E3: the highest card of the suit led
    assert engine.current_player[0] == 1  # the winner leads


def test_void_in_suit_may_play_anything_E2():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK")
    act(engine, "bid:2 bid:0 stop play:AC")
    assert legal(engine) == {f"play:{c}" for c in DEAL_A[1]}


def test_joker_counts_as_trump_and_must_follow_a_trump_lead_E2_B3():
    """Seat 0's only 'heart' is the joker: on a trump lead it must play it, and it wins."""
    engine = new(dealer=0, hands=DEAL_T, leftover="9H")
    act(engine, "bid:5 bid:0 stop play:AH")  # seat 1 declares and leads the ace of trumps
    assert legal(engine) == {"play:JK"}
    act(engine, "play:JK")
    assert tricks(engine) == [1, 0]  # E3: the joker beats the ace of trumps


def test_joker_led_calls_for_trumps_E2_B3():
    engine = new(dealer=1, hands=DEAL_T, leftover="9H")
    act(engine, "bid:5 bid:0 stop play:JK")
    assert legal(engine) == {"play:TH", "play:JH", "play:QH", "play:KH", "play:AH"}
    act(engine, "play:AH")
    assert tricks(engine) == [1, 0]


def test_trump_beats_the_suit_led_and_offsuit_cards_lose_E3():
    engine = new(dealer=1, hands=DEAL_T, leftover="9H")
    act(engine, "bid:5 bid:0 stop play:AC")  # seat 1 has no club
    assert len(legal(engine)) == 12
    act(engine, "play:TH")  # the lowest trump beats the ace led
    assert tricks(engine) == [0, 1] and engine.current_player[0] == 1
    act(engine, "play:9S play:AD")  # seat 0: no spade, no heart; its ace is off-suit
    assert tricks(engine) == [0, 2]


def test_highest_trump_wins_among_several_E3():
    # three: 6..A + joker; leftover 6S makes spades trump
    hands = [
        cards("AC KC QC JC TC 9C 8C 7C 6C 7S 6D 7D"),
        cards("AD KD QD JD TD 9D 8D 6H 7H 8H 9S TS"),
        cards("AH KH QH JH TH 9H AS KS QS JS 8S JK"),
    ]
    engine = new("three", dealer=2, hands=hands, leftover="6S")
    act(engine, "bid:3 bid:1 bid:1 stop")  # seat 0 declares and leads
    act(engine, "play:AC play:9S play:QS")  # seat 1 ruffs with 9S, seat 2 over-ruffs
    assert tricks(engine) == [0, 0, 1]


# -- E4: the dummy ------------------------------------------------------------------------
DEAL_DUMMY = [
    cards("6C 7C 8C 9C TC JC QC KC AC 6D 7D 8D"),
    cards("9D TD JD QD KD AD 6H 7H 8H 9H TH JH"),
    cards("QH KH AH 6S 7S 8S 9S TS JS QS KS AS"),  # the dummy, hand 2
]


def test_dummy_is_played_by_the_trick_leader_and_alternates_when_it_leads_E4():
    engine = new("two_dummy", dealer=1, hands=DEAL_DUMMY, leftover="JK")
    act(engine, "bid:5 bid:3 stop")  # seat 0 declares T = 5 and leads
    # trick 1, led by seat 0: seat 0 plays the dummy's card
    act(engine, "play:6C")
    assert engine.current_player[0] == 1
    act(engine, "play:6H")
    assert engine.current_player[0] == 0 and engine.state.to_play[0] == 2
    assert segment(engine, "acting_hand", 0).tolist() == [0, 0, 1, 0]  # the dummy's slot
    act(engine, "play:6S")
    assert tricks(engine) == [1, 0, 0]
    # trick 2, led by seat 0 again; seat 1 wins it
    act(engine, "play:6D play:9D play:7S")
    assert tricks(engine) == [1, 1, 0]
    # trick 3, led by seat 1: seat 1 plays the dummy's card (follows hearts with AH)
    act(engine, "play:7H")
    assert engine.current_player[0] == 1 and engine.state.to_play[0] == 2
    assert legal(engine) == {"play:QH", "play:KH", "play:AH"}
    act(engine, "play:AH play:7C")
    assert tricks(engine) == [1, 1, 1]  # the dummy won
    # trick 4: the dummy leads, played by seat 0 (seat 1 controlled it in trick 3)
    assert engine.current_player[0] == 0 and engine.state.to_play[0] == 2
    act(engine, "play:8S play:8C play:8H")
    assert tricks(engine) == [1, 1, 2]
    # trick 5: the dummy leads again, now played by seat 1
    assert engine.current_player[0] == 1 and engine.state.to_play[0] == 2
    assert segment(engine, "dummy_control", 1).tolist() == [1, 0, 0, 0]
    assert segment(engine, "dummy_control", 0).tolist() == [0, 1, 0, 0]


def test_dummy_hand_is_face_up_and_its_tricks_belong_to_nobody_E4():
    engine = new("two_dummy", dealer=1, hands=DEAL_DUMMY, leftover="JK")
    for seat in (0, 1):
        dummy = np.flatnonzero(segment(engine, "dummy_hand", seat))
        assert dummy.tolist() == sorted(parse_card(c) for c in DEAL_DUMMY[2])
    act(engine, "bid:5 bid:3 stop play:6C play:6H play:6S play:6D play:9D play:7S")
    act(engine, "play:7H play:AH play:7C play:8S play:8C play:8H")  # dummy: 2 tricks
    finish(engine)
    result = engine.result(0)
    assert len(result["tricks"]) == 3 and sum(result["tricks"]) == 12
    assert result["tricks"][2] >= 2
    assert len(result["points"]) == 2
    # S1–S3 count only the players' own tricks: points = bonus + tricks + 2 × (even)
    for seat in (0, 1):
        bonus = 0 if seat not in result["hitters"] else (20 if len(result["hitters"]) == 1
                                                         else 10)
        rest = result["points"][seat] - bonus - result["tricks"][seat]
        assert rest >= 0 and rest % 2 == 0


# -- F: calling "Abracadabra" -------------------------------------------------------------
def test_call_only_right_after_the_Tth_trick_F1():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK")
    act(engine, "bid:2 bid:2 stop play:AC play:9S")
    assert engine.phase_name() == "play"  # 1 trick: not yet
    act(engine, "play:KC play:TS")
    assert engine.phase_name() == "call" and engine.current_player[0] == 0
    assert legal(engine) == {"call", "no_call"}
    act(engine, "call play:9H play:QH play:AS play:9C")  # seat 1 takes its 2nd trick
    assert engine.phase_name() == "call" and engine.current_player[0] == 1
    act(engine, "no_call")
    phases = set()
    for name in ("play:KS", "play:TC", "play:QS", "play:JC", "play:JS", "play:QC"):
        act(engine, name)
        phases.add(engine.phase_name())
    # seat 1's 3rd..: the chance is gone; seat 0 ended its calls with the 2nd trick
    assert phases == {"play"}
    rewards = act(engine, "play:AH play:TH play:KH play:JH play:AD play:JD play:KD play:TD "
                  "play:QD play:9D")
    result = engine.result(0)
    # seat 0 hits alone (20) + 2 tricks; seat 1: 10 tricks; no card has bid value 2
    assert result["hitters"] == [0] and result["tricks"] == [2, 10]
    assert result["points"] == [22, 10] and rewards.tolist() == [22, 10]
    assert result["pot_share"] == [2, 0] and result["chips"] == [1, -1]


def test_taking_more_after_the_call_spoils_F2():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK", reward="chips")
    rewards = act(engine, SCRIPT_SPOIL)
    result = engine.result(0)
    assert result["called"] == [0] and result["hitters"] == []
    assert result["tricks"] == [3, 9] and result["points"] == [3, 9]
    # S4: no hitter, the pot (2) carries; the deal episode ends, so it goes to the points
    # winner, seat 1 (M2)
    assert result["carry"] == 2 and result["final_share"] == [0, 2]
    assert rewards.tolist() == [-1, 1] and engine.game_over[0]


def test_call_on_the_last_trick_and_scoring_S1_S3():
    """T = 10: the 10th trick is the last; the call is asked before the deal ends."""
    engine = new(dealer=0, hands=DEAL_C, leftover="JK")
    act(engine, "bid:10 bid:2 stop")  # seat 1 bids first (dealer 0) and declares
    act(engine, "play:AS play:9C play:KS play:TC play:QS play:JC play:JS play:QC "
        "play:TS play:KC play:9S play:AC")  # seat 1: 6 tricks
    act(engine, "play:TD play:AD play:KD play:JD play:9D play:QD")  # seat 0: 2, seat 1: 7
    act(engine, "play:AH play:9H play:KH play:TH play:QH play:JH")  # seat 1: 10
    assert engine.phase_name() == "call" and not engine.deal_over[0]
    rewards = act(engine, "call")
    # seat 1 hits alone: 20 + 10 tricks + 2 × 3 tens (TC, TS, TH) = 36
    # seat 0: 2 tricks + 2 × 1 ten (TD) = 4
    assert rewards.tolist() == [4, 36]
    assert engine.result(0)["hitters"] == [1] and engine.game_over[0]


def test_ace_has_bid_value_one_S3_A3():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK")
    act(engine, "bid:1 bid:0 stop play:AC play:9S call")  # seat 0: T = 1, calls
    act(engine, "play:9H play:QH call")  # seat 1 reaches T = 1 and calls too
    act(engine, "play:AS play:KC play:KS play:QC play:QS play:JC play:JS play:TC "
        "play:TS play:9C play:AH play:TH play:KH play:JH play:AD play:9D play:KD play:TD")
    rewards = act(engine, "play:QD play:JD")
    # seat 0 hits alone: 20 + 1 trick + 2 (AC); seat 1 spoiled: 11 tricks + 2 × 3 aces
    assert rewards.tolist() == [23, 17]
    assert engine.result(0)["hitters"] == [0]


def test_two_hitters_share_bonus_and_pot_S1_S4():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK")
    act(engine, "bid:6 bid:6 stop play:AC play:9S play:KC play:TS play:QC play:JS "
        "play:JC play:QS play:TC play:KS play:9C play:AS call")
    act(engine, "play:9H play:QH play:KH play:TH play:AH play:JH play:QD play:9D "
        "play:KD play:TD play:AD play:JD call")
    result = engine.result(0)
    # 2 hitters: 10 each (two: 20 / 10) + 6 tricks; no sixes in a 9..A deck
    assert result["hitters"] == [0, 1] and result["points"] == [16, 16]
    assert result["pot_share"] == [1, 1] and result["chips"] == [0, 0]


@pytest.mark.parametrize("variant, bonus", [("four", (40, 30, 20, 10)), ("three", (30, 20, 10))])
def test_zero_target_calls_before_the_first_lead_from_the_declarer_F1_S1(variant, bonus):
    players = len(bonus)
    engine = new(variant, dealer=players - 1)
    act(engine, " ".join(["bid:0"] * players) + " stop")  # seat 0 declares T = 0
    decisions = []
    for seat in range(players):
        assert engine.phase_name() == "call" and legal(engine) == {"call", "no_call"}
        decisions.append(int(engine.current_player[0]))
        act(engine, "no_call" if seat == 1 else "call")
    assert decisions == list(range(players))
    assert engine.phase_name() == "play" and engine.current_player[0] == 0
    rewards = finish(engine)
    result = engine.result(0)
    hitters = [s for s in range(players) if s != 1 and result["tricks"][s] == 0]
    assert result["hitters"] == hitters
    for s in range(players):
        expected = result["tricks"][s] + (bonus[len(hitters) - 1] if s in hitters else 0)
        assert result["points"][s] == expected  # + 2 per card of value 0: none exist
    assert rewards.tolist() == result["points"]


def test_auto_call_mode_never_asks_F1():
    engine = new(dealer=0, hands=DEAL_C, leftover="JK", call_mode="auto")
    script = ("bid:10 bid:2 stop play:AS play:9C play:KS play:TC play:QS play:JC play:JS "
              "play:QC play:TS play:KC play:9S play:AC play:TD play:AD play:KD play:JD "
              "play:9D play:QD play:AH play:9H play:KH play:TH play:QH play:JH")
    total = np.zeros(2)
    for name in script.split():
        assert "call" not in legal(engine)
        total += act(engine, name)
    assert total.tolist() == [4, 36] and engine.game_over[0]
    assert engine.result(0)["called"] == [1]


def test_auto_call_with_zero_target_calls_for_everyone_F1():
    engine = new("four", dealer=3, call_mode="auto")
    act(engine, "bid:0 bid:0 bid:0 bid:0 stop")
    assert engine.phase_name() == "play" and engine.state.called[0].all()


# -- M: match -----------------------------------------------------------------------------
def test_match_ends_at_target_points_and_leftover_pot_goes_to_winner_M1_M2():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK", episode="match", target_points=5,
                 reward="chips")
    rewards = act(engine, SCRIPT_SPOIL)  # points 3 / 9: seat 1 reaches 5
    assert engine.game_over[0] and engine.winners[0].tolist() == [False, True]
    result = engine.result(0)
    assert result["winners"] == [1] and result["final_share"] == [0, 2]
    assert rewards.tolist() == [-1, 1] and engine.pot[0] == 0


def test_pot_carries_over_and_dealer_passes_left_S4_B1_M1():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK", episode="match", target_points=100)
    act(engine, SCRIPT_SPOIL)
    assert not engine.game_over[0] and engine.deal_over[0]
    assert engine.pot[0] == 2  # no hitter: carried over
    assert engine.state.dealer[0] == 0 and engine.current_player[0] == 1  # B1, C1
    assert engine.totals[0].tolist() == [3, 9]
    assert segment(engine, "pot", 0)[0] == pytest.approx(0.2)
    assert segment(engine, "scores", 1).tolist() == pytest.approx([0.09, 0.03, 0, 0])
    engine.set_deal(0, DEAL_D, "JK")
    act(engine, SCRIPT_D)
    result = engine.result(0)
    # both hit with 6: 10 + 6 each; the pot 2 (carried) + 2 (stakes) splits 2 / 2
    assert result["hitters"] == [0, 1] and result["points"] == [16, 16]
    assert result["pot_share"] == [2, 2] and result["chips"] == [1, 1]
    assert engine.totals[0].tolist() == [19, 25] and engine.pot[0] == 0
    assert result["deal"] == 1 and not engine.game_over[0]


def test_max_deals_bounds_the_match_and_win_reward_M3():
    engine = new(dealer=1, hands=DEAL_A, leftover="JK", episode="match", max_deals=2,
                 reward="win")
    assert act(engine, SCRIPT_SPOIL).tolist() == [0, 0]
    engine.set_deal(0, DEAL_D, "JK")
    rewards = act(engine, SCRIPT_D)
    assert engine.game_over[0] and engine.result(0)["winners"] == [1]  # 19 < 25
    assert rewards.tolist() == [-1, 1]
    assert segment(engine, "deal_number", 0)[0] == 1.0


def test_match_with_random_play_deals_until_the_bound_M3():
    engine = AbracadabraEngine(
        AbracadabraConfig(variant="two", episode="match", target_points=10**6, max_deals=3), 1
    )
    engine.reset(seed=2)
    dealers = [int(engine.state.dealer[0])]
    deals = 0
    while not engine.game_over[0]:
        finish(engine, seed=deals)
        deals += 1
        dealers.append(int(engine.state.dealer[0]))
    assert deals == 3
    assert dealers[1] == (dealers[0] + 1) % 2 and dealers[2] == dealers[0]


def test_win_reward_shares_between_equal_winners_M1():
    engine = new("three", dealer=0, episode="match", reward="win", max_deals=1)
    rewards = finish(engine)
    winners = engine.winners[0]
    w = winners.sum()
    expected = np.where(winners, 1 / w, -1 / (3 - w)) if w < 3 else np.zeros(3)
    assert rewards == pytest.approx(expected) and rewards.sum() == pytest.approx(0)
