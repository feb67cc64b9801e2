"""Abracadabra rules engine: batch-first, no RL framework; numba kernels and numpy.

Rules (docs/rules.md A–M, cited by id below). After the deal (B) every bidding player, from the
left of the dealer, bids a number of tricks and stakes the ante (C1–C2); the highest bid,
ties to the earliest bidder, makes the declarer and the target T (C3). The declarer may show
cards to raise his stake (D1–D2), then leads (E1). Players follow suit (E2; the joker is the
top trump, B3, E3). In ``two_dummy`` the leader of each trick plays the dummy's card (E4).
A player who has just taken his T-th trick may say "Abracadabra" (F1) and hits if he ends
with exactly T tricks (F2). Hitters score the bonus, everyone scores tricks and 2 per card
of bid-rank T (S1–S3); the pot goes to the hitters or carries over (S4). A match runs until
``target_points`` (M1–M3).

Phases (:class:`~.rules.Phase`), one legal-action rule and one step function each
(:mod:`.kernels`):

======  ==============================================================================
phase   decision
======  ==============================================================================
BID     the bidder (C1) bids 0..cards_each          actions ``bid:0`` .. ``bid:13``
SHOW    the declarer shows a card or stops (D1)     actions ``show:<card>``, ``stop``
CALL    say "Abracadabra" or not (F1): T = 0 before the first lead, each bidding
        player in turn from the declarer; else the player who just took his T-th
        trick                                       actions ``call``, ``no_call``
PLAY    the hand to act plays a card (E1–E4)        actions ``play:<card>``
OVER    the episode has ended (no actions)
======  ==============================================================================

The games are :attr:`AbracadabraEngine.state`, an :class:`~.state.AbracadabraState` of
fixed-shape arrays with one row per game; the constants and rule tables are :mod:`.rules`
and the observation is :mod:`.observation`. One code path per rule, whatever the batch
size (a batch of one is what the AEC environment drives): the step of each decision phase,
the legal-action mask and the observation run as compiled loops over the games
(:mod:`.kernels` and :func:`.observation.observe_games`, numba, cached on disk), and so
do dealing (B, :func:`.kernels.deal_games`) and the end of a deal (F2, S1–S4, M1–M3,
:func:`.kernels.finish_deals`). The per-step kernels are called as machine code found once
per state (:func:`envs.compiled.machine_code`): a single game's step would otherwise pay
numba's typing of some 30 arguments on every call.

Card sets (hands, cards played, cards shown) are ``uint64`` bit sets, bit ``c`` for card
index ``c``: playing a card is one ``&=``, "must follow suit" is one ``&`` with a
precomputed suit set (:data:`~.rules.FOLLOW_BITS`).

Chips: every bidding player stakes ``ante`` (C2); the declarer adds ``ante`` (``multiple``)
or ``raise_increment`` (``add``) per shown card (D2). At the end of a deal the pot is split
among the hitters (S4) or carried over. When the episode ends (a ``deal`` episode is a
match of one deal) a pot still carried over goes to the points winner(s) (M2). A player's
chips for a deal are ``pot_share + final_share - stake``.
"""

from __future__ import annotations

import numpy as np

from envs.cards import CARD_NAMES, names, parse_card
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

from . import kernels
from .config import AbracadabraConfig
from .observation import (
    LAYOUT,
    encode,
    int8_error,
    observation_scale,
    observe_game,
    observe_settings,
    observed,
)
from .resample import copy_generator, game_rows, generator_for, resample_state, take_games
from .rules import ACTION_NAMES, CARD_BIT, NUM_ACTIONS, PHASE_NAMES, Phase
from .state import AbracadabraState, unpack_cards

# Phases: numpy inspects an IntEnum member as a possible array before using it as a number
# (a slow path on every call), so numpy expressions store ``Phase.X.value``.

_DEALER_COUNTER = np.uint64(2**63 + 12345)  # hash counter of the first-dealer draw (B1)
#: buckets of the deal's sort (kernels.deal_games): about two per card, where one per card
#: leaves more moves (and mispredicted branches) to its insertion sort
DEAL_BUCKETS = 128

class AbracadabraEngine(BatchEngine):
    """``batch_size`` independent Abracadabra games as fixed-shape numpy arrays.

    The games are :attr:`state` (:class:`~.state.AbracadabraState`). Besides
    :class:`~envs.core.BatchEngine`'s attributes and driver properties, ``config`` and two
    more read-only views of the state: ``pot`` (int [B]) and ``last_chips`` (float [B, P]).
    """

    def __init__(self, config: AbracadabraConfig | None = None, batch_size: int = 1):
        if config is None:
            config = AbracadabraConfig()
        if not isinstance(config, AbracadabraConfig):
            raise ValueError(f"config must be an AbracadabraConfig, got {type(config)!r}")
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size={batch_size!r} is not allowed: expected an int >= 1")
        self.config = config
        self.batch_size = B = int(batch_size)
        self.num_players = P = config.num_players
        self.num_hands = H = config.num_hands
        self.cards_each = config.cards_each
        self.num_actions = NUM_ACTIONS
        self.action_names = ACTION_NAMES
        self.layout = LAYOUT
        self.observation_bounds = (0.0, 1.0e6)
        self.observation_scale = observation_scale(config)  # of the int8 observation
        self.deck = config.deck
        self.has_dummy = config.spec.has_dummy
        #: the games: one row per game of every state array
        self.state = AbracadabraState.allocate(B, P, H)
        # -- engine-private constants and caches (not game state) -------------------------
        self._int8_error = int8_error(config)  # None: int8 observations are exact
        self._bonus = np.array((0, *config.bonus), np.int32)  # S1 by hitter count
        self._raise = config.ante if config.raise_mode == "multiple" else config.raise_increment
        self._auto_call = config.call_mode == "auto"
        self._deals_limit = config.deals_limit
        self._observe_settings = observe_settings(config)
        self._reward_kind = kernels.REWARD_KINDS.index(config.reward)
        self._rng = np.random.default_rng()

    # -- the driver API beyond BatchEngine's: state arrays, read only ----------------------
    @property
    def pot(self) -> np.ndarray:
        """int64 [B]: chips in the pot, carry-over included (S4)."""
        return self.state.pot

    @property
    def last_chips(self) -> np.ndarray:
        """float64 [B, P]: net chips of the last finished deal."""
        return self.state.last_chips

    # ===================================================================================
    # reset and dealing
    # ===================================================================================
    def reset(
        self,
        seed: int | None = None,
        games: np.ndarray | None = None,
        game_seeds: np.ndarray | None = None,
    ) -> None:
        """Start new episodes in every game, or in those ``games`` selects: a bool mask of
        shape (B,), or distinct integer indices in 0..B-1 (the dtype decides; see
        :func:`~envs.core.check_games`). ``seed`` (an int >= 0) re-seeds the engine's
        generator; each reset game gets a 64-bit key, from ``game_seeds`` (integers in
        0..2**64-1, one per reset game in the order ``games`` names them) or drawn from the
        generator. A game's k-th deal and its first dealer are pure functions of its key
        (B1, B2). A bad argument raises ``ValueError`` naming it; nothing changes."""
        s = self.state
        check_seed(seed)
        g, keys = games_to_reset(self.batch_size, games, game_seeds, None)  # validates
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if keys is None:
            keys = random_keys(self._rng, len(g))
        if len(g) == 0:
            return
        # the types the machine code is compiled for (games_to_reset gives them already)
        g, keys = np.ascontiguousarray(g, np.intp), np.ascontiguousarray(keys, np.uint64)
        start_episodes, fixed = s.bound_kernel(
            "start_episodes", kernels.start_episodes, (g, keys),
            lambda: (s.episode, s.bidding, s.match, s.last))
        start_episodes(g, keys, *fixed)
        self._deal(g, draw_dealer=True)

    def _deal(self, g: np.ndarray, draw_dealer: bool = False) -> None:
        """Deal the current deal of games ``g`` (B2; with ``draw_dealer`` the first dealer
        is drawn first, B1) and open the bidding (C1): :func:`~.kernels.deal_games`. A
        game's k-th deal is the stable sort of ``hashed_uniform(key, k)`` over the deck
        (the cards of :func:`~envs.core.shuffled`)."""
        s = self.state
        n = len(self.deck)
        g = np.ascontiguousarray(g, np.intp)  # the type the machine code was compiled for
        deal_games, fixed = s.bound_kernel(
            "deal", kernels.deal_games, (g, draw_dealer), lambda: (
                _DEALER_COUNTER, self.deck, self.cards_each, s.episode, s.deal, s.bidding,
                s.play, np.empty(n), np.empty(n), np.empty(n, np.intp),
                np.empty(DEAL_BUCKETS + 1, np.intp)))  # scratch
        deal_games(g, draw_dealer, *fixed)

    def _start_deal(self, game: int) -> None:
        """Clear ``game``'s per-deal state and open the bidding left of the dealer (C1):
        :func:`~.kernels.start_deal`."""
        s = self.state
        kernels.start_deal(game, self.num_players, s.episode, s.deal, s.bidding, s.play)

    def reset_with_deal(
        self,
        game: int,
        dealer: int | None = None,
        hands: list[list[str]] | None = None,
        leftover: str | None = None,
        seed: int | None = None,
    ) -> None:
        """Start a new episode in ``game`` with a fixed first deal: ``hands`` in seat order
        (the dummy's hand last; ``None`` keeps the random deal), ``leftover`` the turned-up
        card (``None``: the one card of the deck not dealt, if any), ``dealer`` the seat
        dealing it (``None``: drawn as usual, B1). ``seed`` re-seeds the generator as in
        :meth:`reset`. Everything is validated first (``ValueError`` saying what is
        wrong, and for a card where it is: ``hands[h][i]`` or ``leftover``); nothing
        changes on error. Later deals of a match come from the game's key as usual."""
        check_int("game", game, 0, self.batch_size - 1)
        check_seed(seed)
        if dealer is not None and (
            isinstance(dealer, bool)
            or not isinstance(dealer, (int, np.integer))
            or not 0 <= dealer < self.num_players
        ):
            raise ValueError(f"dealer={dealer!r} is out of range: expected a seat "
                             f"0..{self.num_players - 1} (the dummy never deals, B1)")
        if hands is None:
            if leftover is not None:
                raise ValueError("leftover needs hands: give the whole deal")
            parsed, lo = None, None
        else:
            parsed, lo = self._parse_deal(hands, leftover)
        # all valid: start a fresh episode in this game and lay out the deal
        mask = np.zeros(self.batch_size, bool)
        mask[game] = True
        self.reset(seed=seed, games=mask)
        if dealer is not None:
            self.state.dealer[game] = dealer
        if parsed is not None:
            self._lay_out(game, parsed, lo)
        self._start_deal(game)

    def set_deal(self, game: int, hands: list[list[str]], leftover: str | None = None) -> None:
        """Replace the cards of ``game``'s current deal before anyone has bid (e.g. the
        next deal of a match, dealt automatically): same arguments and checks as
        :meth:`reset_with_deal`; dealer, pot and totals are kept."""
        check_int("game", game, 0, self.batch_size - 1)
        if self.state.phase[game] != Phase.BID.value or self.state.num_bids[game] > 0:
            raise ValueError("set_deal is only allowed before the first bid of a deal")
        parsed, lo = self._parse_deal(hands, leftover)
        self._lay_out(game, parsed, lo)

    def _lay_out(self, game: int, parsed: list[list[int]], leftover: int) -> None:
        self.state.hand_bits[game] = [CARD_BIT[row].sum() for row in parsed]
        kernels.set_leftover(game, leftover, self.state.deal)

    def _parse_deal(self, hands: list[list[str]], leftover: str | None) -> tuple[list, int]:
        """Validate a fixed deal (B2): hand count and sizes, cards of this deck, no
        duplicates, the leftover the one undealt card. Returns card indices. A bad card is
        named with its place, ``hands[h][i]`` (hand h, position i) or ``leftover``."""
        H, E = self.num_hands, self.cards_each
        if not isinstance(hands, (list, tuple)) or len(hands) != H:
            raise ValueError(f"hands must be a list of {H} hands (seat order, dummy last), "
                             f"got {hands!r}")
        in_deck = set(int(c) for c in self.deck)
        seen: dict[int, tuple[int, str]] = {}  # card -> (hand, place)
        parsed = []
        for h, hand in enumerate(hands):
            if not isinstance(hand, (list, tuple)) or len(hand) != E:
                size = len(hand) if isinstance(hand, (list, tuple)) else repr(hand)
                raise ValueError(f"hand {h} must hold {E} cards in variant "
                                 f"{self.config.variant!r}, got {size}")
            row = []
            for i, text in enumerate(hand):
                where = f"hands[{h}][{i}]"
                try:
                    c = parse_card(text)
                except ValueError as err:
                    raise ValueError(f"{where}: {err}") from None
                if c not in in_deck:
                    raise ValueError(f"{where}: card {text!r} is not in the deck of variant "
                                     f"{self.config.variant!r} (joker={self.config.joker})")
                if c in seen:
                    raise ValueError(f"{where}: duplicate card {CARD_NAMES[c]!r} (already at "
                                     f"{seen[c][1]})")
                seen[c] = (h, where)
                row.append(c)
            parsed.append(row)
        rest = sorted(in_deck - set(seen))
        if leftover is None:
            return parsed, (rest[0] if rest else -1)
        try:
            lo = parse_card(leftover)
        except ValueError as err:
            raise ValueError(f"leftover: {err}") from None
        if lo not in rest:
            if lo in seen:
                why = f"it is already in hand {seen[lo][0]} (at {seen[lo][1]})"
            elif rest:
                why = f"the undealt card is {names(rest)[0]!r}"
            else:
                why = "this deck has no leftover card (no joker, B2)"
            raise ValueError(f"leftover={leftover!r} is not allowed: {why}")
        return parsed, lo

    # ===================================================================================
    # legal actions and the decision phases: compiled, one game at a time (.kernels)
    # ===================================================================================
    def legal_action_mask(self) -> np.ndarray:
        """bool [B, 123]: the legal actions of each game's player to act, by its phase:
        a bid 0..cards_each (C1), show a held card not yet shown or stop (D1), call or not
        (F1), a card following the suit led if able (E2, B3); none once over
        (:func:`~.kernels.legal_action_mask`)."""
        s = self.state
        mask = np.empty((self.batch_size, NUM_ACTIONS), bool)
        # the state's cache entry, or (the first time) bound_kernel: no closure per call
        code, fixed = s.kernel_cache.get("mask") or s.bound_kernel(
            "mask", kernels.legal_action_mask, (mask,),
            lambda: (self.cards_each, s.episode, s.deal, s.bidding, s.play))
        code(mask, *fixed)
        return mask

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """Apply one action per game; see :class:`~envs.core.BatchEngine`. Returns float32
        [B, P] rewards (every seat's, when a deal or the match ends). An illegal action
        raises ``ValueError`` naming it (and the game, in a batch) before anything changes.

        Each live game's decision is played by :func:`~.kernels.step_games` (C1–C3, D1–D2,
        E1–E4, F1); the games whose deal ended are then scored by :meth:`_finish_deal`
        (F2, S1–S4, M1–M3)."""
        B = self.batch_size
        actions = check_actions(actions, B)
        active = check_active(active, B)
        s = self.state
        ended = np.empty(B, np.intp)
        # the key fixes active's type: None or a C-contiguous bool array (check_active)
        key = "step" if active is None else "step active"
        step_games, fixed = s.kernel_cache.get(key) or s.bound_kernel(
            key, kernels.step_games, (actions, active, ended),
            lambda: (self.cards_each, self.config.ante, self._raise, self._auto_call,
                     s.episode, s.deal, s.bidding, s.play))
        bad, n = step_games(actions, active, ended, *fixed)
        if bad >= 0:  # nothing has changed
            self._illegal(bad, int(actions[bad]))
        rewards = np.zeros((B, self.num_players), np.float32)
        if n:
            self._finish_deal(ended[:n], rewards)
        return rewards

    def _illegal(self, game: int, a: int) -> None:
        """Raise the ``ValueError`` of illegal action ``a`` in ``game``."""
        name = repr(ACTION_NAMES[a]) if 0 <= a < NUM_ACTIONS else f"{a} (out of range)"
        where = f" in game {game}" if self.batch_size > 1 else ""
        s = self.state
        raise ValueError(f"illegal action {name}{where}: phase is "
                         f"{PHASE_NAMES[s.phase[game]]!r}, seat {s.current_player[game]} "
                         "to act; nothing was changed")

    def _finish_deal(self, g: np.ndarray, rewards: np.ndarray) -> None:
        """Score the deals of games ``g`` (S1–S4), end their episodes (M1–M3) or deal their
        next deal (the dealer passes left, B1): :func:`~.kernels.finish_deals`."""
        s, cfg = self.state, self.config
        more = np.empty(len(g), np.intp)
        finish_deals, fixed = s.bound_kernel(  # g, more: intp, rewards: float32 [B, P]
            "finish", kernels.finish_deals, (g, rewards, more), lambda: (
                self._bonus, cfg.episode == "deal", cfg.target_points, self._deals_limit,
                self._reward_kind, s.episode, s.deal, s.bidding, s.play, s.match,
                s.last))
        m = finish_deals(g, rewards, more, *fixed)
        if m:
            self._deal(more[:m])

    # ===================================================================================
    # observation
    # ===================================================================================
    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None,
                dtype: object = None) -> np.ndarray:
        """float32 [B, layout.size] from each game's ``seats`` (default: the seat to act,
        seat 0 once over), seat-relative: the observer is player slot 0. Only what that
        seat may know: own hand, the dummy's face-up hand, shown cards, public history.
        Written by :func:`~.observation.observe_games`. ``out`` (float32 or int8
        [B, D], C-contiguous): written in full and returned instead of a fresh array.
        ``dtype=np.int8`` or an int8 ``out``: the integer observation, which times
        :attr:`observation_scale` is the float32 one (``episode="deal"`` only)."""
        B, P = self.batch_size, self.num_players
        out = observation_buffer(B, self.layout.size, dtype, out)
        check_out(out, B, self.layout.size, self._int8_error)
        if seats is not None:
            seats = check_seats(seats, B, P)
        return self._observe_batch(seats, out)

    def _observe_batch(self, seats: np.ndarray | None, out: np.ndarray) -> np.ndarray:
        """:meth:`observe` of any batch from ``seats`` (int [B], valid; None: each game's
        seat to act) into ``out`` (:func:`~.observation.observe_games`)."""
        encode(self.state, self._observe_settings, seats, out)
        return out

    def observe_one(self, seat: int, out: np.ndarray) -> None:
        """See :meth:`envs.core.BatchEngine.observe_one` (game 0, no argument checks):
        :func:`~.observation.observe_game`, the code of every observation."""
        s = self.state
        dtype = out.dtype.char  # "f" (float32) or "b" (int8)
        # the key fixes out's type: a C-contiguous row of its dtype (the caller's promise)
        key = "observe one " + dtype
        code, fixed = s.kernel_cache.get(key) or s.bound_kernel(
            key, observe_game, (0, seat, out), lambda: (self._observe_settings, *observed(s)))
        code(0, seat, out, *fixed)

    # ===================================================================================
    # results and inspection
    # ===================================================================================
    def result(self, game: int = 0) -> dict | None:
        """The last finished deal of ``game`` as a dict (``info["result"]``), or None."""
        s = self.state
        if not s.has_result[game]:
            return None
        P = self.num_players
        res = {
            "deal": int(s.last_deal[game]),
            "declarer": int(s.last_declarer[game]),
            "target": int(s.last_target[game]),
            "tricks": s.last_tricks[game].tolist(),
            "called": [int(seat) for seat in range(P) if s.last_called[game, seat]],
            "hitters": [int(seat) for seat in range(P) if s.last_hitters[game, seat]],
            "points": s.last_points[game].tolist(),
            "stakes": s.last_stakes[game].tolist(),
            "pot_share": s.last_share[game].tolist(),
            "final_share": s.last_final_share[game].tolist(),
            "carry": int(s.last_carry[game]),
            "chips": s.last_chips[game].tolist(),
            "totals": s.totals[game].tolist(),
            "match_over": bool(s.game_over[game]),
        }
        if s.game_over[game]:
            res["winners"] = [int(seat) for seat in range(P) if s.winners[game, seat]]
        return res

    def phase_name(self, game: int = 0) -> str:
        return PHASE_NAMES[self.state.phase[game]]

    def hand_cards(self, game: int, hand: int) -> list[int]:
        """Card indices held by ``hand`` (seat, or the dummy's index) in ``game``."""
        return np.flatnonzero(unpack_cards(self.state.hand_bits[game, hand])).tolist()

    def snapshot(self) -> dict[str, np.ndarray]:
        """Copies of every state array, and the bool views of the card sets (for tests
        and debugging)."""
        s = self.state
        arrays = {name: array.copy() for name, array in s.arrays().items()}
        arrays.update(hands=s.hands(), played=s.played(), shown=s.shown())
        return arrays

    # ===================================================================================
    # copies and resampled worlds (search agents): thin wrappers over .resample
    # ===================================================================================
    def clone(self, games: np.ndarray | None = None) -> AbracadabraEngine:
        """A new engine of the same config holding copies of ``games``: None (every game),
        a bool mask of length B, or int indices (repeats allowed, order kept). Stepping
        either engine leaves the other unchanged. The per-game keys are copied, so later
        deals are the same; the clone's generator (used by :meth:`reset` without
        ``game_seeds``) is an independent copy of this one's, at the same point of the
        same stream."""
        rows = game_rows(games, self.batch_size)
        return self._holding(take_games(self.state, rows), copy_generator(self._rng))

    def resample(self, game: int, seat: int, n: int, seed: int) -> AbracadabraEngine:
        """``n`` worlds of ``game`` as seen by ``seat``: ``resample_many([game], [seat], n,
        [seed])`` (see there)."""
        check_int("game", game, 0, self.batch_size - 1)
        check_int("seat", seat, 0, self.num_players - 1)
        check_int("seed", seed, 0, 2**64 - 1)
        if self.state.game_over[game]:
            raise ValueError(f"game={game} is over (game_over): there is nothing to resample")
        return self.resample_many([game], [seat], n, [seed])

    def resample_many(self, games: np.ndarray, seats: np.ndarray, n: int,
                      seeds: np.ndarray) -> AbracadabraEngine:
        """A new engine of ``len(games) * n`` games: for each ``i``, ``n`` worlds of game
        ``games[i]`` as seen by seat ``seats[i]`` (a bidding seat), drawn with
        ``seeds[i]`` (an int in 0..2**64-1); row ``i * n + k`` is world ``k`` of
        ``games[i]``. Each world is a complete state that agrees with everything the seat
        has seen (its hand, everything public, the void record ``void_bits``) and draws
        the rest (the other players' unseen cards, the game key of later deals) uniformly
        among the consistent worlds, from the seed and the public state only
        (:mod:`.resample`). Its observation from the seat and, when the seat is to act, its
        legal-action mask equal the original's. The new engine's generator is seeded from
        ``seeds``. ``ValueError`` (naming the argument) for ``n < 1``, a game or seat out
        of range, a finished game, or non-integer values."""
        state = resample_state(self.state, self.config, games, seats, n, seeds)
        return self._holding(state, generator_for(seeds))

    def _holding(self, state: AbracadabraState, rng: np.random.Generator
                 ) -> AbracadabraEngine:
        """A new engine of this config whose games are ``state`` and generator ``rng``."""
        engine = type(self)(self.config, len(state.key))
        engine.state = state
        engine._rng = rng
        return engine
