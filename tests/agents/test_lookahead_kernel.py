"""The compiled kernels of the Four Aces look-ahead discarder
(:mod:`agents.four_aces.lookahead_kernel`), step by step against numpy and the exact
scorer.

Each kernel is checked against the numpy expression it stands for: the draws against
``np.argsort`` of the keys, sums against ``ndarray.mean`` (bit for bit), set scores (the
table of :mod:`agents.four_aces.set_scores`, lone suits set apart) against the engine's
scorer :func:`envs.four_aces.scoring.score_presence` (K2/K3 strict). The agent's
decisions against the reference heuristics are in ``test_heuristics_fast.py``.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

import agents
from agents import pcg64
from agents.four_aces import lookahead_kernel as kernel
from agents.four_aces import set_scores
from agents.four_aces.view import FourAcesView
from envs import registry
from envs.cards import parse_card
from envs.compiled import popcount
from envs.four_aces.rules import MAX_HAND
from envs.four_aces.scoring import score_presence, score_set


@pytest.fixture(scope="module")
def with_table():
    return kernel.score_tables(set_scores.score_table())


@pytest.fixture(scope="module")
def without_table():
    return kernel.score_tables(np.zeros(0, dtype=np.int8))


def _random_sets(rng, count: int, size: int) -> np.ndarray:
    cards = np.argsort(rng.random((count, 52)), axis=1)[:, :size]
    return set_scores.cards_to_bits(cards) if size else np.zeros(count, dtype=np.int64)


def _rank_heavy_sets(rng, count: int, size: int) -> np.ndarray:
    """Sets of ``size`` cards drawn from few ranks (pairs, trips, quads, full houses)."""
    sets = []
    for _ in range(count):
        ranks = rng.choice(13, size=rng.integers(2, 5), replace=False)
        pool = np.unique(np.concatenate([[s * 13 + r for r in ranks for s in range(4)],
                                         rng.choice(52, size=3, replace=False)]))
        sets.append(rng.choice(pool, size=min(size, len(pool)), replace=False))
    return np.array([set_scores.cards_to_bits(s) for s in sets])


def _presence(bits: np.ndarray) -> np.ndarray:
    return ((bits[:, None] >> np.arange(52)) & 1).astype(np.int8)


@numba.njit
def _scores_by_scorer(bits, t):
    slots = np.empty(10, dtype=np.int64)
    out = np.empty(len(bits), dtype=np.int64)
    for i in range(len(bits)):
        out[i] = score_set(bits[i], t.scorer, slots)
    return out


@numba.njit
def _scores_by_table(bits, t):
    out = np.empty(len(bits), dtype=np.int64)
    for i in range(len(bits)):
        out[i] = t.by_set[kernel.table_index(bits[i], t.offset)]
    return out


@numba.njit
def _lone_suits_apart(bits, t):
    rest = np.empty(len(bits), dtype=np.int64)
    value = np.empty(len(bits), dtype=np.int64)
    for i in range(len(bits)):
        rest[i], value[i] = kernel.set_apart_lone_suits(bits[i], t.scorer)
    return rest, value


@numba.njit
def _bit_counts(bits):
    out = np.empty((len(bits), 2), dtype=np.int64)
    for i in range(len(bits)):
        out[i, 0] = popcount(bits[i])
        out[i, 1] = set_scores.lowest_bit(bits[i])
    return out


# ------------------------------------------------------------------------------------
# step 1: the draws
# ------------------------------------------------------------------------------------
def _argsort_draws(keys: np.ndarray, pool: np.ndarray, count: int) -> np.ndarray:
    """The numpy form: seen cards' keys raised to 2, argsort (stable: ties by card), the
    first ``count``; rows with fewer unseen cards repeat their first draw."""
    keys = np.where(pool[:, None, :] > 0, keys, 2.0)
    perm = np.argsort(keys, axis=2, kind="stable")[:, :, :count]
    short = np.arange(count)[None, :] >= pool.sum(axis=1)[:, None]
    return np.where(short[:, None, :], perm[:, :, :1], perm)


@pytest.mark.parametrize("count", (1, 5, 9))
def test_pick_draws_is_argsort_of_the_unseen_cards(count):
    """G6: every unseen card equally likely, in the order of its key; rows with 0 to 53
    unseen cards (a row without any draws card 0, argsort's first of equal keys)."""
    rng = np.random.default_rng(count)
    n = 400
    pool = np.zeros((n, 53), dtype=np.int64)
    for r in range(n):
        unseen = rng.integers(0, 53) if r % 4 else r % 12  # many short rows
        pool[r, rng.choice(52, size=min(unseen, 52), replace=False)] = 1
    keys = rng.random((n, 12, 53))
    np.testing.assert_array_equal(kernel.pick_draws(keys, pool, count),
                                  _argsort_draws(keys, pool, count))
    assert (kernel.pick_draws(keys, pool, count)[pool.sum(axis=1) == 0] == 0).all()


def test_sample_draws_draws_the_keys_of_the_generator():
    """The kernel's own keys are ``rng.random((N, S, 53))``: the same draws as
    :func:`pick_draws` of those keys, and the generator ends in the same state."""
    rng = np.random.default_rng(3)
    pool = (rng.random((300, 53)) < 0.6).astype(np.int64)
    pool[:40] = 0
    pool[40:80, :3] = 1  # few unseen cards
    ours, numpys = np.random.default_rng(9), np.random.default_rng(9)
    words = pcg64.state_words(ours)
    draws = kernel.sample_draws(words, pool, 12, 5, False)
    pcg64.store_words(ours, words)
    keys = numpys.random((300, 12, 53))
    np.testing.assert_array_equal(draws, kernel.pick_draws(keys, pool, 5))
    assert ours.bit_generator.state == numpys.bit_generator.state


def test_pick_draws_orders_equal_keys_by_card():
    keys = np.full((1, 1, 53), 0.5)
    keys[0, 0, 40] = 0.25
    pool = np.zeros((1, 53), dtype=np.int64)
    pool[0, [3, 17, 40, 41]] = 1
    np.testing.assert_array_equal(kernel.pick_draws(keys, pool, 3)[0, 0], [40, 3, 17])


# ------------------------------------------------------------------------------------
# step 2: the value of one card set
# ------------------------------------------------------------------------------------
def test_bit_counts_match_python():
    rng = np.random.default_rng(1)
    bits = np.concatenate([[0, 1, (1 << 52) - 1], _random_sets(rng, 500, 7)])
    counts = _bit_counts(bits)
    np.testing.assert_array_equal(counts[:, 0], [bin(int(b)).count("1") for b in bits])
    lowest = [(int(b) & -int(b)).bit_length() - 1 if b else 64 for b in bits]
    np.testing.assert_array_equal(counts[:, 1], lowest)


def test_the_scorer_tables_score_known_hands(without_table):
    # K2: a 5-card run +14 and a pair -1 (7 cards); two pairs +3 and a 3-card run +2
    def score(names):
        bits = set_scores.cards_to_bits([parse_card(c) for c in names])
        return int(_scores_by_scorer(np.array([bits]), without_table)[0])

    assert score(["5H", "6H", "7H", "8H", "9H", "KC", "KD"]) == 14 - 1
    assert score(["5C", "5D", "9C", "9S", "2H", "3H", "4H"]) == 3 + 2


@pytest.mark.parametrize("size", range(7))
def test_table_positions_find_the_scores(with_table, size):
    """Sets of at most six cards: the table entry at :func:`table_index` is the score."""
    rng = np.random.default_rng(10 + size)
    bits = _random_sets(rng, 3000, size)
    np.testing.assert_array_equal(_scores_by_table(bits, with_table),
                                  score_presence(_presence(bits), "strict"))


@pytest.mark.parametrize("size", (6, 7, 8, 9))
def test_lone_suits_score_apart(without_table, size):
    """K3 strict: a suit whose cards all have ranks held once scores on its own; the rest
    keeps every card of the other suits."""
    rng = np.random.default_rng(20 + size)
    bits = np.concatenate([_random_sets(rng, 3000, size), _rank_heavy_sets(rng, 1000, size)])
    rest, value = _lone_suits_apart(bits, without_table)
    assert (rest & ~bits == 0).all()
    np.testing.assert_array_equal(_scores_by_scorer(rest, without_table) + value,
                                  score_presence(_presence(bits), "strict"))
    assert (popcount(rest) < popcount(bits)).mean() > 0.5


def test_ace_premium():
    # two aces +0.3 and three +1.5 while all four can still be had; nothing otherwise
    assert kernel.ACE_PREMIUM[2, 2] == 0.3 and kernel.ACE_PREMIUM[3, 1] == 1.5
    assert kernel.ACE_PREMIUM[2, 1] == 0.0 and kernel.ACE_PREMIUM[3, 0] == 0.0
    assert kernel.ACE_PREMIUM[[0, 1, 4, 5]].max() == 0.0


def test_score_tables_rejects_another_table():
    with pytest.raises(ValueError, match="by_set"):
        kernel.score_tables(np.zeros(10, dtype=np.int8))


@pytest.mark.parametrize("n", list(range(0, 40)) + [127, 128, 129, 300, 1031])
def test_numpy_sum_is_the_order_of_numpy_mean(n):
    """Sums of values that round differently in another order: the mean is the same
    float as ``ndarray.mean`` (pairwise summation, blocks of 8, halves above 128)."""
    rng = np.random.default_rng(n)
    values = rng.integers(-8, 20, size=n) + rng.choice([0.0, 0.3, 1.5, 0.1], size=n)
    values = np.concatenate([rng.random(3), values])  # a run that starts inside the array
    mean = kernel.numpy_sum(values, 3, n) / n if n else 0.0
    assert mean == (values[3:].mean() if n else 0.0)


def test_numpy_sum_differs_from_a_plain_loop():
    """The order matters: some means of 12 values differ from a left-to-right sum's."""
    rng = np.random.default_rng(0)
    differ = 0
    for _ in range(2000):
        values = rng.integers(-8, 20, size=12) + rng.choice([0.0, 0.3, 1.5], size=12)
        plain = 0.0
        for v in values:
            plain += v
        assert kernel.numpy_sum(values, 0, 12) == values.sum()
        differ += plain != values.sum()
    assert differ > 0


# ------------------------------------------------------------------------------------
# steps 3 to 5: the options of a batch
# ------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def decisions():
    """A batch of Four Aces decisions of random play, 4 players."""
    engine = registry.make_engine("four_aces", 256, num_players=4)
    engine.reset(seed=3)
    rng = np.random.default_rng(3)
    parts = []
    for _ in range(12):
        obs, mask = engine.observe(), engine.legal_action_mask()
        live = engine.current_player >= 0
        parts.append(obs[live])
        actions = np.array([rng.choice(np.flatnonzero(m)) if ok else 0
                            for m, ok in zip(mask, live, strict=True)])
        engine.step(actions, active=live)
    return FourAcesView(np.concatenate(parts))


def _kernel_values(view: FourAcesView, t, samples=12, inner=4, seed=0):
    rng = np.random.default_rng(seed)
    draws = kernel.pick_draws(rng.random((view.n, samples, 53)), view.pool, inner + 1)
    return kernel.option_values(view.hand, view.table, draws, view.aces_out,
                                view.more_turns, view.joker_chance, 20.0, t)


def test_option_values_are_the_same_with_and_without_the_table(decisions, with_table,
                                                               without_table):
    a = _kernel_values(decisions, with_table)
    b = _kernel_values(decisions, without_table)
    np.testing.assert_array_equal(a, b)
    # slots without a card are no option (G7: the hand holds 3 to 5 cards)
    np.testing.assert_array_equal(a[:, :MAX_HAND] == kernel.NO_OPTION, decisions.hand < 0)


def test_option_values_take_the_second_step_only_with_another_turn(decisions, with_table):
    """H3: without another turn an option is worth its first step only, so forcing
    ``more_turns`` off never raises a value, and lowers some."""
    a = _kernel_values(decisions, with_table)
    view = decisions
    last = FourAcesView.__new__(FourAcesView)
    last.__dict__.update(view.__dict__)
    last.more_turns = np.zeros(view.n, dtype=bool)
    b = _kernel_values(last, with_table)
    exists = a > kernel.NO_OPTION
    assert (b[exists] <= a[exists]).all()
    assert (b[exists] < a[exists]).mean() > 0.3
    np.testing.assert_array_equal(a[~view.more_turns], b[~view.more_turns])


def test_the_agent_compiles_each_kernel_once(decisions):
    """One signature per kernel, whatever the batch size or observation dtype."""
    engine = registry.make_engine("four_aces", 8, num_players=3)
    engine.reset(seed=1)
    agent = agents.make("lookahead", "four_aces", seed=0)
    obs, mask = engine.observe(), engine.legal_action_mask()
    for size in (1, 3, 8):
        agent.act_batch(obs[:size], mask[:size])
        agent.act_batch(obs[:size].astype(np.float64), mask[:size])
    for fn in (kernel.sample_draws, kernel.option_values):
        assert len(fn.signatures) == 1, fn.signatures


def test_the_lookahead_rejects_empty_samples():
    with pytest.raises(ValueError, match="samples"):
        agents.make("lookahead", "four_aces", samples=0)
