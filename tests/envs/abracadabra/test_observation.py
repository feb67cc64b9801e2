"""The fast observation encoder equals a plain reference encoder, entry for entry.

The reference below is a plain ``observe`` (one segment at a time, from the state's bool
card views), kept here as the specification of every observation value. It is
compared with :meth:`AbracadabraEngine.observe` on random playouts of every variant, with
the default observer (the seat to act) and with arbitrary observer seats, through deals,
matches, finished games and auto-resets.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.abracadabra import LAYOUT, AbracadabraConfig, AbracadabraEngine
from envs.abracadabra.rules import EFFECTIVE_SUIT, PLAY_OFFSET, Phase
from envs.cards import NUM_CARDS


def reference_observe(e: AbracadabraEngine, seats: np.ndarray | None = None) -> np.ndarray:
    """float32 [B, 771], segment by segment: the plain reference encoder."""
    B, P, H, E = e.batch_size, e.num_players, e.num_hands, e.cards_each
    L = LAYOUT
    col = {seg.name: seg.start for seg in L}
    rows = np.arange(B)
    if seats is None:
        seats = np.where(e.current_player >= 0, e.current_player, 0)
    seats = np.asarray(seats).astype(np.int64)
    hand_at = np.array([[(o + s) % P if s < P else s for s in range(H)] for o in range(P)])
    slot_of = np.argsort(hand_at, axis=1)
    hand_at, slot_of = hand_at[seats], slot_of[seats]
    player_at = hand_at[:, :P]
    out = np.zeros((B, L.size), np.float32)
    live = e.state.phase < Phase.OVER

    def rel(seat):
        return (np.asarray(seat).astype(np.int64) - seats) % P

    def one_hot(name, offset, valid=None):
        valid = np.ones(B, bool) if valid is None else valid
        out[rows[valid], col[name] + np.asarray(offset).astype(np.int64)[valid]] = 1.0

    one_hot("variant", np.full(B, ("four", "three", "two_dummy", "two").index(e.config.variant)))
    one_hot("leftover", e.state.leftover, e.state.leftover >= 0)
    one_hot("trump_suit", np.where(e.state.trump >= 0, e.state.trump, 4))
    one_hot("phase", np.minimum(e.state.phase, 3), live)
    one_hot("dealer", rel(e.state.dealer))
    bids = e.state.bids[rows[:, None], player_at].astype(np.int64)
    for j in range(P):
        one_hot("bids", j * 14 + bids[:, j], bids[:, j] >= 0)
    one_hot("declarer", rel(e.state.declarer), e.state.declarer >= 0)
    one_hot("target", e.state.target, e.state.target >= 0)
    trick = e.state.trick[rows[:, None], hand_at].astype(np.int64)
    for s in range(H):
        one_hot("trick", s * NUM_CARDS + trick[:, s], trick[:, s] >= 0)
    leader = e.state.leader.astype(np.int64)
    one_hot("trick_leader", slot_of[rows, np.maximum(leader, 0)], live & (leader >= 0))
    acting = np.where(e.state.phase == Phase.PLAY, slot_of[rows, np.maximum(e.state.to_play, 0)],
                      rel(np.maximum(e.current_player, 0)))
    one_hot("acting_hand", acting, live)
    if e.has_dummy:
        one_hot("dummy_control", rel(np.maximum(e.state.dummy_ctrl, 0)),
                live & (e.state.dummy_ctrl >= 0))
    out[:, L["hand"]] = e.state.hands()[rows, seats]
    if e.has_dummy:
        out[:, L["dummy_hand"]] = e.state.hands()[:, P]
    out[:, L["shown"]] = e.state.shown()
    out[:, col["shown_count"]] = e.state.num_shown / E
    played = e.state.played()[rows[:, None], hand_at]
    out[:, col["played"] : col["played"] + H * NUM_CARDS] = played.reshape(B, -1)
    out[:, col["tricks_won"] : col["tricks_won"] + H] = (
        e.state.tricks_won[rows[:, None], hand_at] / E)
    out[:, col["tricks_played"]] = e.state.tricks_done / E
    out[:, col["called"] : col["called"] + P] = e.state.called[rows[:, None], player_at]
    out[:, col["scores"] : col["scores"] + P] = (
        e.totals[rows[:, None], player_at] / e.config.target_points
    )
    out[:, col["pot"]] = e.pot / (10.0 * e.config.ante)
    if e.config.episode == "match":
        out[:, col["deal_number"]] = e.state.deals_done / e.config.deals_limit
    # voids: the public record's cards, by effective suit under the deal's trump (B3)
    suit_of = EFFECTIVE_SUIT[e.state.trump.astype(np.int64) + 1]  # [B, 53]
    known_out = e.state.voids()[rows[:, None], hand_at]  # [B, H, 53]
    for suit in range(4):
        in_suit = (suit_of == suit)[:, None, :]
        out[:, col["voids"] + suit : col["voids"] + 4 * H : 4] = (known_out & in_suit).any(2)
    return out


CONFIGS = [
    dict(variant="four"),
    dict(variant="four", call_mode="auto", raise_mode="add", raise_increment=3, ante=2),
    dict(variant="three", joker=False),
    dict(variant="two_dummy"),
    dict(variant="two_dummy", joker=False, call_mode="auto"),
    dict(variant="two"),
    dict(variant="four", episode="match", target_points=30),
    dict(variant="two_dummy", episode="match", target_points=40, reward="win"),
]


def assert_same(e: AbracadabraEngine, seats=None) -> None:
    got, want = e.observe(seats), reference_observe(e, seats)
    assert got.dtype == np.float32 and got.shape == want.shape and got.flags.c_contiguous
    bad = np.argwhere(got != want)
    if len(bad):
        b, j = bad[0]
        name = next(s.name for s in LAYOUT if s.start <= j < s.stop)
        raise AssertionError(f"game {b}, index {j} ({name}): got {got[b, j]}, "
                             f"want {want[b, j]} ({len(bad)} entries differ)")


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(map(str, o.values())))
def test_observation_equals_the_reference(options):
    cfg = AbracadabraConfig(**options)
    engine = AbracadabraEngine(cfg, 48)
    assert_same(engine)  # before the first reset: every game over
    engine.reset(seed=3)
    rng = np.random.default_rng(1)
    deals = 0
    for step in range(400):
        assert_same(engine)
        if step % 3 == 0:
            assert_same(engine, rng.integers(0, cfg.num_players, engine.batch_size))
        actions = np.argmax(rng.random((engine.batch_size, engine.num_actions))
                            * engine.legal_action_mask(), axis=1)
        engine.step(actions)
        deals += int(engine.deal_over.sum())
        if step % 50 == 49:  # let finished games sit a while, then auto-reset them
            engine.reset(games=engine.game_over)
    assert deals >= engine.batch_size  # every game got through a deal or more


def test_observe_returns_a_fresh_array():
    engine = AbracadabraEngine(AbracadabraConfig(), 4)
    engine.reset(seed=0)
    a = engine.observe()
    a[:] = 7.0
    assert (engine.observe() <= 1.0).all()


@pytest.mark.parametrize("variant", ["four", "three", "two_dummy", "two"])
def test_voids_are_the_suits_a_hand_did_not_follow(variant):
    """E2, B3: the observation's ``voids`` (per relative hand slot and effective suit) are
    exactly the suits led that the hand did not follow, tracked here from the play itself,
    not from the engine's record; the joker led without trump (a suit of its own) makes no
    void."""
    engine = AbracadabraEngine(AbracadabraConfig(variant=variant), 32)
    engine.reset(seed=5)
    P, H, B = engine.num_players, engine.num_hands, engine.batch_size
    rng = np.random.default_rng(2)
    void = np.zeros((B, H, 4), bool)  # by hand index, tracked from the play
    seen = 0
    for _ in range(400):
        st = engine.state
        seats = rng.integers(0, P, B)
        voids = engine.observe(seats)[:, LAYOUT["voids"]].reshape(B, 4, 4)
        for g in range(B):
            for slot in range(H):
                hand = (seats[g] + slot) % P if slot < P else slot
                np.testing.assert_array_equal(voids[g, slot], void[g, hand], f"game {g}")
            assert not voids[g, H:].any()
        mask = engine.legal_action_mask()
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        for g in np.flatnonzero(st.phase == Phase.PLAY):
            suit_of = EFFECTIVE_SUIT[st.trump[g] + 1]
            led = st.trick[g, st.leader[g]]
            card = actions[g] - PLAY_OFFSET
            if led >= 0 and suit_of[led] >= 0 and suit_of[card] != suit_of[led]:
                void[g, st.to_play[g], suit_of[led]] = True
        engine.step(actions)
        seen += int(void.sum())
        done = engine.game_over.copy()
        if done.any():
            engine.reset(games=done)
            void[done] = False
    assert seen > 0
