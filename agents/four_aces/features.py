"""Four Aces input features of policy networks, computed from the observation alone.

A plain MLP on the raw observation learns the K2/K3 combination score very slowly from
one-hot cards, yet the score is cheap to compute exactly
(:func:`envs.four_aces.scoring.score_presence`). :func:`four_aces_features` hands the
network, per observation, the score it holds now and the score after each possible
discard, so it only has to learn *which* of those to prefer. Everything is read from the
observation through the engine's layout (no hidden state): the features are a pure
function of the observation row.
"""

from __future__ import annotations

import functools

import numpy as np

from agents.four_aces.heuristics import GreedyDiscarder, LookaheadDiscarder
from agents.four_aces.view import FourAcesView, turns_left
from agents.view import ObsView
from envs.cards import JOKER, NUM_CARDS
from envs.four_aces.observation import LAYOUT
from envs.four_aces.rules import ACES
from envs.four_aces.scoring import score_presence

SCALE = 10.0  #: points are divided by this (round scores lie in about -8 .. 22)

#: the columns of :func:`four_aces_features`, in order
FOUR_ACES_COLUMNS = (
    ["score_now"]  # own hand (non-joker) + own table score, / SCALE
    + [f"discard_value:{c}" for c in range(NUM_CARDS)]  # score after discarding c, / SCALE
    + ["best_discard_gain"]  # max over held cards of (discard value - score now), / SCALE
    + [f"aces:{k}" for k in range(len(ACES) + 1)]  # one-hot aces in own hand + table
)
FOUR_ACES_SIZE = len(FOUR_ACES_COLUMNS)


def four_aces_features(observations: np.ndarray, scoring: str = "strict") -> np.ndarray:
    """Four Aces features of an observation batch.

    Args:
        observations: float32 [N, D] Four Aces observations (a 1-d row is a batch of one).
        scoring: ``"strict"`` or ``"free"`` (K3), as the game options.

    Returns:
        float32 [N, F] (``F = FOUR_ACES_SIZE``), columns :data:`FOUR_ACES_COLUMNS`:

        - ``score_now``: K2/K3 score of the non-joker cards of own hand and own table
          (the round-end value if the round ended now);
        - ``discard_value:c`` for c in 0..52 (aligned with the discard actions): the score
          of own hand minus one card c plus own table, before the refill; 0 where c is
          not in the hand (the observation's ``hand`` segment is the mask). Discarding a
          joker leaves the score unchanged;
        - ``best_discard_gain``: the best discard value minus ``score_now`` (0 with an
          empty hand);
        - ``aces:k``: one-hot number k = 0..4 of aces in own hand + own table.

        Points are divided by :data:`SCALE`.
    """
    view = ObsView(LAYOUT, observations)
    n = view.n
    hand = np.rint(view["hand"]).astype(np.int8)  # [N, 53] counts (the joker may be 2)
    table = np.rint(view["tables"][:, :NUM_CARDS]).astype(np.int8)  # relative slot 0 = own
    held = hand[:, :JOKER] > 0  # [N, 52] non-joker cards in hand
    present = held | (table[:, :JOKER] > 0)  # [N, 52] own scoring cards

    # one score_presence call: row 0 of each observation is the current set, then one row
    # per held non-joker card with that card removed
    rows, cards = np.nonzero(held)  # the (observation, card) discard options
    batch = np.concatenate([present, present[rows]], axis=0)
    batch[n + np.arange(len(rows)), cards] = False
    scores = score_presence(batch, scoring).astype(np.float32)
    now = scores[:n]

    out = np.zeros((n, FOUR_ACES_SIZE), dtype=np.float32)
    out[:, 0] = now / SCALE
    values = out[:, 1:1 + NUM_CARDS]  # a view
    values[rows, cards] = scores[n:] / SCALE
    has_joker = hand[:, JOKER] > 0
    values[has_joker, JOKER] = now[has_joker] / SCALE
    best = np.where(hand > 0, values, -np.inf).max(axis=1)
    out[:, 1 + NUM_CARDS] = np.where(np.isfinite(best), best - now / SCALE, 0.0)
    aces = present[:, ACES].sum(axis=1)
    out[np.arange(n), 2 + NUM_CARDS + aces] = 1.0
    return out


#: the columns :func:`four_aces_refill_features` adds to :data:`FOUR_ACES_COLUMNS`
REFILL_COLUMNS = (
    [f"refill_value:{c}" for c in range(NUM_CARDS)]  # greedy's value of discarding c, / SCALE
    + ["turn_up_value"]  # greedy's value of turning up the stock card (H2 b), / SCALE
)
FOUR_ACES_REFILL_SIZE = FOUR_ACES_SIZE + len(REFILL_COLUMNS)


def four_aces_refill_features(observations: np.ndarray) -> np.ndarray:
    """:func:`four_aces_features` (strict scoring) plus the ``greedy`` discarder's option
    values (:class:`agents.four_aces.heuristics.GreedyDiscarder`): for each card in the
    hand, the exact expected value of the hand after discarding it and refilling one card
    from the unseen cards (G6), and the value of turning up the stock card instead (H2 b),
    with the four-aces value and the ace premium. So the network sees what one refill
    brings, which it otherwise learns slowly; it learns the look-ahead beyond it.

    Returns float32 [N, ``FOUR_ACES_REFILL_SIZE``]; ``refill_value:c`` is 0 where c is not
    in the hand. Much slower than :func:`four_aces_features`: it scores the hand for every
    (discard, refill card) pair.
    """
    obs = np.asarray(observations, dtype=np.float32)
    view = FourAcesView(obs)
    values = GreedyDiscarder("four_aces").option_values(view)  # [N, 5 hand slots + turn up]
    return np.concatenate([four_aces_features(obs), _by_card(view, values)], axis=1)


def _by_card(view: FourAcesView, values: np.ndarray) -> np.ndarray:
    """float32 [N, NUM_CARDS + 1]: a discarder's option values (``option_values``: hand slots, then
    turning up) / ``SCALE``, placed by card: column c holds the value of discarding card
    c (0 where c is not in the hand), the last column the value of turning up."""
    by_card = np.zeros((view.n, NUM_CARDS + 1), dtype=np.float32)
    rows, slots = np.nonzero(view.hand >= 0)
    by_card[rows, view.hand[rows, slots]] = values[rows, slots] / SCALE
    by_card[:, NUM_CARDS] = values[:, -1] / SCALE
    return by_card


MAX_TURNS = 8  #: own turns left are counted up to this (more are one column)

#: the columns :func:`four_aces_turns_features` adds to :data:`FOUR_ACES_COLUMNS`
TURNS_COLUMNS = [f"turns_left:{k}" for k in range(1, MAX_TURNS + 1)]
FOUR_ACES_TURNS_SIZE = FOUR_ACES_SIZE + len(TURNS_COLUMNS)


def four_aces_turns_features(observations: np.ndarray) -> np.ndarray:
    """:func:`four_aces_features` (strict scoring) plus a one-hot of the mover's turns
    left in the round (:func:`turns_left`, 1 .. ``MAX_TURNS``, the last column meaning
    ``MAX_TURNS`` or more), so the network need not divide the stock size by the number
    of players to know how many refills it can still hope for (H3).

    Returns float32 [N, ``FOUR_ACES_TURNS_SIZE``], the added columns :data:`TURNS_COLUMNS`.
    """
    obs = np.asarray(observations, dtype=np.float32)
    return np.concatenate([four_aces_features(obs), _turns_one_hot(obs)], axis=1)


def _turns_one_hot(obs: np.ndarray) -> np.ndarray:
    """float32 [N, MAX_TURNS]: the columns :data:`TURNS_COLUMNS`."""
    turns = np.clip(turns_left(obs), 1, MAX_TURNS)
    onehot = np.zeros((len(obs), MAX_TURNS), dtype=np.float32)
    onehot[np.arange(len(obs)), turns - 1] = 1.0
    return onehot


FOUR_ACES_REFILL_TURNS_SIZE = FOUR_ACES_REFILL_SIZE + len(TURNS_COLUMNS)


def four_aces_refill_turns_features(observations: np.ndarray) -> np.ndarray:
    """Both additions: :func:`four_aces_refill_features` (the greedy discarder's exact
    one-refill value of every option, G6, H2) followed by the turns-left one-hot of
    :func:`four_aces_turns_features` (H3). The network starts from what one refill brings
    and knows how many refills are left, so it has only the look-ahead beyond to learn.

    Returns float32 [N, ``FOUR_ACES_REFILL_TURNS_SIZE``]."""
    obs = np.asarray(observations, dtype=np.float32)
    return np.concatenate([four_aces_refill_features(obs), _turns_one_hot(obs)], axis=1)


#: the look-ahead discarder whose option values :func:`four_aces_lookahead_features` adds:
#: 96 sampled refills, 8 inner ones (scores +0.18 .. +0.28 a round over the default 12/4,
#: results/proof/four_aces_4p_lookahead96_vs_lookahead*)
LOOKAHEAD_SAMPLES, LOOKAHEAD_INNER = 96, 8
#: the columns :func:`four_aces_lookahead_features` adds to the refill and turns columns
LOOKAHEAD_COLUMNS = [f"lookahead_value:{c}" for c in range(NUM_CARDS)] + ["lookahead_turn_up"]
FOUR_ACES_LOOKAHEAD_SIZE = FOUR_ACES_REFILL_TURNS_SIZE + len(LOOKAHEAD_COLUMNS)


@functools.cache
def _lookahead() -> LookaheadDiscarder:
    """The look-ahead of the features: fixed draws, so a row's values are its own."""
    return LookaheadDiscarder("four_aces", seed=0, samples=LOOKAHEAD_SAMPLES,
                              inner=LOOKAHEAD_INNER, fixed_draws=True)


def four_aces_lookahead_features(observations: np.ndarray) -> np.ndarray:
    """:func:`four_aces_refill_turns_features` plus the look-ahead discarder's value of
    every option (two-step sampled expectimax, ``LOOKAHEAD_SAMPLES`` refills and
    ``LOOKAHEAD_INNER`` inner ones; G6, H2, H3), placed by card as the refill values are.
    The network starts from a search's judgement of each discard and learns what to add.

    The look-ahead draws the same numbers for every row (``fixed_draws``), so the
    features remain a function of the observation row alone. The dearest feature set
    (``cardrl bench --agents`` times the agents that use it).

    Returns float32 [N, ``FOUR_ACES_LOOKAHEAD_SIZE``], the added columns
    :data:`LOOKAHEAD_COLUMNS`."""
    obs = np.asarray(observations, dtype=np.float32)
    view = FourAcesView(obs)
    values = _lookahead().option_values(view)
    return np.concatenate([four_aces_refill_turns_features(obs), _by_card(view, values)],
                          axis=1)
