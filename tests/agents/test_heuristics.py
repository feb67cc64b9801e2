"""Heuristic agents: legality in every variant, determinism, scripted decisions, strength
against random, and no peeking (the decision is a function of observation + mask)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.base import act_grouped
from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.engine import LAYOUT as ABRA_LAYOUT
from envs.abracadabra.rules import PLAY_OFFSET, STOP
from envs.cards import parse_card
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import LAYOUT as FA_LAYOUT
from envs.four_aces.engine import FourAcesEngine

ABRA_HEURISTICS = ("heuristic", "sure_tricks", "expected_tricks", "control")
FA_HEURISTICS = ("greedy", "lookahead", "heuristic")
VARIANTS = ("four", "three", "two_dummy", "two")


def play(engine, seat_agents, check_legal: bool = True) -> None:
    """Run every game of ``engine`` to its end; every action must be legal."""
    while not engine.game_over.all():
        obs = engine.observe()
        mask = engine.legal_action_mask()
        seat = engine.current_player
        actions = act_grouped(seat_agents, seat, obs, mask, seat >= 0)
        live = ~engine.game_over
        if check_legal:
            assert mask[np.flatnonzero(live), actions[live]].all()
        engine.step(actions)


# ------------------------------------------------------------------------------------
# legality and determinism
# ------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name", ABRA_HEURISTICS)
def test_abracadabra_heuristics_only_legal(variant, name):
    engine = AbracadabraEngine(AbracadabraConfig(variant=variant), 48)
    engine.reset(seed=11)
    P = engine.num_players
    seats = [agents.make(name if s % 2 == 0 else "random", "abracadabra", seed=s)
             for s in range(P)]
    play(engine, seats)
    # and a full table of the heuristic
    engine.reset(seed=12)
    play(engine, [agents.make(name, "abracadabra", seed=s) for s in range(P)])


@pytest.mark.parametrize("num_players", (3, 4, 5))
@pytest.mark.parametrize("name", ("greedy", "lookahead"))
def test_four_aces_heuristics_only_legal(num_players, name):
    engine = FourAcesEngine(FourAcesConfig(num_players=num_players), 12)
    engine.reset(seed=5)
    seats = [agents.make(name if s % 2 == 0 else "random", "four_aces", seed=s)
             for s in range(num_players)]
    play(engine, seats)


def _states(engine, n_steps: int, seed: int):
    """Observation/mask batches met along random play."""
    rng = np.random.default_rng(seed)
    engine.reset(seed=seed)
    out = []
    for _ in range(n_steps):
        if engine.game_over.all():
            break
        obs, mask = engine.observe(), engine.legal_action_mask()
        live = ~engine.game_over
        out.append((obs[live], mask[live]))
        actions = agents.sample_legal(rng, np.where(live[:, None], mask, True))
        engine.step(actions)
    return out


@pytest.mark.parametrize("name", ABRA_HEURISTICS)
def test_abracadabra_deterministic(name):
    states = _states(AbracadabraEngine(AbracadabraConfig(variant="four"), 16), 30, seed=3)
    a, b = agents.make(name, "abracadabra", seed=7), agents.make(name, "abracadabra", seed=7)
    for obs, mask in states:
        assert np.array_equal(a.act_batch(obs, mask), b.act_batch(obs, mask))
        # one row at a time gives the same as the batch
        single = [a.act(o, m) for o, m in zip(obs[:3], mask[:3], strict=True)]
        assert single == a.act_batch(obs[:3], mask[:3]).tolist()


@pytest.mark.parametrize("name", FA_HEURISTICS)
def test_four_aces_deterministic(name):
    states = _states(FourAcesEngine(FourAcesConfig(num_players=4), 8), 10, seed=4)
    a, b = agents.make(name, "four_aces", seed=7), agents.make(name, "four_aces", seed=7)
    for obs, mask in states:
        assert np.array_equal(a.act_batch(obs, mask), b.act_batch(obs, mask))


# ------------------------------------------------------------------------------------
# scripted decisions (hand-built observations, through the engines' layouts)
# ------------------------------------------------------------------------------------
def abra_obs(hand, *, phase, trump="S", target=None, tricks=(0, 0, 0, 0), called=(),
             trick=(), leader=None, played=(), bids=None, variant=0):
    """An Abracadabra observation of variant ``four`` (index 0) built segment by segment.

    ``trick``/``played``: (relative hand slot, card) pairs; ``bids``: per player slot."""
    obs = np.zeros(ABRA_LAYOUT.size, np.float32)

    def seg(name):
        return obs[ABRA_LAYOUT[name]]

    seg("variant")[variant] = 1
    for c in hand:
        seg("hand")[parse_card(c)] = 1
    seg("trump_suit")["CDHS".index(trump) if trump else 4] = 1
    seg("leftover")[parse_card("2" + trump) if trump else parse_card("JK")] = 1
    seg("phase")[("bid", "show", "call", "play").index(phase)] = 1
    seg("dealer")[3] = 1
    if bids is not None:
        for slot, b in enumerate(bids):
            if b is not None:
                seg("bids")[slot * 14 + b] = 1
    if target is not None:
        seg("target")[target] = 1
        seg("declarer")[0] = 1
    for slot, c in played + trick:
        seg("played")[slot * 53 + parse_card(c)] = 1
    for slot, c in trick:
        seg("trick")[slot * 53 + parse_card(c)] = 1
    if leader is not None:
        seg("trick_leader")[leader] = 1
    seg("acting_hand")[0] = 1
    seg("tricks_won")[:] = np.array(tricks) / 13
    seg("tricks_played")[0] = sum(tricks) / 13
    for slot in called:
        seg("called")[slot] = 1
    return obs


def play_mask(cards):
    mask = np.zeros(123, bool)
    for c in cards:
        mask[PLAY_OFFSET + parse_card(c)] = True
    return mask


def test_at_target_the_player_ducks():
    # T = 2, two tricks taken and called (F1): duck under the nine of spades led (E2)
    hand = ["AS", "5S", "3D", "4D", "5D"]
    obs = abra_obs(hand, phase="play", target=2, tricks=(2, 1, 1, 1), called=(0,),
                   trick=((1, "9S"),), leader=1)
    for name in ABRA_HEURISTICS:
        action = agents.make(name, "abracadabra", seed=0).act(obs, play_mask(["AS", "5S"]))
        assert action == PLAY_OFFSET + parse_card("5S"), name


def test_at_target_the_player_sheds_the_highest_loser():
    # at target, hearts led and the king already winning: the queen sheds safely
    hand = ["QH", "4H", "3D", "4D"]
    obs = abra_obs(hand, phase="play", target=1, tricks=(1, 0, 0, 0), called=(0,),
                   trick=((1, "KH"), (2, "5H")), leader=1)
    action = agents.make("heuristic", "abracadabra").act(obs, play_mask(["QH", "4H"]))
    assert action == PLAY_OFFSET + parse_card("QH")


def test_below_target_last_hand_wins_cheaply():
    # needs tricks, last to play to 9S 4S 6S: the ten wins as surely as the ace (E3)
    hand = ["AS", "TS", "2D", "3D"]
    obs = abra_obs(hand, phase="play", target=3, tricks=(0, 0, 0, 0),
                   trick=((1, "9S"), (2, "4S"), (3, "6S")), leader=1, trump="H")
    action = agents.make("heuristic", "abracadabra").act(obs, play_mask(["AS", "TS"]))
    assert action == PLAY_OFFSET + parse_card("TS")


def test_follows_suit_by_the_mask():
    hand = ["AS", "TS", "AH", "KH", "2D"]
    obs = abra_obs(hand, phase="play", target=3, trick=((1, "3H"),), leader=1, trump="C")
    legal = ["AH", "KH"]
    for name in ABRA_HEURISTICS:
        action = agents.make(name, "abracadabra").act(obs, play_mask(legal))
        assert action - PLAY_OFFSET in [parse_card(c) for c in legal]


def test_sure_tricks_bid_counts_a_given_hand():
    # trumps spades: JK, AS, KS are forced winners (B3, E3); AH a side master in a
    # two-card suit; 3S and the small clubs and diamonds win nothing sure -> 4
    hand = ["JK", "AS", "KS", "3S", "AH", "4H", "2C", "3C", "4C", "5C", "2D", "3D", "4D"]
    obs = abra_obs(hand, phase="bid", bids=(None, None, None, None))
    mask = np.zeros(123, bool)
    mask[:14] = True
    assert agents.make("sure_tricks", "abracadabra").act(obs, mask) == 4


def test_control_outbids_with_a_strong_hand():
    hand = ["JK", "AS", "KS", "QS", "AH", "KH", "AD", "4H", "2C", "3C", "4C", "2D", "3D"]
    mask = np.zeros(123, bool)
    mask[:14] = True
    quiet = abra_obs(hand, phase="bid", bids=(None, None, None, None))
    own = agents.make("expected_tricks", "abracadabra").act(quiet, mask)
    # the table bid the same number before: control goes one above, expected does not
    contested = abra_obs(hand, phase="bid", bids=(None, own, None, None))
    assert agents.make("control", "abracadabra").act(contested, mask) == own + 1
    assert agents.make("expected_tricks", "abracadabra").act(contested, mask) == own


def test_calls_only_without_a_forced_winner():
    call_mask = np.zeros(123, bool)
    call_mask[[121, 122]] = True
    weak = abra_obs(["3D", "4D", "5C"], phase="call", target=2, tricks=(2, 0, 0, 0))
    assert agents.make("heuristic", "abracadabra").act(weak, call_mask) == 121
    # the joker will take another trick whatever happens: no call
    joker = abra_obs(["JK", "4D", "5C"], phase="call", target=2, tricks=(2, 0, 0, 0))
    assert agents.make("heuristic", "abracadabra").act(joker, call_mask) == 122


def test_showing_stops_without_confidence():
    mask = np.zeros(123, bool)
    mask[STOP] = True
    mask[14 + parse_card("3D")] = True
    obs = abra_obs(["3D", "4D", "AH"], phase="show", target=2)
    assert agents.make("heuristic", "abracadabra").act(obs, mask) == STOP


def fa_obs(hand, table, *, num_players=4, discards=(), stock=30):
    obs = np.zeros(FA_LAYOUT.size, np.float32)

    def seg(name):
        return obs[FA_LAYOUT[name]]

    seg("num_players")[num_players - 3] = 1
    for c in hand:
        seg("hand")[parse_card(c)] += 1
    for c in table:
        seg("tables")[parse_card(c)] += 1
    for c in discards:
        seg("discard_pile")[parse_card(c)] += 1
    seg("stock_size")[0] = stock / 54
    seg("hand_sizes")[:num_players] = len(hand) / 5
    seg("hand_limits")[:num_players] = 3 / 5
    mask = np.zeros(54, bool)
    for c in hand:
        mask[parse_card(c)] = True
    mask[53] = stock > 0
    return obs, mask


@pytest.mark.parametrize("name", FA_HEURISTICS)
def test_four_aces_keeps_the_card_that_makes_trips(name):
    # 7C 7D on the table: 7H in hand makes three of a kind (+2, K2); losing it leaves a
    # pair (-1). Discard something else, or turn up the stock.
    obs, mask = fa_obs(["7H", "2C", "9D"], ["7C", "7D", "KS"])
    action = agents.make(name, "four_aces", seed=0).act(obs, mask)
    assert action != parse_card("7H")


@pytest.mark.parametrize("name", FA_HEURISTICS)
def test_four_aces_keeps_a_run_and_discards_the_spoiler(name):
    # 5H 6H 7H on the table and 8H 9H in hand... with a lone KC: the KC goes
    obs, mask = fa_obs(["8H", "9H", "2C"], ["5H", "6H", "7H"])
    action = agents.make(name, "four_aces", seed=0).act(obs, mask)
    assert action in (parse_card("2C"), 53)
    assert action not in (parse_card("8H"), parse_card("9H"))


# ------------------------------------------------------------------------------------
# strength: heuristics beat random (seats alternate, rotated)
# ------------------------------------------------------------------------------------
def _alternating(engine_factory, names, deals, seed):
    """Mean points per seat of names[0] minus names[1], seats alternating, both
    rotations of the same dealt keys."""
    keys = np.random.default_rng(seed).integers(0, 2**62, size=deals)
    diffs = []
    for rotation in (0, 1):
        engine = engine_factory(deals)
        engine.reset(game_seeds=keys)
        P = engine.num_players
        is_first = np.array([(s + rotation) % 2 == 0 for s in range(P)])
        seats = [agents.make(names[0] if f else names[1], engine_game(engine), seed=s)
                 for s, f in enumerate(is_first)]
        play(engine, seats, check_legal=False)
        pts = engine.last_points.astype(float)
        diffs.append(pts[:, is_first].mean(axis=1) - pts[:, ~is_first].mean(axis=1))
    return np.mean(diffs, axis=0)  # per deal


def engine_game(engine) -> str:
    return "abracadabra" if isinstance(engine, AbracadabraEngine) else "four_aces"


@pytest.mark.parametrize("variant", ("four", "two_dummy"))
def test_abracadabra_heuristic_beats_random(variant):
    diff = _alternating(lambda n: AbracadabraEngine(AbracadabraConfig(variant=variant), n),
                        ("heuristic", "random"), 300, seed=1)
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    assert diff.mean() - half > 0, (diff.mean(), half)


@pytest.mark.parametrize("name", ("greedy", "lookahead"))
def test_four_aces_heuristics_beat_random(name):
    diff = _alternating(lambda n: FourAcesEngine(FourAcesConfig(num_players=4), n),
                        (name, "random"), 60, seed=2)
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    assert diff.mean() - half > 0, (diff.mean(), half)


# ------------------------------------------------------------------------------------
# no peeking: the decision depends on the observation only, not on hidden cards
# ------------------------------------------------------------------------------------
HANDS_A = [
    ["JK", "AS", "KS", "QS", "AH", "KH", "QH", "AD", "KD", "QD", "AC", "KC", "QC"],
    ["2S", "3S", "4S", "5S", "2H", "3H", "4H", "5H", "2D", "3D", "4D", "5D", "2C"],
    ["6S", "7S", "8S", "9S", "6H", "7H", "8H", "9H", "6D", "7D", "8D", "9D", "3C"],
    ["TS", "JS", "TH", "JH", "TD", "JD", "4C", "5C", "6C", "7C", "8C", "9C", "TC"],
]


def test_abracadabra_no_peeking():
    # same own hand for seat 0, the other hands shuffled between seats 1..3
    rest = [c for h in HANDS_A[1:] for c in h]
    perm = np.random.default_rng(0).permutation(len(rest))
    swapped = [rest[i] for i in perm]
    hands_b = [HANDS_A[0], swapped[:13], swapped[13:26], swapped[26:]]
    engines = []
    for hands in (HANDS_A, hands_b):
        e = AbracadabraEngine(AbracadabraConfig(variant="four"), 1)
        e.reset_with_deal(0, dealer=3, hands=hands, leftover="JC")
        # seat 0 bids 5, the others 0: seat 0 declares (C3), stops showing (D1), leads
        for action in (5, 0, 0, 0, STOP):
            e.step(np.array([action]))
        engines.append(e)
    obs = [e.observe() for e in engines]
    masks = [e.legal_action_mask() for e in engines]
    assert engines[0].hand_cards(0, 1) != engines[1].hand_cards(0, 1)  # hidden parts differ
    assert np.array_equal(obs[0], obs[1]) and np.array_equal(masks[0], masks[1])
    for name in ABRA_HEURISTICS:
        a, b = agents.make(name, "abracadabra", seed=3), agents.make(name, "abracadabra", seed=3)
        assert a.act(obs[0][0].copy(), masks[0][0]) == b.act(obs[1][0].copy(), masks[1][0])


def test_four_aces_no_peeking():
    hands = [["AS", "KD", "3C"], ["2H", "5D", "9C"], ["7S", "8S", "JD"], ["QH", "4C", "6H"]]
    tables = [["AH", "AD", "TC"], ["2C", "3D", "4S"], ["5S", "6C", "7D"], ["8H", "9D", "TS"]]
    used = {c for row in hands + tables for c in row}
    from envs.cards import CARD_NAMES

    stock = [c for c in CARD_NAMES if c not in used] + ["JK"]
    # engine B: other players' hands and the stock order differ, seat 0 sees the same
    hands_b = [hands[0], hands[2], hands[3], hands[1]]
    stock_b = stock[::-1]
    obs, masks = [], []
    for h, s in ((hands, stock), (hands_b, stock_b)):
        e = FourAcesEngine(FourAcesConfig(num_players=4), 1)
        e.reset_with_deal(0, dealer=3, hands=h, tables=tables, stock=s)
        assert e.current_player[0] == 0
        obs.append(e.observe())
        masks.append(e.legal_action_mask())
    assert np.array_equal(obs[0], obs[1]) and np.array_equal(masks[0], masks[1])
    for name in FA_HEURISTICS:
        a, b = agents.make(name, "four_aces", seed=3), agents.make(name, "four_aces", seed=3)
        assert a.act(obs[0][0], masks[0][0]) == b.act(obs[1][0], masks[1][0])
