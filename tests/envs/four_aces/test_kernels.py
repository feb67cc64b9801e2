"""The compiled turn of Four Aces (envs.four_aces.kernels): one code path for a batch of
one and of thousands.

* the mask, the turn (H1–H4, G6, G7) and the observation (float32 and int8) against a
  plain per-game Python reference written here from docs/rules.md, step by step;
* trajectories against hashes recorded from the numpy engine the kernels replaced (its
  batch path and its single-game fast paths gave the same games): every observation,
  mask, reward and state field after every step, so any change of a bit shows;
* an illegal action in a batch changes nothing and names the first bad game;
* the round's deal (G2–G4, H1: ``kernels.start_rounds``) against a copy of the numpy code
  it replaced, kept here: the same dealer, deal, hands, tables, stock and pre-fill for
  every key, round and batch size, in both dealer modes, for caller-given deals too; its
  pieces (hash, stable sort, the ace's place) against numpy on ties and extreme keys;
* the round's end (K1–K4: ``kernels.end_rounds``) against a copy of the numpy code it
  replaced, kept here: every state field and the rewards' bits (added to random float32
  rewards), in every reward mode, episode and scoring, with four aces by H4 and by K1.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from envs.cards import JOKER, NUM_CARDS
from envs.core import (
    hashed_uniform,
    hashed_uniform_row,
    sample_uniform_legal,
    stable_argsort_rows,
    stable_order,
)
from envs.four_aces import kernels
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.observation import LAYOUT
from envs.four_aces.rules import (
    ACES,
    AS_POSITION,
    BASE_LIMIT,
    DECK_SIZE,
    DRAW,
    FULL_DECK,
    HAND_CARDS,
    NUM_ACTIONS,
    TABLE_CARDS,
)
from envs.four_aces.scoring import score_presence
from tests.helpers.trajectory_hash import TrajectoryHash

#: the fields a turn may change (the rest belong to the deal and the scoring)
TURN_FIELDS = ("current_player", "stock_top", "hand", "hand_size", "hand_limit", "discard",
               "discard_size", "discard_counts", "four_aces_now")


# -- a per-game reference, plain Python ------------------------------------------------------
def reference_mask(st, g: int) -> np.ndarray:
    """H2, H3: discard a card type held, turn up while the stock lasts; nothing once over."""
    mask = np.zeros(NUM_ACTIONS, bool)
    if not st.game_over[g]:
        s = int(st.current_player[g])
        for c in range(NUM_CARDS):
            mask[c] = st.hand[g, s, c] > 0
        mask[DRAW] = st.stock_top[g] < DECK_SIZE
    return mask


def reference_turn(f: dict, g: int, a: int, P: int) -> bool:
    """Game ``g``'s current player plays ``a`` on the field copies ``f``; True when the
    round ends (H3, H4), else the turn passes left (H1)."""
    s = int(f["current_player"][g])

    def discard(c: int) -> None:  # H2
        f["discard"][g, f["discard_size"][g]] = c
        f["discard_size"][g] += 1
        f["discard_counts"][g, c] += 1

    def take() -> int:  # G6: the stock's top card into the hand
        c = int(f["deal_order"][g, f["stock_top"][g]])
        f["stock_top"][g] += 1
        f["hand"][g, s, c] += 1
        f["hand_size"][g, s] += 1
        if c == JOKER:
            f["hand_limit"][g, s] += 1  # G7
        elif all(f["hand"][g, s, ace] > 0 for ace in ACES):
            f["four_aces_now"][g] = s  # H4
        return c

    if a < DRAW:  # H2 a, then fill to L (G6), a joker raising L (G7)
        f["hand"][g, s, a] -= 1
        f["hand_size"][g, s] -= 1
        discard(a)
        while (take() == JOKER and f["stock_top"][g] < DECK_SIZE
               and f["four_aces_now"][g] < 0):
            pass
    else:  # H2 b: turn up; a joker goes into the hand (G7)
        c = int(f["deal_order"][g, f["stock_top"][g]])
        f["stock_top"][g] += 1
        if c == JOKER:
            f["hand"][g, s, JOKER] += 1
            f["hand_size"][g, s] += 1
            f["hand_limit"][g, s] += 1
        else:
            discard(c)
    if f["four_aces_now"][g] >= 0 or f["stock_top"][g] >= DECK_SIZE:
        return True
    f["current_player"][g] = (s + 1) % P
    return False


def reference_observation(e: FourAcesEngine, g: int, seat: int, integers: bool) -> np.ndarray:
    """One observation row written out per segment (observation.build_layout); the int8
    row holds the numerators of the fractional entries."""
    P, st, cfg = e.num_players, e.state, e.config
    seg = LAYOUT.segments
    row = np.zeros(LAYOUT.size, np.float64)

    def frac(n: int, d: int) -> float:
        return float(n) if integers else np.float64(n) / d

    row[seg["num_players"].start + P - 3] = 1
    row[seg["hand"].slice] = st.hand[g, seat]
    row[seg["discard_pile"].slice] = st.discard_counts[g]
    for r in range(P):
        other = (seat + r) % P
        start = seg["tables"].start + r * NUM_CARDS
        row[start : start + NUM_CARDS] = st.table[g, other]
        row[seg["hand_sizes"].start + r] = frac(int(st.hand_size[g, other]), 5)
        row[seg["hand_limits"].start + r] = frac(int(st.hand_limit[g, other]), 5)
        row[seg["scores"].start + r] = frac(int(st.totals[g, other]), cfg.target_points)
    if st.discard_size[g]:
        row[seg["last_discard"].start + int(st.discard[g, st.discard_size[g] - 1])] = 1
    row[seg["stock_size"].start] = frac(DECK_SIZE - int(st.stock_top[g]), DECK_SIZE)
    jokers = int(st.hand[g, seat, JOKER]) + int(st.table[g, :, JOKER].sum())
    row[seg["jokers_seen"].start] = frac(jokers + int(st.discard_counts[g, JOKER]), 2)
    row[seg["dealer"].start + (int(st.dealer[g]) - seat) % P] = 1
    row[seg["round_number"].start] = frac(int(st.rounds_played[g]), cfg.round_limit)
    return row.astype(np.int8 if integers else np.float32)


@pytest.mark.parametrize("num_players", [3, 4, 5])
@pytest.mark.parametrize(("batch_size", "episode"), [(1, "round"), (7, "match"), (7, "round")])
def test_kernels_equal_the_per_game_reference(num_players, batch_size, episode):
    """Mask, turn and observation (float32; int8 where the config allows it) of every game
    against the reference, over random play with some games inactive."""
    P, B = num_players, batch_size
    e = FourAcesEngine(FourAcesConfig(num_players=P, episode=episode), B)
    e.reset(seed=P * 10 + B)
    rng = np.random.default_rng(P + B)
    st = e.state
    for step in range(300 if B == 1 else 120):
        seats = rng.integers(0, P, B)
        views = [(e.observe(), np.maximum(st.current_player, 0), False),
                 (e.observe(seats), seats, False)]
        if episode == "round":
            views.append((e.observe(seats, dtype=np.int8), seats, True))
        for obs, who, integers in views:
            for g in range(B):
                want = reference_observation(e, g, int(who[g]), integers)
                assert obs.dtype == want.dtype and np.array_equal(obs[g], want), step
        if B == 1:
            row = np.full(LAYOUT.size, np.nan, np.float32)
            e.observe_one(int(seats[0]), row)
            assert np.array_equal(row, reference_observation(e, 0, int(seats[0]), False))
        mask = e.legal_action_mask()
        assert np.array_equal(mask, np.array([reference_mask(st, g) for g in range(B)]))
        actions = sample_uniform_legal(rng, mask)
        active = rng.random(B) < 0.8
        f = {name: getattr(st, name).copy() for name in (*TURN_FIELDS, "deal_order")}
        live = [g for g in range(B) if active[g] and not st.game_over[g]]
        ends = {g: reference_turn(f, g, int(actions[g]), P) for g in live}
        e.step(actions, active)
        assert st.deal_over.tolist() == [ends.get(g, False) for g in range(B)], step
        for g in live:
            if ends[g] and not st.game_over[g]:
                continue  # a new round has been dealt (K4, match)
            for name in TURN_FIELDS:
                if name != "current_player" or not ends[g]:
                    assert np.array_equal(getattr(st, name)[g], f[name][g]), (step, name)
        if st.game_over.any():
            e.reset(games=st.game_over)


# -- trajectories recorded from the replaced numpy engine ----------------------------------
def trajectory_hash(num_players: int, batch_size: int, episode: str, steps: int,
                    seed: int) -> str:
    """sha256 of random legal play (some steps with inactive games): every observation
    (current player and random seats; int8 too in round episodes), mask, reward and state
    field (name, dtype, bytes) after every step and after every reset of finished games."""
    P, B = num_players, batch_size
    e = FourAcesEngine(FourAcesConfig(num_players=P, episode=episode), B)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    h = TrajectoryHash()
    put = h.put

    def put_state() -> None:
        h.put_state(e)

    for t in range(steps):
        seats = rng.integers(0, P, B)
        put(e.observe())
        put(e.observe(seats))
        if episode == "round":
            put(e.observe(dtype=np.int8))
            put(e.observe(seats, dtype=np.int8))
        mask = e.legal_action_mask()
        put(mask)
        active = rng.random(B) < 0.75 if t % 4 == 1 else None
        put(e.step(sample_uniform_legal(rng, mask), active))
        put_state()
        if e.game_over.any():
            e.reset(games=e.game_over)
            put_state()
    return h.hexdigest()


#: (players, batch, episode, steps, seed) -> hash, recorded from the numpy engine
RECORDED = {
    (3, 1, "round", 400, 1):
        "bf0317b2a006c87b554ebe5d303c92008892adb449aaa0629144a5c042c63e95",
    (4, 1, "match", 400, 2):
        "5b67f6f850d24891ad56dd79aaebc7300b9164f4100d627194b52d8051e29ae0",
    (5, 1, "round", 400, 3):
        "3b8f4df0ddc75cb43cbd28822e059c4b79b59e944ffa8bdfa299eddc8cd9ba61",
    (3, 7, "match", 150, 4):
        "5dcb13781b17d0794e959308770457920dcd17c74f2c7058740a5673d0be321f",
    (4, 7, "round", 150, 5):
        "532e343c5ae5ccff6dbb2c6f4c6313bec4b1dcfbefc15d6b09baca8e01bfecc3",
    (5, 64, "match", 60, 6):
        "f39d4077397750f4e0845c8811c078cbfca3bd2e5ec3c5a73bdb52f7fab3f76e",
    (4, 256, "round", 40, 7):
        "4a2bcf6378a9d71a1d6820b4f9d0d5a5afe56b14c529859fe3a762789caa0d77",
}


@pytest.mark.parametrize("case", list(RECORDED))
def test_trajectories_equal_the_recorded_ones(case):
    assert trajectory_hash(*case) == RECORDED[case]


def test_an_illegal_action_changes_nothing_and_names_the_first_bad_game():
    e = FourAcesEngine(FourAcesConfig(num_players=4), 6)
    e.reset(seed=3)
    mask = e.legal_action_mask()
    actions = sample_uniform_legal(np.random.default_rng(0), mask)
    bad = actions.copy()
    bad[2] = np.flatnonzero(~mask[2])[0]
    bad[4] = 54
    before = {name: value.copy() for name, value in e.state.arrays().items()}
    with pytest.raises(ValueError, match=rf"illegal action {bad[2]} .* in game 2: "):
        e.step(bad)
    for name, value in e.state.arrays().items():
        assert np.array_equal(value, before[name]), name
    inactive = np.ones(6, bool)
    inactive[2] = False
    with pytest.raises(ValueError, match="action 54 in game 4 is out of range"):
        e.step(bad, inactive)
    e.step(actions)  # the legal ones still go through
    assert not np.array_equal(e.state.stock_top, before["stock_top"])


# -- the round's deal against the numpy code it replaced -----------------------------------
def numpy_start_round(st, g: np.ndarray, rotate: bool, deal_rows: np.ndarray | None = None,
                      dealers: np.ndarray | None = None) -> None:
    """The engine's numpy ``_start_round`` / ``_choose_dealers`` before the deal kernel
    (G2–G4, H1), on the state ``st``; its pre-fill draws one card at a time through
    ``kernels.draw_card`` as its ``_draw`` did."""
    P = st.num_players
    first_row = np.arange(st.batch_size) * P
    if deal_rows is None or dealers is None:
        n = len(g)
        counters = 2 * st.rounds_played[g].astype(np.int64)
        u = hashed_uniform(np.concatenate([st.keys[g], st.keys[g]]),
                           np.concatenate([counters, counters + 1]), DECK_SIZE)
        if dealers is None:  # _choose_dealers
            draw = u[:n]
            first = st.rounds_played[g] == 0
            start = np.where(first, 0, (st.dealer[g].astype(np.int64) + 1) % P)
            if rotate:
                dealers = start.copy()
                drawing = np.flatnonzero(first)
            else:
                dealers = np.zeros(len(g), dtype=np.int64)
                drawing = np.arange(len(g))
            if len(drawing):
                v = draw[drawing]
                ace = v[:, AS_POSITION : AS_POSITION + 1]
                position = np.count_nonzero(v < ace, axis=1)
                position += np.count_nonzero(v[:, :AS_POSITION] == ace, axis=1)
                dealers[drawing] = (start[drawing] + position) % P
        if deal_rows is None:
            deal_rows = FULL_DECK[stable_argsort_rows(u[n:])]
    st.deal_order[g] = deal_rows
    st.dealer[g] = dealers
    seat_rows = (first_row[g][:, None] + np.arange(P)).reshape(-1)
    hands = deal_rows[:, : HAND_CARDS * P].reshape(len(g) * P, HAND_CARDS)
    tables = deal_rows[:, HAND_CARDS * P : (HAND_CARDS + TABLE_CARDS) * P]
    tables = tables.reshape(len(g) * P, TABLE_CARDS)
    hand_rows, table_rows = st.hand_rows, st.table_rows
    hand_rows[seat_rows] = 0
    table_rows[seat_rows] = 0
    for k in range(HAND_CARDS):
        hand_rows[seat_rows, hands[:, k]] += 1
        table_rows[seat_rows, tables[:, k]] += 1
    st.hand_size[g] = HAND_CARDS
    jokers = st.hand[g, :, JOKER]
    st.hand_limit[g] = BASE_LIMIT + jokers
    st.stock_top[g] = (HAND_CARDS + TABLE_CARDS) * P
    st.discard[g] = -1
    st.discard_size[g] = 0
    st.discard_counts[g] = 0
    st.four_aces_now[g] = -1
    relative = (np.arange(P)[:, None] + np.arange(P)[None, :]) % P
    order = relative[(np.asarray(dealers) + 1) % P]
    needy = np.flatnonzero(jokers.any(axis=1))
    while len(needy):
        gn = g[needy]
        rows = first_row[gn][:, None] + order[needy]
        short = st.hand_size_flat[rows] < st.hand_limit_flat[rows]
        go = short.any(axis=1) & (st.stock_top[gn] < DECK_SIZE) & (st.four_aces_now[gn] < 0)
        needy, rows, short = needy[go], rows[go], short[go]
        for game, row in zip(g[needy], rows[np.arange(len(needy)), np.argmax(short, axis=1)],
                             strict=True):
            kernels.draw_card(game, row - first_row[game], st.round)
    st.current_player[g] = (dealers + 1) % P


def scrambled_engine(P: int, B: int, dealer: str, rng: np.random.Generator) -> FourAcesEngine:
    """An engine of B games whose keys, rounds played and last dealers are random
    (extreme keys included), mid-round (so the deal must overwrite everything)."""
    e = FourAcesEngine(FourAcesConfig(num_players=P, dealer=dealer), B)
    e.reset(seed=int(rng.integers(2**31)))
    for _ in range(5):  # some turns: non-empty discard piles, drawn stocks
        e.step(sample_uniform_legal(rng, e.legal_action_mask()))
        if e.game_over.any():
            e.reset(games=e.game_over)
    st = e.state
    st.keys[:] = rng.integers(0, 2**64, B, dtype=np.uint64)
    st.keys[: min(B, 3)] = np.array([0, 2**64 - 1, 2**63], np.uint64)[: min(B, 3)]
    st.rounds_played[:] = np.where(rng.random(B) < 0.3, 0, rng.integers(0, 200, B))
    st.dealer[:] = rng.integers(0, P, B)
    return e


def assert_same_state(a, b, what) -> None:
    for name, value in a.arrays().items():
        other = getattr(b, name)
        assert value.dtype == other.dtype and np.array_equal(value, other), (what, name)


@pytest.mark.parametrize("dealer", ["ace_of_spades", "rotate"])
@pytest.mark.parametrize("batch_size", [1, 300])
@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_the_deal_kernel_equals_the_numpy_deal(num_players, batch_size, dealer):
    """Every state field after ``_start_round`` equals the numpy code's: for all games, a
    random subset (any order of rounds and keys), and caller-given deals and dealers."""
    P, B = num_players, batch_size
    rng = np.random.default_rng(1000 * P + B + (dealer == "rotate"))
    rotate = dealer == "rotate"
    prefilled = 0
    for trial in range(40 if B == 1 else 6):
        e = scrambled_engine(P, B, dealer, rng)
        g = np.arange(B) if trial % 2 == 0 else np.sort(
            rng.choice(B, int(rng.integers(1, B + 1)), replace=False))
        want = copy.deepcopy(e.state)
        numpy_start_round(want, g, rotate)
        e._start_round(g)
        assert_same_state(want, e.state, ("drawn", trial))
        prefilled += int((e.state.stock_top[g] > 6 * P).sum())
        # caller-given deals and dealers (reset_with_deal gives both)
        rows = FULL_DECK[np.argsort(rng.random((len(g), DECK_SIZE)), axis=1)]
        seats = rng.integers(0, P, len(g))
        for deal_rows, dealers in ((rows, seats), (rows, None), (None, seats)):
            e = scrambled_engine(P, B, dealer, rng)
            want = copy.deepcopy(e.state)
            numpy_start_round(want, g, rotate, deal_rows, dealers)
            e._start_round(g, deal_rows=deal_rows, dealers=dealers)
            assert_same_state(want, e.state, ("given", trial, deal_rows is None))
    assert prefilled  # the pre-fill (G4) was exercised


def test_the_deal_kernels_pieces_equal_numpy_with_ties_and_extreme_keys():
    """hashed_uniform_row (uint64 wrapping, the float conversion), stable_order (ties keep
    index order) and ace_of_spades_place (ties before the ace count) against numpy."""
    rng = np.random.default_rng(5)
    keys = np.concatenate([np.array([0, 1, 2**63, 2**64 - 1], np.uint64),
                           rng.integers(0, 2**64, 200, dtype=np.uint64)])
    counters = np.concatenate([np.array([0, 1, 2**32, 2**63 - 1], np.int64),
                               rng.integers(0, 2**62, 200)])
    want = hashed_uniform(keys, counters, DECK_SIZE)
    row = np.empty(DECK_SIZE)
    for i in range(len(keys)):
        hashed_uniform_row(keys[i], np.uint64(counters[i]), row)
        assert np.array_equal(row.view(np.uint64), want[i].view(np.uint64)), i
    order, ordered = np.empty(DECK_SIZE, np.intp), np.empty(DECK_SIZE)
    buckets = np.empty(65, np.intp)
    for i in range(600):
        if i % 3:  # many ties
            u = rng.integers(0, 1 + i % 70, DECK_SIZE) / 70
        else:
            u = rng.random(DECK_SIZE) ** (1 + i % 5)  # crowded buckets
        place = np.count_nonzero(u < u[AS_POSITION])
        place += np.count_nonzero(u[:AS_POSITION] == u[AS_POSITION])
        assert kernels.ace_of_spades_place(u) == place
        assert place == int(np.flatnonzero(np.argsort(u, kind="stable") == AS_POSITION)[0])
        stable = np.argsort(u, kind="stable")
        stable_order(u, order, ordered, buckets)
        assert np.array_equal(order, stable) and np.array_equal(ordered, u[stable]), i


# -- the round's end against the numpy code it replaced ------------------------------------
def numpy_end_round(st, cfg: FourAcesConfig, g: np.ndarray, rewards: np.ndarray) -> np.ndarray:
    """The engine's numpy ``_end_round`` before the round-end kernel (K1–K4) on the state
    ``st``, up to the deal of the next round: returns the games whose match goes on."""
    P = st.num_players
    n = len(g)
    four = st.four_aces_now[g].astype(np.int64)  # H4 during the round
    scoring = st.hand[g, :, :JOKER] + st.table[g, :, :JOKER]  # K1
    k1 = scoring[:, :, ACES].all(axis=2)
    four = np.where((four < 0) & k1.any(axis=1), np.argmax(k1, axis=1), four)
    points = np.zeros((n, P), dtype=np.int32)
    normal = four < 0
    if normal.any():
        present = scoring[normal].reshape(-1, JOKER)
        points[normal] = score_presence(present, cfg.scoring).reshape(-1, P)
    won = np.flatnonzero(~normal)
    points[won, four[won]] = cfg.target_points
    st.last_points[g] = points
    st.four_aces_winner[g] = four
    st.totals[g] += points
    st.rounds_played[g] += 1
    st.deal_over[g] = True
    st.has_result[g] = True
    totals = st.totals[g]
    if cfg.episode == "round":
        over = np.ones(n, dtype=bool)
        best = points
    else:
        over = (~normal | (totals.max(axis=1) >= cfg.target_points)
                | (st.rounds_played[g] >= cfg.round_limit))
        best = totals
    winners = np.where(normal[:, None], best == best.max(axis=1, keepdims=True),
                       np.arange(P)[None, :] == four[:, None])
    winners &= over[:, None]
    st.winners[g] = winners
    st.match_over[g] = over
    if cfg.reward == "points":
        rewards[g] += points
    elif cfg.reward == "relative":
        rewards[g] += points - (points.sum(axis=1, keepdims=True) - points) / (P - 1)
    else:
        w = winners.sum(axis=1, keepdims=True)
        share = np.where(winners, 1.0 / np.maximum(w, 1), -1.0 / np.maximum(P - w, 1))
        rewards[g] += np.where(over[:, None] & (w < P), share, 0.0).astype(np.float32)
    st.game_over[g[over]] = True
    st.current_player[g[over]] = -1
    return g[~over]


@pytest.mark.parametrize("num_players", [3, 4, 5])
@pytest.mark.parametrize(("episode", "reward"), [("round", "points"), ("round", "relative"),
                                                 ("match", "points"), ("match", "relative"),
                                                 ("match", "win")])
def test_the_round_end_kernel_equals_the_numpy_round_end(num_players, episode, reward):
    """Every state field and the rewards after ``_end_round`` of random games mid-round
    equal the numpy code's (then the next round dealt, in match mode): random totals and
    rounds near the target and the bound, four aces during the round (H4) or among hand
    and table (K1), both scorings."""
    P, B = num_players, 300
    rng = np.random.default_rng(100 * P + len(episode) + len(reward))
    four_aces = 0
    for trial in range(6):
        cfg = FourAcesConfig(num_players=P, episode=episode, reward=reward,
                             scoring=("strict", "free")[trial % 2], target_points=25,
                             max_rounds=int(rng.integers(2, 6)))
        e = FourAcesEngine(cfg, B)
        e.reset(seed=int(rng.integers(2**31)))
        for _ in range(int(rng.integers(0, 12))):
            e.step(sample_uniform_legal(rng, e.legal_action_mask()))
            if e.game_over.any():
                e.reset(games=e.game_over)
        st = e.state
        st.totals[:] = rng.integers(-30, 30, (B, P))
        st.rounds_played[:] = rng.integers(0, cfg.round_limit, B)
        h4 = rng.random(B) < 0.05
        st.four_aces_now[h4] = rng.integers(0, P, h4.sum())
        for game in np.flatnonzero(rng.random(B) < 0.05):  # K1: the aces to one seat
            seat = rng.integers(P)
            st.hand[game, :, ACES] = 0
            st.table[game, :, ACES] = 0
            st.table[game, seat, ACES] = 1
        g = np.sort(rng.choice(B, int(rng.integers(1, B + 1)), replace=False))
        rewards = rng.normal(0, 3, (B, P)).astype(np.float32)
        want, want_rewards = copy.deepcopy(st), rewards.copy()
        more = numpy_end_round(want, cfg, g, want_rewards)
        e._with_state(want)._start_round(more)
        e._end_round(g, rewards)
        assert_same_state(want, st, ("trial", trial))
        assert np.array_equal(rewards.view(np.uint32), want_rewards.view(np.uint32)), trial
        four_aces += int((st.four_aces_winner[g] >= 0).sum())
    assert four_aces  # H4 and K1 were exercised
