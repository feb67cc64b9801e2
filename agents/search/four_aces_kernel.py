"""The Four Aces ``greedy_known`` rollout policy in compiled code (numba).

PIMC (:mod:`agents.search.pimc`) rolls out every sampled world once per legal action; in
Four Aces that is hundreds of games a decision, each some fifteen turns from its round's
end. Played one turn at a time through the batch engine, each turn would cost numpy's fixed
cost per call many times over; here each game is played to its round's end in one
compiled loop, on the engine's own kernels and scorer:

1. :func:`set_value` — a set of scoring cards (K1): its K2/K3 score
   (:func:`~envs.four_aces.scoring.score_set`), or ``target_points`` with all four aces
   (H4/K1);
2. :func:`greedy_known_action` — the mover's turn: each card type in his hand (H2 a)
   valued by his set after discarding it and taking the refill the known stock gives
   (:func:`~envs.four_aces.kernels.refill_card`, G6, G7), turning up (H2 b) valued by the
   set kept; the best discard when it beats turning up (or the stock is empty), ties to
   the lowest card; :func:`greedy_known_actions` for many games at once;
3. :func:`play_rounds` — every live game: turns by (2.) through the engine's own
   :func:`~envs.four_aces.kernels.play_turn` until one ends the round (H3, H4). The games
   are listed; the engine scores them as a step would
   (:meth:`~envs.four_aces.engine.FourAcesEngine.end_rounds`, K1–K4).

The engine's arrays are taken by the state's groups, as the engine's kernels take them
(``match``, ``rnd`` and ``result``: :class:`~envs.four_aces.state.FourAcesState`'s
``match``, ``round`` and ``result``), the scorer's tables as
:func:`~envs.four_aces.scoring.scorer_tables` gives them.
"""

from __future__ import annotations

import numpy as np

from agents.four_aces.set_scores import ACE_BITS
from envs.cards import JOKER
from envs.compiled import kernel
from envs.four_aces.kernels import play_turn, refill_card, scoring_cards
from envs.four_aces.rules import DECK_SIZE, DRAW, MAX_HAND
from envs.four_aces.scoring import ScorerTables, score_set
from envs.four_aces.state import Match, Result, Round

_ONE = np.int64(1)


@kernel
def set_value(bits: int, target_points: float, scorer: ScorerTables,
              slot_cards: np.ndarray) -> float:
    """The value of a set of scoring cards ``bits`` (bit c = card c, K1): the match,
    ``target_points``, with all four aces (H4/K1), else its K2/K3 score."""
    if (bits & ACE_BITS) == ACE_BITS:
        return target_points
    return float(score_set(bits, scorer, slot_cards))


@kernel
def greedy_known_action(g: int, match: Match, rnd: Round, target_points: float,
                        scorer: ScorerTables, slot_cards: np.ndarray) -> int:
    """The ``greedy_known`` action of game ``g``'s mover (see the module doc, 2.)."""
    s = match.current_player[g]
    hand = rnd.hand
    base = scoring_cards(g, s, hand, rnd.table, slot_cards.shape[0])  # hand and table (K1)
    refill = refill_card(g, rnd.deal_order, rnd.stock_top)  # G6, G7
    keep = set_value(base, target_points, scorer, slot_cards)
    best = -1
    best_value = -np.inf
    slots = 0
    for c in range(JOKER + 1):  # the hand's card types, lowest first (H2 a)
        if hand[g, s, c] <= 0:
            continue
        slots += 1
        if slots > MAX_HAND:
            break
        bits = base
        if c < JOKER:
            bits &= ~(_ONE << c)
        if refill >= 0:
            bits |= _ONE << refill
        value = set_value(bits, target_points, scorer, slot_cards)
        if value > best_value:
            best_value = value
            best = c
    if best_value > keep or rnd.stock_top[g] >= DECK_SIZE:
        return best
    return DRAW


@kernel
def greedy_known_actions(rows: np.ndarray, out: np.ndarray, match: Match, rnd: Round,
                         target_points: float, scorer: ScorerTables,
                         slot_cards: np.ndarray) -> None:
    """``out[i]``: the ``greedy_known`` action of game ``rows[i]``'s mover
    (:func:`greedy_known_action`)."""
    for i in range(rows.shape[0]):
        out[i] = greedy_known_action(rows[i], match, rnd, target_points, scorer, slot_cards)


@kernel
def play_rounds(match: Match, rnd: Round, result: Result, target_points: float,
                scorer: ScorerTables, slot_cards: np.ndarray, ended: np.ndarray) -> int:
    """Play every game that is neither over nor just past a round's end (``deal_over``)
    by ``greedy_known`` until a turn ends its round (H3, H4); write those games, in
    increasing order, to ``ended`` (int [B]) and return how many. Their rounds are not
    scored here: the caller hands them to the engine's round end, as a step does."""
    n = 0
    for g in range(match.game_over.shape[0]):
        if match.game_over[g] or result.deal_over[g]:
            continue
        while True:
            a = greedy_known_action(g, match, rnd, target_points, scorer, slot_cards)
            if play_turn(g, a, match, rnd):
                break
        ended[n] = g
        n += 1
    return n
