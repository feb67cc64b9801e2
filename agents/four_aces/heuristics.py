"""Four Aces heuristics: a greedy and a look-ahead discarder (RULES.md G–K).

Both value a set of scoring cards (own hand + own table, K1) by its K2/K3 score, except
that all four aces are worth the match (H4/K1: scored as ``target_points``, 20 by
default), and both add a small premium for kept aces while the missing ones are still out
(two aces +0.3, three aces +1.5) — an ace is never thrown away lightly.

``greedy``
    For each card in the hand: the exact expected value of the hand after discarding it
    and refilling one card from the unseen cards (deck minus own hand, every table and
    the discard pile; the refill is a uniform draw from them, G6), versus turning up the
    stock card (H2 b), which keeps the hand (plus the chance that a joker raises L, G7).
    Takes the best. One step deep: it values the open slot by what one draw brings.

``lookahead`` (alias ``heuristic``)
    A two-step expectimax on sampled cards: for each option it draws ``samples`` refills
    (common random numbers across options) and, when the player will have another turn
    before the stock runs out (H3), assumes he then plays the best of {keep, each
    discard} judged on ``inner`` further sampled refills. So it sees that a card which
    makes a pair now may block a run that the next draw completes.

Both work on whole batches: every card set they value differs from the player's hand and
table by one or two cards, so it is built as a 52-bit mask from the row's own set and
scored by table lookup (:mod:`agents.four_aces.set_scores`). Both work out each row in
compiled loops (:mod:`agents.four_aces.greedy_kernel`,
:mod:`agents.four_aces.lookahead_kernel`); the look-ahead discarder's random keys are drawn
there too, from the agent's generator (:mod:`agents.pcg64`).
"""

from __future__ import annotations

import numpy as np

from agents import pcg64
from agents.base import Agent
from agents.four_aces import greedy_kernel
from agents.four_aces import lookahead_kernel as kernel
from agents.four_aces.lookahead_kernel import NO_OPTION
from agents.four_aces.set_scores import score_table_for
from agents.four_aces.view import FourAcesView
from envs.cards import JOKER, NUM_CARDS
from envs.four_aces.rules import DRAW, MAX_HAND

_NEG = NO_OPTION


class _FourAcesAgent(Agent):
    """Shared plumbing: options are the hand slots (discard) and the turn-up."""

    summary = ""
    #: value of all four aces (H4/K1: the match; scored as the default target_points)
    four_aces_value = 20.0

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, dtype=bool)
        s = FourAcesView(observations)
        values = self.option_values(s)  # [N, MAX_HAND + 1]: hand slots, then turn-up
        legal = np.zeros_like(values, dtype=bool)
        present = s.hand >= 0
        rows = np.arange(s.n)[:, None]
        legal[:, :MAX_HAND] = present & masks[rows, np.maximum(s.hand, 0)]
        legal[:, MAX_HAND] = masks[:, DRAW]
        best = np.where(legal, values, _NEG).argmax(axis=1)
        card = s.hand[np.arange(s.n), np.minimum(best, MAX_HAND - 1)]
        out = np.where(best == MAX_HAND, DRAW, card).astype(np.int64)
        bad = ~legal.any(axis=1) | ~masks[np.arange(s.n), np.maximum(out, 0)]
        if bad.any():  # never illegal: fall back to the first legal action
            out[bad] = masks[bad].argmax(axis=1)
        return out

    def option_values(self, s: FourAcesView) -> np.ndarray:
        """float [N, MAX_HAND + 1]: the value of discarding each hand slot's card, then of
        turning up (H2); slots without a card carry no meaning."""
        raise NotImplementedError


class GreedyDiscarder(_FourAcesAgent):
    """One step deep, exact: each discard's expected value after one uniform refill from
    the unseen cards, against turning up the stock card (hand kept). See module doc; each
    row is worked out by the compiled kernels of :mod:`agents.four_aces.greedy_kernel`."""

    summary = "greedy: exact expected K3 value after one refill vs turning up; keeps aces"

    def option_values(self, s: FourAcesView) -> np.ndarray:
        """Values of discarding each slot (0 for empty slots) and of turning up (H2)."""
        # the table of small sets pays from a few hundred rows on (~ 52 sets per slot)
        slots = int((s.hand >= 0).sum(axis=1).max(initial=0))
        by_set = score_table_for(s.n * slots * JOKER)
        return greedy_kernel.option_values(
            np.ascontiguousarray(s.hand, dtype=np.int64),
            np.ascontiguousarray(s.table, dtype=np.int64),
            np.ascontiguousarray(s.pool, dtype=np.int64),
            np.ascontiguousarray(s.aces_out, dtype=np.int64),
            np.ascontiguousarray(s.joker_chance, dtype=np.float64),
            float(self.four_aces_value),
            kernel.score_tables(by_set),
        )


class LookaheadDiscarder(_FourAcesAgent):
    """Two-step sampled expectimax over the unseen cards (see module doc); each row is
    worked out by the compiled kernels of :mod:`agents.four_aces.lookahead_kernel`."""

    summary = "look-ahead: samples unseen cards, two-step expectimax on discards/turn-up"

    def __init__(self, game: str, seed: int | None = None, samples: int = 12, inner: int = 4,
                 fixed_draws: bool = False):
        """``fixed_draws``: every row draws the same numbers, the first of ``seed``'s
        stream, at every call, so a row's option values depend on that row alone (not on
        the batch around it or on earlier calls): the policy input ``four_aces_lookahead``
        (:mod:`agents.four_aces.features`). Otherwise the agent's generator steps on."""
        super().__init__(game, seed)
        self.samples = int(samples)
        self.inner = int(inner)
        if self.samples < 1 or self.inner < 1:
            raise ValueError(f"samples={samples}, inner={inner}: expected both >= 1")
        self.fixed_words = pcg64.state_words(self.rng) if fixed_draws else None

    def _sampled_cards(self, s: FourAcesView) -> np.ndarray:
        """int64 [N, S, M + 1]: the sampled refills, per sample the card drawn first and
        the ``inner`` cards drawn after it, without replacement from the unseen cards (a
        row with fewer unseen cards repeats its first draw). Every card gets a uniform
        random key per sample (``rng.random((N, S, 53))``, drawn in the kernel); the
        draws are the unseen cards in key order."""
        pool = np.ascontiguousarray(s.pool, dtype=np.int64)
        if self.fixed_words is not None:
            return kernel.sample_draws(self.fixed_words, pool, self.samples, self.inner + 1,
                                       True)
        words = pcg64.state_words(self.rng)
        if words is None:  # not numpy's default bit generator: its own numbers
            keys = self.rng.random((s.n, self.samples, NUM_CARDS))
            return kernel.pick_draws(keys, pool, self.inner + 1)
        cards = kernel.sample_draws(words, pool, self.samples, self.inner + 1, False)
        pcg64.store_words(self.rng, words)
        return cards

    def option_values(self, s: FourAcesView) -> np.ndarray:
        """Values of discarding each slot (``_NEG`` for empty slots) and of turning up."""
        cards = self._sampled_cards(s)
        # the table of small sets pays from a few hundred rows on (~ S (M + 1) K sets each)
        by_set = score_table_for(s.n * self.samples * (self.inner + 1) * MAX_HAND)
        return kernel.option_values(
            np.ascontiguousarray(s.hand, dtype=np.int64),
            np.ascontiguousarray(s.table, dtype=np.int64),
            cards,
            np.ascontiguousarray(s.aces_out, dtype=np.int64),
            np.ascontiguousarray(s.more_turns, dtype=np.bool_),
            np.ascontiguousarray(s.joker_chance, dtype=np.float64),
            float(self.four_aces_value),
            kernel.score_tables(by_set),
        )


class HeuristicDiscarder(LookaheadDiscarder):
    """The strongest Four Aces heuristic (the look-ahead discarder)."""

    summary = "the strongest heuristic: the look-ahead discarder (default)"
