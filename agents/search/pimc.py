"""Perfect-Information Monte Carlo (PIMC): the search of GIB in bridge and of Skat programs.

At a decision of seat ``s`` in game ``g`` the agent

1. draws ``worlds`` complete states consistent with everything ``s`` has seen, by
   ``engine.resample_many`` (the other hands and the stock's order drawn at random; the
   agent reads nothing else of the real game's state: see :mod:`agents.base`);
2. plays every legal action in every world — one world engine copied once per action, so
   the actions are compared on the same worlds (common random numbers);
3. plays each copy to the end of the deal (Abracadabra) or round (Four Aces) with the
   rollout policy (:mod:`agents.search.rollouts`), every seat by it, and scores it for
   ``s``: its points of the deal, or (``objective="relative"``) its points minus the
   others' mean (Four Aces' ``clairvoyant`` values the copy without a rollout: each
   seat's best final score in that known world);
4. takes the action with the best mean over the worlds (ties: the lowest action id).

With ``keep=K`` a policy network prunes the search before step 2: only the ``K`` legal
actions it gives the highest probability are played in the worlds (the others get no
value), so the time saved on the rest can buy more worlds (``pimc_pruned``: 16 worlds,
3 actions, heuristic rollouts).

Everything of one :meth:`PIMCAgent.act_engine` call goes through one batch engine: the
worlds of all games that need a decision, copied for all their legal actions
(``clone(np.repeat(...))``), are rolled out together, so a tournament searches its whole
batch at once. Only when that engine would exceed ``max_rows`` games is the batch searched
in consecutive parts (memory). A decision with one legal action is taken without search.

The agent needs the engine (``needs_engine``): drivers call :meth:`PIMCAgent.act_engine`;
:meth:`PIMCAgent.act_batch` on observations alone cannot search and raises ``ValueError``.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.search.rollouts import (
    DEFAULT_ROLLOUT,
    ROLLOUTS,
    make_rollout,
    play_out,
    seat_values,
)

OBJECTIVES = ("points", "relative")


def _check_positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}={value!r} is not allowed: expected an integer >= 1")
    return int(value)


class PIMCAgent(Agent):
    """PIMC search over sampled worlds with rollouts (see the module doc).

    Args:
        game: ``"abracadabra"`` or ``"four_aces"``.
        seed: seeds the world draws and the rollout policy.
        worlds: sampled worlds per decision (>= 1).
        rollout: the rollout policy, one of :data:`~agents.search.rollouts.ROLLOUTS`
            of the game (``heuristic``, ``random``; Four Aces also ``greedy_known`` and
            the leaf evaluator ``clairvoyant``); None: the game's
            :data:`~agents.search.rollouts.DEFAULT_ROLLOUT` (Abracadabra ``heuristic``,
            Four Aces ``greedy_known``). ``policy``: a trained network plays every seat
            of the rollouts, one forward pass over all worlds (``path``).
        path: with ``rollout="policy"`` or ``keep``, the network's checkpoint; None: the
            committed ``policy`` of the table.
        checkpoint: with ``rollout="policy"`` or ``keep``, an in-memory checkpoint dict
            instead of ``path`` (what expert iteration hands its search, training/exit.py).
        trust_pickle: with ``rollout="policy"`` or ``keep``, also load legacy pickled
            checkpoints (trusted files only).
        keep: search only the ``keep`` legal actions the network (``path``) rates most
            probable (ties: the lower action id); None: every legal action. Decisions the
            network leaves to a delegate are searched in full.
        reinvest: with ``keep``, the rollouts the pruned actions would have had buy more
            worlds for the kept ones: a decision with n legal actions searches
            ``worlds * n // K`` worlds, so it costs what plain PIMC-``worlds`` costs.
        objective: ``"points"`` (own points of the deal) or ``"relative"`` (own points
            minus the other seats' mean).
        max_rows: the most games (worlds x actions) rolled out in one batch engine.
    """

    summary = "PIMC search: every legal action played in sampled worlds, rolled out; best mean"
    needs_engine = True
    reports_values = True

    def __init__(
        self,
        game: str,
        seed: int | None = None,
        worlds: int = 32,
        rollout: str | None = None,
        objective: str = "points",
        max_rows: int = 65536,
        path: str | None = None,
        checkpoint: dict | None = None,
        trust_pickle: bool = False,
        keep: int | None = None,
        reinvest: bool = False,
    ):
        super().__init__(game, seed)
        self.worlds = _check_positive("worlds", worlds)
        self.max_rows = _check_positive("max_rows", max_rows)
        if rollout is None:
            rollout = DEFAULT_ROLLOUT.get(game, "heuristic")
        if rollout not in ROLLOUTS.get(game, ()):
            raise ValueError(f"rollout={rollout!r} is not allowed for {game}: expected one "
                             f"of {ROLLOUTS.get(game, ())}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective={objective!r} is not allowed: expected one of "
                             f"{OBJECTIVES}")
        self.rollout_name = rollout
        self.objective = objective
        network = {k: v for k, v in (("path", path), ("checkpoint", checkpoint),
                                     ("trust_pickle", trust_pickle)) if v}
        self.keep = None if keep is None else _check_positive("keep", keep)
        if reinvest not in (True, False):
            raise ValueError(f"reinvest={reinvest!r}: expected true or false")
        if reinvest and keep is None:
            raise ValueError("reinvest=True spends the rollouts keep=K saves: expected "
                             "keep=K with it")
        self.reinvest = bool(reinvest)
        if network and rollout != "policy" and keep is None:
            raise ValueError(f"{sorted(network)} choose the search's network: expected "
                             f"rollout='policy' or keep=K with them (rollout={rollout!r} "
                             "and no keep use none)")
        rollout_seed = int(self.rng.integers(0, 2**63))
        self.rollout = make_rollout(game, rollout, rollout_seed,
                                    network if rollout == "policy" else None)
        self.prior = None
        if self.keep is not None:
            from agents.registry import make

            self.prior = make("policy", game, seed=int(self.rng.integers(0, 2**63)),
                              **network)

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise ValueError("the pimc agent searches on the engine and cannot act on "
                         "observations alone: drive it with act_engine(engine, games) "
                         "(agents.base.act_grouped(..., engine=engine))")

    def act_engine(self, engine, games: np.ndarray) -> np.ndarray:
        """int64 [len(games)]: the PIMC choice for the player to act in each of ``games``
        (int indices of live games of ``engine``); see the module doc."""
        return self.search(engine, games)[0]

    def search(self, engine, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The PIMC choice of each of ``games`` (as :meth:`act_engine`, the same random
        draws) and the search's value of every action: float32 [len(games), A], the mean
        objective over the worlds of each legal action (NaN: illegal, or pruned by
        ``keep``; 0: the only legal action, taken without search). What a network
        imitating the search can learn from besides its choice (:mod:`training.distill`)."""
        games = np.asarray(games, dtype=np.intp).reshape(-1)
        masks = engine.legal_action_mask()[games]
        counts = masks.sum(axis=1)
        if (counts == 0).any():
            bad = int(games[np.argmax(counts == 0)])
            raise ValueError(f"game {bad} has no legal action (is it over?): nothing to "
                             "search")
        worlds = np.full(len(games), self.worlds, np.int64)
        if self.keep is not None:
            masks = self._pruned(engine, games, masks)
            if self.reinvest:  # the pruned actions' rollouts buy worlds for the kept ones
                worlds = self.worlds * counts // np.maximum(masks.sum(axis=1), 1)
            counts = masks.sum(axis=1)
        actions = masks.argmax(axis=1).astype(np.int64)  # the only one where counts == 1
        values = np.where(masks, np.float32(0), np.float32(np.nan))
        search = np.flatnonzero(counts > 1)
        search = search[np.argsort(worlds[search], kind="stable")]  # parts of equal worlds
        if len(search) == 0:
            return actions, values
        seats = np.asarray(engine.current_player)[games].astype(np.int64)
        seeds = self.rng.integers(0, 2**63, size=len(games), dtype=np.int64)
        # consecutive parts of at most max_rows rollout games (at least one game each)
        rows_of = counts[search] * worlds[search]
        start = 0
        while start < len(search):
            stop = start + 1
            total = rows_of[start]
            W = int(worlds[search[start]])
            while (stop < len(search) and total + rows_of[stop] <= self.max_rows
                   and worlds[search[stop]] == W):
                total += rows_of[stop]
                stop += 1
            part = search[start:stop]
            actions[part], values[part] = self._search(engine, games[part], seats[part],
                                                       masks[part], seeds[part], W)
            start = stop
        return actions, values

    def _pruned(self, engine, games: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``masks`` with only the :attr:`keep` actions the network rates most probable
        where a game has more legal actions than that (and the network decides)."""
        rows = np.flatnonzero(masks.sum(axis=1) > self.keep)
        if len(rows) == 0:
            return masks
        observations = engine.observe()[games[rows]]
        probabilities = self.prior.network_probabilities(observations, masks[rows])
        decided = ~np.isnan(probabilities).any(axis=1)
        rows, probabilities = rows[decided], probabilities[decided]
        scores = np.where(masks[rows], probabilities, -1.0)
        best = np.argsort(-scores, axis=1, kind="stable")[:, :self.keep]
        pruned = masks.copy()
        pruned[rows] = False
        pruned[rows[:, None], best] = True
        return pruned

    def _search(self, engine, games: np.ndarray, seats: np.ndarray, masks: np.ndarray,
                seeds: np.ndarray, W: int) -> tuple[np.ndarray, np.ndarray]:
        """The best action of each of ``games`` (each with several legal actions) in
        ``W`` worlds and the mean value of each of its actions (NaN: illegal)."""
        worlds = engine.resample_many(games, seats, W, seeds)  # row i*W + k: world k of i
        game_of, action = np.nonzero(masks)  # every (game, legal action), game-major
        rows = (game_of[:, None] * W + np.arange(W)[None, :]).reshape(-1)
        branch = worlds.clone(rows)  # row p*W + k: world k of pair p
        branch.step(np.repeat(action, W).astype(np.int64))
        seat_rows = np.repeat(seats[game_of], W)
        if hasattr(self.rollout, "evaluate"):  # a leaf evaluator (no rollout)
            value = self._evaluate(branch, seat_rows)
        else:
            points = play_out(branch, self.rollout)
            value = seat_values(points, seat_rows, self.objective)
        mean = value.reshape(-1, W).mean(axis=1)  # per (game, action) pair
        # the best pair of each game: pairs are grouped by game and sorted by action, so
        # the first maximum is the lowest action id among the best
        first = np.searchsorted(game_of, np.arange(len(games)))
        best = np.maximum.reduceat(mean, first)
        winner = np.flatnonzero(mean == best[game_of])
        chosen = np.full(len(games), -1, np.int64)
        # the first winning pair of each game (winner is sorted: game-major)
        g = game_of[winner]
        keep = np.r_[True, g[1:] != g[:-1]]
        chosen[g[keep]] = action[winner[keep]]
        values = np.full(masks.shape, np.nan, np.float32)
        values[game_of, action] = mean
        return chosen, values

    def _evaluate(self, branch, seats: np.ndarray) -> np.ndarray:
        """The objective of every game of ``branch`` for its seat by the leaf evaluator."""
        own = self.rollout.evaluate(branch, seats)
        if self.objective == "points":
            return own
        P = branch.num_players
        others = sum(self.rollout.evaluate(branch, (seats + k) % P) for k in range(1, P))
        return own - others / (P - 1)


class GuidedPIMCAgent(PIMCAgent):
    """PIMC whose rollouts are played by a policy network (``rollout="policy"``): the
    search expert iteration runs (:mod:`training.exit`). ``path=None`` rolls out with the
    committed ``policy`` of the table; the other arguments are :class:`PIMCAgent`'s
    (8 worlds by default, the budget of the ladder's ``pimc`` rung it is compared with)."""

    summary = "PIMC search whose rollouts a policy network plays (expert iteration's teacher)"

    def __init__(self, game: str, seed: int | None = None, worlds: int = 8,
                 rollout: str = "policy", **kwargs):
        super().__init__(game, seed=seed, worlds=worlds, rollout=rollout, **kwargs)


class PrunedPIMCAgent(PIMCAgent):
    """PIMC over the few actions a policy network rates best (``keep``), with the time
    saved spent on more worlds: 16 worlds, 3 actions and the game's default rollouts by
    default. ``path=None`` prunes with the committed ``policy`` of the table; the other
    arguments are :class:`PIMCAgent`'s."""

    summary = "PIMC over the network's 3 likeliest actions, 16 worlds (network-pruned search)"

    def __init__(self, game: str, seed: int | None = None, worlds: int = 16, keep: int = 3,
                 **kwargs):
        super().__init__(game, seed=seed, worlds=worlds, keep=keep, **kwargs)
