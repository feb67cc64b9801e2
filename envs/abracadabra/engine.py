"""Abracadabra rules engine: pure numpy, batch-first, no RL framework.

Rules (docs/rules.md A–M, cited by id below). After the deal (B) every bidding player, from the
left of the dealer, bids a number of tricks and stakes the ante (C1–C2); the highest bid,
ties to the earliest bidder, makes the declarer and the target T (C3). The declarer may show
cards to raise his stake (D1–D2), then leads (E1). Players follow suit (E2; the joker is the
top trump, B3, E3). In ``two_dummy`` the leader of each trick plays the dummy's card (E4).
A player who has just taken his T-th trick may say "Abracadabra" (F1) and hits if he ends
with exactly T tricks (F2). Hitters score the bonus, everyone scores tricks and 2 per card
of bid-rank T (S1–S3); the pot goes to the hitters or carries over (S4). A match runs until
``target_points`` (M1–M3).

Phases (:class:`~.rules.Phase`), one small legal-action function and one transition
function each:

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
and the observation encoder is :mod:`.observation`. Every transition is vectorised over the
games of the batch in that phase (index arrays and ``np.where``); there is no per-game
Python loop on the step/observe/mask path. A batch of one (what the AEC environment drives)
takes the single-game fast paths gathered at the end of the class.

Card sets (hands, cards played, cards shown) are ``uint64`` bit sets, bit ``c`` for card
index ``c``: playing a card is one ``&=``, "must follow suit" is one ``&`` with a
precomputed suit set (:data:`~.rules.FOLLOW_BITS`), and the observation unpacks them in one
call.

Chips: every bidding player stakes ``ante`` (C2); the declarer adds ``ante`` (``multiple``)
or ``raise_increment`` (``add``) per shown card (D2). At the end of a deal the pot is split
among the hitters (S4) or carried over. When the episode ends (a ``deal`` episode is a
match of one deal) a pot still carried over goes to the points winner(s) (M2). A player's
chips for a deal are ``pot_share + final_share - stake``.
"""

from __future__ import annotations

import numpy as np

from envs.cards import CARD_NAMES, JOKER, NUM_CARDS, SUIT_OF, names, parse_card
from envs.core import (
    BatchEngine,
    check_actions,
    check_active,
    check_int,
    check_out,
    check_seats,
    check_seed,
    games_to_reset,
    hashed_uniform,
    observation_buffer,
    random_keys,
    shuffled,
    stable_argsort_rows,
)

from .config import AbracadabraConfig
from .observation import LAYOUT, ObservationEncoder, int8_error, observation_scale
from .resample import copy_generator, game_rows, generator_for, resample_state, take_games
from .rules import (
    ACTION_NAMES,
    BID_OFFSET,
    BID_VALUE,
    CALL,
    CARD_BIT,
    FOLLOW_BITS,
    NO_CALL,
    NUM_ACTIONS,
    PHASE_NAMES,
    PLAY_OFFSET,
    SHOW_OFFSET,
    STOP,
    TRICK_STRENGTH,
    Phase,
)
from .state import AbracadabraState, unpack_cards

# Phases: numpy inspects an IntEnum member as a possible array before using it as a number
# (a slow path on every call), so numpy expressions compare and store ``Phase.X.value``; the
# single-game paths compare Python ints (``phase.item(0)``) with the members.

_DEALER_COUNTER = np.uint64(2**63 + 12345)  # hash counter of the first-dealer draw (B1)

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
        self._next_hand = ((np.arange(H) + 1) % H).astype(np.int8)  # E1: clockwise
        self._rows = np.arange(B)
        self._row_h = self._rows * H  # flat offset of each game's row in a [B, H] array
        self._rng = np.random.default_rng()
        self._mask_cache: np.ndarray | None = None
        self._encoder = ObservationEncoder(config, B)  # per-variant column tables

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
        s.key[g] = keys
        s.deal_index[g] = 0
        s.deals_done[g] = 0
        s.totals[g] = 0
        s.pot[g] = 0
        s.winners[g] = False
        s.game_over[g] = False
        s.deal_over[g] = False
        s.has_result[g] = False
        # One hash call for both draws: row 0 is the first dealer's (lane 0 of the dealer
        # counter, B1), row 1 shuffles deal 0 (exactly what shuffled() would draw, B2)
        n = len(g)
        counters = np.concatenate([np.full(n, _DEALER_COUNTER), np.zeros(n, np.uint64)])
        u = hashed_uniform(np.concatenate([keys, keys]), counters, len(self.deck))
        s.dealer[g] = np.minimum((u[:n, 0] * self.num_players).astype(np.int64),
                                     self.num_players - 1)  # B1: drawn at random
        self._deal(g, u[n:])
        self._mask_cache = None

    def _deal(self, g: np.ndarray, uniforms: np.ndarray | None = None) -> None:
        """Shuffle and deal the current deal of games ``g`` (B2) and open the bidding.
        ``uniforms``: the hash draws of this deal, if the caller has them already (they
        give the same cards as :func:`~envs.core.shuffled`)."""
        s = self.state
        n, H, E = len(g), self.num_hands, self.cards_each
        if uniforms is None:
            cards = shuffled(s.key[g], s.deal_index[g], self.deck)  # [n, D]
        else:
            cards = self.deck[stable_argsort_rows(uniforms)]
        dealt = cards[:, : H * E].reshape(n, H, E)  # hand h gets the h-th E cards
        # distinct bits: their sum is their union (einsum: a fast sum over the short axis)
        s.hand_bits[g] = np.einsum("ijk->ij", CARD_BIT[dealt])
        if len(self.deck) > H * E:
            self._set_leftover(g, cards[:, H * E])
        else:
            self._set_leftover(g, np.full(n, -1, np.int8))
        self._start_deal(g)

    def _set_leftover(self, g: np.ndarray, leftover: np.ndarray) -> None:
        """B2: the leftover's suit is trump; the joker or no leftover means no trump."""
        leftover = np.asarray(leftover, np.int8)
        self.state.leftover[g] = leftover
        plain = (leftover >= 0) & (leftover != JOKER)
        self.state.trump[g] = np.where(plain, SUIT_OF[leftover], -1)

    def _start_deal(self, g: np.ndarray) -> None:
        """Clear the per-deal state of games ``g`` and start the bidding left of the
        dealer (C1)."""
        s = self.state
        s.phase[g] = Phase.BID.value
        s.bids[g] = -1
        s.num_bids[g] = 0
        s.declarer[g] = -1
        s.target[g] = -1
        s.shown_bits[g] = 0
        s.num_shown[g] = 0
        s.stakes[g] = 0
        s.played_bits[g] = 0
        s.void_bits[g] = 0
        s.trick[g] = -1
        s.trick_size[g] = 0
        s.leader[g] = -1
        s.to_play[g] = -1
        s.dummy_ctrl[g] = -1
        s.tricks_won[g] = 0
        s.tricks_done[g] = 0
        s.rank_cards[g] = 0
        s.called[g] = False
        s.current_player[g] = (s.dealer[g] + 1) % self.num_players

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
        g = np.array([game])
        if dealer is not None:
            self.state.dealer[game] = dealer
        if parsed is not None:
            self._lay_out(game, parsed, lo)
        self._start_deal(g)
        self._mask_cache = None

    def set_deal(self, game: int, hands: list[list[str]], leftover: str | None = None) -> None:
        """Replace the cards of ``game``'s current deal before anyone has bid (e.g. the
        next deal of a match, dealt automatically): same arguments and checks as
        :meth:`reset_with_deal`; dealer, pot and totals are kept."""
        check_int("game", game, 0, self.batch_size - 1)
        if self.state.phase[game] != Phase.BID.value or self.state.num_bids[game] > 0:
            raise ValueError("set_deal is only allowed before the first bid of a deal")
        parsed, lo = self._parse_deal(hands, leftover)
        self._lay_out(game, parsed, lo)
        self._mask_cache = None

    def _lay_out(self, game: int, parsed: list[list[int]], leftover: int) -> None:
        self.state.hand_bits[game] = [CARD_BIT[row].sum() for row in parsed]
        self._set_leftover(np.array([game]), np.array([leftover]))

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
    # legal actions, one small function per phase
    # ===================================================================================
    def legal_action_mask(self) -> np.ndarray:
        """bool [B, 123]: the legal actions of each game's player to act."""
        return self._legal_mask().copy()

    def _legal_mask(self) -> np.ndarray:
        """The mask of the current state, computed once per state (do not modify it)."""
        if self._mask_cache is None:
            self._mask_cache = self._legal_one() if self.batch_size == 1 else self._legal_batch()
        return self._mask_cache

    def _legal_batch(self) -> np.ndarray:
        """bool [B, 123]: the legal actions of every game, one function per phase."""
        phase = self.state.phase
        mask = np.zeros((self.batch_size, NUM_ACTIONS), bool)
        counts = np.bincount(phase, minlength=len(Phase))
        # most steps are card plays: that one is computed for the whole batch at once
        if counts[Phase.PLAY.value]:
            self._legal_play(mask)
        for ph, fill in (
            (Phase.BID.value, self._legal_bid),
            (Phase.SHOW.value, self._legal_show),
            (Phase.CALL.value, self._legal_call),
        ):
            if counts[ph]:
                fill(np.flatnonzero(phase == ph), mask)
        return mask

    def _legal_bid(self, g: np.ndarray, mask: np.ndarray) -> None:
        """C1: any number of tricks 0..cards_each."""
        mask[g, BID_OFFSET : BID_OFFSET + self.cards_each + 1] = True

    def _legal_show(self, g: np.ndarray, mask: np.ndarray) -> None:
        """D1: show any held card not yet shown, or stop."""
        s = self.state
        held = s.hand_bits[g, s.declarer[g]] & ~s.shown_bits[g]
        mask[g, SHOW_OFFSET : SHOW_OFFSET + NUM_CARDS] = unpack_cards(held)
        mask[g, STOP] = True

    def _legal_call(self, g: np.ndarray, mask: np.ndarray) -> None:
        """F1: say it or let the chance go."""
        mask[g, CALL] = True
        mask[g, NO_CALL] = True

    def _legal_play(self, mask: np.ndarray) -> None:
        """E2: follow the suit led if able (the joker is a trump, B3); else any card.
        Computed for every game (the ones not in PLAY get an empty set)."""
        s = self.state
        row_h = self._row_h
        hand = s.hand_bits.reshape(-1).take(row_h + s.to_play)  # junk if not PLAY
        led_card = s.trick.reshape(-1).take(row_h + s.leader)  # -1: leading
        suit_row = (s.trump.astype(np.intp) + 1) * (NUM_CARDS + 1)
        follow = hand & FOLLOW_BITS.reshape(-1).take(suit_row + led_card + 1)
        legal = np.where(follow != 0, follow, hand)
        legal[s.phase != Phase.PLAY.value] = 0
        mask[:, PLAY_OFFSET : PLAY_OFFSET + NUM_CARDS] = unpack_cards(legal)

    # ===================================================================================
    # transitions, one small function per phase
    # ===================================================================================
    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """Apply one action per game; see :class:`~envs.core.BatchEngine`. Returns float32
        [B, P] rewards (every seat's, when a deal or the match ends)."""
        B = self.batch_size
        actions = check_actions(actions, B)
        active = check_active(active, B)
        if B == 1:
            return self._step_one(actions, active)
        return self._step_batch(actions, active)

    def _step_batch(self, actions: np.ndarray, active: np.ndarray | None) -> np.ndarray:
        """:meth:`step` of checked int64 ``actions`` [B]: every game of a phase at once."""
        B, s = self.batch_size, self.state
        act = ~s.game_over
        if active is not None:
            act &= active
        self._check_legal(actions, act)

        rewards = np.zeros((B, self.num_players), np.float32)
        s.deal_over.fill(False)
        finished = np.zeros(B, bool)
        # each game makes exactly one transition, chosen by its phase before the step
        phase = np.where(act, s.phase, Phase.OVER.value)
        counts = np.bincount(phase, minlength=len(Phase))
        for ph, apply in (
            (Phase.BID.value, self._step_bid),
            (Phase.SHOW.value, self._step_show),
            (Phase.CALL.value, self._step_call),
            (Phase.PLAY.value, self._step_play),
        ):
            if counts[ph]:
                g = np.flatnonzero(phase == ph)
                apply(g, actions[g], finished)
        if finished.any():
            self._finish_deal(np.flatnonzero(finished), rewards)
        self._mask_cache = None
        return rewards

    def _check_legal(self, actions: np.ndarray, act: np.ndarray) -> None:
        if not act.any():
            return
        clipped = np.clip(actions, 0, NUM_ACTIONS - 1)
        legal = self._legal_mask().reshape(-1).take(self._rows * NUM_ACTIONS + clipped)
        legal &= clipped == actions  # in range
        bad = act > legal  # acting, and not legal
        if bad.any():
            b = int(np.argmax(bad))
            a = int(actions[b])
            name = repr(ACTION_NAMES[a]) if 0 <= a < NUM_ACTIONS else f"{a} (out of range)"
            where = f" in game {b}" if self.batch_size > 1 else ""
            s = self.state
            raise ValueError(f"illegal action {name}{where}: phase is "
                             f"{PHASE_NAMES[s.phase[b]]!r}, seat {s.current_player[b]} "
                             "to act; nothing was changed")

    def _step_bid(self, g: np.ndarray, a: np.ndarray, finished: np.ndarray) -> None:
        """C1–C3: record the bid and its stake; after the last bid, name the declarer."""
        s = self.state
        P = self.num_players
        seat = s.current_player[g].astype(np.int64)
        at = g * P + seat  # flat index of the bidder's [B, P] entries
        s.bids.reshape(-1)[at] = a - BID_OFFSET
        s.stakes.reshape(-1)[at] += self.config.ante  # C2
        s.pot[g] += self.config.ante
        s.num_bids[g] += 1
        s.current_player[g] = (seat + 1) % P
        done = g[s.num_bids[g] == P]
        if len(done):
            # C3: highest bid; argmax over bidding order gives ties to the first bidder
            order = (s.dealer[done, None].astype(np.int64) + 1 + np.arange(P)) % P
            in_order = s.bids[done[:, None], order]
            first = np.argmax(in_order, axis=1)
            declarer = order[np.arange(len(done)), first]
            s.declarer[done] = declarer
            s.target[done] = in_order.max(axis=1)
            s.phase[done] = Phase.SHOW.value
            s.current_player[done] = declarer

    def _step_show(self, g: np.ndarray, a: np.ndarray, finished: np.ndarray) -> None:
        """D1–D2: a shown card raises the declarer's stake; ``stop`` ends the showing."""
        s = self.state
        stop = a == STOP
        show = g[~stop]
        if len(show):
            s.shown_bits[show] |= CARD_BIT[a[~stop] - SHOW_OFFSET]
            s.num_shown[show] += 1
            s.stakes[show, s.declarer[show]] += self._raise  # D2
            s.pot[show] += self._raise
        done = g[stop]
        if len(done):
            zero = s.target[done] == 0
            if self._auto_call:
                s.called[done[zero]] = True  # F1 auto: every bidding player says it
                self._start_play(done)
            else:
                self._start_play(done[~zero])
                c = done[zero]  # F1, T = 0: calls before the first lead, from the declarer
                s.phase[c] = Phase.CALL.value
                s.current_player[c] = s.declarer[c]

    def _start_play(self, g: np.ndarray) -> None:
        """E1: the declarer leads the first trick."""
        s = self.state
        s.phase[g] = Phase.PLAY.value
        s.leader[g] = s.declarer[g]
        s.to_play[g] = s.declarer[g]
        s.dummy_ctrl[g] = s.declarer[g]  # E4: the leader plays for the dummy
        s.current_player[g] = s.declarer[g]

    def _step_call(self, g: np.ndarray, a: np.ndarray, finished: np.ndarray) -> None:
        """F1: record the decision; the chance is gone either way."""
        s = self.state
        seat = s.current_player[g].astype(np.int64)
        s.called[g, seat] = a == CALL
        before_lead = s.tricks_done[g] == 0
        # T = 0: the next bidding player decides; after the last one the declarer leads
        pre = g[before_lead]
        nxt = (seat[before_lead] + 1) % self.num_players
        last = nxt == s.declarer[pre]
        s.current_player[pre[~last]] = nxt[~last]
        self._start_play(pre[last])
        # after the T-th trick: play on (the caller leads) or the deal is over
        post = g[~before_lead]
        over = s.tricks_done[post] == self.cards_each
        finished[post[over]] = True
        on = post[~over]
        s.phase[on] = Phase.PLAY.value
        s.current_player[on] = self._controller(on, s.to_play[on])

    def _controller(self, g: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """The seat choosing hand ``hand``'s card: its owner, or for the dummy the seat
        controlling it this trick (E4)."""
        if not self.has_dummy:
            return hand
        return np.where(hand < self.num_players, hand, self.state.dummy_ctrl[g]).astype(np.int8)

    def _step_play(self, g: np.ndarray, a: np.ndarray, finished: np.ndarray) -> None:
        """E1–E4: play the card; when the trick is complete, give it to its winner."""
        s = self.state
        card = a - PLAY_OFFSET
        bit = CARD_BIT[card]
        hand = s.to_play[g]
        at = g * self.num_hands + hand  # flat index of the hand's [B, H] entries
        # the void record (E2, B3): not following the led effective suit shows it is gone
        led = s.trick.reshape(-1)[g * self.num_hands + s.leader[g]]  # -1: leading
        follow = FOLLOW_BITS.reshape(-1).take(
            (s.trump[g].astype(np.intp) + 1) * (NUM_CARDS + 1) + led + 1)
        s.void_bits.reshape(-1)[at] |= np.where(follow & bit, np.uint64(0), follow)
        s.hand_bits.reshape(-1)[at] &= ~bit
        s.played_bits.reshape(-1)[at] |= bit
        s.shown_bits[g] &= ~bit  # a shown card stays face up only until played (D1)
        s.trick.reshape(-1)[at] = card
        size = s.trick_size[g] + 1
        s.trick_size[g] = size
        nxt = self._next_hand[hand]  # E1: clockwise (a complete trick: see _end_trick)
        s.to_play[g] = nxt
        s.current_player[g] = self._controller(g, nxt)
        complete = size == self.num_hands
        if complete.any():
            self._end_trick(g[complete], finished)

    def _end_trick(self, g: np.ndarray, finished: np.ndarray) -> None:
        """E3: the joker, else the highest trump, else the highest card of the suit led
        wins; the winner leads next. F1: a player reaching T tricks may call."""
        s = self.state
        P, H = self.num_players, self.num_hands
        trick = s.trick[g]  # [n, H], all cards present
        led = s.trick.reshape(-1)[g * H + s.leader[g]]
        row = (s.trump[g].astype(np.intp) + 1) * NUM_CARDS + led  # TRICK_STRENGTH row
        strength = TRICK_STRENGTH.reshape(-1).take(row[:, None] * NUM_CARDS + trick)
        winner = strength.argmax(axis=1)
        at = g * H + winner  # flat index of the winner's [B, H] entries
        won = s.tricks_won.reshape(-1)[at] + 1
        s.tricks_won.reshape(-1)[at] = won
        done = s.tricks_done[g] + 1
        s.tricks_done[g] = done
        target = s.target[g]
        of_rank = (BID_VALUE[trick] == target[:, None]).view(np.int8)  # [n, H] of 0/1
        s.rank_cards.reshape(-1)[at] += np.einsum("ij->i", of_rank)  # (a fast row sum)
        if self.has_dummy:
            # E4: the winner (a player) controls the dummy; when the dummy leads, the seat
            # that did not control it in the trick just played does
            other = (s.dummy_ctrl[g] + 1) % P
            s.dummy_ctrl[g] = np.where(winner < P, winner, other)
        s.trick[g] = -1
        s.trick_size[g] = 0
        s.leader[g] = winner
        s.to_play[g] = winner
        s.current_player[g] = self._controller(g, winner)
        # F1: the T-th trick (T >= 1 here, since the winner has taken one)
        reached = (winner < P) & (won == target)
        last = done == self.cards_each
        if self._auto_call:
            r = reached.nonzero()[0]
            s.called[g[r], winner[r]] = True
            finished[g[last]] = True
        else:
            c = g[reached]
            s.phase[c] = Phase.CALL.value
            s.current_player[c] = winner[reached]
            finished[g[last & ~reached]] = True

    def _finish_deal(self, g: np.ndarray, rewards: np.ndarray) -> None:
        """S1–S4 scoring; M1–M3 match end; otherwise the next deal (dealer passes left)."""
        s = self.state
        P = self.num_players
        tricks, called, target = s.tricks_won[g], s.called[g], s.target[g]
        stakes = s.stakes[g]
        won = tricks[:, :P].astype(np.int64)
        hit = called & (won == target[:, None])  # F2
        h = hit.sum(axis=1)
        points = hit * self._bonus[h][:, None] + won + 2 * s.rank_cards[g, :P]  # S1–S3
        pot = s.pot[g]
        share = np.where(hit, (pot / np.maximum(h, 1))[:, None], 0.0)  # S4
        carry = np.where(h > 0, 0, pot)
        totals = s.totals[g] + points
        s.totals[g] = totals
        deals_done = s.deals_done[g] + 1
        s.deals_done[g] = deals_done
        s.deal_over[g] = True
        # the episode ends after target_points (M1) or the deal limit (M3)
        best = totals.max(axis=1)
        if self.config.episode == "deal":
            over = np.ones(len(g), bool)
        else:
            over = (best >= self.config.target_points) | (deals_done >= self._deals_limit)
        winners = (totals == best[:, None]) & over[:, None]
        w = winners.sum(axis=1)
        final = np.where(winners, (carry / np.maximum(w, 1))[:, None], 0.0)  # M2
        s.pot[g] = np.where(over, 0, carry)
        chips = share + final - stakes
        # the result of this deal
        s.has_result[g] = True
        s.last_points[g] = points
        s.last_chips[g] = chips
        s.last_declarer[g] = s.declarer[g]
        s.last_target[g] = target
        s.last_tricks[g] = tricks
        s.last_hitters[g] = hit
        s.last_called[g] = called
        s.last_stakes[g] = stakes
        s.last_share[g] = share
        s.last_final_share[g] = final
        s.last_carry[g] = carry
        s.last_deal[g] = deals_done - 1
        s.winners[g] = winners
        # rewards, for every seat at once
        kind = self.config.reward
        if kind == "points":
            rewards[g] = points
        elif kind == "relative":
            rewards[g] = points - (points.sum(axis=1, keepdims=True) - points) / (P - 1)
        elif kind == "chips":
            rewards[g] = chips
        else:  # win: +1/w to each winner, -1/(P-w) to each loser, zero-sum; 0 if all win
            losers = P - w
            win_r = np.where(losers > 0, 1.0 / np.maximum(w, 1), 0.0)[:, None]
            lose_r = (-1.0 / np.maximum(losers, 1))[:, None]
            rewards[g] = np.where(over[:, None], np.where(winners, win_r, lose_r), 0.0)
        # episode over, or the next deal: the deal passes left (B1), the pot carries (S4)
        done = g[over]
        s.phase[done] = Phase.OVER.value
        s.current_player[done] = -1
        s.game_over[done] = True
        nxt = g[~over]
        if len(nxt):
            s.dealer[nxt] = (s.dealer[nxt] + 1) % P
            s.deal_index[nxt] += 1
            self._deal(nxt)

    # ===================================================================================
    # observation
    # ===================================================================================
    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None,
                dtype: object = None) -> np.ndarray:
        """float32 [B, layout.size] from each game's ``seats`` (default: the seat to act,
        seat 0 once over), seat-relative: the observer is player slot 0. Only what that
        seat may know: own hand, the dummy's face-up hand, shown cards, public history.
        Built by :class:`~.observation.ObservationEncoder`. ``out`` (float32 or int8
        [B, D], C-contiguous): written in full and returned instead of a fresh array.
        ``dtype=np.int8`` or an int8 ``out``: the integer observation, which times
        :attr:`observation_scale` is the float32 one (``episode="deal"`` only)."""
        B, P = self.batch_size, self.num_players
        out = observation_buffer(B, self.layout.size, dtype, out)
        check_out(out, B, self.layout.size, self._int8_error)
        if seats is None:
            seats = np.maximum(self.state.current_player, 0).astype(np.intp)
        else:
            seats = check_seats(seats, B, P)
        if B == 1 and out.dtype == np.float32:
            self.observe_one(int(seats[0]), out[0])
            return out
        return self._observe_batch(seats, out)

    def _observe_batch(self, seats: np.ndarray, out: np.ndarray | None) -> np.ndarray:
        """:meth:`observe` of checked ``seats`` (int [B]) by the batch encoder."""
        return self._encoder.encode(self.state, seats, out)

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
    # single-game fast paths: a batch of one (what the AEC environment drives), on numpy
    # and Python scalars instead of index arrays; numpy's per-call cost dominates there.
    # Each computes exactly what the batch path above computes; cross-checked, array for
    # array, by tests/envs/test_fast_paths.py (batch of one vs game 0 of a batch) and
    # tests/envs/abracadabra/test_fast_paths.py. The observation's part is
    # ObservationEncoder.encode_one (envs/abracadabra/observation.py).
    # ===================================================================================
    def _step_one(self, actions: np.ndarray, active: np.ndarray | None) -> np.ndarray:
        """:meth:`step` for a batch of one: the same transition functions, without the
        phase dispatch over index arrays (numpy's per-call cost dominates here)."""
        s = self.state
        rewards = np.zeros((1, self.num_players), np.float32)
        act = not s.game_over[0]
        if active is not None:
            act = act and bool(active[0])
        if act:
            a = int(actions[0])
            if not (0 <= a < NUM_ACTIONS and self._legal_mask()[0, a]):
                self._check_legal(actions, np.ones(1, bool))  # raises, naming the action
        s.deal_over[0] = False  # (after the check: a refused action changes nothing)
        if act:
            finished = np.zeros(1, bool)
            phase = s.phase.item(0)
            if phase == Phase.PLAY:
                self._play_one(a - PLAY_OFFSET, finished)
            else:
                transition = (self._step_bid, self._step_show, self._step_call)[phase]
                transition(self._rows, actions, finished)
            if finished[0]:
                self._finish_deal(self._rows, rewards)
        self._mask_cache = None
        return rewards

    def _play_one(self, card: int, finished: np.ndarray) -> None:
        """:meth:`_step_play` of a batch of one, on numpy scalars."""
        s = self.state
        bit = CARD_BIT[card]
        hand = s.to_play[0]
        # the void record, on Python ints (card is one; row 0's flat index is the leader)
        follow = FOLLOW_BITS.item(s.trump.item(0) + 1, s.trick.item(s.leader.item(0)) + 1)
        if follow and not follow >> card & 1:  # (follow is 0 when leading)
            s.void_bits[0, hand] |= np.uint64(follow)
        s.hand_bits[0, hand] &= ~bit
        s.played_bits[0, hand] |= bit
        s.shown_bits[0] &= ~bit
        s.trick[0, hand] = card
        size = s.trick_size[0] + 1
        s.trick_size[0] = size
        nxt = self._next_hand[hand]
        s.to_play[0] = nxt
        s.current_player[0] = (nxt if not self.has_dummy or nxt < self.num_players
                                  else s.dummy_ctrl[0])
        if size == self.num_hands:
            self._end_trick_one(finished)

    def _end_trick_one(self, finished: np.ndarray) -> None:
        """:meth:`_end_trick` of a batch of one, on Python scalars."""
        s = self.state
        P = self.num_players
        trick = s.trick[0]  # all cards present
        strength = TRICK_STRENGTH[s.trump[0] + 1, trick[s.leader[0]]].take(trick)
        winner = int(strength.argmax())
        won = int(s.tricks_won[0, winner]) + 1
        s.tricks_won[0, winner] = won
        done = int(s.tricks_done[0]) + 1
        s.tricks_done[0] = done
        target = int(s.target[0])
        s.rank_cards[0, winner] += int(np.count_nonzero(BID_VALUE.take(trick) == target))
        controller = winner
        if self.has_dummy:  # E4, as in _end_trick
            if winner >= P:
                s.dummy_ctrl[0] = (int(s.dummy_ctrl[0]) + 1) % P
                controller = int(s.dummy_ctrl[0])
            else:
                s.dummy_ctrl[0] = winner
        trick.fill(-1)
        s.trick_size[0] = 0
        s.leader[0] = winner
        s.to_play[0] = winner
        s.current_player[0] = controller
        reached = winner < P and won == target  # F1
        if self._auto_call:
            if reached:
                s.called[0, winner] = True
            finished[0] = done == self.cards_each
        elif reached:
            s.phase[0] = Phase.CALL.value
            s.current_player[0] = winner
        else:
            finished[0] = done == self.cards_each

    def _legal_one(self) -> np.ndarray:
        """:meth:`_legal_batch` of a batch of one; a card play (most steps) on numpy
        scalars, as :meth:`_legal_play` does for a whole batch."""
        s = self.state
        mask = np.zeros((1, NUM_ACTIONS), bool)
        phase = s.phase.item(0)
        if phase == Phase.PLAY:
            hand = s.hand_bits[0, s.to_play[0]]
            led_card = s.trick[0, s.leader[0]]
            legal = int(hand & FOLLOW_BITS[s.trump[0] + 1, led_card + 1]) or int(hand)
            packed = np.frombuffer(legal.to_bytes(8, "little"), np.uint8)
            mask[0, PLAY_OFFSET : PLAY_OFFSET + NUM_CARDS] = np.unpackbits(
                packed, count=NUM_CARDS, bitorder="little")
        elif phase != Phase.OVER:
            fill = (self._legal_bid, self._legal_show, self._legal_call)[phase]
            fill(self._rows, mask)
        return mask

    def observe_one(self, seat: int, out: np.ndarray) -> None:
        """See :meth:`envs.core.BatchEngine.observe_one` (game 0, no argument checks)."""
        self._encoder.encode_one(self.state, seat, out)

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
