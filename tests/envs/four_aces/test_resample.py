"""Four Aces copies and resampled worlds (envs.four_aces.resample, the engine's ``clone``,
``resample`` and ``resample_many``): clone independence; worlds consistent with the
seat's view over random mid-game states (observations and masks equal, cards conserved,
G7 joker counts, H4); hidden cards vary; no peeking; exact uniformity on enumerable late
rounds (chi-square); worlds play on to the round's end; bad arguments."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from envs.cards import JOKER, NUM_CARDS, parse_card
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.resample import DRAWN_FIELDS, PUBLIC_FIELDS
from envs.four_aces.rules import ACES, DECK_SIZE, DRAW, FULL_DECK
from envs.four_aces.scoring import score_presence

FULL_COUNTS = np.bincount(FULL_DECK, minlength=NUM_CARDS)
WORLDS = 6  #: worlds per (game, seat) in the random mid-game checks


def random_actions(e: FourAcesEngine, rng: np.random.Generator) -> np.ndarray:
    mask = e.legal_action_mask()
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


def midgame(num_players: int, scoring: str, episode: str, seed: int, batch: int = 24
            ) -> FourAcesEngine:
    """``batch`` games played with random legal actions for a random number of turns each
    (round: up to 25, inside the first round; match: up to 70, into later rounds)."""
    cfg = FourAcesConfig(num_players=num_players, scoring=scoring, episode=episode,
                         max_rounds=4)
    e = FourAcesEngine(cfg, batch)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    turns = rng.integers(0, 25 if episode == "round" else 70, size=batch)
    for t in range(int(turns.max())):
        e.step(random_actions(e, rng), active=turns > t)
    return e


def arrays_equal(a: FourAcesEngine, b: FourAcesEngine) -> bool:
    x, y = a.state.arrays(), b.state.arrays()
    return x.keys() == y.keys() and all(
        x[k].dtype == y[k].dtype and np.array_equal(x[k], y[k]) for k in x)


def check_cards(e: FourAcesEngine) -> None:
    """G1: every world holds the 54 cards exactly once across hands, tables, discard pile
    and stock; its deal order is a permutation of them; hand sizes are the hands."""
    st = e.state
    stock = np.zeros((e.batch_size, NUM_CARDS), np.int64)
    for b in range(e.batch_size):
        stock[b] = np.bincount(st.deal_order[b, st.stock_top[b]:], minlength=NUM_CARDS)
    counts = st.hand.sum(axis=1) + st.table.sum(axis=1) + st.discard_counts + stock
    assert (counts == FULL_COUNTS).all()
    assert (np.sort(st.deal_order, axis=1) == np.sort(FULL_DECK)).all()
    assert np.array_equal(st.hand.sum(axis=2), st.hand_size)


def check_jokers_and_aces(e: FourAcesEngine) -> None:
    """G7: L - 3 jokers entered each hand: every one is in that hand or on the pile; H4:
    no live world has four aces in a hand."""
    st = e.state
    entered = (st.hand_limit.astype(int) - 3).sum(axis=1)
    assert (st.hand[:, :, JOKER] <= st.hand_limit - 3).all()
    assert np.array_equal(entered, st.hand[:, :, JOKER].sum(axis=1) + st.discard_counts[:, JOKER])
    live = ~st.game_over
    assert not (st.hand[live][:, :, ACES] > 0).all(axis=2).any()


# -- clone ------------------------------------------------------------------------------------
def test_clone_copies_and_is_independent():
    e = midgame(4, "strict", "match", seed=1, batch=8)
    c = e.clone()
    assert arrays_equal(c, e) and c.config == e.config
    assert not any(np.shares_memory(x, y) for x, y in
                   zip(c.state.arrays().values(), e.state.arrays().values(), strict=True))
    before = {k: v.copy() for k, v in e.state.arrays().items()}
    rng = np.random.default_rng(0)
    c.step(random_actions(c, rng))  # stepping the clone leaves the original as it was
    assert all(np.array_equal(before[k], v) for k, v in e.state.arrays().items())
    clone_before = {k: v.copy() for k, v in c.state.arrays().items()}
    e.step(random_actions(e, rng))  # and the other way round
    assert all(np.array_equal(clone_before[k], v) for k, v in c.state.arrays().items())


def test_clone_selects_rows_in_order_with_repeats():
    e = midgame(3, "free", "round", seed=2, batch=5)
    for games, rows in (([3, 1, 1, 4], [3, 1, 1, 4]),
                        (np.array([True, False, True, False, False]), [0, 2]),
                        (np.repeat([2, 0], 3), [2, 2, 2, 0, 0, 0])):
        c = e.clone(games)
        assert c.batch_size == len(rows)
        for k, v in c.state.arrays().items():
            assert np.array_equal(v, getattr(e.state, k)[rows]), k
    # a clone is a working engine: stepping it equals stepping the same games here
    c = e.clone([4, 4])
    one = e.clone([4])
    actions = random_actions(one, np.random.default_rng(5))
    c.step(np.repeat(actions, 2))
    one.step(actions)  # (a batch of one)
    for k, v in c.state.arrays().items():
        assert np.array_equal(v[0], v[1]) and np.array_equal(v[0], getattr(one.state, k)[0]), k


def test_clone_has_the_attributes_of_a_new_engine_of_its_size():
    """A clone is built without a reset: every attribute but the state and the generator
    equals that of an engine constructed with the clone's batch size."""
    e = midgame(5, "strict", "round", seed=3, batch=6)
    c = e.clone([1, 2, 3])
    fresh = FourAcesEngine(e.config, 3)
    assert vars(c).keys() == vars(fresh).keys()
    for name, value in vars(fresh).items():
        if name in ("state", "_rng"):
            continue
        mine = vars(c)[name]
        if isinstance(value, np.ndarray):
            assert np.array_equal(mine, value), name
        else:
            assert mine == value, name


def test_clone_generator_is_an_independent_copy():
    e = FourAcesEngine(FourAcesConfig(num_players=4), 3)
    e.reset(seed=9)
    c = e.clone()
    c.reset()  # draws new keys from the clone's generator only
    e.reset()
    assert np.array_equal(c.state.keys, e.state.keys)  # the same generator state
    c.reset()
    d = e.clone()
    d.reset()
    assert np.array_equal(c.state.keys, d.state.keys)
    assert not np.array_equal(c.state.keys, e.state.keys)


# -- consistency over random mid-game states ---------------------------------------------------
CONFIGS = [(p, s, ep) for p in (3, 4, 5) for s, ep in (("strict", "round"), ("free", "match"),
                                                      ("strict", "match"), ("free", "round"))]


@pytest.mark.parametrize("num_players,scoring,episode", CONFIGS)
def test_worlds_look_like_the_game_to_the_seat(num_players, scoring, episode):
    e = midgame(num_players, scoring, episode, seed=num_players * 7 + len(scoring + episode))
    live = np.flatnonzero(~e.game_over)
    assert len(live) >= 10
    rng = np.random.default_rng(1)
    seats = np.where(rng.random(len(live)) < 0.5, e.current_player[live],
                     rng.integers(0, num_players, len(live))).astype(int)
    w = e.resample_many(live, seats, WORLDS, rng.integers(0, 2**63, len(live)))
    assert w.batch_size == len(live) * WORLDS and w.config == e.config
    rows = np.repeat(live, WORLDS)
    world_seats = np.repeat(seats, WORLDS)
    full_seats = np.zeros(e.batch_size, int)
    full_seats[live] = seats
    # the seat's observation, in every world, and its legal actions where it is to act
    assert np.array_equal(w.observe(seats=world_seats), e.observe(seats=full_seats)[rows])
    to_act = world_seats == w.current_player
    assert to_act.sum() >= WORLDS * 5
    assert np.array_equal(w.legal_action_mask()[to_act], e.legal_action_mask()[rows][to_act])
    for name in PUBLIC_FIELDS:  # all the seat knows is kept as it is
        assert np.array_equal(getattr(w.state, name), getattr(e.state, name)[rows]), name
    assert np.array_equal(w.state.hand[np.arange(len(rows)), world_seats],
                          e.state.hand[rows, world_seats])
    check_cards(w)
    check_jokers_and_aces(w)
    # the hidden cards vary across the worlds of a game; the game keys are fresh
    hidden = w.state.hand.copy()
    hidden[np.arange(len(rows)), world_seats] = 0
    for i in range(len(live)):
        block = slice(i * WORLDS, (i + 1) * WORLDS)
        assert len({h.tobytes() for h in hidden[block]}) > 1, i
    assert len(set(w.state.keys.tolist())) == len(rows)
    assert not np.isin(w.state.keys, e.state.keys).any()


@pytest.mark.parametrize("num_players,scoring,episode", [
    (3, "strict", "round"), (4, "free", "round"), (5, "strict", "round"),
    (3, "free", "match"), (4, "strict", "match"), (5, "free", "match")])
def test_worlds_play_on_to_the_round_end(num_players, scoring, episode):
    """Random legal play in the worlds, to the end of the round: cards conserved at every
    turn; the round's points are the K2/K3 scores of the final hands and tables (or four
    aces, K1) and add to the totals (K4); a match deals the next round."""
    e = midgame(num_players, scoring, episode, seed=40 + num_players, batch=12)
    live = np.flatnonzero(~e.game_over)
    w = e.resample_many(live, e.current_player[live], 4, np.arange(len(live)) + 5)
    totals, rounds = w.state.totals.copy(), w.state.rounds_played.copy()
    rng = np.random.default_rng(num_players)
    playing = np.ones(w.batch_size, bool)
    target = w.config.target_points
    for _ in range(200):
        w.step(random_actions(w, rng), active=playing)
        check_cards(w)
        ended = np.flatnonzero(w.deal_over & playing)
        assert np.array_equal(w.state.rounds_played[ended], rounds[ended] + 1)
        assert np.array_equal(w.totals[ended], totals[ended] + w.last_points[ended])
        for b in ended:
            four = int(w.state.four_aces_winner[b])
            if four >= 0:  # K1/H4: the winner gets target_points, the others 0
                assert w.last_points[b].tolist() == [target * (s == four)
                                                     for s in range(num_players)]
            elif episode == "round":  # the final hands and tables stay: score them
                present = (w.state.hand[b] + w.state.table[b])[:, :JOKER]
                assert np.array_equal(w.last_points[b], score_presence(present, scoring))
            elif not w.state.game_over[b]:  # a match deals the next round from the key
                assert w.state.discard_size[b] == 0
        playing[ended] = False
        if not playing.any():
            return
        assert (w.state.hand_size[playing] == w.state.hand_limit[playing]).all()
    raise AssertionError("the rounds did not end")


def test_a_world_stock_is_what_a_rollout_draws():
    """The stock of a world is real state: ``deal_order[stock_top:]``, top first (H2 b)."""
    e = midgame(4, "strict", "round", seed=5, batch=8)
    g = int(np.flatnonzero(~e.game_over)[0])
    w = e.resample(g, int(e.current_player[g]), 32, seed=1)
    top = w.state.deal_order[np.arange(32), w.state.stock_top].copy()
    size = w.state.discard_size.copy()
    w.step(np.full(32, DRAW))
    turned = top != JOKER
    assert np.array_equal(w.state.discard[np.arange(32), size][turned], top[turned])
    assert len(set(top.tolist())) > 1  # the stock's order is drawn anew in each world


# -- no peeking ----------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players,episode", [(3, "round"), (4, "match"), (5, "round")])
def test_no_peeking(num_players, episode):
    """A world W of a game looks like the game to the seat; resampling W and the game from
    that seat with the same seed gives identical engines, every state array."""
    e = midgame(num_players, "strict", episode, seed=60 + num_players)
    live = np.flatnonzero(~e.game_over)
    seats = (e.current_player[live].astype(int) + np.arange(len(live))) % num_players
    other = e.resample_many(live, seats, 1, np.arange(len(live)) + 1000)  # one W per game
    differs = other.state.hand != e.state.hand[live]
    assert differs.any(axis=(1, 2)).mean() > 0.9  # W is another world: the test has teeth
    seeds = np.arange(len(live)) * 7 + 3
    a = e.resample_many(live, seats, 5, seeds)
    b = other.resample_many(np.arange(len(live)), seats, 5, seeds)
    assert arrays_equal(a, b)
    a.reset()  # the worlds' generators come from the seeds too
    b.reset()
    assert np.array_equal(a.state.keys, b.state.keys)
    g = int(live[0])  # and the single-game form
    w = e.resample(g, int(seats[0]), 1, seed=77)
    assert arrays_equal(e.resample(g, int(seats[0]), 3, 8), w.resample(0, int(seats[0]), 3, 8))


def test_world_k_does_not_depend_on_n_and_seeds_matter():
    e = midgame(4, "free", "round", seed=8, batch=4)
    g = int(np.flatnonzero(~e.game_over)[0])
    seat = int(e.current_player[g])
    small, large = e.resample(g, seat, 3, 5), e.resample(g, seat, 9, 5)
    for k, v in small.state.arrays().items():
        assert np.array_equal(v, getattr(large.state, k)[:3]), k
    assert not np.array_equal(e.resample(g, seat, 3, 6).state.hand, small.state.hand)


def test_every_state_field_is_either_kept_or_drawn():
    """A new state field must be placed: known to the seat (kept) or hidden (drawn)."""
    fields = set(FourAcesEngine(FourAcesConfig(), 1).state.arrays())
    assert set(PUBLIC_FIELDS) | set(DRAWN_FIELDS) == fields
    assert not set(PUBLIC_FIELDS) & set(DRAWN_FIELDS)


# -- uniformity on enumerable late rounds ----------------------------------------------------
TABLES_PLAIN = [["5C", "6D", "7H"], ["5D", "6H", "7S"], ["5H", "6S", "7C"]]
#: (own hand, the other two hands, stock top first, tables, own hand limit L):
#: a few unseen cards in a 3-player round; every other card is on the discard pile
POSITIONS = {
    # no hidden joker (both on tables), two stock cards: C(8,3) C(5,3) 2! = 1120 worlds
    "plain": (["2C", "3C", "4C"], [["AC", "AD", "KS"], ["AH", "QS", "JS"]], ["TS", "9S"],
              [["5C", "6D", "7H"], ["5D", "6H", "JK"], ["5H", "6S", "JK"]], 3),
    # L = 4 for both others, one joker discarded by one of them (who is not known), the
    # other in a hand; all four aces unseen (H4 removes 8 of 560 worlds)
    "joker_unknown_discarder": (
        ["2C", "3C", "4C"], [["JK", "AC", "AD", "KS"], ["AH", "AS", "QS", "JS"]], ["TS"],
        TABLES_PLAIN, 3),
    # the seat itself discarded its joker (L = 4, no joker in hand): the other one is in
    # the hand of the seat with L = 4; 140 worlds
    "own_joker_discarded": (
        ["2C", "3C", "4C", "8C"], [["JK", "AC", "AD", "KS"], ["AH", "QS", "JS"]], ["TS"],
        TABLES_PLAIN, 4),
    # both jokers in the stock (L = 3 everywhere): C(7,3) C(4,3) 3 = 420 worlds
    "stock_jokers": (["2C", "3C", "4C"], [["AC", "AD", "KS"], ["AH", "QS", "JS"]],
                     ["JK", "TS", "JK"], TABLES_PLAIN, 3),
}


def position(own, others, stock, tables, own_limit):
    """A 3-player batch-of-one engine in a hand-built late-round position: seat 0 holds
    ``own`` and is to act, seats 1 and 2 hold ``others``, every other card is on the
    discard pile (jokers among them discarded from the hands whose L says so)."""
    e = FourAcesEngine(FourAcesConfig(num_players=3), 1)
    st = e.state
    hands = [own] + others
    used = [parse_card(c) for c in sum(hands, []) + sum(tables, []) + stock]
    pile = list(FULL_DECK)
    for c in used:
        pile.remove(c)
    st.hand[0] = 0
    st.table[0] = 0
    for seat in range(3):
        for c in hands[seat]:
            st.hand[0, seat, parse_card(c)] += 1
        for c in tables[seat]:
            st.table[0, seat, parse_card(c)] += 1
    st.hand_size[0] = [len(h) for h in hands]
    st.hand_limit[0] = st.hand_size[0]
    st.hand_limit[0, 0] = own_limit
    st.discard[0] = -1
    st.discard[0, : len(pile)] = pile
    st.discard_size[0] = len(pile)
    st.discard_counts[0] = np.bincount(pile, minlength=NUM_CARDS)
    st.stock_top[0] = DECK_SIZE - len(stock)
    st.deal_order[0] = _deal_order(hands, tables, pile, stock)
    st.current_player[0], st.dealer[0], st.game_over[0] = 0, 2, False
    check_cards(e)
    check_jokers_and_aces(e)
    return e


def _deal_order(hands, tables, pile, stock):
    """A deal order of the position: hands and pile around the tables (places 9..17),
    then the stock."""
    rest = [parse_card(c) for h in hands for c in h] + list(pile)
    order = rest[:9] + [parse_card(c) for t in tables for c in t] + rest[9:]
    return order + [parse_card(c) for c in stock]


def consistent_worlds(e: FourAcesEngine, seat: int) -> set:
    """Every world of game 0 consistent with ``seat``'s view, by enumeration: the unseen
    cards into the other hands (their sizes) and the stock (every order), kept when each
    other hand holds at most L - 3 jokers, the others' discarded jokers (L - 3 - held)
    are the jokers on the pile less the seat's own (G7), and no hand has four aces (H4)."""
    st = e.state
    P = e.num_players
    unseen = (FULL_COUNTS - st.hand[0, seat] - st.table[0].sum(axis=0)
              - st.discard_counts[0])
    cards = [c for c in range(NUM_CARDS) for _ in range(int(unseen[c]))]
    others = [o for o in range(P) if o != seat]
    entered = st.hand_limit[0].astype(int) - 3
    by_others = int(st.discard_counts[0, JOKER]) - (entered[seat] - int(st.hand[0, seat, JOKER]))
    worlds = set()

    def deal(rest, i, hands):
        if i == len(others):
            for stock in set(itertools.permutations(rest)):
                worlds.add((tuple(hands), stock))
            return
        for idx in itertools.combinations(range(len(rest)), int(st.hand_size[0, others[i]])):
            hand = tuple(sorted(rest[j] for j in idx))
            deal([c for j, c in enumerate(rest) if j not in idx], i + 1, hands + [hand])

    deal(cards, 0, [])

    def ok(world):
        hands, _ = world
        held = [h.count(JOKER) for h in hands]
        if any(held[i] > entered[o] for i, o in enumerate(others)):
            return False
        if sum(entered[o] - held[i] for i, o in enumerate(others)) != by_others:
            return False
        return not any(set(ACES.tolist()) <= set(h) for h in hands)

    return {w for w in worlds if ok(w)}


def world_of(e: FourAcesEngine, b: int, seat: int) -> tuple:
    st = e.state
    hands = tuple(tuple(c for c in range(NUM_CARDS) for _ in range(int(st.hand[b, o, c])))
                  for o in range(e.num_players) if o != seat)
    return hands, tuple(st.deal_order[b, st.stock_top[b]:].tolist())


def chi_square_p(statistic: float, dof: int) -> float:
    """Upper tail of the chi-square distribution (Wilson–Hilferty; dof in the hundreds)."""
    z = ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return 0.5 * math.erfc(z / math.sqrt(2))


EXPECTED_WORLDS = {"plain": 1120, "joker_unknown_discarder": 552, "own_joker_discarded": 140,
                   "stock_jokers": 420}


@pytest.mark.parametrize("name", list(POSITIONS))
def test_worlds_are_uniform_over_the_consistent_worlds(name):
    """Chi-square of the drawn worlds against the uniform distribution over all consistent
    worlds (enumerated independently), 25 draws per world on average."""
    e = position(*POSITIONS[name])
    worlds = consistent_worlds(e, 0)
    assert len(worlds) == EXPECTED_WORLDS[name]
    assert world_of(e, 0, 0) in worlds  # the true world is one of them
    n = 25 * len(worlds)
    w = e.resample(0, 0, n, seed=2024)
    drawn = Counter(world_of(w, b, 0) for b in range(n))
    assert set(drawn) <= worlds  # only consistent worlds are drawn
    expected = n / len(worlds)
    statistic = sum((drawn.get(x, 0) - expected) ** 2 / expected for x in worlds)
    p = chi_square_p(statistic, len(worlds) - 1)
    assert p > 1e-3, (name, statistic, p)
    assert len(drawn) == len(worlds)  # every consistent world turns up


def test_chi_square_detects_a_biased_sampler():
    """The uniformity test has teeth: worlds with the joker in seat 1's hand drawn a
    quarter more often than the others are rejected."""
    e = position(*POSITIONS["joker_unknown_discarder"])
    worlds = sorted(consistent_worlds(e, 0))
    rng = np.random.default_rng(0)
    weight = np.array([1.25 if JOKER in w[0][0] else 1.0 for w in worlds])
    n = 25 * len(worlds)
    counts = np.bincount(rng.choice(len(worlds), n, p=weight / weight.sum()),
                         minlength=len(worlds))
    expected = n / len(worlds)
    statistic = float(((counts - expected) ** 2 / expected).sum())
    assert chi_square_p(statistic, len(worlds) - 1) < 1e-3


# -- bad arguments --------------------------------------------------------------------------------
@pytest.mark.parametrize("call,message", [
    (lambda e: e.resample(0, 0, 0, 1), "n=0"),
    (lambda e: e.resample(0, 0, 2.0, 1), "n=2.0"),
    (lambda e: e.resample(0, 0, True, 1), "n=True"),
    (lambda e: e.resample(4, 0, 2, 1), "game=4"),
    (lambda e: e.resample(-1, 0, 2, 1), "game=-1"),
    (lambda e: e.resample(0, 4, 2, 1), "seat=4"),
    (lambda e: e.resample(0, 1.0, 2, 1), "seat=1.0"),
    (lambda e: e.resample(0, 0, 2, -1), "seed=-1"),
    (lambda e: e.resample(0, 0, 2, 0.5), "seed=0.5"),
    (lambda e: e.resample(3, 0, 2, 1), r"games\[0\]=3 is over"),
    (lambda e: e.resample_many([0, 1], [0], 2, [1, 2]), "one entry per game"),
    (lambda e: e.resample_many([0.0], [0], 2, [1]), "games must be integers"),
    (lambda e: e.resample_many([0], [7], 2, [1]), "seats must lie in 0..3"),
    (lambda e: e.resample_many([0], [0], 2, [2**64]), "seeds must"),
    (lambda e: e.resample_many([], [], 2, []), "games must be a non-empty"),
    (lambda e: e.resample_many([0, 3], [0, 0], 1, [1, 2]), r"games\[1\]=3 is over"),
    (lambda e: e.clone([0, 4]), "games must lie in 0..3"),
    (lambda e: e.clone([0.5]), "games must be integers"),
    (lambda e: e.clone(np.zeros(4, bool)), "selects no game"),
    (lambda e: e.clone(np.ones(3, bool)), r"shape \(4,\)"),
])
def test_bad_arguments_raise_and_change_nothing(call, message):
    e = midgame(4, "strict", "round", seed=9, batch=4)
    e.state.game_over[3] = True  # a finished game
    e.state.current_player[3] = -1
    before = {k: v.copy() for k, v in e.state.arrays().items()}
    with pytest.raises(ValueError, match=message):
        call(e)
    assert all(np.array_equal(before[k], v) for k, v in e.state.arrays().items())
