"""The Abracadabra invariants of the fuzz: a vectorised reference of docs/rules.md A–M.

:class:`AbracadabraChecker` keeps its own record of every game of an engine's batch: the
dealt hands (read once, at the start of each deal) and then only the actions played. From
that record it derives, with its own arithmetic, what the rules say must hold, and
compares it with the engine after every step:

- the legal-action mask equals the rules' legal actions (C1, D1, E2, F1) and the seat to
  act agrees (C1, C3, E1, E4, F1);
- cards are conserved: hands + cards played + the leftover are the deck, each card once
  (B2); the engine's hands equal the reference's, and hold no card of their public void
  record (E2);
- at every deal's end: tricks (E3) sum to cards_each, points are S1–S3 recomputed from
  the record, stakes are C2/D2, the pot share and carry are S4, the match's final share
  M2, chips of the deal sum to the pot that came in minus the pot carried out (chips are
  conserved, and over an episode they sum to zero), totals are the sum of deal points
  (M1), the episode ends by M1/M3 with the highest totals winning, rewards follow the
  config's ``reward``;
- the next deal passes the deal left (B1) and carries the pot (S4).

A failed check raises :class:`~envs.fuzz.checks.InvariantViolation` naming the game.
"""

from __future__ import annotations

from itertools import cycle, product

import numpy as np

from envs.abracadabra.config import MAX_STAKE_UNIT
from envs.abracadabra.engine import AbracadabraEngine
from envs.abracadabra.rules import CALL, NO_CALL, NUM_ACTIONS, PLAY_OFFSET, SHOW_OFFSET, STOP
from envs.abracadabra.state import unpack_cards
from envs.cards import CARD_NAMES, JOKER, NUM_CARDS
from envs.fuzz.checks import close, expect, expect_equal

# the reference's phases (the engine's Phase values for the first four)
BID, SHOW, CALLING, PLAY, DONE = 0, 1, 2, 3, 4

#: A3 bid-rank value of each card from its name: A = 1, 2..9, T = 10, J = 11, Q = 12,
#: K = 13; the joker has none (-1)
VALUE = np.array(["A23456789TJQK".index(n[0]) + 1 for n in CARD_NAMES[:JOKER]] + [-1])
#: the suit of each card when trumps are suit t (row t + 1; row 0: no trump): the joker
#: belongs to the trump suit (B3), -1 without one
SUIT = np.array([[c // 13 for c in range(JOKER)] + [t] for t in range(-1, 4)])


class AbracadabraChecker:
    """Reference bookkeeping of every game of ``engine`` (see module doc)."""

    def __init__(self, engine: AbracadabraEngine):
        cfg = engine.config
        self.engine = engine
        self.cfg = cfg
        B, P, H, E = engine.batch_size, cfg.num_players, cfg.num_hands, cfg.cards_each
        self.B, self.P, self.H, self.E = B, P, H, E
        self.deck_counts = np.bincount(cfg.deck, minlength=NUM_CARDS)
        self.ante = cfg.ante
        self.raise_ = cfg.ante if cfg.raise_mode == "multiple" else cfg.raise_increment  # D2
        self.bonus = np.array((0, *cfg.bonus), np.int64)  # S1, by number of hitters
        self.auto = cfg.call_mode == "auto"
        self.limit = cfg.deals_limit
        # -- the reference record of each game ------------------------------------------
        self.phase = np.full(B, DONE)
        self.hands = np.zeros((B, H, NUM_CARDS), bool)
        self.shown = np.zeros((B, NUM_CARDS), bool)
        self.trump = np.full(B, -1)
        self.dealer = np.zeros(B, np.int64)
        self.seat = np.zeros(B, np.int64)  # the seat to act
        self.bids = np.full((B, P), -1)
        self.num_bids = np.zeros(B, np.int64)
        self.target = np.full(B, -1)
        self.declarer = np.full(B, -1)
        self.stakes = np.zeros((B, P), np.int64)
        self.pot_in = np.zeros(B, np.int64)  # the pot when the deal began
        self.pot = np.zeros(B, np.int64)
        self.trick = np.full((B, H), -1)
        self.trick_len = np.zeros(B, np.int64)
        self.leader = np.zeros(B, np.int64)
        self.to_play = np.zeros(B, np.int64)
        self.ctrl = np.zeros(B, np.int64)  # the seat playing the dummy (E4)
        self.won = np.zeros((B, H), np.int64)
        self.rank_taken = np.zeros((B, H), np.int64)  # taken cards of value T (S3)
        self.tricks_done = np.zeros(B, np.int64)
        self.called = np.zeros((B, P), bool)
        self.totals = np.zeros((B, P), np.int64)
        self.deals = np.zeros(B, np.int64)
        self.episode_chips = np.zeros(B)  # net chips of the episode so far
        self.max_pot = np.zeros(B)  # for the float tolerance of chip sums

    # ------------------------------------------------------------------------------------
    # starts
    # ------------------------------------------------------------------------------------
    def started(self, rows: np.ndarray) -> int:
        """Games ``rows`` were just reset: a fresh episode, its first deal dealt. Returns
        the deals that ended at once (none in Abracadabra)."""
        s = self.engine.state
        expect_equal(s.game_over[rows], False, "a reset game is not over", rows)
        expect_equal(s.pot[rows], 0, "the pot of a new episode is empty", rows)
        expect_equal(s.totals[rows], 0, "totals of a new episode are 0 (M1)", rows)
        expect_equal(s.deals_done[rows], 0, "a new episode has no deal done", rows)
        expect_equal(s.has_result[rows], False, "a new episode has no result", rows)
        self.totals[rows] = 0
        self.deals[rows] = 0
        self.episode_chips[rows] = 0.0
        self.max_pot[rows] = 0.0
        self._start_deal(rows, pot=np.zeros(len(rows), np.int64), dealer=None)
        return 0

    def _start_deal(self, rows: np.ndarray, pot: np.ndarray, dealer: np.ndarray | None) -> None:
        """A deal was dealt in ``rows``: read the cards (the one input not in the record),
        check the deal (B1, B2) and open the bidding (C1)."""
        s, P, E = self.engine.state, self.P, self.E
        hands = unpack_cards(s.hand_bits[rows])  # [n, H, 53]
        leftover = s.leftover[rows].astype(np.int64)
        expect_equal(hands.sum(axis=2), E, f"every hand is dealt {E} cards (B2)", rows)
        held = hands.sum(axis=1).astype(np.int64)
        has = leftover >= 0
        held[np.flatnonzero(has), leftover[has]] += 1
        expect_equal(held, self.deck_counts, "hands + leftover are the deck (B2)", rows)
        trump = np.where(has & (leftover != JOKER), leftover // 13, -1)
        expect_equal(s.trump[rows], trump, "trump is the leftover's suit (B2)", rows)
        expect_equal(s.played_bits[rows], 0, "nothing is played before the bidding", rows)
        if dealer is not None:
            expect_equal(s.dealer[rows], dealer, "the deal passes left (B1)", rows)
        dealer = s.dealer[rows].astype(np.int64)
        expect(((dealer >= 0) & (dealer < P)).all(), "the dealer is a seat (B1)", rows)
        expect_equal(s.pot[rows], pot, "the pot carries over (S4)", rows)
        self.hands[rows] = hands
        self.shown[rows] = False
        self.trump[rows] = trump
        self.dealer[rows] = dealer
        self.phase[rows] = BID
        self.seat[rows] = (dealer + 1) % P  # C1
        self.bids[rows] = -1
        self.num_bids[rows] = 0
        self.target[rows] = -1
        self.declarer[rows] = -1
        self.stakes[rows] = 0
        self.pot_in[rows] = pot
        self.pot[rows] = pot
        self.trick[rows] = -1
        self.trick_len[rows] = 0
        self.won[rows] = 0
        self.rank_taken[rows] = 0
        self.tricks_done[rows] = 0
        self.called[rows] = False

    # ------------------------------------------------------------------------------------
    # before a step: the legal actions
    # ------------------------------------------------------------------------------------
    def legal(self) -> np.ndarray:
        """bool [B, 123]: the rules' legal actions of every game (none where done)."""
        B, E = self.B, self.E
        mask = np.zeros((B, NUM_ACTIONS), bool)
        mask[self.phase == BID, : E + 1] = True  # C1: bid 0..cards_each
        g = np.flatnonzero(self.phase == SHOW)  # D1: a held card not yet shown, or stop
        held = self.hands[g, self.declarer[g]] & ~self.shown[g]
        mask[g, SHOW_OFFSET : SHOW_OFFSET + NUM_CARDS] = held
        mask[g, STOP] = True
        g = np.flatnonzero(self.phase == CALLING)  # F1
        mask[g, CALL] = True
        mask[g, NO_CALL] = True
        g = np.flatnonzero(self.phase == PLAY)  # E2: follow the suit led if able
        hand = self.hands[g, self.to_play[g]]
        suits = SUIT[self.trump[g] + 1]  # [n, 53]
        leading = self.trick_len[g] == 0
        led = suits[np.arange(len(g)), np.maximum(self.trick[g, self.leader[g]], 0)]
        follow = hand & (suits == led[:, None]) & ~leading[:, None]
        free = ~follow.any(axis=1)
        mask[g, PLAY_OFFSET : PLAY_OFFSET + NUM_CARDS] = np.where(free[:, None], hand, follow)
        return mask

    def check_before(self, mask: np.ndarray) -> None:
        """The engine's ``mask`` (and seat to act) against the rules, before a step."""
        s = self.engine.state
        live = self.phase != DONE
        expect_equal(s.game_over, ~live, "the reference and the engine agree on which "
                     "games are over", np.arange(self.B))
        expect_equal(mask, self.legal(), "the mask is the rules' legal actions (C1, D1, "
                     "E2, F1)", np.arange(self.B))
        g = np.flatnonzero(live)
        expect_equal(s.current_player[g], self.seat[g], "the seat to act (C1, C3, E1, E4, "
                     "F1)", g)
        expect_equal(s.phase[g], self.phase[g], "the phase", g)

    # ------------------------------------------------------------------------------------
    # after a step: apply the actions to the record, then compare
    # ------------------------------------------------------------------------------------
    def after_step(self, actions: np.ndarray, active: np.ndarray, rewards: np.ndarray) -> int:
        """Apply the step's ``actions`` (where ``active``) to the record and check the
        engine; returns the number of deals that ended."""
        acting = active & (self.phase != DONE)
        before = self.phase.copy()
        for ph, apply in ((BID, self._bid), (SHOW, self._show), (CALLING, self._call),
                          (PLAY, self._play)):
            g = np.flatnonzero(acting & (before == ph))
            if len(g):
                apply(g, actions[g])
        s = self.engine.state
        ended = np.flatnonzero(acting & (self.phase == DONE))
        expect_equal(s.deal_over, np.isin(np.arange(self.B), ended),
                     "deal_over marks exactly the deals that ended", np.arange(self.B))
        quiet = np.flatnonzero(~s.deal_over)
        expect_equal(rewards[quiet], 0.0, "no reward without a deal's end", quiet)
        if len(ended):
            self._finish(ended, rewards)
        self._check_cards()
        return len(ended)

    def _bid(self, g: np.ndarray, a: np.ndarray) -> None:
        """C1–C3."""
        P = self.P
        seat = self.seat[g]
        self.bids[g, seat] = a
        self.stakes[g, seat] += self.ante  # C2
        self.pot[g] += self.ante
        self.num_bids[g] += 1
        self.seat[g] = (seat + 1) % P
        done = g[self.num_bids[g] == P]
        if len(done):  # C3: the highest bid, ties to the earliest bidder
            order = (self.dealer[done, None] + 1 + np.arange(P)) % P
            in_order = self.bids[done[:, None], order]
            target = in_order.max(axis=1)
            first = np.argmax(in_order == target[:, None], axis=1)
            declarer = order[np.arange(len(done)), first]
            self.target[done] = target
            self.declarer[done] = declarer
            self.phase[done] = SHOW
            self.seat[done] = declarer

    def _show(self, g: np.ndarray, a: np.ndarray) -> None:
        """D1–D2, and F1 for T = 0."""
        show = a != STOP
        sg = g[show]
        self.shown[sg, a[show] - SHOW_OFFSET] = True
        self.stakes[sg, self.declarer[sg]] += self.raise_  # D2
        self.pot[sg] += self.raise_
        stop = g[~show]
        zero = self.target[stop] == 0
        if self.auto:  # F1 auto: with T = 0 every bidding player says it
            self.called[stop[zero]] = True
            self._start_play(stop)
        else:
            self._start_play(stop[~zero])
            c = stop[zero]  # F1: calls before the first lead, from the declarer
            self.phase[c] = CALLING
            self.seat[c] = self.declarer[c]

    def _start_play(self, g: np.ndarray) -> None:
        """E1: the declarer leads; E4: and plays the dummy's first card."""
        d = self.declarer[g]
        self.phase[g] = PLAY
        self.leader[g] = d
        self.to_play[g] = d
        self.ctrl[g] = d
        self.seat[g] = d

    def _controller(self, g: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """E4: the dummy's card is chosen by the seat controlling it."""
        return np.where(hand < self.P, hand, self.ctrl[g])

    def _call(self, g: np.ndarray, a: np.ndarray) -> None:
        """F1: the decision; before the first lead the next bidding player decides."""
        seat = self.seat[g]
        self.called[g, seat] = a == CALL
        pre = self.tricks_done[g] == 0
        pg = g[pre]
        nxt = (seat[pre] + 1) % self.P
        back = nxt == self.declarer[pg]
        self.seat[pg[~back]] = nxt[~back]
        self._start_play(pg[back])
        post = g[~pre]
        last = self.tricks_done[post] == self.E
        self.phase[post[last]] = DONE
        on = post[~last]
        self.phase[on] = PLAY
        self.seat[on] = self._controller(on, self.to_play[on])

    def _play(self, g: np.ndarray, a: np.ndarray) -> None:
        """E1–E4."""
        card = a - PLAY_OFFSET
        hand = self.to_play[g]
        self.hands[g, hand, card] = False
        self.shown[g, card] = False  # a shown card is face up until played (D1)
        self.trick[g, hand] = card
        self.trick_len[g] += 1
        full = self.trick_len[g] == self.H
        on = g[~full]
        nxt = (self.to_play[on] + 1) % self.H  # E1: clockwise
        self.to_play[on] = nxt
        self.seat[on] = self._controller(on, nxt)
        if full.any():
            self._end_trick(g[full])

    def _end_trick(self, g: np.ndarray) -> None:
        """E3: the joker, else the highest trump, else the highest card of the suit led;
        F1: a player who just took his T-th trick may call."""
        n = np.arange(len(g))
        cards = self.trick[g]  # [n, H]
        suits = SUIT[self.trump[g] + 1]
        led = suits[n, self.trick[g, self.leader[g]]]
        suit = np.take_along_axis(suits, cards, axis=1)
        rank = cards % 13
        strength = np.where(suit == led[:, None], 100 + rank, 0)
        strength = np.where((suit == self.trump[g, None]) & (self.trump[g, None] >= 0),
                            200 + rank, strength)
        strength = np.where(cards == JOKER, 300, strength)
        winner = strength.argmax(axis=1)
        self.won[g, winner] += 1
        target = self.target[g]
        self.rank_taken[g, winner] += (VALUE[cards] == target[:, None]).sum(axis=1)
        self.tricks_done[g] += 1
        if self.H > self.P:  # E4: the seat that did not control the dummy takes it over
            self.ctrl[g] = np.where(winner < self.P, winner, (self.ctrl[g] + 1) % self.P)
        self.trick[g] = -1
        self.trick_len[g] = 0
        self.leader[g] = winner
        self.to_play[g] = winner
        self.seat[g] = self._controller(g, winner)
        reached = (winner < self.P) & (self.won[g, np.minimum(winner, self.P - 1)] == target)
        last = self.tricks_done[g] == self.E
        if self.auto:
            self.called[g[reached], winner[reached]] = True
            self.phase[g[last]] = DONE
        else:
            c = g[reached]
            self.phase[c] = CALLING
            self.seat[c] = winner[reached]
            self.phase[g[last & ~reached]] = DONE

    # ------------------------------------------------------------------------------------
    # the end of a deal: S1–S4, M1–M3, rewards
    # ------------------------------------------------------------------------------------
    def _finish(self, d: np.ndarray, rewards: np.ndarray) -> None:
        s, P, cfg = self.engine.state, self.P, self.cfg
        won, T = self.won[d, :P], self.target[d]
        expect_equal(self.won[d].sum(axis=1), self.E, "tricks sum to cards_each (E3)", d)
        hit = self.called[d] & (won == T[:, None])  # F2
        h = hit.sum(axis=1)
        points = hit * self.bonus[h][:, None] + won + 2 * self.rank_taken[d, :P]  # S1–S3
        pot = self.pot[d]
        share = np.where(hit, (pot / np.maximum(h, 1))[:, None], 0.0)  # S4
        carry = np.where(h > 0, 0, pot)
        expect_equal(s.last_tricks[d], self.won[d], "tricks of the deal (E3)", d)
        expect_equal(s.last_target[d], T, "the target (C3)", d)
        expect_equal(s.last_declarer[d], self.declarer[d], "the declarer (C3)", d)
        expect_equal(s.last_called[d], self.called[d], "who said Abracadabra (F1)", d)
        expect_equal(s.last_hitters[d], hit, "the hitters (F2)", d)
        expect_equal(s.last_points[d], points, "points recomputed by S1–S3", d)
        expect_equal(s.last_stakes[d], self.stakes[d], "stakes (C2, D2)", d)
        expect(close(s.last_share[d], share, pot), "pot shares (S4)", d)
        expect_equal(s.last_carry[d], carry, "the carry-over (S4)", d)
        self.totals[d] += points
        self.deals[d] += 1
        expect_equal(s.totals[d], self.totals[d], "totals are the sum of deal points (M1)", d)
        expect_equal(s.deals_done[d], self.deals[d], "deals done", d)
        best = self.totals[d].max(axis=1)
        if cfg.episode == "deal":
            over = np.ones(len(d), bool)
        else:
            over = (best >= cfg.target_points) | (self.deals[d] >= self.limit)  # M1, M3
        expect_equal(s.game_over[d], over, "the episode ends by M1/M3", d)
        winners = (self.totals[d] == best[:, None]) & over[:, None]
        expect_equal(s.winners[d], winners, "the highest totals win (M1)", d)
        w = winners.sum(axis=1)
        final = np.where(winners, (carry / np.maximum(w, 1))[:, None], 0.0)  # M2
        pot_out = np.where(over, 0, carry)
        expect(close(s.last_final_share[d], final, pot), "the final share (M2)", d)
        chips = share + final - self.stakes[d]
        expect(close(s.last_chips[d], chips, pot), "chips of the deal", d)
        self.max_pot[d] = np.maximum(self.max_pot[d], pot)
        scale = self.max_pot[d] * (self.deals[d] + 1)
        expect(close(chips.sum(axis=1), self.pot_in[d] - pot_out, scale),
               "chips of a deal sum to the pot in minus the pot carried out (S4)", d)
        self.episode_chips[d] += chips.sum(axis=1)
        done = d[over]
        expect(close(self.episode_chips[done], 0.0, scale[over]),
               "chips of an episode sum to zero", done)
        self._check_rewards(d, rewards[d], points, chips, winners, over)
        # the episode is over, or the next deal is dealt (B1) with the pot carried (S4)
        expect_equal(s.current_player[done], -1, "nobody acts once the episode is over", done)
        nxt = d[~over]
        if len(nxt):
            self._start_deal(nxt, pot=carry[~over], dealer=(self.dealer[nxt] + 1) % P)

    def _check_rewards(self, d: np.ndarray, got: np.ndarray, points: np.ndarray,
                       chips: np.ndarray, winners: np.ndarray, over: np.ndarray) -> None:
        P, kind = self.P, self.cfg.reward
        if kind == "points":
            want = points
        elif kind == "relative":
            want = points - (points.sum(axis=1, keepdims=True) - points) / (P - 1)
        elif kind == "chips":
            want = chips
        else:  # win: +1/w to each winner, -1/(P-w) to each loser at the end; 0 if all win
            w = winners.sum(axis=1, keepdims=True)
            want = np.where(winners, 1.0 / np.maximum(w, 1), -1.0 / np.maximum(P - w, 1))
            want = np.where(over[:, None] & (w < P), want, 0.0)
        expect(np.allclose(got, want.astype(np.float32), rtol=1e-6, atol=1e-6),
               f"rewards are the deal's {kind}", d)

    # ------------------------------------------------------------------------------------
    # every step: cards conserved, the engine's hands equal the record's
    # ------------------------------------------------------------------------------------
    def _check_cards(self) -> None:
        s = self.engine.state
        g = np.flatnonzero(self.phase != DONE)
        hands = unpack_cards(s.hand_bits[g])
        expect_equal(hands, self.hands[g], "hands are the dealt cards minus those played", g)
        played = unpack_cards(s.played_bits[g])
        held = hands.sum(axis=1, dtype=np.int64) + played.sum(axis=1, dtype=np.int64)
        leftover = s.leftover[g].astype(np.int64)
        has = leftover >= 0
        held[np.flatnonzero(has), leftover[has]] += 1
        expect_equal(held, self.deck_counts, "cards are conserved: hands + played + "
                     "leftover are the deck (B2, E1)", g)
        expect_equal(s.hand_bits[g] & s.void_bits[g], 0, "no hand holds a card of its "
                     "public void record (E2)", g)


# -- the configurations the fuzz plays (envs.fuzz.cases; this game's descriptor names it) --
#: (variant, joker) pairs: the joker is always used in ``four`` (A1)
_DECKS = [("four", True), ("three", True), ("three", False), ("two_dummy", True),
          ("two_dummy", False), ("two", True), ("two", False)]
#: (ante, raise_increment): the smallest, a small odd pair and the largest allowed
_STAKES = [(1, 1), (3, 2), (MAX_STAKE_UNIT, MAX_STAKE_UNIT)]
#: match options: a short target, a deal limit reached before the target (M3), and long
#: matches with a pot carried over many deals
_MATCHES = [dict(target_points=40), dict(target_points=1000, max_deals=3),
            dict(target_points=10**6, max_deals=60)]


def fuzz_options() -> list[dict]:
    """Every variant × joker × call_mode × raise_mode × episode (56 configurations), with
    ``reward``, ``ante`` and ``raise_increment`` cycling through their kinds and extremes
    (the largest stakes of the config's ranges among them, so that the worst-case sums are
    played)."""
    rewards = {"deal": cycle(["points", "relative", "chips"]),
               "match": cycle(["points", "relative", "chips", "win"])}
    stakes, matches = cycle(_STAKES), cycle(_MATCHES)
    cases = []
    for (variant, joker), call, raise_mode, episode in product(
        _DECKS, ("manual", "auto"), ("multiple", "add"), ("deal", "match")
    ):
        ante, increment = next(stakes)
        options = dict(variant=variant, joker=joker, call_mode=call, raise_mode=raise_mode,
                       episode=episode, reward=next(rewards[episode]), ante=ante,
                       raise_increment=increment)
        if episode == "match":
            options.update(next(matches))
        cases.append(options)
    return cases
