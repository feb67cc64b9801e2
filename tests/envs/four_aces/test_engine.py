"""Four Aces engine: random-play invariants, batch vs batch-of-one, seeding, observation
privacy, validation (docs/rules.md G–K)."""

from __future__ import annotations

import copy
import subprocess
import sys

import numpy as np
import pytest

from envs.cards import CARD_NAMES, JOKER, NUM_CARDS
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.rules import DRAW, FULL_DECK, NUM_ACTIONS

#: random rounds played per player count by the invariant test (quoted in reports)
INVARIANT_ROUNDS = 2000
INVARIANT_BATCH = 100
FULL_COUNTS = np.bincount(FULL_DECK, minlength=NUM_CARDS)


def legal_actions(e, b):
    """Independent legal-action list (H2): cards in the mover's hand, and draw while the
    stock is not empty; nothing once the game is over."""
    if e.game_over[b]:
        return []
    seat = int(e.current_player[b])
    out = []
    for card in range(NUM_CARDS):
        if e.state.hand[b, seat, card] > 0:
            out.append(card)
    if e.state.stock_top[b] < 54:
        out.append(DRAW)
    return out


def check_invariants(e, sample):
    B = e.batch_size
    for b in range(B):  # G1: the 54 cards are conserved
        counts = e.state.hand[b].sum(axis=0).astype(int) + e.state.table[b].sum(axis=0)
        counts += np.bincount(e.state.deal_order[b, e.state.stock_top[b] :], minlength=NUM_CARDS)
        counts += e.state.discard_counts[b]
        assert np.array_equal(counts, FULL_COUNTS), b
        pile = e.state.discard[b, : e.state.discard_size[b]]
        assert np.array_equal(np.bincount(pile, minlength=NUM_CARDS), e.state.discard_counts[b])
    assert np.array_equal(e.state.hand.sum(axis=2), e.state.hand_size)
    live = ~e.game_over
    # G6/G7: at every decision point each hand holds exactly L cards
    assert np.array_equal(e.state.hand_size[live], e.state.hand_limit[live])
    assert (e.state.hand_limit >= 3 + e.state.hand[:, :, JOKER]).all()
    assert (e.state.hand_limit <= 5).all()
    mask = e.legal_action_mask()
    for b in sample:
        assert np.flatnonzero(mask[b]).tolist() == legal_actions(e, b)
    assert not mask[e.game_over].any()


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_random_rounds_invariants(num_players):
    """Cards conserved, mask == independent legal actions, hand size == L, totals ==
    sum of round points, over INVARIANT_ROUNDS random rounds (match mode, auto-reset)."""
    cfg = FourAcesConfig(num_players=num_players, episode="match", max_rounds=5)
    e = FourAcesEngine(cfg, batch_size=INVARIANT_BATCH)
    e.reset(seed=num_players)
    rng = np.random.default_rng(num_players)
    sums = np.zeros((INVARIANT_BATCH, num_players), dtype=np.int64)
    rounds = 0
    sample = range(0, INVARIANT_BATCH, 9)
    while rounds < INVARIANT_ROUNDS:
        mask = e.legal_action_mask()
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        rewards = e.step(actions)
        sums[e.deal_over] += e.last_points[e.deal_over]
        assert np.array_equal(rewards, e.last_points * e.deal_over[:, None])  # points
        rounds += int(e.deal_over.sum())
        check_invariants(e, sample)
        assert np.array_equal(e.totals, sums)  # K4: totals are the sum of round points
        over = e.game_over.copy()
        if over.any():
            assert e.winners[over].any(axis=1).all()
            e.reset(games=over)
            sums[over] = 0
            check_invariants(e, sample)
    assert rounds >= INVARIANT_ROUNDS


def _play(engines, steps, seed):
    """The same random actions in every engine list; returns per-step snapshots."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        masks = [e.legal_action_mask() for e in engines]
        mask = np.concatenate(masks)
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        out, i = [], 0
        for e in engines:
            out.append(e.step(actions[i : i + e.batch_size]))
            i += e.batch_size
        yield np.concatenate(out)


def test_batch_equals_batch_of_one():
    """A batch of 12 games equals 12 single-game engines with the same game_seeds."""
    cfg = FourAcesConfig(num_players=4, episode="match", max_rounds=3)
    seeds = np.arange(100, 112, dtype=np.uint64) * 7919
    batch = FourAcesEngine(cfg, batch_size=12)
    batch.reset(game_seeds=seeds)
    singles = [FourAcesEngine(cfg, batch_size=1) for _ in seeds]
    for single, seed in zip(singles, seeds, strict=True):
        single.reset(game_seeds=[seed])
    rng = np.random.default_rng(0)
    for _ in range(300):
        mask = batch.legal_action_mask()
        assert np.array_equal(mask, np.concatenate([s.legal_action_mask() for s in singles]))
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        rewards = batch.step(actions)
        single_rewards = [s.step(actions[i : i + 1]) for i, s in enumerate(singles)]
        assert np.array_equal(rewards, np.concatenate(single_rewards))
        for name, value in batch.state.arrays().items():  # every state field (G-K)
            assert np.array_equal(
                value, np.concatenate([getattr(s.state, name) for s in singles])
            ), name
        assert np.array_equal(batch.observe(), np.concatenate([s.observe() for s in singles]))
        if batch.game_over.all():
            break
    assert batch.game_over.any()


def test_same_seed_same_deal_different_seed_different_deal():
    cfg = FourAcesConfig()
    a, b, c = (FourAcesEngine(cfg, batch_size=4) for _ in range(3))
    a.reset(seed=5)
    b.reset(seed=5)
    c.reset(seed=6)
    assert np.array_equal(a.state.deal_order, b.state.deal_order)
    assert np.array_equal(a.state.dealer, b.state.dealer)
    assert not np.array_equal(a.state.deal_order, c.state.deal_order)
    assert len({tuple(row) for row in a.state.deal_order.tolist()}) == 4  # games differ in a batch


def test_auto_reset_only_masked_games():
    e = FourAcesEngine(FourAcesConfig(), batch_size=3)
    e.reset(seed=1)
    deck = e.state.deal_order.copy()
    e.reset(games=np.array([False, True, False]))
    assert np.array_equal(e.state.deal_order[[0, 2]], deck[[0, 2]])
    assert not np.array_equal(e.state.deal_order[1], deck[1])


def test_observation_hides_hands_and_stock():
    """What each player sees: swapping a card between seat 2's hidden hand and the stock
    leaves every other seat's observation unchanged, and changes seat 2's."""
    e = FourAcesEngine(FourAcesConfig(num_players=4), batch_size=1)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(7):
        mask = e.legal_action_mask()[0]
        e.step(np.array([rng.choice(np.flatnonzero(mask[:JOKER]))]))
    other = copy.deepcopy(e)
    hand_card = int(np.flatnonzero(other.state.hand[0, 2, :JOKER])[0])
    pos = int(other.state.stock_top[0]) + 3
    stock_card = int(other.state.deal_order[0, pos])
    assert stock_card != JOKER
    other.state.hand[0, 2, hand_card] -= 1
    other.state.hand[0, 2, stock_card] += 1
    other.state.deal_order[0, pos] = hand_card
    for seat in (0, 1, 3):
        assert np.array_equal(e.observe(np.array([seat])), other.observe(np.array([seat])))
    assert not np.array_equal(e.observe(np.array([2])), other.observe(np.array([2])))


def test_observation_segments_are_seat_relative_and_filled():
    e = FourAcesEngine(FourAcesConfig(num_players=3), batch_size=1)
    e.reset(seed=9)
    L = e.layout
    names = [s.name for s in L]
    assert names == [
        "num_players",
        "hand",
        "tables",
        "discard_pile",
        "last_discard",
        "stock_size",
        "hand_sizes",
        "hand_limits",
        "jokers_seen",
        "scores",
        "dealer",
        "round_number",
    ]
    assert sum(s.size for s in L) == L.size == e.observation_size
    for seat in range(3):
        obs = e.observe(np.array([seat]))[0]
        assert obs[L["num_players"]].tolist() == [1, 0, 0]
        assert np.array_equal(obs[L["hand"]], e.state.hand[0, seat])
        tables = obs[L["tables"]].reshape(5, NUM_CARDS)
        for r in range(3):
            assert np.array_equal(tables[r], e.state.table[0, (seat + r) % 3])
        assert not tables[3:].any()
        assert obs[L["dealer"]].argmax() == (e.state.dealer[0] - seat) % 3
        low, high = e.observation_bounds
        assert (obs >= low).all() and (obs <= high).all()
    assert e.observe().dtype == np.float32


def test_engine_imports_no_rl_framework():
    code = (
        "import sys, envs.four_aces, envs.four_aces.engine; "
        "bad = [m for m in ('pettingzoo', 'gymnasium') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 2},
        {"num_players": 6},
        {"scoring": "loose"},
        {"dealer": "random"},
        {"episode": "game"},
        {"reward": "score"},
        {"reward": "win", "episode": "round"},
        {"target_points": 0},
        {"max_rounds": 0},
        {"num_players": True},
    ],
)
def test_bad_config_values(kwargs):
    with pytest.raises(ValueError, match="not allowed"):
        FourAcesConfig(**kwargs)


HANDS = [["2C", "3C", "4C"], ["2D", "3D", "4D"], ["2H", "3H", "4H"], ["2S", "3S", "4S"]]
TABLES = [["5C", "6D", "7H"], ["5D", "6H", "7S"], ["5H", "6S", "7C"], ["5S", "6C", "7D"]]


def _stock(extra_remove=()):
    used = {c for row in HANDS + TABLES for c in row} | set(extra_remove)
    rest = [CARD_NAMES[c] for c in FULL_DECK if CARD_NAMES[c] not in used or c == JOKER]
    return rest


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"dealer": 4}, "dealer"),
        ({"hands": HANDS[:3]}, "hands must list 4"),
        ({"tables": [TABLES[0][:2]] + TABLES[1:]}, r"tables\[0\] must hold exactly 3"),
        ({"stock": _stock()[:-1]}, "missing"),
        ({"stock": _stock() + ["AS"]}, "duplicate"),
        ({"stock": ["XX"] + _stock()[1:]}, "unknown card"),
    ],
)
def test_bad_fixed_deals_change_nothing(change, message):
    e = FourAcesEngine(FourAcesConfig(), batch_size=2)
    e.reset(seed=1)
    before = {k: v.copy() for k, v in e.state.arrays().items()}
    args = {"dealer": 0, "hands": HANDS, "tables": TABLES, "stock": _stock()} | change
    with pytest.raises(ValueError, match=message):
        e.reset_with_deal(1, **args)
    for k, v in before.items():
        assert np.array_equal(getattr(e.state, k), v), k
    e.reset_with_deal(1, 0, HANDS, TABLES, _stock())  # the valid deal is accepted


def test_illegal_step_raises_naming_action_and_game_and_changes_nothing():
    e = FourAcesEngine(FourAcesConfig(), batch_size=3)
    e.reset(seed=2)
    mask = e.legal_action_mask()
    actions = np.argmax(mask, axis=1)
    bad = int(np.flatnonzero(~mask[1, :JOKER])[0])
    actions[1] = bad
    before = {k: v.copy() for k, v in e.state.arrays().items()}
    with pytest.raises(ValueError, match=rf"{e.action_names[bad]}.*game 1"):
        e.step(actions)
    for k, v in before.items():
        assert np.array_equal(getattr(e.state, k), v), k
    with pytest.raises(ValueError, match="out of range"):
        e.step(np.array([NUM_ACTIONS, 0, 0]))
