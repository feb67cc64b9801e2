"""Copies and resampled worlds of Abracadabra games (engine.clone / resample / resample_many,
envs/abracadabra/resample.py) and the public void record they rely on (E2, B3).

Random mid-game states of every variant: a world agrees with everything the seat has seen
(its observation and, when it acts, its legal actions), conserves the cards, respects the
void record, varies where something is hidden, is a state the rules reach (replaying the
game's actions on the world's deal gives the world) and plays on to the end of the deal.
No peeking: two states that look the same to the seat give identical worlds. Uniformity:
a chi-square test against the worlds enumerated by brute force on small endgames.
"""

from __future__ import annotations

import itertools
from collections import Counter
from math import exp, lgamma, log

import numpy as np
import pytest

from agents.base import sample_legal
from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.rules import CARD_BIT, PLAY_OFFSET, Phase
from envs.cards import CARD_NAMES, JOKER, SUIT_OF

CONFIGS = [
    dict(variant="four"),
    dict(variant="four", call_mode="auto"),
    dict(variant="four", episode="match", target_points=30),
    dict(variant="three"),
    dict(variant="three", joker=False, call_mode="auto"),
    dict(variant="three", episode="match", target_points=25, call_mode="auto"),
    dict(variant="two_dummy"),
    dict(variant="two_dummy", joker=False, episode="match", target_points=25),
    dict(variant="two"),
    dict(variant="two", joker=False, call_mode="auto"),
]
IDS = ["-".join(str(v) for v in c.values()) for c in CONFIGS]


def popcount(x) -> int:
    return bin(int(x)).count("1")


def cards_of(bits) -> list[int]:
    return [c for c in range(53) if int(bits) >> c & 1]


def mid_game(cfg: AbracadabraConfig, batch: int, seed: int, deals: int = 1):
    """``batch`` games stopped at random points (in the first ``deals`` deals), and each
    game's actions since the reset."""
    engine = AbracadabraEngine(cfg, batch)
    engine.reset(seed=seed)
    rng = np.random.default_rng(seed)
    per_deal = cfg.num_players * 3 + cfg.num_hands * cfg.cards_each + cfg.cards_each
    stop = rng.integers(0, per_deal * deals, batch)
    history: list[list[int]] = [[] for _ in range(batch)]
    for t in range(int(stop.max())):
        active = (t < stop) & ~engine.game_over
        mask = engine.legal_action_mask()
        mask[~active] = True  # (not played: any action)
        actions = sample_legal(rng, mask)
        engine.step(actions, active=active)
        for g in np.flatnonzero(active):
            history[g].append(int(actions[g]))
    return engine, history


def live_games(engine) -> np.ndarray:
    return np.flatnonzero(~engine.game_over)


def hidden_hands(engine, seat: int) -> list[int]:
    return [h for h in range(engine.num_players) if h != seat]


def swappable(engine, g: int, seat: int) -> bool:
    """Whether another consistent world exists: two hidden hands can swap an unseen card
    each without breaking a void (the test may read the hidden hands)."""
    s = engine.state
    hid = hidden_hands(engine, seat)
    unseen = {h: set(cards_of(s.hand_bits[g, h] & ~s.shown_bits[g])) for h in hid}
    for h1, h2 in itertools.combinations(hid, 2):
        for a in unseen[h1]:
            for b in unseen[h2]:
                if not int(s.void_bits[g, h2]) >> a & 1 and not int(s.void_bits[g, h1]) >> b & 1:
                    return True
    return False


def check_cards_conserved(engine, deck_bits: int) -> None:
    """Every card of the deck exactly once across hands, played cards and the leftover."""
    s = engine.state
    for w in range(engine.batch_size):
        sets = [int(x) for x in s.hand_bits[w]] + [int(x) for x in s.played_bits[w]]
        if s.leftover[w] >= 0:
            sets.append(1 << int(s.leftover[w]))
        union = 0
        for x in sets:
            assert union & x == 0, f"world {w}: a card is in two places"
            union |= x
        assert union == deck_bits, f"world {w}: cards missing"


# ======================================================================================
# the void record (E2, B3)
# ======================================================================================
@pytest.mark.parametrize("options", CONFIGS, ids=IDS)
@pytest.mark.parametrize("batch", [1, 6])
def test_void_record_is_the_led_suits_each_hand_did_not_follow(options, batch):
    """void_bits equals the union, per hand, of the effective suits led (the joker a
    trump, B3) that the hand did not follow this deal (E2), recomputed here from the
    plays; no hand ever holds a card of its void record. A batch of one and a batch
    agree; the record starts empty every deal."""
    cfg = AbracadabraConfig(**options)
    engine = AbracadabraEngine(cfg, batch)
    engine.reset(seed=5)
    rng = np.random.default_rng(5)
    H = engine.num_hands
    expected = np.zeros((batch, H), object)
    deal = engine.state.deal_index.copy()
    voids_seen = 0
    for _ in range(400):
        s = engine.state
        mask = engine.legal_action_mask()
        mask[engine.game_over] = True
        actions = sample_legal(rng, mask)
        before = [(int(s.phase[g]), int(s.to_play[g]), int(s.trick[g, s.leader[g]]),
                   int(s.trump[g])) for g in range(batch)]
        engine.step(actions)
        for g, (phase, hand, led, trump) in enumerate(before):
            if engine.state.deal_index[g] != deal[g]:  # a new deal: the record restarts
                deal[g] = engine.state.deal_index[g]
                expected[g] = 0
                continue
            if phase != Phase.PLAY or led < 0:
                continue

            def suit(c, trump=trump):
                return trump if c == JOKER else int(SUIT_OF[c])

            card = int(actions[g]) - PLAY_OFFSET
            if suit(card) != suit(led):
                expected[g, hand] |= sum(1 << c for c in range(53) if suit(c) == suit(led))
        got = engine.state.void_bits.astype(object)
        assert (got == expected).all()
        assert not (engine.state.hand_bits & engine.state.void_bits).any()
        voids_seen += int((engine.state.void_bits != 0).sum())
        if engine.game_over.any():
            engine.reset(games=engine.game_over)
            deal = engine.state.deal_index.copy()
            expected[engine.state.num_bids == 0] = 0
    assert voids_seen > 0


# ======================================================================================
# clone
# ======================================================================================
def test_clone_copies_the_selected_games_and_is_independent():
    cfg = AbracadabraConfig(variant="four", episode="match", target_points=30)
    engine, _ = mid_game(cfg, 5, seed=1, deals=2)
    before = engine.snapshot()
    for games, rows in ((None, [0, 1, 2, 3, 4]),
                        (np.array([True, False, True, False, True]), [0, 2, 4]),
                        (np.array([3, 3, 0, 3]), [3, 3, 0, 3]),
                        ([1], [1])):
        copy = engine.clone(games)
        assert copy.batch_size == len(rows) and copy.config == engine.config
        for name, array in engine.state.arrays().items():
            assert np.array_equal(getattr(copy.state, name), array[rows]), name
            assert not np.shares_memory(getattr(copy.state, name), array), name
        assert np.array_equal(copy.observe(), engine.observe()[rows])
        assert np.array_equal(copy.legal_action_mask(), engine.legal_action_mask()[rows])
    # stepping the copy leaves the original unchanged, and the other way round
    copy = engine.clone()
    rng = np.random.default_rng(0)
    for _ in range(30):
        mask = copy.legal_action_mask()
        mask[copy.game_over] = True
        copy.step(sample_legal(rng, mask))
    for name, array in before.items():
        assert np.array_equal(engine.snapshot()[name], array), name
    assert not np.array_equal(copy.state.played_bits, engine.state.played_bits)
    copy_state = copy.snapshot()
    mask = engine.legal_action_mask()
    mask[engine.game_over] = True
    engine.step(sample_legal(rng, mask))
    for name, array in copy_state.items():
        assert np.array_equal(copy.snapshot()[name], array), name
    # the generator is an independent copy: the same stream from the same point, and
    # draws from the original do not move the copy's (reset draws the new game keys)
    twin = engine.clone()
    engine.reset()
    first = engine.state.key.copy()
    engine.reset()
    assert not np.array_equal(engine.state.key, first)
    twin.reset()
    assert np.array_equal(twin.state.key, first)


# ======================================================================================
# resample: consistency
# ======================================================================================
@pytest.mark.parametrize("options", CONFIGS, ids=IDS)
def test_worlds_agree_with_what_the_seat_has_seen(options):
    """For random mid-game states and every seat: the world's observation from the seat
    equals the original's, its mask too when the seat acts (the dummy's card chosen by
    the seat included); public state is copied, cards are conserved, hidden hands have
    their sizes and respect the void record, the declarer keeps his shown cards; hidden
    cards vary where another world exists; the key is drawn fresh. Then every world plays
    on with random legal actions to the end of its deal, the cards conserved."""
    cfg = AbracadabraConfig(**options)
    deals = 2 if cfg.episode == "match" else 1
    engine, _ = mid_game(cfg, 24, seed=11, deals=deals)
    games = live_games(engine)
    assert len(games) >= 8
    P, H, n = engine.num_players, engine.num_hands, 12
    deck_bits = int(CARD_BIT[cfg.deck].sum())
    seats = np.arange(len(games)) % P
    worlds = engine.resample_many(games, seats, n, seeds=np.arange(len(games)) + 100)
    assert worlds.batch_size == len(games) * n and worlds.config == cfg
    s, w = engine.state, worlds.state
    acting = dummy_by_seat = varied = 0
    for i, (g, seat) in enumerate(zip(games.tolist(), seats.tolist(), strict=True)):
        rows = np.arange(i * n, (i + 1) * n)
        obs = engine.observe(np.full(engine.batch_size, seat))[g]
        assert (worlds.observe(np.full(worlds.batch_size, seat))[rows] == obs).all()
        if s.current_player[g] == seat:
            acting += 1
            dummy_by_seat += bool(engine.has_dummy and s.to_play[g] == P)
            assert (worlds.legal_action_mask()[rows] == engine.legal_action_mask()[g]).all()
        hid = hidden_hands(engine, seat)
        for name, array in s.arrays().items():
            if name in ("hand_bits", "key"):
                continue
            assert (getattr(w, name)[rows] == array[g]).all(), name
        public = [h for h in range(H) if h not in hid]
        assert (w.hand_bits[rows][:, public] == s.hand_bits[g, public]).all()
        assert (w.hand_bits[rows] & w.void_bits[rows] == 0).all()
        for h in hid:
            assert [popcount(x) for x in w.hand_bits[rows, h]] == [popcount(s.hand_bits[g, h])] * n
        if s.declarer[g] >= 0:
            assert (w.hand_bits[rows, s.declarer[g]] & s.shown_bits[g] == s.shown_bits[g]).all()
        distinct = len({tuple(row) for row in w.hand_bits[rows].tolist()})
        if swappable(engine, g, seat):
            varied += 1
            assert distinct > 1, f"game {g}, seat {seat}: hidden cards never vary"
        else:
            assert distinct == 1
        assert len(set(w.key[rows].tolist())) == n and s.key[g] not in w.key[rows]
    check_cards_conserved(worlds, deck_bits)
    assert acting > 0
    if engine.has_dummy:
        assert dummy_by_seat > 0 or cfg.episode == "match"
    if cfg.variant in ("four", "three"):
        assert varied > len(games) // 2
    # play every world on to the end of its deal
    rng = np.random.default_rng(3)
    deals_done = w.deals_done.copy()
    for _ in range(200):
        going = ~worlds.game_over & (worlds.state.deals_done == deals_done)
        if not going.any():
            break
        mask = worlds.legal_action_mask()
        mask[~going] = True
        worlds.step(sample_legal(rng, mask), active=going)
        still = ~worlds.game_over & (worlds.state.deals_done == deals_done)
        assert (worlds.state.tricks_won[still].sum(axis=1) == worlds.state.tricks_done[still]).all()
        check_cards_conserved(worlds, deck_bits)
    assert not going.any()


@pytest.mark.parametrize("options", [c for c in CONFIGS if c.get("episode") != "match"],
                         ids=[i for c, i in zip(CONFIGS, IDS, strict=True)
                              if c.get("episode") != "match"])
def test_every_world_is_reached_by_the_rules_and_plays_on_identically(options):
    """Replaying the game's actions on a world's deal (its hands with their played cards
    back, the same leftover and dealer) is legal at every step and gives the world, field
    for field (the key aside); both then play on with the same random actions to the end
    of the deal and stay identical: tricks, rank cards, stakes, pot, points."""
    cfg = AbracadabraConfig(**options)
    engine, history = mid_game(cfg, 16, seed=21)
    rng = np.random.default_rng(8)
    checked = 0
    for g in live_games(engine)[:6].tolist():
        seat = int(rng.integers(engine.num_players))
        worlds = engine.resample(g, seat, 3, seed=g)
        for k in range(3):
            w = worlds.state
            hands = [[CARD_NAMES[c] for c in cards_of(w.hand_bits[k, h] | w.played_bits[k, h])]
                     for h in range(engine.num_hands)]
            leftover = CARD_NAMES[w.leftover[k]] if w.leftover[k] >= 0 else None
            replay = AbracadabraEngine(cfg, 1)
            replay.reset_with_deal(0, dealer=int(w.dealer[k]), hands=hands, leftover=leftover)
            for a in history[g]:
                replay.step(np.array([a]))  # raises if the world breaks a rule
            world = worlds.clone([k])
            for _ in range(120):
                for name, array in world.state.arrays().items():
                    if name != "key":
                        assert np.array_equal(replay.state.arrays()[name], array), name
                if world.game_over[0]:
                    break
                action = sample_legal(rng, world.legal_action_mask())
                assert np.array_equal(world.step(action), replay.step(action))
            assert world.game_over[0]
            checked += 1
    assert checked >= 9


# ======================================================================================
# resample: no peeking
# ======================================================================================
@pytest.mark.parametrize("options", CONFIGS, ids=IDS)
def test_no_peeking_states_that_look_the_same_give_the_same_worlds(options):
    """Resample once to get another world W (same view, other hidden cards); resampling W
    and the original with the same seat and seed gives identical engines, every state
    array and the generator. Worlds of a game do not depend on the other games of the
    call, and the first worlds do not depend on n."""
    cfg = AbracadabraConfig(**options)
    engine, _ = mid_game(cfg, 16, seed=31, deals=2 if cfg.episode == "match" else 1)
    games = live_games(engine)[:6]
    differ = 0
    for i, g in enumerate(games.tolist()):
        seat = i % engine.num_players
        other = engine.resample(g, seat, 1, seed=1000 + g)
        differ += not np.array_equal(other.state.hand_bits[0], engine.state.hand_bits[g])
        a = other.resample(0, seat, 8, seed=7)
        b = engine.resample(g, seat, 8, seed=7)
        for name, array in a.state.arrays().items():
            assert np.array_equal(getattr(b.state, name), array), name
        a.reset()
        b.reset()
        assert np.array_equal(a.state.key, b.state.key)  # the generators agree
        c = engine.resample(g, seat, 8, seed=8)
        assert not np.array_equal(c.state.key, b.state.key)
    if cfg.variant in ("four", "three"):
        assert differ > 0  # the test compared states that really differ
    seats = np.arange(len(games)) % engine.num_players
    many = engine.resample_many(games, seats, 5, seeds=games * 3 + 1)
    for i, g in enumerate(games.tolist()):
        one = engine.resample(g, int(seats[i]), 7, seed=int(g * 3 + 1))
        for name, array in one.state.arrays().items():
            assert np.array_equal(getattr(many.state, name)[i * 5 : (i + 1) * 5], array[:5])


# ======================================================================================
# resample: uniformity on enumerable endgames
# ======================================================================================
def chi2_sf(x: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom > x): the regularised upper incomplete
    gamma function Q(df / 2, x / 2) (series below a + 1, continued fraction above)."""
    a, x = df / 2.0, x / 2.0
    if x <= 0:
        return 1.0
    front = exp(-x + a * log(x) - lgamma(a))
    if x < a + 1:
        term = total = 1.0 / a
        for k in range(1, 1000):
            term *= x / (a + k)
            total += term
            if term < total * 1e-16:
                break
        return 1.0 - total * front
    tiny = 1e-300
    b, c, d = x + 1 - a, 1 / tiny, 1 / (x + 1 - a)
    h = d
    for i in range(1, 1000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return front * h


def test_chi2_sf_matches_known_values():
    # chi-square quantiles: P(X > 3.841) = 0.05 (df 1), P(X > 18.307) = 0.05 (df 10),
    # P(X > 29.588) = 0.001 (df 10), P(X > 9.342) = 0.5 (df 10)
    for x, df, p in ((3.841, 1, 0.05), (18.307, 10, 0.05), (29.588, 10, 0.001),
                     (9.342, 10, 0.5)):
        assert chi2_sf(x, df) == pytest.approx(p, rel=2e-3)


def consistent_worlds(engine, g: int, seat: int) -> list[tuple[int, ...]]:
    """Every deal of the cards unseen by ``seat`` to the hidden hands with their sizes and
    void records (brute force), as tuples of hidden-hand bit sets (shown cards included)."""
    s = engine.state
    hid = hidden_hands(engine, seat)
    shown = int(s.shown_bits[g])
    unseen = sorted(c for h in hid for c in cards_of(s.hand_bits[g, h] & ~s.shown_bits[g]))
    sizes = [popcount(s.hand_bits[g, h] & ~s.shown_bits[g]) for h in hid]
    worlds = []
    for first in itertools.combinations(unseen, sizes[0]):
        rest = [c for c in unseen if c not in first]
        for second in itertools.combinations(rest, sizes[1]) if len(hid) > 2 else [()]:
            third = tuple(c for c in rest if c not in second)
            parts = (first, second, third) if len(hid) > 2 else (first, tuple(rest))
            bits = []
            for h, part in zip(hid, parts, strict=True):
                b = sum(1 << c for c in part)
                if b & int(s.void_bits[g, h]):
                    break
                bits.append(b | (shown if h == s.declarer[g] else 0))
            else:
                worlds.append(tuple(bits))
    return worlds


def endgame(variant: str, tricks_left: int, want: str):
    """A mid-trick endgame of ``variant`` (seeded search) with ``tricks_left`` tricks to
    go where the void record of the seat to act's hidden hands is ``want``: "pair" (some
    unseen card is allowed to exactly two of three hidden hands), "forced" (some unseen
    card to exactly one) or "none" (no void constrains)."""
    cfg = AbracadabraConfig(variant=variant, call_mode="auto")
    E = cfg.cards_each
    for seed in range(200):
        engine = AbracadabraEngine(cfg, 64)
        engine.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(400):
            s = engine.state
            for g in np.flatnonzero((s.phase == Phase.PLAY) & (s.tricks_done == E - tricks_left)
                                    & (s.trick_size == 1)):
                seat = int(s.current_player[g])
                hid = hidden_hands(engine, seat)
                unseen = 0
                for h in hid:
                    unseen |= int(s.hand_bits[g, h]) & ~int(s.shown_bits[g])
                allowed = [[c for c in cards_of(unseen) if not int(s.void_bits[g, h]) >> c & 1]
                           for h in hid]
                where = Counter(c for row in allowed for c in row)
                kinds = set(where.get(c, 0) for c in cards_of(unseen))
                if (want == "pair" and 2 in kinds and len(hid) == 3) or (
                        want == "forced" and 1 in kinds and len(hid) > 1) or (
                        want == "none" and kinds == {len(hid)}):
                    return engine, int(g), seat
            mask = engine.legal_action_mask()
            mask[engine.game_over] = True
            engine.step(sample_legal(rng, mask))
    raise AssertionError(f"no {want} endgame found")


@pytest.mark.parametrize("variant, tricks_left, want", [
    ("four", 3, "pair"), ("four", 2, "pair"), ("four", 3, "forced"), ("four", 2, "none"),
    ("three", 4, "forced"), ("three", 3, "none")])
def test_worlds_are_uniform_over_the_consistent_worlds(variant, tricks_left, want):
    """Chi-square test of the worlds drawn against the uniform distribution over the
    consistent worlds enumerated by brute force (every one drawn, p > 0.001), on endgames
    with and without binding voids."""
    engine, g, seat = endgame(variant, tricks_left, want)
    worlds = consistent_worlds(engine, g, seat)
    assert 3 <= len(worlds) <= 3000
    n = 60 * len(worlds)
    drawn = engine.resample(g, seat, n, seed=12345)
    hid = hidden_hands(engine, seat)
    counts = Counter(tuple(int(x) for x in row) for row in drawn.state.hand_bits[:, hid])
    assert set(counts) == set(worlds)
    expected = n / len(worlds)
    chi2 = sum((counts[wd] - expected) ** 2 / expected for wd in worlds)
    assert chi2_sf(chi2, len(worlds) - 1) > 1e-3


# ======================================================================================
# bad arguments
# ======================================================================================
def test_bad_arguments_raise_value_error_naming_the_argument_and_change_nothing():
    cfg = AbracadabraConfig(variant="two_dummy")
    engine = AbracadabraEngine(cfg, 3)
    engine.reset(seed=4)
    rng = np.random.default_rng(4)
    only_2 = np.array([False, False, True])
    while not engine.game_over[2]:  # play game 2 to its end
        mask = engine.legal_action_mask()
        mask[~only_2] = True
        engine.step(sample_legal(rng, mask), active=only_2)
    before = engine.snapshot()
    bad = [
        (dict(n=0), "n"), (dict(n=-1), "n"), (dict(n=1.5), "n"), (dict(n=True), "n"),
        (dict(game=-1), "game"), (dict(game=3), "game"), (dict(game=1.0), "game"),
        (dict(seat=-1), "seat"), (dict(seat=2), "seat"), (dict(seat=0.5), "seat"),
        (dict(seed=-1), "seed"), (dict(seed=1.5), "seed"), (dict(seed=2**64), "seed"),
        (dict(game=2), "over"),
    ]
    for change, word in bad:
        args = dict(game=0, seat=1, n=4, seed=0) | change
        with pytest.raises(ValueError, match=word):
            engine.resample(**args)
    for args, word in [
        (([0, 2], [0, 0], 2, [1, 2]), "over"),
        (([0, 1], [0], 2, [1, 2]), "games, seats and seeds"),
        (([0], [0], 2, [1.0]), "seeds"),
        (([0], [0], 2, [-3]), "seeds"),
        (([True], [0], 2, [1]), "games"),
        (([0], [2], 2, [1]), "seats"),
        (([0], [0], 0, [1]), "n"),
        (([], [], 2, []), "games"),
    ]:
        with pytest.raises(ValueError, match=word):
            engine.resample_many(*args)
    for games in (np.array([True, False]), np.zeros(3, bool), [0.5], [3], [-1], [[0, 1]]):
        with pytest.raises(ValueError, match="games"):
            engine.clone(games)
    for name, array in before.items():
        assert np.array_equal(engine.snapshot()[name], array), name
