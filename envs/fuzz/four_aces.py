"""The Four Aces invariants of the fuzz: a vectorised reference of docs/rules.md G–K.

:class:`FourAcesChecker` keeps its own record of every game of an engine's batch: each
round's deal order (read once, when the round is dealt: the one input not in the record)
and then only the actions played. From it the reference deals the hands and tables (G3),
pre-fills the hands of seats dealt a joker (G4, G7), plays every turn (H2: a discard then
the fill to L, G6/G7; or a draw from the stock), ends the round (H3, H4) and scores it, and
after every step compares the engine with it:

- the legal-action mask equals the rules' (discard a card held, draw while the stock
  lasts; nothing once over) and the seat to act agrees (H1, H2);
- hands, tables, hand sizes, limits L, the discard pile and the stock position equal the
  reference's, and cards are conserved: hands + tables + discards + the stock are the 54
  cards (checked card by card on a sample of games every step);
- at every round's end: the points are the independent reading of K2/K3
  (:func:`~envs.fuzz.four_aces_scoring.reference_points`) of each player's
  hand + table (within the bounds of a round's points), or
  ``target_points`` to the player holding four aces (H4, K1); totals are the sum of round
  points, the match ends by K4 with the highest totals winning, rewards follow the
  config's ``reward``; the next round's dealer passes left in ``dealer="rotate"`` (G2).

A failed check raises :class:`~envs.fuzz.checks.InvariantViolation` naming the game.
"""

from __future__ import annotations

from itertools import cycle, product

import numpy as np

from envs.cards import JOKER, NUM_CARDS
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.rules import (
    ACES,
    DECK_SIZE,
    DRAW,
    FULL_DECK,
    MAX_ROUND_POINTS,
    MIN_ROUND_POINTS,
    NUM_ACTIONS,
)
from envs.fuzz.checks import expect, expect_equal
from envs.fuzz.four_aces_scoring import reference_points

DECK_COUNTS = np.bincount(FULL_DECK, minlength=NUM_CARDS)  #: 1 of each card, 2 jokers (G1)
#: games whose cards are counted one by one after each step (the rest: against the record)
SAMPLE = 256


class FourAcesChecker:
    """Reference bookkeeping of every game of ``engine`` (see module doc)."""

    def __init__(self, engine: FourAcesEngine):
        cfg = engine.config
        self.engine = engine
        self.cfg = cfg
        B, P = engine.batch_size, cfg.num_players
        self.B, self.P = B, P
        self.rng = np.random.default_rng(0)  # which games get the card-by-card count
        self.live = np.zeros(B, bool)  # a round is being played
        self.deal = np.zeros((B, DECK_SIZE), np.int64)
        self.top = np.zeros(B, np.int64)  # next stock card's position in the deal
        self.hand = np.zeros((B, P, NUM_CARDS), np.int64)
        self.table = np.zeros((B, P, NUM_CARDS), np.int64)
        self.size = np.zeros((B, P), np.int64)
        self.limit = np.zeros((B, P), np.int64)
        self.discards = np.zeros((B, NUM_CARDS), np.int64)
        self.last_discard = np.full(B, -1)
        self.four = np.full(B, -1)  # H4: the seat that reached four aces this round
        self.dealer = np.zeros(B, np.int64)
        self.seat = np.zeros(B, np.int64)
        self.totals = np.zeros((B, P), np.int64)
        self.rounds = np.zeros(B, np.int64)
        # the last finished round, as the rules have it
        self.points = np.zeros((B, P), np.int64)
        self.winner = np.full(B, -1)
        self.over = np.ones(B, bool)
        self.winners = np.zeros((B, P), bool)

    # ------------------------------------------------------------------------------------
    # starts: a new match, a new round (G2–G4, H1)
    # ------------------------------------------------------------------------------------
    def started(self, rows: np.ndarray) -> int:
        """Games ``rows`` were just reset; returns the rounds that ended at once (four
        aces while the deal's hands were filled, H4)."""
        self.totals[rows] = 0
        self.rounds[rows] = 0
        ended: list[np.ndarray] = []
        self._start_round(rows, np.zeros((self.B, self.P)), ended)
        done = np.concatenate([rows[:0], *ended])
        self._compare_results(np.unique(done))
        self._compare_live()
        return len(done)

    def _start_round(self, g: np.ndarray, rewards: np.ndarray, ended: list) -> None:
        """Deal the round the engine dealt in games ``g``: check the deal is the 54 cards
        and the dealer (G2), deal hands and tables (G3), pre-fill (G4, G7)."""
        s, P = self.engine.state, self.P
        deal = s.deal_order[g].astype(np.int64)
        counts = (deal[:, :, None] == np.arange(NUM_CARDS)).sum(axis=1)
        expect_equal(counts, DECK_COUNTS, "a round deals the 54 cards (G1, G3)", g)
        dealer = s.dealer[g].astype(np.int64)
        expect(((dealer >= 0) & (dealer < P)).all(), "the dealer is a seat (G2)", g)
        if self.cfg.dealer == "rotate":
            later = self.rounds[g] > 0
            expect_equal(dealer[later], (self.dealer[g[later]] + 1) % P,
                         "the deal passes left (G2, rotate)", g[later])
        n = len(g)
        self.deal[g] = deal
        self.dealer[g] = dealer
        self.hand[g] = 0
        self.table[g] = 0
        at = np.arange(n)[:, None]
        for seat in range(P):  # G3: 3 hand cards each, then 3 table cards each
            np.add.at(self.hand[:, seat], (g[at], deal[:, 3 * seat : 3 * seat + 3]), 1)
            t = 3 * P + 3 * seat
            np.add.at(self.table[:, seat], (g[at], deal[:, t : t + 3]), 1)
        self.size[g] = 3
        self.limit[g] = 3 + self.hand[g, :, JOKER]  # G7: a joker in hand raises L
        self.top[g] = 6 * P
        self.discards[g] = 0
        self.last_discard[g] = -1
        self.four[g] = -1
        self.live[g] = True
        # G4: seats dealt a joker fill to L, in seat order from the dealer's left
        for k in range(P):
            seat = (dealer + 1 + k) % P
            while True:
                short = ((self.size[g, seat] < self.limit[g, seat])
                         & (self.top[g] < DECK_SIZE) & (self.four[g] < 0))
                if not short.any():
                    break
                self._draw(g[short], seat[short])
        self.seat[g] = (dealer + 1) % P  # H1
        won = g[self.four[g] >= 0]
        if len(won):  # H4 during the fill: the round ends at once
            self._end_round(won, rewards, ended)

    def _draw(self, g: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """Each of ``seat`` takes its stock's top card into the hand; a joker raises L
        (G7), the fourth ace ends the round (H4). Returns bool: drew a joker."""
        c = self.deal[g, self.top[g]]
        self.top[g] += 1
        self.hand[g, seat, c] += 1
        self.size[g, seat] += 1
        joker = c == JOKER
        self.limit[g[joker], seat[joker]] += 1
        aces = (self.hand[g, seat][:, ACES] > 0).all(axis=1)
        self.four[g[aces]] = seat[aces]
        return joker

    # ------------------------------------------------------------------------------------
    # before a step
    # ------------------------------------------------------------------------------------
    def legal(self) -> np.ndarray:
        """bool [B, 54]: discard any card held, draw while the stock lasts (H2, H3)."""
        mask = np.zeros((self.B, NUM_ACTIONS), bool)
        g = np.flatnonzero(self.live)
        mask[g, :DRAW] = self.hand[g, self.seat[g]] > 0
        mask[g, DRAW] = self.top[g] < DECK_SIZE
        return mask

    def check_before(self, mask: np.ndarray) -> None:
        """The engine's ``mask`` (and seat to act) against the rules, before a step."""
        s, every = self.engine.state, np.arange(self.B)
        expect_equal(s.game_over, ~self.live, "the reference and the engine agree on "
                     "which games are over", every)
        expect_equal(mask, self.legal(), "the mask is the rules' legal actions (H2, H3)",
                     every)
        g = np.flatnonzero(self.live)
        expect_equal(s.current_player[g], self.seat[g], "the seat to act (H1, H2)", g)

    # ------------------------------------------------------------------------------------
    # after a step
    # ------------------------------------------------------------------------------------
    def after_step(self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray) -> int:
        """Apply the step's ``actions`` (where ``active``) to the record and check the
        engine; returns the number of rounds that ended."""
        g = np.flatnonzero(active & self.live)
        a = actions[g]
        seat = self.seat[g]
        want = np.zeros((self.B, self.P))
        # H2 a: discard, then fill to L (G6); a drawn joker raises L and draws again (G7)
        d, ds, c = g[a < DRAW], seat[a < DRAW], a[a < DRAW]
        self.hand[d, ds, c] -= 1
        self.size[d, ds] -= 1
        self._discard(d, c)
        go = np.ones(len(d), bool)
        while go.any():
            joker = self._draw(d[go], ds[go])
            go[np.flatnonzero(go)[~joker]] = False
            go &= (self.top[d] < DECK_SIZE) & (self.four[d] < 0)
        # H2 b: turn up the stock's top card; a joker goes to the hand instead (L + 1)
        t, ts = g[a == DRAW], seat[a == DRAW]
        c = self.deal[t, self.top[t]]
        self.top[t] += 1
        joker = c == JOKER
        tj, sj = t[joker], ts[joker]
        self.hand[tj, sj, JOKER] += 1
        self.size[tj, sj] += 1
        self.limit[tj, sj] += 1
        self._discard(t[~joker], c[~joker])
        # the end of the turn: four aces (H4) or the stock is empty (H3)
        ends = (self.four[g] >= 0) | (self.top[g] >= DECK_SIZE)
        self.seat[g[~ends]] = (seat[~ends] + 1) % self.P
        ended: list[np.ndarray] = []
        if ends.any():
            self._end_round(g[ends], want, ended)
        s = self.engine.state
        done = np.unique(np.concatenate([g[:0], *ended]))
        expect_equal(s.deal_over, np.isin(np.arange(self.B), done),
                     "deal_over marks exactly the rounds that ended", np.arange(self.B))
        expect(np.allclose(rewards, want.astype(np.float32), rtol=1e-6, atol=1e-6),
               f"rewards are the round's {self.cfg.reward}", np.arange(self.B))
        self._compare_results(done)
        self._compare_live()
        return len(np.concatenate([g[:0], *ended]))

    def _discard(self, g: np.ndarray, c: np.ndarray) -> None:
        self.discards[g, c] += 1
        self.last_discard[g] = c

    # ------------------------------------------------------------------------------------
    # the end of a round: K1–K4
    # ------------------------------------------------------------------------------------
    def _end_round(self, g: np.ndarray, rewards: np.ndarray, ended: list) -> None:
        cfg, P = self.cfg, self.P
        ended.append(g)
        scoring = self.hand[g, :, :JOKER] + self.table[g, :, :JOKER]  # K1, [n, P, 52]
        expect((scoring <= 1).all(), "scoring cards are distinct", g)
        all_aces = (scoring[:, :, ACES] > 0).all(axis=2)
        four = np.where((self.four[g] < 0) & all_aces.any(axis=1), all_aces.argmax(axis=1),
                        self.four[g])
        points = np.zeros((len(g), P), np.int64)
        for i in np.flatnonzero(four < 0):  # K2/K3 of each player's hand + table
            for seat in range(P):
                cards = np.flatnonzero(scoring[i, seat]).tolist()
                points[i, seat] = reference_points(tuple(cards), cfg.scoring == "strict")
        normal = four < 0
        expect(((points >= MIN_ROUND_POINTS) & (points <= MAX_ROUND_POINTS)).all(),
               "round points are within the bounds of a round (K2, K3)", g)
        won = np.flatnonzero(~normal)
        points[won, four[won]] = cfg.target_points  # H4/K1: four aces win the match
        self.totals[g] += points
        self.rounds[g] += 1
        totals = self.totals[g]
        if cfg.episode == "round":
            over, best = np.ones(len(g), bool), points
        else:  # K4
            over = (~normal | (totals.max(axis=1) >= cfg.target_points)
                    | (self.rounds[g] >= cfg.round_limit))
            best = totals
        winners = np.where(normal[:, None], best == best.max(axis=1, keepdims=True),
                           np.arange(P) == four[:, None]) & over[:, None]
        if cfg.reward == "points":
            rewards[g] += points
        elif cfg.reward == "relative":
            rewards[g] += points - (points.sum(axis=1, keepdims=True) - points) / (P - 1)
        else:  # win: zero-sum at match end
            w = winners.sum(axis=1, keepdims=True)
            share = np.where(winners, 1.0 / np.maximum(w, 1), -1.0 / np.maximum(P - w, 1))
            rewards[g] += np.where(over[:, None] & (w < P), share, 0.0)
        self.points[g] = points
        self.winner[g] = four
        self.over[g] = over
        self.winners[g] = winners
        self.live[g] = False
        nxt = g[~over]
        if len(nxt):  # match mode: the next round is dealt within the same step
            self._start_round(nxt, rewards, ended)

    # ------------------------------------------------------------------------------------
    # comparisons with the engine
    # ------------------------------------------------------------------------------------
    def _compare_results(self, g: np.ndarray) -> None:
        """Games ``g`` finished a round this step: the engine's result is the rules'."""
        if not len(g):
            return
        s = self.engine.state
        expect_equal(s.last_points[g], self.points[g],
                     "round points are the rules' reading of each hand + table (K2, K3), "
                     "or target_points on four aces (K1)", g)
        expect_equal(s.four_aces_winner[g], self.winner[g], "the four aces winner (H4, K1)", g)
        expect_equal(s.totals[g], self.totals[g], "totals are the sum of round points (K4)", g)
        expect_equal(s.rounds_played[g], self.rounds[g], "rounds played", g)
        expect_equal(s.game_over[g], ~self.live[g], "the episode ends by K4", g)
        expect_equal(s.match_over[g], self.over[g], "the match ends by K4", g)
        expect_equal(s.winners[g], self.winners[g], "the winners (K4)", g)
        done = g[~self.live[g]]
        expect_equal(s.current_player[done], -1, "nobody acts once the game is over", done)

    def _compare_live(self) -> None:
        """Every game in a round: its cards equal the record's, and are conserved."""
        s = self.engine.state
        g = np.flatnonzero(self.live)
        expect_equal(s.hand[g], self.hand[g], "hands (G3, G4, G6, G7, H2)", g)
        expect_equal(s.table[g], self.table[g], "tables (G3)", g)
        expect_equal(s.hand_size[g], self.size[g], "hand sizes", g)
        expect_equal(s.hand_limit[g], self.limit[g], "hand limits L (G7)", g)
        expect_equal(s.discard_counts[g], self.discards[g], "the discard pile (H2)", g)
        expect_equal(s.stock_top[g], self.top[g], "the stock (H2, G6)", g)
        top = s.discard[g, np.maximum(s.discard_size[g].astype(np.int64) - 1, 0)]
        top = np.where(s.discard_size[g] > 0, top, -1)
        expect_equal(top, self.last_discard[g], "the top of the discard pile (H2)", g)
        # card by card on a sample: hands + tables + discards + the stock are the 54 cards
        if len(g) > SAMPLE:
            g = np.sort(self.rng.choice(g, SAMPLE, replace=False))
        stock = np.where(np.arange(DECK_SIZE) >= s.stock_top[g, None].astype(np.int64),
                         s.deal_order[g].astype(np.int64), NUM_CARDS)
        in_stock = (stock[:, :, None] == np.arange(NUM_CARDS)).sum(axis=1)
        held = (s.hand[g].sum(axis=1, dtype=np.int64) + s.table[g].sum(axis=1, dtype=np.int64)
                + s.discard_counts[g] + in_stock)
        expect_equal(held, DECK_COUNTS, "cards are conserved: hands + tables + discards + "
                     "stock are the 54 cards (G1)", g)


# -- the configurations the fuzz plays (envs.fuzz.cases; this game's descriptor names it) --
#: match options: a short target, a round limit reached before the target, a long match
_MATCHES = [dict(target_points=20), dict(target_points=10**6, max_rounds=4),
            dict(target_points=60)]


def fuzz_options() -> list[dict]:
    """Every player count × scoring × dealer × episode (24 configurations), with
    ``reward`` and ``target_points`` cycling."""
    rewards = {"round": cycle(["points", "relative"]),
               "match": cycle(["points", "relative", "win"])}
    matches = cycle(_MATCHES)
    cases = []
    for players, scoring, dealer, episode in product(
        (3, 4, 5), ("strict", "free"), ("ace_of_spades", "rotate"), ("round", "match")
    ):
        options = dict(num_players=players, scoring=scoring, dealer=dealer, episode=episode,
                       reward=next(rewards[episode]))
        if episode == "match":
            options.update(next(matches))
        cases.append(options)
    return cases
