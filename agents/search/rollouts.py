"""Rollout policies of the search agents, and playing sampled worlds to the end of a deal.

A rollout policy chooses the action of every player in the games of a *world* engine (a
complete state drawn by ``engine.resample_many``, or a copy of one). Because a world is
sampled, a policy may read its whole state — that is what makes ``greedy_known`` strong —
without the real game's hidden cards ever being seen.

==================  =============  ========================================================
name                games          every player's action
==================  =============  ========================================================
``heuristic``       both           the game's default heuristic (``agents.make("heuristic",
                                   game)``) on the player's own observation
``random``          both           a uniformly random legal action
``policy``          both           a trained policy network (``agents.make("policy", game,
                                   path=...)``, the committed one without a path) on the
                                   player's own observation: one forward pass over every
                                   world and action copy that is to act
``greedy_known``    Four Aces      greedy in the known world: the discard whose refill from
                                   the world's KNOWN stock gives the best K2/K3 score (all
                                   four aces: the match, H4/K1), else turning up (H2 b)
``clairvoyant``     Four Aces      no rollout: the seat's best final score in the known
                                   world (:class:`ClairvoyantFourAces`)
==================  =============  ========================================================

:func:`play_out` plays every game of a world engine until its current deal (Abracadabra,
S1–S3) or round (Four Aces, K2–K4) ends and returns each seat's points of it; a match
episode stops there too.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from envs import registry
from envs.cards import JOKER
from envs.core import sample_uniform_legal
from envs.four_aces.rules import ACES, DECK_SIZE, MAX_HAND
from envs.four_aces.scoring import MAX_CARDS, score_presence, scorer_tables

#: the rollout policies of each game, as its descriptor declares them (``Game.rollouts``);
#: a game without any provides no search
ROLLOUTS = registry.Declared("rollouts")

#: the rollout of each game when none is named (``Game.default_rollout``; the ladder,
#: results/ladder/, measures it)
DEFAULT_ROLLOUT = registry.Declared("default_rollout")

#: a rollout policy: (world engine, int rows of its games to act) -> int64 actions
Policy = Callable[[object, np.ndarray], np.ndarray]


def make_rollout(game: str, name: str, seed: int | None = None,
                 policy: dict | None = None) -> Policy:
    """The rollout policy ``name`` of ``game`` (table in the module doc), seeded with
    ``seed``; ``policy`` holds the keyword arguments of the ``policy`` rollout's network
    (``path``, ``checkpoint``, ``trust_pickle``; none: the committed network). Raises
    ``ValueError`` for a name the game does not have."""
    allowed = ROLLOUTS.get(game, ())
    if name not in allowed:
        raise ValueError(f"rollout={name!r} is not allowed for {game}: expected one of "
                         f"{allowed}")
    if name == "policy":
        from agents.registry import make

        return ObservationRollout(make("policy", game, seed=seed, **(policy or {})))
    if policy:
        raise ValueError(f"{sorted(policy)} choose the network of the policy rollout; "
                         f"rollout={name!r} has no network: use rollout='policy'")
    if name == "heuristic":
        from agents.registry import make

        return ObservationRollout(make("heuristic", game, seed=seed))
    if name == "random":
        return RandomRollout(seed)
    if name == "clairvoyant":
        return ClairvoyantFourAces()
    return GreedyKnownFourAces()


class ObservationRollout:
    """Every player acts by ``agent`` on his own observation of the world (what the agent
    would see in a real game)."""

    def __init__(self, agent):
        self.agent = agent

    def __call__(self, world, rows: np.ndarray) -> np.ndarray:
        observations = world.observe()  # each game's current player
        masks = world.legal_action_mask()
        if len(rows) < world.batch_size:
            observations, masks = observations[rows], masks[rows]
        return self.agent.act_batch(observations, masks)


class RandomRollout:
    """Uniformly random legal actions."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def __call__(self, world, rows: np.ndarray) -> np.ndarray:
        return sample_uniform_legal(self.rng, world.legal_action_mask()[rows])


class GreedyKnownFourAces:
    """Four Aces: greedy play in a fully known (sampled) world, reading its state.

    For the player to act: each card type in his hand (H2 a) is valued by the K2/K3 score
    of his scoring cards (hand and table, jokers excluded, K1) after discarding it and
    refilling from the world's stock as the engine will (G6, G7): the first non-joker from
    the top. All four aces are worth the match (``target_points``, H4/K1). Turning up
    (H2 b) keeps the present score. He discards the best card when that beats turning up,
    else turns up; ties go to the lowest card. One compiled implementation
    (:mod:`agents.search.four_aces_kernel`) serves a turn at a time (``__call__``) and
    whole rounds (:meth:`play_out`).
    """

    def __call__(self, world, rows: np.ndarray) -> np.ndarray:
        from agents.search.four_aces_kernel import greedy_known_actions

        st, cfg = world.state, world.config
        rows = np.ascontiguousarray(rows, dtype=np.intp)
        out = np.empty(len(rows), np.int64)
        greedy_known_actions(rows, out, st.match, st.round, float(cfg.target_points),
                             scorer_tables(cfg.scoring), np.empty(MAX_CARDS, np.int64))
        return out

    def play_out(self, world) -> np.ndarray:
        """:func:`play_out` by this policy in compiled code: each live game is played to
        its round's end in one loop (:func:`agents.search.four_aces_kernel.play_rounds`,
        the same choices as :meth:`__call__`), then the engine scores those rounds as its
        step does (:meth:`~envs.four_aces.engine.FourAcesEngine.end_rounds`, K1–K4).
        float64 [B, P]: each seat's points of the round."""
        from agents.search.four_aces_kernel import play_rounds

        st, cfg = world.state, world.config
        ended = np.empty(world.batch_size, np.intp)
        n = play_rounds(st.match, st.round, st.result, float(cfg.target_points),
                        scorer_tables(cfg.scoring), np.empty(MAX_CARDS, np.int64), ended)
        if n:
            world.end_rounds(ended[:n])
        return world.last_points.astype(np.float64)


class ClairvoyantFourAces:
    """Four Aces: the best final score a seat can reach in a known (sampled) world — the
    counterpart of a double-dummy solver. No rollout is played: :meth:`evaluate`.

    Every turn takes exactly one card from the stock (the refill after a discard, G6, or
    the card turned up, H2 b), and players take cards from the stock only, so in a known
    world the cards a seat can still take are fixed: the stock cards at its coming turns
    (every P-th card from the stock's top, from its next turn on). Whatever the others do,
    it can end the round (H3) holding any L of its hand cards and those cards (it takes a
    card by discarding one it does not keep); its value is the best K2/K3 score of such a
    hand with its table (K1; all four aces: the match, H4/K1). Approximations: jokers
    still to come are ignored (one drawn while refilling would shift later turns, G7), and
    of the coming cards only the first ``max_coming`` count.
    """

    def __init__(self, max_coming: int = 11):
        self.max_coming = max_coming
        self._combos: dict[tuple[int, int], np.ndarray] = {}

    def evaluate(self, world, seats: np.ndarray) -> np.ndarray:
        """float64 [B]: the value of each game of ``world`` for its seat ``seats[i]``: the
        points of the round if it has ended (``deal_over``), else the best final score."""
        st = world.state
        B, P = world.batch_size, world.num_players
        seats = np.asarray(seats, dtype=np.intp)
        value = np.zeros(B, np.float64)
        ended = world.deal_over | world.game_over
        value[ended] = world.last_points[np.flatnonzero(ended), seats[ended]]
        rows = np.flatnonzero(~ended)
        if len(rows) == 0:
            return value
        seat = seats[rows]
        hand = st.hand[rows, seat]  # [n, 53] counts
        table = (st.table[rows, seat, :JOKER] > 0).astype(np.int8)  # [n, 52]
        limit = st.hand_limit[rows, seat].astype(np.int64)
        # the coming stock cards of the seat: its next turn is `wait` turns away
        wait = (seat - st.current_player[rows].astype(np.intp)) % P
        first = st.stock_top[rows].astype(np.intp) + wait
        at = first[:, None] + P * np.arange(self.max_coming)[None, :]
        coming = st.deal_order[rows[:, None], np.minimum(at, DECK_SIZE - 1)].astype(np.intp)
        coming = np.where((at < DECK_SIZE) & (coming != JOKER), coming, -1)
        # the candidates: non-joker hand cards, then the coming cards; -1 padded, packed
        held = np.where(hand[:, :JOKER] > 0, np.arange(JOKER)[None, :], -1)
        held = -np.sort(-held, axis=1)[:, :MAX_HAND]  # cards first (descending), then -1
        cand = np.concatenate([held, coming], axis=1)
        order = np.argsort(cand < 0, axis=1, kind="stable")
        cand = np.take_along_axis(cand, order, axis=1)
        count = (cand >= 0).sum(axis=1)
        # a hand of L cards; a joker held may stay (it scores nothing): L - jokers .. L
        jokers = hand[:, JOKER].astype(np.int64)
        high = np.minimum(limit, count)
        low = np.minimum(np.maximum(limit - jokers, 0), high)
        best = np.full(len(rows), -np.inf)
        for size in range(int(low.min()), int(high.max()) + 1):
            some = np.flatnonzero((low <= size) & (size <= high))
            if len(some):
                best[some] = np.maximum(best[some], self._best(
                    cand[some], count[some], table[some], size, world.config))
        value[rows] = best
        return value

    def _best(self, cand: np.ndarray, count: np.ndarray, table: np.ndarray, size: int,
              config) -> np.ndarray:
        """float64 [n]: the best score of ``size`` of each row's candidates with its table."""
        n, width = cand.shape
        combos = self._combos.get((width, size))
        if combos is None:
            from itertools import combinations

            combos = np.array(list(combinations(range(width), size)), np.intp).reshape(
                -1, size)
            self._combos[(width, size)] = combos
        ok = (combos.max(axis=1, initial=-1)[None, :] < count[:, None])  # [n, C]
        r, c = np.nonzero(ok)
        sets = table[r]  # [m, 52] (a copy)
        cards = cand[r[:, None], combos[c]]  # [m, size]
        for k in range(size):
            sets[np.arange(len(r)), cards[:, k]] = 1
        score = score_presence(sets, config.scoring).astype(np.float64)
        four = sets[:, ACES].all(axis=1)
        score = np.where(four, float(config.target_points), score)
        best = np.full(n, -np.inf)
        np.maximum.at(best, r, score)
        return best


def play_out(world, policy: Policy, max_steps: int = 100_000) -> np.ndarray:
    """float64 [B, P]: every game of ``world`` played by ``policy`` until its current deal
    (Abracadabra) or round (Four Aces) ends; each seat's points of that deal (the
    engine's ``last_points``). A game already over, or whose deal ended during the last
    step (``deal_over``), is not played further: its points are the last finished deal's.
    A policy with a ``play_out`` method of its own (``greedy_known``: in compiled code)
    plays the rounds itself, to the same points.
    """
    compiled = getattr(policy, "play_out", None)
    if compiled is not None:  # the policy plays whole rounds in compiled code
        return compiled(world)
    points = np.zeros((world.batch_size, world.num_players), np.float64)
    done = world.deal_over | world.game_over
    points[done] = world.last_points[done]
    for _ in range(max_steps):
        if done.all():
            return points
        live = ~done
        rows = np.flatnonzero(live)
        actions = np.zeros(world.batch_size, np.int64)
        actions[rows] = policy(world, rows)
        world.step(actions, live)
        ended = live & world.deal_over
        points[ended] = world.last_points[ended]
        done |= ended | world.game_over
    raise RuntimeError(f"rollouts did not end within {max_steps} steps")


def seat_values(points: np.ndarray, seats: np.ndarray, objective: str) -> np.ndarray:
    """float64 [B]: each row's value for its seat ``seats[i]`` of the points [B, P]:
    ``"points"`` the seat's own, ``"relative"`` its own minus the others' mean."""
    rows = np.arange(len(points))
    own = points[rows, seats]
    if objective == "points":
        return own
    others = (points.sum(axis=1) - own) / (points.shape[1] - 1)
    return own - others
