"""Four Aces rules engine: numpy arrays with a leading batch axis (docs/rules.md G–K).

One engine holds ``batch_size`` independent games in one :class:`FourAcesState`
(:mod:`envs.four_aces.state`, ``engine.state``); a single game is a batch of one. No RL
framework is imported here: :mod:`envs.four_aces_v0` is the thin PettingZoo adapter. The
rule constants are in :mod:`envs.four_aces.rules`, the observation in
:mod:`envs.four_aces.observation`.

Flow of a game (bookkeeping is never an agent action):

1. Round start (automatic): the ace-of-spades draw picks the dealer (G2), a new shuffle
   is dealt — 3 hand cards and 3 face-up table cards each, the rest is the stock (G3) —
   and every player dealt a joker in hand fills to L, in seat order from the dealer's
   left (G4, G6, G7). Four aces reached while filling win at once (H4).
2. Turns (the only decision phase): the player left of the dealer moves first (H1); each
   turn is one action (H2): ``discard:<card>`` (then fill to L, G6/G7) or ``draw`` (turn
   up the stock's top card onto the discard pile; a joker goes to the hand instead, L+1,
   and the turn ends).
3. Round end (automatic): at the end of the turn that empties the stock (H3), or at once
   on four aces (H4). All four aces among a player's scoring cards win the match (K1);
   otherwise every player scores his hand + table (K2/K3) and totals accumulate.
4. Match end (K4): after the round in which someone reaches ``target_points``, on four
   aces, or after ``max_rounds``; highest total wins, ties share. With
   ``episode="round"`` every episode is one round (its winners: highest round points).

Actions: the table of :mod:`envs.four_aces.rules` (0..52 ``discard:<card>``, 53 ``draw``).

One code path per rule, whatever the batch size: the deal (G2–G4, H1), the turn (mask,
step) and the observation run as compiled loops over the games
(:mod:`envs.four_aces.kernels`, numba), and so does the end of a round (K1–K4: the
scoring cards, four aces, the points by the compiled scorer of
:mod:`envs.four_aces.scoring`, totals, winners, rewards, the match end), on the games
whose round ended.

Randomness is counter-based (envs.core): each game owns a 64-bit key; the dealer draw of
round r is ``shuffled(key, 2r, FULL_DECK)`` and its deal ``shuffled(key, 2r + 1,
FULL_DECK)``, so the same key replays the same rounds whatever else shares the batch.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from envs.cards import CARD_NAMES, JOKER, NUM_CARDS, parse_card
from envs.core import (
    BatchEngine,
    check_actions,
    check_active,
    check_int,
    check_out,
    check_seats,
    check_seed,
    games_to_reset,
    observation_buffer,
    random_keys,
)
from envs.four_aces import kernels
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.observation import (
    LAYOUT,
    encode,
    int8_error,
    observation_bounds,
    observation_scale,
    observe_game,
)
from envs.four_aces.resample import check_one, game_rows, seeded_generator, select_games
from envs.four_aces.resample import resample_many as resample_worlds
from envs.four_aces.rules import (
    ACE_OF_SPADES,
    ACES,
    ACTION_NAMES,
    DECK_SIZE,
    DISCARD_OFFSET,
    DRAW,
    FULL_DECK,
    HAND_CARDS,
    NUM_ACTIONS,
    TABLE_CARDS,
)
from envs.four_aces.scoring import MAX_CARDS, score_presence, scorer_tables
from envs.four_aces.state import FourAcesState

#: buckets of the deal's sort (kernels.stable_order): about one per card
DEAL_BUCKETS = 64

# the engine, and (TEMPORARY, until every importer uses envs.four_aces.rules/observation)
# the constants other modules import from here
__all__ = [
    "ACES", "ACE_OF_SPADES", "ACTION_NAMES", "DECK_SIZE", "DISCARD_OFFSET", "DRAW",
    "FULL_DECK", "LAYOUT", "NUM_ACTIONS", "NUM_CARDS", "FourAcesConfig", "FourAcesEngine",
]

class FourAcesEngine(BatchEngine):
    """``batch_size`` games of Four Aces in one :class:`FourAcesState` (see module doc).

    ``state`` holds every per-game array (read it, never write it). Besides the
    :class:`~envs.core.BatchEngine` attributes, the driver reads ``deal_over`` (bool [B],
    a round ended during the last step), ``last_points`` (int32 [B, P], the last finished
    round's points; on four aces the winner gets ``target_points`` and the others 0),
    ``totals`` (int32 [B, P]) and ``winners`` (bool [B, P], set when the match is over):
    read-only views of the state's fields of those names.
    """

    def __init__(self, config: FourAcesConfig | dict | None = None, batch_size: int = 1):
        if config is None:
            config = FourAcesConfig()
        elif isinstance(config, dict):
            try:
                config = FourAcesConfig(**config)
            except TypeError as error:  # an unknown field
                raise ValueError(f"config: {error}") from None
        if not isinstance(config, FourAcesConfig):
            raise ValueError(f"config must be a FourAcesConfig or a dict of its fields, got "
                             f"{type(config).__name__}")
        check_int("batch_size", batch_size, 1)
        self.config = config
        self.batch_size = B = int(batch_size)
        self.num_players = P = config.num_players
        self.num_actions = NUM_ACTIONS
        self.action_names = ACTION_NAMES
        self.layout = LAYOUT
        self.observation_bounds = observation_bounds(config)
        self.observation_scale = observation_scale(config)  # of the int8 observation
        self._int8_error = int8_error(config)  # None: int8 observations are exact
        self._rng = np.random.default_rng()
        self.state = FourAcesState.allocate(B, P)
        # -- index tables of the hot path ---------------------------------------------------
        # a (game, seat) pair is the flat row ``game * P + seat`` of the per-seat arrays
        self._first_row = np.arange(B, dtype=np.intp) * P  # flat row of each game's seat 0
        self.reset()

    # ==================================================================================
    # reset
    # ==================================================================================
    def reset(
        self,
        seed: int | None = None,
        games: np.ndarray | None = None,
        game_seeds: Sequence[int] | np.ndarray | None = None,
    ) -> None:
        """Start new matches: in every game, or in those ``games`` selects: a bool mask of
        shape (B,), or distinct integer indices in 0..B-1 (the dtype decides; see
        :func:`~envs.core.check_games`).

        ``seed`` (an int >= 0) re-seeds the engine's generator; every reset game gets a new
        64-bit key, from ``game_seeds`` (integers in 0..2**64-1, one per reset game in the
        order ``games`` names them) if given, else drawn from the generator. A bad argument
        raises ``ValueError`` naming it; nothing changes.
        """
        check_seed(seed)
        sel, keys = games_to_reset(self.batch_size, games, game_seeds, None)  # validates
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if keys is None:
            keys = random_keys(self._rng, len(sel))
        if len(sel) == 0:
            return
        self.state.keys[sel] = keys
        self._new_match(sel)
        self._start_round(sel)
        self._settle_start(sel)

    def reset_with_deal(
        self,
        game: int,
        dealer: int,
        hands: Sequence[Sequence[str]],
        tables: Sequence[Sequence[str]],
        stock: Sequence[str],
    ) -> None:
        """Start a new match in ``game`` from a fixed first deal (card strings).

        ``hands`` and ``tables`` hold 3 cards per player, ``stock`` the rest, top first;
        together exactly the 54 cards (two ``JK``). Later rounds of a match are shuffled
        from the game's key. Raises ``ValueError`` saying what is wrong (and changes
        nothing) for wrong counts, unknown, duplicate or missing cards (named with their
        place: ``hands[s][i]``, ``tables[s][i]`` or ``stock[i]``), or a bad dealer.
        """
        check_int("game", game, 0, self.batch_size - 1)
        cards = self.check_deal(dealer, hands, tables, stock)
        g = np.array([game])
        self._new_match(g)
        self._start_round(g, deal_rows=cards[None, :], dealers=np.array([dealer]))
        self._settle_start(g)

    def check_deal(
        self,
        dealer: int,
        hands: Sequence[Sequence[str]],
        tables: Sequence[Sequence[str]],
        stock: Sequence[str],
    ) -> np.ndarray:
        """Validate a fixed deal (see :meth:`reset_with_deal`); return its deal order
        (int8 [54]: hands, tables, stock top first). Raises ``ValueError`` saying what, and
        for a card where it is (``hands[s][i]``, ``tables[s][i]`` or ``stock[i]``)."""
        P = self.num_players
        check_int("dealer", dealer, 0, P - 1)
        places: list[tuple[str, object]] = []  # (where, card string) in deal order
        for what, rows in (("hands", hands), ("tables", tables)):
            if not isinstance(rows, (list, tuple)) or len(rows) != P:
                raise ValueError(f"{what} must list {P} players' cards, got {rows!r}")
            size = HAND_CARDS if what == "hands" else TABLE_CARDS
            for seat, row in enumerate(rows):
                if not isinstance(row, (list, tuple)) or len(row) != size:
                    raise ValueError(f"{what}[{seat}] must hold exactly {size} cards "
                                     f"(a list), got {row!r}")
                places += [(f"{what}[{seat}][{i}]", c) for i, c in enumerate(row)]
        if not isinstance(stock, (list, tuple)):
            raise ValueError(f"stock must be a list of cards, got {stock!r}")
        places += [(f"stock[{i}]", c) for i, c in enumerate(stock)]
        expected = np.bincount(FULL_DECK, minlength=NUM_CARDS)
        found: dict[int, list[str]] = {}  # card -> its places so far
        cards = np.empty(len(places), dtype=np.int64)
        for k, (where, text) in enumerate(places):
            try:
                c = parse_card(text)
            except ValueError as err:
                raise ValueError(f"{where}: {err}") from None
            cards[k] = c
            found.setdefault(c, []).append(where)
            if len(found[c]) > expected[c]:
                raise ValueError(f"{where}: duplicate card {CARD_NAMES[c]!r} (already at "
                                 f"{', '.join(found[c][:-1])}; the deck holds it "
                                 f"{expected[c]} time{'s' if expected[c] > 1 else ''})")
        counts = np.bincount(cards, minlength=NUM_CARDS)
        missing = [CARD_NAMES[c] for c in np.flatnonzero(counts < expected)]
        if missing:
            raise ValueError(
                f"the deal must hold all 54 cards; missing from hands/tables/stock: "
                f"{', '.join(missing)}"
            )
        return cards.astype(np.int8)

    def _new_match(self, g: np.ndarray) -> None:
        """Clear the match state of games ``g``: :func:`~envs.four_aces.kernels.new_matches`."""
        st = self.state
        g = np.ascontiguousarray(g, np.intp)  # the type the machine code is compiled for
        new_matches, fixed = st.kernel_cache.get("new_matches") or st.bound_kernel(
            "new_matches", kernels.new_matches, (g,), lambda: (st.match, st.result))
        new_matches(g, *fixed)

    # ==================================================================================
    # round start: G2 dealer, G3 deal, G4 pre-fill, H1 first mover
    # ==================================================================================
    def _start_round(
        self,
        g: np.ndarray,
        deal_rows: np.ndarray | None = None,
        dealers: np.ndarray | None = None,
    ) -> None:
        """Deal a new round in games ``g`` (G2 dealer, G3 deal, G4 pre-fill, H1 first
        mover) in one compiled loop over the games
        (:func:`~envs.four_aces.kernels.start_rounds`). Round r's dealer draw is
        ``shuffled(key, 2r, FULL_DECK)`` and its deal ``shuffled(key, 2r + 1, FULL_DECK)``
        (envs.core) unless the caller gives ``deal_rows`` (int8 [len(g), 54], the deal
        orders) or ``dealers`` (int [len(g)])."""
        st = self.state
        if deal_rows is not None:
            st.deal_order[g] = deal_rows
        if dealers is not None:
            st.dealer[g] = dealers
        g = np.ascontiguousarray(g, np.intp)  # the type the machine code is compiled for
        call_args = (g, dealers is None, deal_rows is None)
        start_rounds, fixed = st.kernel_cache.get("start_rounds") or st.bound_kernel(
            "start_rounds", kernels.start_rounds, call_args, lambda: (
                self.config.dealer == "rotate", st.match, st.round,
                np.empty(DECK_SIZE), np.empty(DECK_SIZE), np.empty(DECK_SIZE, np.intp),
                np.empty(DEAL_BUCKETS + 1, np.intp)))  # scratch
        start_rounds(*call_args, *fixed)

    def _settle_start(self, g: np.ndarray) -> None:
        """Games whose pre-fill gave four aces (H4) end at once; the reward of that round
        cannot be returned by reset, it is in :meth:`result` and ``last_points``."""
        won = g[self.state.four_aces_now[g] >= 0]
        if len(won):
            self._end_round(won, np.zeros((self.batch_size, self.num_players), np.float32))

    # ==================================================================================
    # turns: H2, G6, G7, H4
    # ==================================================================================
    def legal_action_mask(self) -> np.ndarray:
        """bool [B, 54]: discard any card type in the hand; draw while the stock is not
        empty (always at a turn's start, H3); all False where the game is over
        (:func:`~envs.four_aces.kernels.legal_action_mask`)."""
        st = self.state
        mask = np.empty((self.batch_size, NUM_ACTIONS), dtype=bool)
        # the state's cache entry, or (the first time) bound_kernel: no closure per call
        code, fixed = st.kernel_cache.get("mask") or st.bound_kernel(
            "mask", kernels.legal_action_mask, (mask,), lambda: (st.match, st.round))
        code(mask, *fixed)
        return mask

    def _check_actions(self, idx: np.ndarray, a: np.ndarray, rows: np.ndarray) -> None:
        """Raise ``ValueError`` for the first illegal action among games ``idx`` (seats at
        flat rows ``rows``)."""
        st = self.state
        in_range = (a >= 0) & (a < NUM_ACTIONS)
        card = np.minimum(np.maximum(a, 0), JOKER)
        ok = in_range & np.where(
            a < DRAW, st.hand_rows[rows, card] > 0, st.stock_top[idx] < DECK_SIZE
        )
        if ok.all():
            return
        i = int(np.flatnonzero(~ok)[0])
        where = f" in game {int(idx[i])}" if self.batch_size > 1 else ""
        if not in_range[i]:
            raise ValueError(f"action {int(a[i])}{where} is out of range 0..{NUM_ACTIONS - 1}")
        name = ACTION_NAMES[int(a[i])]
        seat = int(st.current_player[idx[i]])
        why = f"that card is not in seat {seat}'s hand" if a[i] < DRAW else "the stock is empty"
        raise ValueError(f"illegal action {int(a[i])} ({name!r}){where}: {why}")

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """One turn (H2) in every live game (where ``active``, default all). Returns float32
        [B, P] rewards earned by this step; see :class:`FourAcesEngine`. An illegal action
        raises ``ValueError`` naming it (and the game, in a batch) before anything changes.

        The turns are played by :func:`~envs.four_aces.kernels.step_games` (H1–H4, G6,
        G7); the games whose round ended are then scored (:meth:`_end_round`, K1–K4)."""
        B = self.batch_size
        actions = check_actions(actions, B)
        active = check_active(active, B)
        st = self.state
        ended = np.empty(B, dtype=np.intp)
        # the key fixes active's type: None or a C-contiguous bool array (check_active)
        key = "step" if active is None else "step active"
        step_games, fixed = st.kernel_cache.get(key) or st.bound_kernel(
            key, kernels.step_games, (actions, active, ended),
            lambda: (st.match, st.round, st.result))
        bad, n = step_games(actions, active, ended, *fixed)
        if bad >= 0:  # nothing has changed
            g = np.array([bad], dtype=np.intp)
            self._check_actions(g, actions[g].astype(np.intp),
                                self._first_row[g] + st.current_player[g])  # raises
        rewards = np.zeros((B, self.num_players), dtype=np.float32)
        if n:
            self._end_round(ended[:n], rewards)
        return rewards

    # ==================================================================================
    # round end: K1–K4
    # ==================================================================================
    def _end_round(self, g: np.ndarray, rewards: np.ndarray) -> None:
        """Score the round of games ``g`` (distinct), add their rewards to ``rewards``
        (float32 [B, P]), end the match or deal anew: one compiled loop over the games
        (:func:`~envs.four_aces.kernels.end_rounds`, K1–K4). The games whose match goes on
        are dealt here (:meth:`_start_round`); four aces in that deal's pre-fill (G4, H4)
        end their round, and so the match, at once, within the same step."""
        P = self.num_players
        cfg = self.config
        st = self.state
        n = len(g)
        more = np.empty(n, dtype=np.intp)
        g = np.ascontiguousarray(g, np.intp)  # the type the machine code is compiled for
        call_args = (g, rewards, more, np.empty(n, np.int64), np.empty((n, P), np.int32))
        end_rounds, fixed = st.kernel_cache.get("end_rounds") or st.bound_kernel(
            "end_rounds", kernels.end_rounds, call_args, lambda: (
                cfg.episode == "round", kernels.REWARD_MODES.index(cfg.reward),
                cfg.target_points, cfg.round_limit, st.match, st.round, st.result,
                scorer_tables(cfg.scoring), np.empty(MAX_CARDS, np.int64)))  # scratch last
        bad, m = end_rounds(*call_args, *fixed)
        if bad >= 0:  # nothing has changed
            self._check_sets(g)  # raises
        if m:  # match mode: the next round is dealt within this step
            more = more[:m]
            self._start_round(more)
            again = more[st.four_aces_now[more] >= 0]  # H4 during the pre-fill (G4)
            if len(again):
                self._end_round(again, rewards)

    def end_rounds(self, games: np.ndarray) -> np.ndarray:
        """Score the rounds of ``games`` that ended outside :meth:`step`, by turns played
        in the state's arrays by the compiled :func:`~envs.four_aces.kernels.play_turn`
        (a search playing a known world to the round's end) until it returned True (H3
        stock empty, H4 four aces): as a step scores them (K1–K4; a new round is dealt
        where the match goes on). Returns the rewards (float32 [B, P]) the step would
        have paid. Raises ``ValueError`` unless ``games`` are distinct indices of games
        not over whose round has ended so (nothing changes then)."""
        st = self.state
        g = np.asarray(games)
        if g.ndim != 1 or (g.size and g.dtype.kind not in "iu"):
            raise ValueError(f"games must be a 1-d array of game indices, got {g.dtype} "
                             f"{g.shape}")
        g = g.astype(np.intp)
        if g.size and (g.min() < 0 or g.max() >= self.batch_size
                       or len(np.unique(g)) != len(g)):
            raise ValueError(f"games must be distinct indices in 0..{self.batch_size - 1}, "
                             f"got {g.tolist()}")
        ended = (st.stock_top[g] >= DECK_SIZE) | (st.four_aces_now[g] >= 0)
        bad = st.game_over[g] | st.deal_over[g] | ~ended
        if bad.any():
            raise ValueError(f"game {int(g[bad.argmax()])}: its round has not ended by a "
                             f"turn (stock left, no four aces) or its game is over")
        rewards = np.zeros((self.batch_size, self.num_players), np.float32)
        if len(g):
            self._end_round(g, rewards)
        return rewards

    def _check_sets(self, g: np.ndarray) -> None:
        """Raise the ``ValueError`` of :func:`~envs.four_aces.scoring.score_presence` for
        the scoring cards (K1) of games ``g`` that are not sets of at most ``MAX_CARDS``
        cards (a state the engine did not deal): the numpy code the round-end kernel
        replaced, which that kernel's check follows."""
        st = self.state
        scoring = st.hand[g, :, :JOKER] + st.table[g, :, :JOKER]  # [n, P, 52]
        k1 = scoring[:, :, ACES].all(axis=2)
        normal = (st.four_aces_now[g] < 0) & ~k1.any(axis=1)
        score_presence(scoring[normal].reshape(-1, JOKER), self.config.scoring)

    def result(self, game: int = 0) -> dict | None:
        """``info["result"]``: the last finished round of ``game`` (None before any)."""
        st = self.state
        if not st.has_result[game]:
            return None
        four = int(st.four_aces_winner[game])
        out = {
            "round": int(st.rounds_played[game]) - 1,
            "round_points": None if four >= 0 else st.last_points[game].tolist(),
            "four_aces": four if four >= 0 else None,
            "totals": st.totals[game].tolist(),
            "match_over": bool(st.match_over[game]),
        }
        if st.match_over[game]:
            out["winners"] = np.flatnonzero(st.winners[game]).tolist()
        return out

    # ==================================================================================
    # observation: what each player sees (envs.four_aces.observation)
    # ==================================================================================
    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None,
                dtype: object = None) -> np.ndarray:
        """float32 [B, layout.size], seat-relative (see :mod:`envs.four_aces.observation`).
        Holds only what ``seats`` may know: own hand, every table, the discard pile, the
        stock size, every hand size and L, scores, dealer and round. ``out`` (float32 or
        int8 [B, D], C-contiguous): written in full and returned instead of a fresh array.
        ``dtype=np.int8`` or an int8 ``out``: the integer observation, which times
        :attr:`observation_scale` is the float32 one (``episode="round"`` only)."""
        B, P = self.batch_size, self.num_players
        out = observation_buffer(B, LAYOUT.size, dtype, out)
        check_out(out, B, LAYOUT.size, self._int8_error)
        if seats is not None:
            seats = check_seats(seats, B, P)
        self._observe_batch(seats, out)
        return out

    def _observe_batch(self, seats: np.ndarray | None, out: np.ndarray) -> None:
        """:meth:`observe` of any batch from ``seats`` (intp [B], valid; None: each game's
        current player) into ``out`` (:func:`~envs.four_aces.observation.encode`)."""
        encode(self.state, self.config, seats, out)

    def observe_one(self, seat: int, out: np.ndarray) -> None:
        """See :meth:`envs.core.BatchEngine.observe_one` (game 0, no argument checks)."""
        st, cfg = self.state, self.config
        dtype = out.dtype.char  # "f" (float32) or "b" (int8)
        # the key fixes out's type: a C-contiguous row of its dtype (the caller's promise)
        key = "observe one " + dtype
        code, fixed = st.kernel_cache.get(key) or st.bound_kernel(
            key, observe_game, (0, seat, out),
            lambda: (cfg.target_points, cfg.round_limit, st.match, st.round))
        code(0, seat, out, *fixed)

    # ==================================================================================
    # copies and resampled worlds: what search agents play out (envs.four_aces.resample)
    # ==================================================================================
    def clone(self, games: np.ndarray | Sequence[int] | None = None) -> FourAcesEngine:
        """A new engine of this config holding copies of ``games``: None (every game), a
        bool mask of shape (batch_size,), or game indices (repeats allowed, in their
        order: ``clone(np.repeat(rows, k))`` gives k copies of each row). The engines
        share no array: stepping either leaves the other unchanged. The clone's generator
        is an independent copy of this one's (same state, so unseeded resets of both draw
        the same new keys); each game keeps its key. Raises ``ValueError`` naming
        ``games`` for a bad selection."""
        return self._with_state(select_games(self.state, game_rows(games, self.batch_size)))

    def resample(self, game: int, seat: int, n: int, seed: int) -> FourAcesEngine:
        """``n`` worlds of ``game`` as ``seat`` sees it: ``resample_many([game], [seat],
        n, [seed])``. Raises ``ValueError`` naming a non-integer or out-of-range argument,
        or for a game that is over."""
        check_one(self.state, game, seat, n, seed)
        return self.resample_many([game], [seat], n, [seed])

    def resample_many(
        self,
        games: Sequence[int] | np.ndarray,
        seats: Sequence[int] | np.ndarray,
        n: int,
        seeds: Sequence[int] | np.ndarray,
    ) -> FourAcesEngine:
        """A new engine of ``len(games) * n`` games: row ``i * n + k`` is world k of game
        ``games[i]`` as seat ``seats[i]`` sees it: a complete state consistent with all
        that seat has seen, with every card hidden from it (the other hands, the stock's
        order) drawn uniformly among the consistent worlds and a fresh game key, by random
        numbers from ``seeds[i]`` (one integer per game), never from the hidden cards
        (:mod:`envs.four_aces.resample`). Its observation from the seat and, where the
        seat is to act, its legal actions equal the game's. The new engine's generator is
        seeded from ``seeds``. Raises
        ``ValueError`` naming the argument for non-integer values, ``n < 1``, a game or
        seat out of range, or a game that is over (``game_over``)."""
        state = resample_worlds(self.state, games, seats, n, seeds)
        return self._with_state(state, seeded_generator(seeds))

    def _with_state(self, state: FourAcesState, rng: np.random.Generator | None = None
                    ) -> FourAcesEngine:
        """A new engine of this config over ``state`` (its own arrays), without a reset;
        its generator ``rng``, or an independent copy of this one's."""
        engine = copy.copy(self)  # the config and the read-only tables are shared
        engine.batch_size = state.batch_size
        engine.state = state
        engine._first_row = np.arange(state.batch_size, dtype=np.intp) * self.num_players
        engine._rng = copy.deepcopy(self._rng) if rng is None else rng
        return engine

