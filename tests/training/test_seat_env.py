"""The learner's seat view: reward crediting, seat rotation, masks, the VecEnv protocol.

The scripted cases run on ``ToyEngine`` (tests/helpers/toy_engine.py): 3 seats, 7 steps
per episode, seats move 0, 1, 2, 0, 1, 2, 0. With the learner in seat 1 its decisions are
at steps 1 and 4; the episode ends on step 6, an opponent's (seat 0) move.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from tests.helpers.toy_engine import ToyEngine
from training.opponents import OpponentPool, OpponentSpec, parse_pool
from training.seat_env import SeatDriver, SeatEnv
from training.vec_env import BatchSeatVecEnv

# step 2 (seat 2 moves) pays seat 1 five; step 6 (seat 0 moves, ends the deal) pays
# seats (1, 20, 300): the learner in seat 1 must get 5 then 20 — never 7/300 or 1.
PAYOUTS = {2: [0.0, 5.0, 7.0], 6: [1.0, 20.0, 300.0]}


def toy_pool(seed=0, entries=("random",)):
    return OpponentPool("abracadabra", parse_pool(list(entries)), seed=seed)


def test_seat_env_credits_the_learners_own_column_of_delayed_rewards():
    env = SeatEnv(ToyEngine(1, payouts=PAYOUTS), toy_pool())
    env.reset(seed=0)
    assert env.seat == 0
    env.reset()  # the seat rotates with every episode
    assert env.seat == 1
    rewards, done = [], False
    while not done:
        _, reward, done, truncated, info = env.step(0)
        rewards.append(reward)
        assert not truncated
    assert rewards == [5.0, 20.0]  # steps 1..3 then 4..6, seat 1's column only
    assert info["result"] == {"steps": 7}


def test_vec_env_credits_per_game_seat_and_auto_resets():
    engine = ToyEngine(3, payouts=PAYOUTS)
    env = BatchSeatVecEnv(engine, toy_pool())
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (3, 4)
    np.testing.assert_array_equal(env.driver.learner_seat, [0, 1, 2])
    # seat 0 decides at steps 0, 3, 6; seat 1 at 1, 4; seat 2 at 2, 5
    env.step_async(np.zeros(3, dtype=np.int64))
    _, rewards, dones, _ = env.step_wait()
    # seat 0: steps 0..2 pay it 0; seat 1: steps 1..3 pay 5; seat 2: steps 2..4 pay 7
    np.testing.assert_array_equal(rewards, [0.0, 5.0, 7.0])
    assert not dones.any()
    env.step_async(np.zeros(3, dtype=np.int64))
    _, rewards, dones, infos = env.step_wait()
    # seat 0: steps 3..5 -> 0; seat 1: steps 4..6 -> 20 and done; seat 2: steps 5..6 -> 300
    np.testing.assert_array_equal(rewards, [0.0, 20.0, 300.0])
    np.testing.assert_array_equal(dones, [False, True, True])
    assert infos[1]["episode"] == {"r": 25.0, "l": 2}
    assert infos[1]["terminal_observation"].shape == (4,)
    assert infos[0] == {}
    # the finished games restarted with the learner one seat on
    np.testing.assert_array_equal(env.driver.learner_seat, [0, 2, 0])
    env.step_async(np.zeros(3, dtype=np.int64))
    _, rewards, dones, _ = env.step_wait()
    assert rewards[0] == 1.0 and dones[0]  # seat 0's last decision ends the episode


def test_rewards_on_the_learners_own_move_count_too():
    engine = ToyEngine(1, payouts={}, action_reward=True)
    env = SeatEnv(engine, toy_pool())
    env.reset(seed=0)
    _, reward, _, _, _ = env.step(1)  # step 0 is even: action 1 is legal and pays 1
    assert reward == 1.0


def test_reward_scale_applies():
    env = SeatEnv(ToyEngine(1, payouts=PAYOUTS), toy_pool(), reward_scale=0.5)
    env.reset(seed=0)
    env.reset()
    assert env.step(0)[1] == 2.5


def test_learner_seat_rotates_every_episode():
    env = SeatEnv(ToyEngine(1), toy_pool())
    seats = []
    for _ in range(6):
        env.reset()
        seats.append(env.seat)
    assert seats == [0, 1, 2, 0, 1, 2]
    vec = BatchSeatVecEnv(ToyEngine(2, length=3), toy_pool())
    vec.reset()
    seen = {0: [], 1: []}
    for _ in range(12):
        for g in range(2):
            seen[g].append(int(vec.driver.learner_seat[g]))
        vec.step_async(np.zeros(2, dtype=np.int64))
        vec.step_wait()
    for g in range(2):
        assert set(seen[g]) == {0, 1, 2}


def test_opponents_never_act_for_the_learner_and_learner_only_at_its_turn():
    engine = ToyEngine(4, num_players=3, length=11)
    env = BatchSeatVecEnv(engine, toy_pool())
    env.reset()
    for _ in range(20):
        np.testing.assert_array_equal(engine.current_player, env.driver.learner_seat)
        env.step_async(np.zeros(4, dtype=np.int64))
        env.step_wait()


def test_vec_env_action_masks_shape_and_legality():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    engine = ToyEngine(5)
    env = BatchSeatVecEnv(engine, toy_pool())
    env.reset()
    assert is_masking_supported(env)
    for _ in range(8):
        masks = get_action_masks(env)
        assert masks.shape == (5, 3) and masks.dtype == bool
        np.testing.assert_array_equal(masks, engine.legal_action_mask())
        assert masks.any(axis=1).all()
        assert len(env.env_method("action_masks", indices=[1, 3])) == 2
        env.step_async(masks.argmax(axis=1))
        env.step_wait()


def test_seat_env_spaces_and_masks():
    # gymnasium's check_env steps random, possibly illegal, actions: check by hand instead
    env = SeatEnv(ToyEngine(1), toy_pool())
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert env.action_space.n == 3
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"])
    done = False
    while not done:
        obs, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        assert env.observation_space.contains(obs)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_real_engines_through_the_vec_env():
    from training.vec_env import make_vec_env

    for game, options in [("abracadabra", {"variant": "two_dummy"}),
                          ("four_aces", {"num_players": 5})]:
        env = make_vec_env(game, 8, options, ["random"], seed=3)
        obs = env.reset()
        episodes = 0
        for _ in range(200):
            masks = env.action_masks()
            assert obs.shape == (8, env.observation_space.shape[0])
            assert env.observation_space.contains(obs[0])
            actions = np.array([np.flatnonzero(m)[0] for m in masks])
            obs, rewards, dones, infos = env.step(actions)
            episodes += int(dones.sum())
            for i in np.flatnonzero(dones):
                assert infos[i]["result"] is not None
        assert episodes > 0


def test_pool_samples_by_weight_and_falls_back_to_self():
    pool = OpponentPool("four_aces", [OpponentSpec("random", 1.0), OpponentSpec("snapshot", 3.0)],
                        seed=0)
    actors = pool.sample((1000, 4))
    assert set(np.unique(actors)) == {0, pool.self_id}  # no snapshot yet: self
    assert 0.2 < (actors == 0).mean() < 0.3
    pool.add_snapshot(lambda obs, masks: masks.argmax(axis=1))
    assert pool.self_id + 1 in pool.sample((1000,))
    with pytest.raises(RuntimeError, match="set_self"):
        pool.act(np.array([pool.self_id]), np.zeros((1, 4)), np.ones((1, 3), dtype=bool))
    with pytest.raises(ValueError, match="positive weight"):
        parse_pool([{"name": "random", "weight": 0}])


def test_batch_ppo_collect_credits_each_stream_its_own_seat():
    """Batch PPO with every seat learned: each (game, seat) stream gets its column."""
    from agents.policy.net import PolicyNet
    from training.ppo_batch import collect

    torch.manual_seed(0)
    engine = ToyEngine(2, payouts=PAYOUTS)
    pool = OpponentPool("abracadabra", [OpponentSpec("self")], seed=0)
    net = PolicyNet(4, 3, [8])
    buf, _ = collect(engine, pool, net, 0, seed=0, train_self_seats=True, reward_scale=1.0)
    assert buf.n == 2 * 7  # every move of both games is a learner decision
    seats = np.rint(buf.obs[: buf.n, 2] * 3).astype(int)
    steps = np.rint(buf.obs[: buf.n, 0] * 7).astype(int)
    expected = {  # (seat, step) -> reward credited to that decision
        (0, 0): 0, (0, 3): 0, (0, 6): 1,  # step 6 is seat 0's own last move: paid 1 there
        (1, 1): 5, (1, 4): 20,
        (2, 2): 7, (2, 5): 300,
    }
    for i in range(buf.n):
        assert buf.rewards[i] == expected[(seats[i], steps[i])], (seats[i], steps[i])
    # the last decision of each stream is terminal; the others point to the stream's next
    for i in range(buf.n):
        j = buf.next[i]
        if steps[i] + 3 < 7:
            assert seats[j] == seats[i] and steps[j] == steps[i] + 3
        else:
            assert j == -1
    adv, ret = buf.advantages(gamma=1.0, gae_lambda=1.0)
    # with gamma = lambda = 1 the return is the stream's remaining reward
    for i in range(buf.n):
        later = [expected[(seats[i], t)] for t in range(steps[i], 7, 3)]
        assert ret[i] == pytest.approx(sum(later))


def test_batch_ppo_collect_with_one_learner_seat():
    from agents.policy.net import PolicyNet
    from training.ppo_batch import collect

    engine = ToyEngine(3, payouts=PAYOUTS)
    net = PolicyNet(4, 3, [8])
    buf, info = collect(engine, toy_pool(), net, rollout_index=1, seed=0,
                        train_self_seats=True, reward_scale=0.1)
    seats = np.rint(buf.obs[: buf.n, 2] * 3).astype(int)
    # rollout 1: game g has the learner in seat (g + 1) mod 3 -> seats 1, 2, 0
    assert sorted(seats.tolist()) == [0, 0, 0, 1, 1, 2, 2]
    assert buf.rewards[: buf.n].sum() == pytest.approx(0.1 * (25 + 307 + 1))
    assert info["learner_return"] == pytest.approx((25 + 307 + 1) / 3)


def test_seat_driver_rejects_steps_out_of_turn():
    driver = SeatDriver(ToyEngine(1), toy_pool())
    with pytest.raises(RuntimeError, match="reset first"):
        driver.step(np.zeros(1, dtype=np.int64))
