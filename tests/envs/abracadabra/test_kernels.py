"""The compiled decisions of Abracadabra (envs.abracadabra.kernels and the observation's
kernel): one code path for a batch of one and of thousands.

* the mask and the step of every decision phase (C1–C3, D1–D2, E1–E4, F1) against a plain
  per-game Python reference written here from docs/rules.md, step by step (the
  observation's reference is tests/envs/abracadabra/test_observation.py);
* trajectories against hashes recorded from the numpy engine the kernels replaced (its
  batch path and its single-game fast paths gave the same games): every observation
  (float32 and int8, the seat to act, random seats, ``observe_one``), mask, reward and
  state field after every step and every reset, so any change of a bit shows;
* a batch of one equals game 0 of a larger batch;
* an illegal action in a batch changes nothing and names the first bad game.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.abracadabra import AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.observation import V0_SIZE
from envs.abracadabra.rules import (
    BID_OFFSET,
    BID_VALUE,
    CALL,
    EFFECTIVE_SUIT,
    NO_CALL,
    NUM_ACTIONS,
    PLAY_OFFSET,
    SHOW_OFFSET,
    STOP,
    Phase,
)
from envs.cards import JOKER, NUM_CARDS, RANK_OF
from envs.core import sample_uniform_legal
from tests.helpers.trajectory_hash import TrajectoryHash

#: the fields a decision may change (the rest belong to the deal and the scoring)
STEP_FIELDS = ("phase", "current_player", "bids", "num_bids", "declarer", "target",
               "shown_bits", "num_shown", "stakes", "pot", "hand_bits", "played_bits",
               "void_bits", "trick", "trick_size", "leader", "to_play", "dummy_ctrl",
               "tricks_won", "tricks_done", "rank_cards", "called")


# -- a per-game reference, plain Python ------------------------------------------------------
def cards_of(bits) -> list[int]:
    """The cards of a uint64 card set."""
    return [c for c in range(NUM_CARDS) if int(bits) >> c & 1]


def suit_cards(held: list[int], trump: int, led: int) -> list[int]:
    """The cards of ``held`` in the effective suit of ``led`` (the joker is a trump, B3)."""
    return [c for c in held if EFFECTIVE_SUIT[trump + 1, c] == EFFECTIVE_SUIT[trump + 1, led]]


def reference_mask(st, g: int, cards_each: int) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, bool)
    phase = int(st.phase[g])
    if phase == Phase.BID:  # C1
        mask[BID_OFFSET : BID_OFFSET + cards_each + 1] = True
    elif phase == Phase.SHOW:  # D1
        shown = cards_of(st.shown_bits[g])
        for c in cards_of(st.hand_bits[g, st.declarer[g]]):
            mask[SHOW_OFFSET + c] = c not in shown
        mask[STOP] = True
    elif phase == Phase.CALL:  # F1
        mask[CALL] = mask[NO_CALL] = True
    elif phase == Phase.PLAY:  # E2: follow the suit led if able
        held = cards_of(st.hand_bits[g, st.to_play[g]])
        led = int(st.trick[g, st.leader[g]])
        follow = suit_cards(held, int(st.trump[g]), led) if led >= 0 else []
        for c in follow or held:
            mask[PLAY_OFFSET + c] = True
    return mask


def strength(c: int, trump: int, led: int) -> int:
    """E3: the joker, then trumps, then the suit led; other cards never win."""
    if c == JOKER:
        return 100
    suit = EFFECTIVE_SUIT[trump + 1, c]
    if trump >= 0 and suit == trump:
        return 50 + int(RANK_OF[c])
    return 20 + int(RANK_OF[c]) if suit == EFFECTIVE_SUIT[trump + 1, led] else 0


def reference_step(f: dict, g: int, a: int, cfg: AbracadabraConfig) -> bool:
    """Game ``g`` takes decision ``a`` on the field copies ``f``; True when the deal is
    over (the caller scores it)."""
    P, H, E = cfg.num_players, cfg.num_hands, cfg.cards_each
    auto = cfg.call_mode == "auto"
    raise_by = cfg.ante if cfg.raise_mode == "multiple" else cfg.raise_increment
    phase, seat = int(f["phase"][g]), int(f["current_player"][g])

    def controller(hand: int) -> int:  # E4
        return hand if hand < P else int(f["dummy_ctrl"][g])

    def start_play() -> None:  # E1
        d = f["declarer"][g]
        f["phase"][g] = Phase.PLAY
        f["leader"][g] = f["to_play"][g] = f["dummy_ctrl"][g] = f["current_player"][g] = d

    if phase == Phase.BID:  # C1–C3
        f["bids"][g, seat] = a - BID_OFFSET
        f["stakes"][g, seat] += cfg.ante
        f["pot"][g] += cfg.ante
        f["num_bids"][g] += 1
        f["current_player"][g] = (seat + 1) % P
        if f["num_bids"][g] == P:
            order = [(int(f["dealer"][g]) + 1 + k) % P for k in range(P)]
            best = max(order, key=lambda s: (f["bids"][g, s], -order.index(s)))
            f["declarer"][g] = f["current_player"][g] = best
            f["target"][g] = f["bids"][g, best]
            f["phase"][g] = Phase.SHOW
        return False
    if phase == Phase.SHOW:  # D1–D2
        if a != STOP:
            f["shown_bits"][g] |= np.uint64(1 << (a - SHOW_OFFSET))
            f["num_shown"][g] += 1
            f["stakes"][g, f["declarer"][g]] += raise_by
            f["pot"][g] += raise_by
        elif f["target"][g] == 0 and not auto:  # F1: T = 0 asks from the declarer
            f["phase"][g] = Phase.CALL
            f["current_player"][g] = f["declarer"][g]
        else:
            if f["target"][g] == 0:
                f["called"][g] = True
            start_play()
        return False
    if phase == Phase.CALL:  # F1
        f["called"][g, seat] = a == CALL
        if f["tricks_done"][g] == 0:
            if (seat + 1) % P == f["declarer"][g]:
                start_play()
            else:
                f["current_player"][g] = (seat + 1) % P
            return False
        if f["tricks_done"][g] == E:
            return True
        f["phase"][g] = Phase.PLAY
        f["current_player"][g] = controller(int(f["to_play"][g]))
        return False
    # PLAY, E1–E4
    card, hand = a - PLAY_OFFSET, int(f["to_play"][g])
    trump, led = int(f["trump"][g]), int(f["trick"][g, f["leader"][g]])
    if led >= 0 and EFFECTIVE_SUIT[trump + 1, card] != EFFECTIVE_SUIT[trump + 1, led]:
        suit = [c for c in range(NUM_CARDS)
                if EFFECTIVE_SUIT[trump + 1, c] == EFFECTIVE_SUIT[trump + 1, led]]
        f["void_bits"][g, hand] |= np.uint64(sum(1 << c for c in suit))
    bit = np.uint64(1 << card)
    f["hand_bits"][g, hand] &= ~bit
    f["played_bits"][g, hand] |= bit
    f["shown_bits"][g] &= ~bit
    f["trick"][g, hand] = card
    f["trick_size"][g] += 1
    f["to_play"][g] = (hand + 1) % H
    f["current_player"][g] = controller((hand + 1) % H)
    if f["trick_size"][g] < H:
        return False
    trick = [int(c) for c in f["trick"][g]]
    led = trick[int(f["leader"][g])]
    winner = max(range(H), key=lambda h: strength(trick[h], trump, led))
    f["tricks_won"][g, winner] += 1
    f["tricks_done"][g] += 1
    f["rank_cards"][g, winner] += sum(BID_VALUE[c] == f["target"][g] for c in trick)  # S3
    if H > P:
        f["dummy_ctrl"][g] = winner if winner < P else (f["dummy_ctrl"][g] + 1) % P
    f["trick"][g] = -1
    f["trick_size"][g] = 0
    f["leader"][g] = f["to_play"][g] = winner
    f["current_player"][g] = controller(winner)
    if winner < P and f["tricks_won"][g, winner] == f["target"][g]:  # F1
        if auto:
            f["called"][g, winner] = True
        else:
            f["phase"][g] = Phase.CALL
            f["current_player"][g] = winner
            return False
    return bool(f["tricks_done"][g] == E)


@pytest.mark.parametrize("variant", ["four", "three", "two_dummy", "two"])
@pytest.mark.parametrize(("batch_size", "options"), [
    (1, dict()), (7, dict(episode="match", target_points=30)),
    (7, dict(call_mode="auto", raise_mode="add", raise_increment=2))])
def test_kernels_equal_the_per_game_reference(variant, batch_size, options):
    """Mask and step of every game against the reference, over random play with some
    games inactive (the observation: test_observation.py)."""
    B = batch_size
    cfg = AbracadabraConfig(variant=variant, **options)
    e = AbracadabraEngine(cfg, B)
    e.reset(seed=B + len(options))
    rng = np.random.default_rng(B)
    st = e.state
    ended = 0
    for step in range(400 if B == 1 else 150):
        mask = e.legal_action_mask()
        assert np.array_equal(mask, np.array([reference_mask(st, g, e.cards_each)
                                              for g in range(B)])), step
        actions = sample_uniform_legal(rng, np.where(st.game_over[:, None], True, mask))
        active = rng.random(B) < 0.8
        f = {name: getattr(st, name).copy() for name in (*STEP_FIELDS, "dealer", "trump")}
        live = [g for g in range(B) if active[g] and not st.game_over[g]]
        ends = {g: reference_step(f, g, int(actions[g]), cfg) for g in live}
        e.step(actions, active)
        assert st.deal_over.tolist() == [ends.get(g, False) for g in range(B)], step
        for g in live:
            if ends[g]:
                ended += 1
                continue  # scored (S1–S4) and dealt anew or over: not the kernels' part
            for name in STEP_FIELDS:
                assert np.array_equal(getattr(st, name)[g], f[name][g]), (step, name)
        if st.game_over.any():
            e.reset(games=st.game_over)
    assert ended > 0


# -- trajectories recorded from the replaced numpy engine ----------------------------------
def trajectory_hash(options: dict, batch_size: int, steps: int, seed: int) -> str:
    """sha256 of random legal play (some steps with inactive games): every observation
    (the seat to act and random seats, float32 and, where allowed, int8; ``observe_one``
    of game 0 from every seat), mask, reward and state field (name, dtype, bytes) after
    every step and after every reset of finished games."""
    B = batch_size
    e = AbracadabraEngine(AbracadabraConfig(**options), B)
    P = e.num_players
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    int8 = options.get("episode", "deal") == "deal"
    row = np.empty(e.observation_size, np.float32)
    h = TrajectoryHash()
    put = h.put

    def put_state() -> None:
        h.put_state(e)

    def put_observation(obs: np.ndarray) -> None:
        # the recorded observations are abracadabra_v0's: v1 appended "voids"
        # (tests/envs/abracadabra/test_observation.py checks that segment)
        put(obs[..., :V0_SIZE])

    for t in range(steps):
        seats = rng.integers(0, P, B)
        put_observation(e.observe())
        put_observation(e.observe(seats))
        if int8:
            put_observation(e.observe(dtype=np.int8))
            put_observation(e.observe(seats, dtype=np.int8))
        for seat in range(P):
            e.observe_one(seat, row)
            put_observation(row)
        mask = e.legal_action_mask()
        put(mask)
        active = rng.random(B) < 0.75 if t % 4 == 1 else None
        put(e.step(sample_uniform_legal(rng, np.where(e.game_over[:, None], True, mask)),
                   active))
        put_state()
        if e.game_over.any():
            e.reset(games=e.game_over)
            put_state()
    return h.hexdigest()


#: (options, batch, steps, seed) -> hash, recorded from the numpy engine
RECORDED = [
    (dict(variant="four"), 1, 300, 1,
     "926ff4ffa9c0f9bb84233482f12412a1d3b70644c8037bc672bd261e1add81be"),
    (dict(variant="three", call_mode="auto"), 1, 300, 2,
     "b367e159f3a77deee2e3ac85900088f2c8dd5dbb54d844b0d9ce205f79fb62ad"),
    (dict(variant="two_dummy", episode="match", reward="win", target_points=30), 1, 400, 3,
     "15e94515cbed04796b35411e2bb69091277fd836dad62378f8ddf406c6b6482a"),
    (dict(variant="two", joker=False, episode="match", reward="relative", max_deals=3), 1,
     300, 4, "fe7ed36201309ee8c32745f20eae2ab7c5bafa0eb72f39d95aeb69253ed2b01c"),
    (dict(variant="four", episode="match", reward="chips", target_points=40), 7, 150, 5,
     "aaa0ccefd2cf534dfef6d7e9d6dfd7286c67476020281f57abb8d28f08daf18e"),
    (dict(variant="two_dummy"), 7, 150, 6,
     "e61b065e2fc8a737c53683157e794fb8f5184e096a4c8e95b627368133520694"),
    (dict(variant="three", raise_mode="add", raise_increment=2, ante=2, reward="chips"), 64,
     60, 7, "395762268f4a12a7383b9fc7befec387d8999e07d0cb4148aff3cbece3aa98c7"),
    (dict(variant="four"), 256, 40, 8,
     "521bbc87e4fe3bfd973f0e80b11d9ca0b9a95cc713ca03f8657750102b1aa34b"),
]


@pytest.mark.parametrize("case", RECORDED, ids=lambda c: f"{c[0]['variant']}-B{c[1]}")
def test_trajectories_equal_the_recorded_ones(case):
    *args, recorded = case
    assert trajectory_hash(*args) == recorded


@pytest.mark.parametrize("options", [
    dict(variant="four"), dict(variant="three", call_mode="auto"),
    dict(variant="two_dummy", episode="match", target_points=25),
    dict(variant="two", joker=False)])
def test_a_batch_of_one_equals_game_zero_of_a_batch(options):
    """Same key, same actions: every state field, mask, reward and observation (float32
    from every seat, ``observe_one``, int8 where allowed) of game 0 agree."""
    cfg = AbracadabraConfig(**options)
    one, many = AbracadabraEngine(cfg, 1), AbracadabraEngine(cfg, 5)
    one.reset(game_seeds=[7])
    many.reset(game_seeds=[7, 8, 9, 10, 11])
    rng = np.random.default_rng(1)
    row = np.full(one.observation_size, np.nan, np.float32)
    P, resets = one.num_players, 0
    for _ in range(500):
        mask = one.legal_action_mask()
        assert np.array_equal(mask, many.legal_action_mask()[:1])
        for seat in range(P):
            seats = np.full(5, seat)
            one.observe_one(seat, row)
            assert np.array_equal(row, many.observe(seats)[0])
            assert np.array_equal(one.observe(seats[:1]), many.observe(seats)[:1])
            if cfg.episode == "deal":
                assert np.array_equal(one.observe(seats[:1], dtype=np.int8),
                                      many.observe(seats, dtype=np.int8)[:1])
        assert np.array_equal(one.observe(), many.observe()[:1])
        actions = sample_uniform_legal(rng, np.where(many.game_over[:, None], True,
                                                     many.legal_action_mask()))
        assert np.array_equal(one.step(actions[:1]), many.step(actions)[:1])
        for name, value in one.state.arrays().items():
            assert np.array_equal(value, getattr(many.state, name)[:1]), name
        if one.game_over[0]:
            resets += 1
            one.reset(games=np.ones(1, bool), game_seeds=[100 + resets])
            many.reset(games=np.r_[True, False, False, False, False],
                       game_seeds=[100 + resets])
        if many.game_over[1:].any():
            many.reset(games=np.r_[False, many.game_over[1:]])
    assert resets > 0


def test_an_illegal_action_changes_nothing_and_names_the_first_bad_game():
    e = AbracadabraEngine(AbracadabraConfig(variant="three"), 6)
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(3):  # the bids: every declarer is to show
        e.step(sample_uniform_legal(rng, e.legal_action_mask()))
    mask = e.legal_action_mask()
    actions = sample_uniform_legal(rng, mask)
    bad = actions.copy()
    bad[2] = np.flatnonzero(~mask[2])[0]
    bad[4] = NUM_ACTIONS
    before = {name: value.copy() for name, value in e.state.arrays().items()}
    with pytest.raises(ValueError, match=r"illegal action 'bid:0' in game 2: phase is 'show'"):
        e.step(bad)
    for name, value in e.state.arrays().items():
        assert np.array_equal(value, before[name]), name
    inactive = np.ones(6, bool)
    inactive[2] = False
    with pytest.raises(ValueError, match=r"illegal action 123 \(out of range\) in game 4"):
        e.step(bad, inactive)
    for name, value in e.state.arrays().items():
        assert np.array_equal(value, before[name]), name
    e.step(actions)  # the legal ones still go through
    assert not np.array_equal(e.state.num_shown, before["num_shown"]) or not np.array_equal(
        e.state.phase, before["phase"])
