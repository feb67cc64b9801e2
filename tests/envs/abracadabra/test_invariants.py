"""Random playouts of the batch engine in every variant, checked against a plain,
independent reference written here game by game (docs/rules.md A–M).

Every step of every game: the engine's legal-action mask equals the reference's legal
actions, the seat to act agrees, cards are conserved (hands + played + leftover = deck).
Every finished deal: tricks sum to cards_each, points equal the reference's S1–S3
arithmetic, pot shares and carry equal S4/M2, and chips are conserved. Also: batch
independence (a batch equals batches of one), determinism and no leaks in observations.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.abracadabra import LAYOUT, AbracadabraConfig, AbracadabraEngine
from envs.cards import CARD_NAMES

#: batch size × resets per configuration below; RANDOM_DEALS is the total deals checked
BATCH = 128
RESETS = 2
CONFIGS = [
    dict(variant="four"),
    dict(variant="four", raise_mode="add", raise_increment=3, ante=2, reward="chips"),
    dict(variant="three"),
    dict(variant="three", joker=False, call_mode="auto", reward="relative"),
    dict(variant="two_dummy"),
    dict(variant="two_dummy", joker=False, reward="chips"),
    dict(variant="two"),
    dict(variant="two", joker=False, call_mode="auto"),
    dict(variant="three", episode="match", target_points=40, reward="chips"),
    dict(variant="two_dummy", episode="match", target_points=40, reward="win"),
]
#: deal-mode configurations play exactly BATCH × RESETS deals; match mode plays more
RANDOM_DEALS_AT_LEAST = len(CONFIGS) * BATCH * RESETS  # 2560; 4733 with the match deals

BONUS = {"four": (40, 30, 20, 10), "three": (30, 20, 10), "two_dummy": (20, 10),
         "two": (20, 10)}
# A3 bid-rank values from the card names: A = 1, 2..9, T = 10, J = 11, Q = 12, K = 13
VALUE = {n: "A23456789TJQK".index(n[0]) + 1 for n in CARD_NAMES[:52]}


class RefDeal:
    """One deal of Abracadabra, written plainly with sets and lists."""

    def __init__(self, cfg: AbracadabraConfig, hands, leftover: int, dealer: int, pot: int):
        self.cfg = cfg
        self.P, self.H, self.E = cfg.num_players, cfg.num_hands, cfg.cards_each
        self.hands = [set(h) for h in hands]
        self.trump = leftover // 13 if 0 <= leftover < 52 else None  # B2
        self.order = [(dealer + 1 + i) % self.P for i in range(self.P)]  # C1
        self.seat = self.order[0]
        self.phase = "bid"
        self.bids: dict[int, int] = {}
        self.pot_in = self.pot = pot
        self.stakes = [0] * self.P
        self.shown: set[int] = set()
        self.called = [False] * self.P
        self.trick: list[tuple[int, int]] = []
        self.won = [0] * self.H
        self.taken: list[list[int]] = [[] for _ in range(self.H)]
        self.ctrl = None
        self.to_play = None
        self.call_queue: list[int] = []
        self.done = False

    def suit(self, card: int):
        return self.trump if card == 52 else card // 13  # B3

    def controller(self, hand: int) -> int:
        return hand if hand < self.P else self.ctrl  # E4

    def legal(self) -> set[int]:
        if self.phase == "bid":
            return set(range(self.E + 1))
        if self.phase == "show":
            return {14 + c for c in self.hands[self.declarer] - self.shown} | {67}
        if self.phase == "call":
            return {121, 122}
        hand = self.hands[self.to_play]
        if self.trick:  # E2
            led = self.suit(self.trick[0][1])
            follow = {c for c in hand if self.suit(c) == led}
            hand = follow or hand
        return {68 + c for c in hand}

    def start_play(self):
        self.phase = "play"
        self.to_play = self.seat = self.ctrl = self.declarer

    def apply(self, a: int):
        cfg = self.cfg
        if self.phase == "bid":
            self.bids[self.seat] = a
            self.stakes[self.seat] += cfg.ante
            self.pot += cfg.ante
            if len(self.bids) < self.P:
                self.seat = (self.seat + 1) % self.P
                return
            self.target = max(self.bids.values())
            self.declarer = next(s for s in self.order if self.bids[s] == self.target)  # C3
            self.phase, self.seat = "show", self.declarer
        elif self.phase == "show":
            if a != 67:
                self.shown.add(a - 14)
                step = cfg.ante if cfg.raise_mode == "multiple" else cfg.raise_increment
                self.stakes[self.declarer] += step
                self.pot += step
            elif self.target == 0 and cfg.call_mode == "auto":
                self.called = [True] * self.P
                self.start_play()
            elif self.target == 0:
                self.phase = "call"
                self.call_queue = [(self.declarer + i) % self.P for i in range(self.P)]
                self.seat = self.call_queue[0]
            else:
                self.start_play()
        elif self.phase == "call":
            self.called[self.seat] = a == 121
            if self.call_queue:
                self.call_queue.pop(0)
                if self.call_queue:
                    self.seat = self.call_queue[0]
                else:
                    self.start_play()
            elif sum(self.won) == self.E:
                self.done = True
            else:
                self.phase = "play"
                self.seat = self.controller(self.to_play)
        else:
            card = a - 68
            self.hands[self.to_play].remove(card)
            self.shown.discard(card)
            self.trick.append((self.to_play, card))
            if len(self.trick) < self.H:
                self.to_play = (self.to_play + 1) % self.H
                self.seat = self.controller(self.to_play)
                return
            self.end_trick()

    def end_trick(self):
        led = self.suit(self.trick[0][1])

        def strength(card):  # E3
            if card == 52:
                return 300
            if self.trump is not None and card // 13 == self.trump:
                return 200 + card % 13
            return 100 + card % 13 if card // 13 == led else 0

        winner = max(self.trick, key=lambda hc: strength(hc[1]))[0]
        self.won[winner] += 1
        self.taken[winner] += [c for _, c in self.trick]
        if self.H > self.P:  # E4
            self.ctrl = winner if winner < self.P else 1 - self.ctrl
        self.trick = []
        self.to_play = winner
        self.seat = self.controller(winner)
        reached = winner < self.P and self.won[winner] == self.target
        if reached and self.cfg.call_mode == "auto":
            self.called[winner] = True
        elif reached:
            self.phase, self.seat = "call", winner
            return
        if sum(self.won) == self.E:
            self.done = True

    def score(self):
        """S1–S4: points per player, pot share per player, carry."""
        P, T = self.P, self.target
        hit = [self.called[s] and self.won[s] == T for s in range(P)]
        h = sum(hit)
        bonus = BONUS[self.cfg.variant][h - 1] if h else 0
        points = [
            (bonus if hit[s] else 0) + self.won[s]
            + 2 * sum(1 for c in self.taken[s] if c < 52 and VALUE[CARD_NAMES[c]] == T)
            for s in range(P)
        ]
        share = [self.pot / h if hit[s] else 0.0 for s in range(P)]
        return points, share, (0 if h else self.pot), hit


def ref_from(engine: AbracadabraEngine, g: int) -> RefDeal:
    hands = [engine.hand_cards(g, h) for h in range(engine.num_hands)]
    return RefDeal(engine.config, hands, int(engine.state.leftover[g]), int(engine.state.dealer[g]),
                   int(engine.pot[g]))


def check_cards_conserved(engine: AbracadabraEngine) -> None:
    held = engine.state.hands().sum(axis=1) + engine.state.played().sum(axis=1)  # [B, 53]
    lo = engine.state.leftover
    held[np.flatnonzero(lo >= 0), lo[lo >= 0]] += 1
    expected = np.zeros(53, int)
    np.add.at(expected, engine.deck, 1)
    live = ~engine.game_over | engine.deal_over
    assert (held[live] == expected).all(), "cards not conserved"


def play_and_check(options: dict, seed: int) -> int:
    cfg = AbracadabraConfig(**options)
    engine = AbracadabraEngine(cfg, BATCH)
    rng = np.random.default_rng(seed)
    P = cfg.num_players
    deals = 0
    for r in range(RESETS):
        engine.reset(seed=seed * 100 + r)
        refs = [ref_from(engine, g) for g in range(BATCH)]
        steps = 0
        while not engine.game_over.all():
            mask = engine.legal_action_mask()
            live = np.flatnonzero(~engine.game_over)
            for g in live:
                ref = refs[g]
                assert set(np.flatnonzero(mask[g]).tolist()) == ref.legal(), (g, ref.phase)
                assert engine.current_player[g] == ref.seat
            assert not mask[engine.game_over].any()
            if steps % 7 == 0:
                obs = engine.observe()
                seats = np.maximum(engine.current_player, 0)
                hand = obs[:, LAYOUT["hand"]].astype(bool)
                assert (hand == engine.state.hands()[np.arange(BATCH), seats]).all()
                assert obs.min() >= 0 and obs[:, LAYOUT["phase"]].sum(axis=1).max() <= 1
            actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
            rewards = engine.step(actions)
            steps += 1
            for g in live:
                refs[g].apply(int(actions[g]))
            check_cards_conserved(engine)
            for g in np.flatnonzero(engine.deal_over):
                deals += 1
                ref = refs[g]
                assert ref.done
                points, share, carry, hit = ref.score()
                res = engine.result(g)
                assert res["tricks"] == ref.won and sum(res["tricks"]) == cfg.cards_each
                assert res["points"] == points
                assert res["hitters"] == [s for s in range(P) if hit[s]]
                assert res["pot_share"] == pytest.approx(share) and res["carry"] == carry
                assert res["stakes"] == ref.stakes
                # chips in = chips out + carry (S4, M2)
                total_in = sum(ref.stakes) + ref.pot_in
                total_out = sum(res["pot_share"]) + sum(res["final_share"]) + engine.pot[g]
                assert total_in == pytest.approx(total_out)
                assert sum(res["chips"]) == pytest.approx(ref.pot_in - engine.pot[g])
                # points add up: tricks + 2 × matching cards + bonuses
                bonus = BONUS[cfg.variant][sum(hit) - 1] * sum(hit) if any(hit) else 0
                assert sum(points) == sum(ref.won[:P]) + bonus + 2 * sum(
                    1 for s in range(P) for c in ref.taken[s]
                    if c < 52 and VALUE[CARD_NAMES[c]] == ref.target)
                expected = {
                    "points": points,
                    "relative": [p - (sum(points) - p) / (P - 1) for p in points],
                    "chips": res["chips"],
                }.get(cfg.reward)
                if expected is not None:
                    assert rewards[g] == pytest.approx(expected)
                elif not engine.game_over[g]:
                    assert (rewards[g] == 0).all()
                else:
                    assert rewards[g].sum() == pytest.approx(0)
                    assert (rewards[g][engine.winners[g]] > 0).all() or engine.winners[g].all()
                if engine.game_over[g]:
                    totals = engine.totals[g]
                    assert (engine.winners[g] == (totals == totals.max())).all()
                    assert engine.pot[g] == 0
                else:
                    refs[g] = ref_from(engine, g)
            not_ended = ~engine.deal_over
            assert (rewards[not_ended] == 0).all()
    return deals


@pytest.mark.parametrize("options", CONFIGS, ids=lambda o: "-".join(map(str, o.values())))
def test_random_playouts_match_the_reference(options):
    deals = play_and_check(options, seed=len(str(options)))
    assert deals >= BATCH * RESETS


# -- batch independence -------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["four", "two_dummy"])
def test_batch_equals_batches_of_one(variant):
    cfg = AbracadabraConfig(variant=variant, episode="match", target_points=30)
    keys = np.arange(1, 7, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    batch = AbracadabraEngine(cfg, len(keys))
    batch.reset(game_seeds=keys)
    singles = [AbracadabraEngine(cfg, 1) for _ in keys]
    for single, key in zip(singles, keys, strict=True):
        single.reset(game_seeds=np.array([key]))
    rng = np.random.default_rng(0)
    for _ in range(400):
        mask = batch.legal_action_mask()
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        obs = batch.observe()
        rewards = batch.step(actions)
        for i, single in enumerate(singles):
            assert (single.legal_action_mask()[0] == mask[i]).all()
            assert (single.observe()[0] == obs[i]).all()
            if not single.game_over[0]:
                assert (single.step(actions[i : i + 1])[0] == rewards[i]).all()
    assert batch.deal_over.any() or (batch.state.deals_done > 0).any()


def test_auto_reset_of_some_games_keeps_the_others():
    engine = AbracadabraEngine(AbracadabraConfig(variant="two"), 4)
    engine.reset(seed=1)
    before = engine.snapshot()
    engine.reset(games=np.array([False, True, False, False]))
    after = engine.snapshot()
    for name in ("hands", "key", "dealer", "leftover"):
        assert (before[name][[0, 2, 3]] == after[name][[0, 2, 3]]).all()
    assert (before["key"][1] != after["key"][1])


# -- determinism --------------------------------------------------------------------------
def test_same_seed_same_deal_and_different_seed_different_deal():
    def deal(seed):
        engine = AbracadabraEngine(AbracadabraConfig(), 8)
        engine.reset(seed=seed)
        return engine.state.hands().copy(), engine.state.dealer.copy(), engine.state.leftover.copy()

    a, b, c = deal(5), deal(5), deal(6)
    assert all((x == y).all() for x, y in zip(a, b, strict=True))
    assert not (a[0] == c[0]).all()


def test_same_key_replays_the_same_deals_in_any_batch_position():
    """Tournaments rely on it: a game's k-th deal depends only on its key."""
    keys = np.array([7, 8, 9], dtype=np.uint64)
    e1 = AbracadabraEngine(AbracadabraConfig(variant="three"), 3)
    e1.reset(game_seeds=keys)
    e2 = AbracadabraEngine(AbracadabraConfig(variant="three"), 3)
    e2.reset(game_seeds=keys[::-1])
    assert (e1.state.hands() == e2.state.hands()[::-1]).all()
    assert (e1.state.dealer == e2.state.dealer[::-1]).all()


# -- no leaks -----------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["four", "three"])
def test_observation_does_not_depend_on_others_hidden_cards(variant):
    cfg = AbracadabraConfig(variant=variant)
    e1 = AbracadabraEngine(cfg, 1)
    e1.reset(seed=4)
    hands = [[CARD_NAMES[c] for c in e1.hand_cards(0, h)] for h in range(cfg.num_hands)]
    x, y = hands[1][0], hands[2][0]  # swap a card between seats 1 and 2
    swapped = [list(h) for h in hands]
    swapped[1][0], swapped[2][0] = y, x
    dealer = int(e1.state.dealer[0])
    e1.reset_with_deal(0, dealer, hands)
    e2 = AbracadabraEngine(cfg, 1)
    e2.reset_with_deal(0, dealer, swapped)
    rng = np.random.default_rng(0)
    hidden = {68 + CARD_NAMES.index(x), 68 + CARD_NAMES.index(y),
              14 + CARD_NAMES.index(x), 14 + CARD_NAMES.index(y)}
    compared = 0
    while True:
        assert (e1.observe(np.array([0])) == e2.observe(np.array([0]))).all()
        compared += 1
        common = set(np.flatnonzero(e1.legal_action_mask()[0] & e2.legal_action_mask()[0]))
        common -= hidden
        if not common or e1.game_over[0]:
            break
        a = rng.choice(sorted(common))
        e1.step(np.array([a]))
        e2.step(np.array([a]))
    assert compared > cfg.num_players  # at least the bidding and into the play
    assert not (e1.observe(np.array([1])) == e2.observe(np.array([1]))).all()  # sanity
