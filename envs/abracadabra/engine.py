"""Abracadabra rules engine: pure numpy, batch-first, no RL framework.

Rules (RULES.md A–M, cited by id below). After the deal (B) every bidding player, from the
left of the dealer, bids a number of tricks and stakes the ante (C1–C2); the highest bid,
ties to the earliest bidder, makes the declarer and the target T (C3). The declarer may show
cards to raise his stake (D1–D2), then leads (E1). Players follow suit (E2; the joker is the
top trump, B3, E3). In ``two_dummy`` the leader of each trick plays the dummy's card (E4).
A player who has just taken his T-th trick may say "Abracadabra" (F1) and hits if he ends
with exactly T tricks (F2). Hitters score the bonus, everyone scores tricks and 2 per card
of bid-rank T (S1–S3); the pot goes to the hitters or carries over (S4). A match runs until
``target_points`` (M1–M3).

Phases, one small legal-action function and one transition function each:

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

Every transition is vectorised over the games of the batch in that phase (index arrays
and ``np.where``); there is no per-game Python loop on the step/observe/mask path.

Card sets (hands, cards played, cards shown) are ``uint64`` bit sets, bit ``c`` for card
index ``c``: playing a card is one ``&=``, "must follow suit" is one ``&`` with a
precomputed suit set, and the observation unpacks them in one call. The tables that turn
rules into lookups (suit sets to follow, trick strengths) are built once below; the
observation encoder is :mod:`.observation`. ``_hands``, ``_played`` and ``_shown`` are
read-only bool views of the bit sets, for tests, rendering and debugging.

Chips: every bidding player stakes ``ante`` (C2); the declarer adds ``ante`` (``multiple``)
or ``raise_increment`` (``add``) per shown card (D2). At the end of a deal the pot is split
among the hitters (S4) or carried over. When the episode ends (a ``deal`` episode is a
match of one deal) a pot still carried over goes to the points winner(s) (M2). A player's
chips for a deal are ``pot_share + final_share - stake``.
"""

from __future__ import annotations

import numpy as np

from envs.cards import CARD_NAMES, JOKER, NUM_CARDS, RANK_OF, SUIT_OF, names, parse_card
from envs.core import (
    BatchEngine,
    check_out,
    games_to_reset,
    hashed_uniform,
    observation_buffer,
    shuffled,
    stable_argsort_rows,
)

from .config import AbracadabraConfig
from .observation import (  # noqa: F401  (LAYOUT and MAX_SLOTS are re-exported)
    LAYOUT,
    MAX_SLOTS,
    ObservationEncoder,
    int8_error,
    observation_scale,
    slot_tables,
    unpack_cards,
)

# -- actions ------------------------------------------------------------------------------
MAX_BID = 13
BID_OFFSET = 0  # bid:0 .. bid:13
SHOW_OFFSET = BID_OFFSET + MAX_BID + 1  # 14: show:<card> for the 53 card indices
STOP = SHOW_OFFSET + NUM_CARDS  # 67: stop showing
PLAY_OFFSET = STOP + 1  # 68: play:<card> for the 53 card indices
CALL = PLAY_OFFSET + NUM_CARDS  # 121: say "Abracadabra"
NO_CALL = CALL + 1  # 122: let the chance go
NUM_ACTIONS = NO_CALL + 1  # 123

ACTION_NAMES: tuple[str, ...] = (
    tuple(f"bid:{n}" for n in range(MAX_BID + 1))
    + tuple(f"show:{c}" for c in CARD_NAMES)
    + ("stop",)
    + tuple(f"play:{c}" for c in CARD_NAMES)
    + ("call", "no_call")
)
assert len(ACTION_NAMES) == NUM_ACTIONS

# -- phases -------------------------------------------------------------------------------
BID, SHOW, CALL_PHASE, PLAY, OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("bid", "show", "call", "play", "over")

# -- card tables --------------------------------------------------------------------------
#: A3 bid-rank value of every card: A = 1, 2..10 face value, J = 11, Q = 12, K = 13;
#: -1 for the joker (it has none).
BID_VALUE = np.where(RANK_OF == 12, 1, RANK_OF + 2).astype(np.int8)
BID_VALUE[JOKER] = -1
#: effective suit of every card for each trump (row = trump + 1, trump -1 = none):
#: the joker belongs to the trump suit (B3).
EFFECTIVE_SUIT = np.tile(SUIT_OF, (5, 1)).astype(np.int8)
EFFECTIVE_SUIT[:, JOKER] = np.arange(-1, 4)
#: the bit of every card in a uint64 card set
CARD_BIT = np.left_shift(np.uint64(1), np.arange(NUM_CARDS, dtype=np.uint64))
#: E2 follow-suit sets: FOLLOW_BITS[trump + 1, led card + 1] = the cards of the led card's
#: effective suit; the first column (led card -1: leading the trick) is empty, no constraint
FOLLOW_BITS = np.zeros((5, NUM_CARDS + 1), np.uint64)
#: E3 strength of every card in a trick: TRICK_STRENGTH[trump + 1, led card, card] is 100
#: for the joker, 50 + rank for a trump, 20 + rank for the suit led, else 0 (the highest
#: wins; the cards of a trick are distinct, so there are no ties)
TRICK_STRENGTH = np.zeros((5, NUM_CARDS, NUM_CARDS), np.int8)
for _row in range(5):
    _suit, _trump = EFFECTIVE_SUIT[_row], _row - 1
    for _led in range(NUM_CARDS):
        _same = _suit == _suit[_led]
        FOLLOW_BITS[_row, _led + 1] = CARD_BIT[_same].sum()  # distinct bits: sum == union
        TRICK_STRENGTH[_row, _led] = np.where(
            np.arange(NUM_CARDS) == JOKER, 100,
            np.where((_suit == _trump) & (_trump >= 0), 50 + RANK_OF,
                     np.where(_same, 20 + RANK_OF, 0)))
# The hot paths index these tables, and the [B, H] / [B, P] state arrays, with flat indices
# (``table.reshape(-1).take(row * width + column)``): numpy's indexing with two or three
# index arrays costs several times more than one flat gather.

_DEALER_COUNTER = np.uint64(2**63 + 12345)  # hash counter of the first-dealer draw (B1)


class AbracadabraEngine(BatchEngine):
    """``batch_size`` independent Abracadabra games as fixed-shape numpy arrays.

    Public attributes besides :class:`~envs.core.BatchEngine`'s: ``config``, ``deal_over``
    (bool [B], a deal ended during the last step), ``last_points`` (int [B, P], points of
    the last finished deal), ``last_chips`` (float [B, P]), ``totals`` (int [B, P], match
    totals), ``winners`` (bool [B, P], set when the episode is over), ``pot`` (int [B]).
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
        self._int8_error = int8_error(config)  # None: int8 observations are exact
        self.deck = config.deck
        self.has_dummy = config.spec.has_dummy
        self._bonus = np.array((0, *config.bonus), np.int32)  # S1 by hitter count
        self._raise = config.ante if config.raise_mode == "multiple" else config.raise_increment
        self._auto_call = config.call_mode == "auto"
        self._deals_limit = config.deals_limit
        self._hand_at_slot, self._slot_of_hand = slot_tables(P, H)
        self._next_hand = ((np.arange(H) + 1) % H).astype(np.int8)  # E1: clockwise
        self._rows = np.arange(B)
        self._row_h = self._rows * H  # flat offset of each game's row in a [B, H] array
        self._rng = np.random.default_rng()
        self._mask_cache: np.ndarray | None = None

        # -- state: one row per game -------------------------------------------------
        self._key = np.zeros(B, np.uint64)  # the game's 64-bit key: deals are f(key, k)
        self._deal_index = np.zeros(B, np.int64)  # k of the current deal (shuffle counter)
        self._deals_done = np.zeros(B, np.int32)  # deals finished this episode
        self._dealer = np.zeros(B, np.int8)  # seat dealing this deal (B1)
        self._hand_bits = np.zeros((B, H), np.uint64)  # cards held, per hand (bit set)
        self._leftover = np.full(B, -1, np.int8)  # turned-up card (B2), -1 if none
        self._trump = np.full(B, -1, np.int8)  # trump suit 0..3, -1 for no trump (B2)
        self._phase = np.full(B, OVER, np.int8)  # BID/SHOW/CALL_PHASE/PLAY/OVER
        self._bids = np.full((B, P), -1, np.int8)  # bid per seat, -1 not yet (C1)
        self._num_bids = np.zeros(B, np.int8)  # bids made so far
        self._declarer = np.full(B, -1, np.int8)  # seat of the declarer (C3), -1 in BID
        self._target = np.full(B, -1, np.int8)  # target T (C3), -1 in BID
        self._shown_bits = np.zeros(B, np.uint64)  # shown and still held (D1), bit set
        self._num_shown = np.zeros(B, np.int8)  # cards shown this deal (D2)
        self._stakes = np.zeros((B, P), np.int32)  # chips staked this deal (C2, D2)
        self._played_bits = np.zeros((B, H), np.uint64)  # played this deal, by hand (bits)
        self._trick = np.full((B, H), -1, np.int8)  # current trick: card per hand, -1
        self._trick_size = np.zeros(B, np.int8)  # cards in the current trick
        self._leader = np.full(B, -1, np.int8)  # hand leading the current trick
        self._to_play = np.full(B, -1, np.int8)  # hand whose card is next (PLAY)
        self._dummy_ctrl = np.full(B, -1, np.int8)  # seat playing the dummy this trick (E4)
        self._tricks_won = np.zeros((B, H), np.int8)  # tricks taken per hand (dummy too)
        self._tricks_done = np.zeros(B, np.int8)  # tricks completed this deal
        self._rank_cards = np.zeros((B, H), np.int8)  # taken cards of bid-rank T (S3)
        self._called = np.zeros((B, P), bool)  # said "Abracadabra" (F1)
        self.current_player = np.full(B, -1, np.int8)  # seat to act, -1 when over
        self.game_over = np.ones(B, bool)  # episode ended
        self.pot = np.zeros(B, np.int64)  # chips in the pot, carry-over included (S4)
        self.totals = np.zeros((B, P), np.int64)  # match points (M1)
        self.winners = np.zeros((B, P), bool)  # highest totals, set at episode end (M1)
        self.deal_over = np.zeros(B, bool)  # a deal ended during the last step
        # -- the last finished deal, per game (result() builds the dict lazily) ---------
        self._has_result = np.zeros(B, bool)
        self.last_points = np.zeros((B, P), np.int64)  # S1–S3 points of each seat
        self.last_chips = np.zeros((B, P), np.float64)  # net chips of each seat
        self._last_declarer = np.zeros(B, np.int8)
        self._last_target = np.zeros(B, np.int8)
        self._last_tricks = np.zeros((B, H), np.int8)
        self._last_hitters = np.zeros((B, P), bool)
        self._last_called = np.zeros((B, P), bool)
        self._last_stakes = np.zeros((B, P), np.int32)
        self._last_share = np.zeros((B, P), np.float64)  # S4 share of the pot
        self._last_final_share = np.zeros((B, P), np.float64)  # M2 share at episode end
        self._last_carry = np.zeros(B, np.int64)  # pot carried over after S4
        self._last_deal = np.zeros(B, np.int32)  # index of that deal in the episode
        self._encoder = ObservationEncoder(self)  # per-variant column tables

    # -- bool views of the card bit sets (read-only copies: tests, render, debugging) ----
    @property
    def _hands(self) -> np.ndarray:
        """bool [B, H, 53]: the cards each hand holds."""
        return _read_only(unpack_cards(self._hand_bits))

    @property
    def _played(self) -> np.ndarray:
        """bool [B, H, 53]: the cards each hand has played this deal."""
        return _read_only(unpack_cards(self._played_bits))

    @property
    def _shown(self) -> np.ndarray:
        """bool [B, 53]: the cards the declarer has shown and still holds (D1)."""
        return _read_only(unpack_cards(self._shown_bits))

    # ===================================================================================
    # reset and dealing
    # ===================================================================================
    def reset(
        self,
        seed: int | None = None,
        games: np.ndarray | None = None,
        game_seeds: np.ndarray | None = None,
    ) -> None:
        """Start new episodes in every game, or in those where the bool mask ``games`` is
        set. ``seed`` re-seeds the engine's generator; each reset game gets a 64-bit key,
        from ``game_seeds`` (one per reset game) or drawn from the generator. A game's k-th
        deal and its first dealer are pure functions of its key (B1, B2)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        g, keys = games_to_reset(self.batch_size, games, game_seeds, self._rng)
        if len(g) == 0:
            return
        self._key[g] = keys
        self._deal_index[g] = 0
        self._deals_done[g] = 0
        self.totals[g] = 0
        self.pot[g] = 0
        self.winners[g] = False
        self.game_over[g] = False
        self.deal_over[g] = False
        self._has_result[g] = False
        # One hash call for both draws: row 0 is the first dealer's (lane 0 of the dealer
        # counter, B1), row 1 shuffles deal 0 (exactly what shuffled() would draw, B2)
        n = len(g)
        counters = np.concatenate([np.full(n, _DEALER_COUNTER), np.zeros(n, np.uint64)])
        u = hashed_uniform(np.concatenate([keys, keys]), counters, len(self.deck))
        self._dealer[g] = np.minimum((u[:n, 0] * self.num_players).astype(np.int64),
                                     self.num_players - 1)  # B1: drawn at random
        self._deal(g, u[n:])
        self._mask_cache = None

    def _deal(self, g: np.ndarray, uniforms: np.ndarray | None = None) -> None:
        """Shuffle and deal the current deal of games ``g`` (B2) and open the bidding.
        ``uniforms``: the hash draws of this deal, if the caller has them already (they
        give the same cards as :func:`~envs.core.shuffled`)."""
        n, H, E = len(g), self.num_hands, self.cards_each
        if uniforms is None:
            cards = shuffled(self._key[g], self._deal_index[g], self.deck)  # [n, D]
        else:
            cards = self.deck[stable_argsort_rows(uniforms)]
        dealt = cards[:, : H * E].reshape(n, H, E)  # hand h gets the h-th E cards
        # distinct bits: their sum is their union (einsum: a fast sum over the short axis)
        self._hand_bits[g] = np.einsum("ijk->ij", CARD_BIT[dealt])
        if len(self.deck) > H * E:
            self._set_leftover(g, cards[:, H * E])
        else:
            self._set_leftover(g, np.full(n, -1, np.int8))
        self._start_deal(g)

    def _set_leftover(self, g: np.ndarray, leftover: np.ndarray) -> None:
        """B2: the leftover's suit is trump; the joker or no leftover means no trump."""
        leftover = np.asarray(leftover, np.int8)
        self._leftover[g] = leftover
        plain = (leftover >= 0) & (leftover != JOKER)
        self._trump[g] = np.where(plain, SUIT_OF[leftover], -1)

    def _start_deal(self, g: np.ndarray) -> None:
        """Clear the per-deal state of games ``g`` and start the bidding left of the
        dealer (C1)."""
        self._phase[g] = BID
        self._bids[g] = -1
        self._num_bids[g] = 0
        self._declarer[g] = -1
        self._target[g] = -1
        self._shown_bits[g] = 0
        self._num_shown[g] = 0
        self._stakes[g] = 0
        self._played_bits[g] = 0
        self._trick[g] = -1
        self._trick_size[g] = 0
        self._leader[g] = -1
        self._to_play[g] = -1
        self._dummy_ctrl[g] = -1
        self._tricks_won[g] = 0
        self._tricks_done[g] = 0
        self._rank_cards[g] = 0
        self._called[g] = False
        self.current_player[g] = (self._dealer[g] + 1) % self.num_players

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
        wrong); nothing changes on error. Later deals of a match come from the game's key
        as usual."""
        if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not (
            0 <= game < self.batch_size
        ):
            raise ValueError(f"game={game!r} is out of range: expected 0..{self.batch_size - 1}")
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
            self._dealer[game] = dealer
        if parsed is not None:
            self._lay_out(game, parsed, lo)
        self._start_deal(g)
        self._mask_cache = None

    def set_deal(self, game: int, hands: list[list[str]], leftover: str | None = None) -> None:
        """Replace the cards of ``game``'s current deal before anyone has bid (e.g. the
        next deal of a match, dealt automatically): same arguments and checks as
        :meth:`reset_with_deal`; dealer, pot and totals are kept."""
        if not 0 <= game < self.batch_size:
            raise ValueError(f"game={game!r} is out of range: expected 0..{self.batch_size - 1}")
        if self._phase[game] != BID or self._num_bids[game] > 0:
            raise ValueError("set_deal is only allowed before the first bid of a deal")
        parsed, lo = self._parse_deal(hands, leftover)
        self._lay_out(game, parsed, lo)
        self._mask_cache = None

    def _lay_out(self, game: int, parsed: list[list[int]], leftover: int) -> None:
        self._hand_bits[game] = [CARD_BIT[row].sum() for row in parsed]
        self._set_leftover(np.array([game]), np.array([leftover]))

    def _parse_deal(self, hands: list[list[str]], leftover: str | None) -> tuple[list, int]:
        """Validate a fixed deal (B2): hand count and sizes, cards of this deck, no
        duplicates, the leftover the one undealt card. Returns card indices."""
        H, E = self.num_hands, self.cards_each
        if not isinstance(hands, (list, tuple)) or len(hands) != H:
            raise ValueError(f"hands must be a list of {H} hands (seat order, dummy last), "
                             f"got {hands!r}")
        in_deck = set(int(c) for c in self.deck)
        seen: dict[int, str] = {}
        parsed = []
        for h, hand in enumerate(hands):
            if not isinstance(hand, (list, tuple)) or len(hand) != E:
                size = len(hand) if isinstance(hand, (list, tuple)) else repr(hand)
                raise ValueError(f"hand {h} must hold {E} cards in variant "
                                 f"{self.config.variant!r}, got {size}")
            row = []
            for text in hand:
                try:
                    c = parse_card(text)
                except ValueError as err:
                    raise ValueError(f"hand {h}: {err}") from None
                if c not in in_deck:
                    raise ValueError(f"hand {h}: card {text!r} is not in the deck of variant "
                                     f"{self.config.variant!r} (joker={self.config.joker})")
                if c in seen:
                    raise ValueError(f"duplicate card {CARD_NAMES[c]!r} in hand {h} "
                                     f"(already in {seen[c]})")
                seen[c] = f"hand {h}"
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
                why = f"it is already in {seen[lo]}"
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
            mask = np.zeros((self.batch_size, NUM_ACTIONS), bool)
            if self.batch_size == 1:
                self._mask_cache = self._legal_one(mask)
                return mask
            counts = np.bincount(self._phase, minlength=OVER + 1)
            # most steps are card plays: that one is computed for the whole batch at once
            if counts[PLAY]:
                self._legal_play(mask)
            for phase, fill in (
                (BID, self._legal_bid),
                (SHOW, self._legal_show),
                (CALL_PHASE, self._legal_call),
            ):
                if counts[phase]:
                    fill(np.flatnonzero(self._phase == phase), mask)
            self._mask_cache = mask
        return self._mask_cache

    def _legal_one(self, mask: np.ndarray) -> np.ndarray:
        """:meth:`_legal_mask` of a batch of one into ``mask``; a card play (most steps)
        on numpy scalars, as :meth:`_legal_play` does for a whole batch."""
        phase = self._phase[0]
        if phase == PLAY:
            hand = self._hand_bits[0, self._to_play[0]]
            led_card = self._trick[0, self._leader[0]]
            legal = int(hand & FOLLOW_BITS[self._trump[0] + 1, led_card + 1]) or int(hand)
            packed = np.frombuffer(legal.to_bytes(8, "little"), np.uint8)
            mask[0, PLAY_OFFSET : PLAY_OFFSET + NUM_CARDS] = np.unpackbits(
                packed, count=NUM_CARDS, bitorder="little")
        elif phase != OVER:
            fill = (self._legal_bid, self._legal_show, self._legal_call)[phase]
            fill(self._rows, mask)
        return mask

    def _legal_bid(self, g: np.ndarray, mask: np.ndarray) -> None:
        """C1: any number of tricks 0..cards_each."""
        mask[g, BID_OFFSET : BID_OFFSET + self.cards_each + 1] = True

    def _legal_show(self, g: np.ndarray, mask: np.ndarray) -> None:
        """D1: show any held card not yet shown, or stop."""
        held = self._hand_bits[g, self._declarer[g]] & ~self._shown_bits[g]
        mask[g, SHOW_OFFSET : SHOW_OFFSET + NUM_CARDS] = unpack_cards(held)
        mask[g, STOP] = True

    def _legal_call(self, g: np.ndarray, mask: np.ndarray) -> None:
        """F1: say it or let the chance go."""
        mask[g, CALL] = True
        mask[g, NO_CALL] = True

    def _legal_play(self, mask: np.ndarray) -> None:
        """E2: follow the suit led if able (the joker is a trump, B3); else any card.
        Computed for every game (the ones not in PLAY get an empty set)."""
        row_h = self._row_h
        hand = self._hand_bits.reshape(-1).take(row_h + self._to_play)  # junk if not PLAY
        led_card = self._trick.reshape(-1).take(row_h + self._leader)  # -1: leading
        suit_row = (self._trump.astype(np.intp) + 1) * (NUM_CARDS + 1)
        follow = hand & FOLLOW_BITS.reshape(-1).take(suit_row + led_card + 1)
        legal = np.where(follow != 0, follow, hand)
        legal[self._phase != PLAY] = 0
        mask[:, PLAY_OFFSET : PLAY_OFFSET + NUM_CARDS] = unpack_cards(legal)

    # ===================================================================================
    # transitions, one small function per phase
    # ===================================================================================
    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """Apply one action per game; see :class:`~envs.core.BatchEngine`. Returns float32
        [B, P] rewards (every seat's, when a deal or the match ends)."""
        B = self.batch_size
        actions = np.asarray(actions)
        if actions.size != B:
            raise ValueError(f"actions must hold one action per game ({B}), got {actions.shape}")
        actions = actions.reshape(B)
        if actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        actions = actions.astype(np.int64, copy=False)
        if B == 1:
            return self._step_one(actions, active)
        act = ~self.game_over
        if active is not None:
            act &= np.asarray(active, dtype=bool).reshape(B)
        self._check_legal(actions, act)

        rewards = np.zeros((B, self.num_players), np.float32)
        self.deal_over.fill(False)
        finished = np.zeros(B, bool)
        # each game makes exactly one transition, chosen by its phase before the step
        phase = np.where(act, self._phase, OVER)
        counts = np.bincount(phase, minlength=OVER + 1)
        for ph, apply in (
            (BID, self._step_bid),
            (SHOW, self._step_show),
            (CALL_PHASE, self._step_call),
            (PLAY, self._step_play),
        ):
            if counts[ph]:
                g = np.flatnonzero(phase == ph)
                apply(g, actions[g], finished)
        if finished.any():
            self._finish_deal(np.flatnonzero(finished), rewards)
        self._mask_cache = None
        return rewards

    def _step_one(self, actions: np.ndarray, active: np.ndarray | None) -> np.ndarray:
        """:meth:`step` for a batch of one: the same transition functions, without the
        phase dispatch over index arrays (numpy's per-call cost dominates here)."""
        rewards = np.zeros((1, self.num_players), np.float32)
        self.deal_over[0] = False
        act = not self.game_over[0]
        if active is not None:
            act = act and bool(np.asarray(active, dtype=bool).reshape(1)[0])
        if act:
            a = int(actions[0])
            if not (0 <= a < NUM_ACTIONS and self._legal_mask()[0, a]):
                self._check_legal(actions, np.ones(1, bool))  # raises, naming the action
            finished = np.zeros(1, bool)
            phase = self._phase[0]
            if phase == PLAY:
                self._play_one(a - PLAY_OFFSET, finished)
            else:
                transition = (self._step_bid, self._step_show, self._step_call)[phase]
                transition(self._rows, actions, finished)
            if finished[0]:
                self._finish_deal(self._rows, rewards)
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
            raise ValueError(f"illegal action {name}{where}: phase is "
                             f"{PHASE_NAMES[self._phase[b]]!r}, seat {self.current_player[b]} "
                             "to act; nothing was changed")

    def _step_bid(self, g: np.ndarray, a: np.ndarray, finished: np.ndarray) -> None:
        """C1–C3: record the bid and its stake; after the last bid, name the declarer."""
        P = self.num_players
        seat = self.current_player[g].astype(np.int64)
        at = g * P + seat  # flat index of the bidder's [B, P] entries
        self._bids.reshape(-1)[at] = a - BID_OFFSET
        self._stakes.reshape(-1)[at] += self.config.ante  # C2
        self.pot[g] += self.config.ante
        self._num_bids[g] += 1
        self.current_player[g] = (seat + 1) % P
        done = g[self._num_bids[g] == P]
        if len(done):
            # C3: highest bid; argmax over bidding order gives ties to the first bidder
            order = (self._dealer[done, None].astype(np.int64) + 1 + np.arange(P)) % P
            in_order = self._bids[done[:, None], order]
            first = np.argmax(in_order, axis=1)
            declarer = order[np.arange(len(done)), first]
            self._declarer[done] = declarer
            self._target[done] = in_order.max(axis=1)
            self._phase[done] = SHOW
            self.current_player[done] = declarer

    def _step_show(self, g: np.ndarray, a: np.ndarray, finished: np.ndarray) -> None:
        """D1–D2: a shown card raises the declarer's stake; ``stop`` ends the showing."""
        stop = a == STOP
        s = g[~stop]
        if len(s):
            self._shown_bits[s] |= CARD_BIT[a[~stop] - SHOW_OFFSET]
            self._num_shown[s] += 1
            self._stakes[s, self._declarer[s]] += self._raise  # D2
            self.pot[s] += self._raise
        s = g[stop]
        if len(s):
            zero = self._target[s] == 0
            if self._auto_call:
                self._called[s[zero]] = True  # F1 auto: every bidding player says it
                self._start_play(s)
            else:
                self._start_play(s[~zero])
                c = s[zero]  # F1, T = 0: calls before the first lead, from the declarer
                self._phase[c] = CALL_PHASE
                self.current_player[c] = self._declarer[c]

    def _start_play(self, g: np.ndarray) -> None:
        """E1: the declarer leads the first trick."""
        self._phase[g] = PLAY
        self._leader[g] = self._declarer[g]
        self._to_play[g] = self._declarer[g]
        self._dummy_ctrl[g] = self._declarer[g]  # E4: the leader plays for the dummy
        self.current_player[g] = self._declarer[g]

    def _step_call(self, g: np.ndarray, a: np.ndarray, finished: np.ndarray) -> None:
        """F1: record the decision; the chance is gone either way."""
        seat = self.current_player[g].astype(np.int64)
        self._called[g, seat] = a == CALL
        before_lead = self._tricks_done[g] == 0
        # T = 0: the next bidding player decides; after the last one the declarer leads
        pre = g[before_lead]
        nxt = (seat[before_lead] + 1) % self.num_players
        last = nxt == self._declarer[pre]
        self.current_player[pre[~last]] = nxt[~last]
        self._start_play(pre[last])
        # after the T-th trick: play on (the caller leads) or the deal is over
        post = g[~before_lead]
        over = self._tricks_done[post] == self.cards_each
        finished[post[over]] = True
        on = post[~over]
        self._phase[on] = PLAY
        self.current_player[on] = self._controller(on, self._to_play[on])

    def _controller(self, g: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """The seat choosing hand ``hand``'s card: its owner, or for the dummy the seat
        controlling it this trick (E4)."""
        if not self.has_dummy:
            return hand
        return np.where(hand < self.num_players, hand, self._dummy_ctrl[g]).astype(np.int8)

    def _step_play(self, g: np.ndarray, a: np.ndarray, finished: np.ndarray) -> None:
        """E1–E4: play the card; when the trick is complete, give it to its winner."""
        card = a - PLAY_OFFSET
        bit = CARD_BIT[card]
        hand = self._to_play[g]
        at = g * self.num_hands + hand  # flat index of the hand's [B, H] entries
        self._hand_bits.reshape(-1)[at] &= ~bit
        self._played_bits.reshape(-1)[at] |= bit
        self._shown_bits[g] &= ~bit  # a shown card stays face up only until played (D1)
        self._trick.reshape(-1)[at] = card
        size = self._trick_size[g] + 1
        self._trick_size[g] = size
        nxt = self._next_hand[hand]  # E1: clockwise (a complete trick: see _end_trick)
        self._to_play[g] = nxt
        self.current_player[g] = self._controller(g, nxt)
        complete = size == self.num_hands
        if complete.any():
            self._end_trick(g[complete], finished)

    def _play_one(self, card: int, finished: np.ndarray) -> None:
        """:meth:`_step_play` of a batch of one, on numpy scalars."""
        bit = CARD_BIT[card]
        hand = self._to_play[0]
        self._hand_bits[0, hand] &= ~bit
        self._played_bits[0, hand] |= bit
        self._shown_bits[0] &= ~bit
        self._trick[0, hand] = card
        size = self._trick_size[0] + 1
        self._trick_size[0] = size
        nxt = self._next_hand[hand]
        self._to_play[0] = nxt
        self.current_player[0] = (nxt if not self.has_dummy or nxt < self.num_players
                                  else self._dummy_ctrl[0])
        if size == self.num_hands:
            self._end_trick_one(finished)

    def _end_trick_one(self, finished: np.ndarray) -> None:
        """:meth:`_end_trick` of a batch of one, on Python scalars."""
        P = self.num_players
        trick = self._trick[0]  # all cards present
        strength = TRICK_STRENGTH[self._trump[0] + 1, trick[self._leader[0]]].take(trick)
        winner = int(strength.argmax())
        won = int(self._tricks_won[0, winner]) + 1
        self._tricks_won[0, winner] = won
        done = int(self._tricks_done[0]) + 1
        self._tricks_done[0] = done
        target = int(self._target[0])
        self._rank_cards[0, winner] += int(np.count_nonzero(BID_VALUE.take(trick) == target))
        controller = winner
        if self.has_dummy:  # E4, as in _end_trick
            if winner >= P:
                self._dummy_ctrl[0] = (int(self._dummy_ctrl[0]) + 1) % P
                controller = int(self._dummy_ctrl[0])
            else:
                self._dummy_ctrl[0] = winner
        trick.fill(-1)
        self._trick_size[0] = 0
        self._leader[0] = winner
        self._to_play[0] = winner
        self.current_player[0] = controller
        reached = winner < P and won == target  # F1
        if self._auto_call:
            if reached:
                self._called[0, winner] = True
            finished[0] = done == self.cards_each
        elif reached:
            self._phase[0] = CALL_PHASE
            self.current_player[0] = winner
        else:
            finished[0] = done == self.cards_each

    def _end_trick(self, g: np.ndarray, finished: np.ndarray) -> None:
        """E3: the joker, else the highest trump, else the highest card of the suit led
        wins; the winner leads next. F1: a player reaching T tricks may call."""
        P, H = self.num_players, self.num_hands
        trick = self._trick[g]  # [n, H], all cards present
        led = self._trick.reshape(-1)[g * H + self._leader[g]]
        row = (self._trump[g].astype(np.intp) + 1) * NUM_CARDS + led  # TRICK_STRENGTH row
        strength = TRICK_STRENGTH.reshape(-1).take(row[:, None] * NUM_CARDS + trick)
        winner = strength.argmax(axis=1)
        at = g * H + winner  # flat index of the winner's [B, H] entries
        won = self._tricks_won.reshape(-1)[at] + 1
        self._tricks_won.reshape(-1)[at] = won
        done = self._tricks_done[g] + 1
        self._tricks_done[g] = done
        target = self._target[g]
        of_rank = (BID_VALUE[trick] == target[:, None]).view(np.int8)  # [n, H] of 0/1
        self._rank_cards.reshape(-1)[at] += np.einsum("ij->i", of_rank)  # (a fast row sum)
        if self.has_dummy:
            # E4: the winner (a player) controls the dummy; when the dummy leads, the seat
            # that did not control it in the trick just played does
            other = (self._dummy_ctrl[g] + 1) % P
            self._dummy_ctrl[g] = np.where(winner < P, winner, other)
        self._trick[g] = -1
        self._trick_size[g] = 0
        self._leader[g] = winner
        self._to_play[g] = winner
        self.current_player[g] = self._controller(g, winner)
        # F1: the T-th trick (T >= 1 here, since the winner has taken one)
        reached = (winner < P) & (won == target)
        last = done == self.cards_each
        if self._auto_call:
            r = reached.nonzero()[0]
            self._called[g[r], winner[r]] = True
            finished[g[last]] = True
        else:
            c = g[reached]
            self._phase[c] = CALL_PHASE
            self.current_player[c] = winner[reached]
            finished[g[last & ~reached]] = True

    def _finish_deal(self, g: np.ndarray, rewards: np.ndarray) -> None:
        """S1–S4 scoring; M1–M3 match end; otherwise the next deal (dealer passes left)."""
        P = self.num_players
        tricks, called, target = self._tricks_won[g], self._called[g], self._target[g]
        stakes = self._stakes[g]
        won = tricks[:, :P].astype(np.int64)
        hit = called & (won == target[:, None])  # F2
        h = hit.sum(axis=1)
        points = hit * self._bonus[h][:, None] + won + 2 * self._rank_cards[g, :P]  # S1–S3
        pot = self.pot[g]
        share = np.where(hit, (pot / np.maximum(h, 1))[:, None], 0.0)  # S4
        carry = np.where(h > 0, 0, pot)
        totals = self.totals[g] + points
        self.totals[g] = totals
        deals_done = self._deals_done[g] + 1
        self._deals_done[g] = deals_done
        self.deal_over[g] = True
        # the episode ends after target_points (M1) or the deal limit (M3)
        best = totals.max(axis=1)
        if self.config.episode == "deal":
            over = np.ones(len(g), bool)
        else:
            over = (best >= self.config.target_points) | (deals_done >= self._deals_limit)
        winners = (totals == best[:, None]) & over[:, None]
        w = winners.sum(axis=1)
        final = np.where(winners, (carry / np.maximum(w, 1))[:, None], 0.0)  # M2
        self.pot[g] = np.where(over, 0, carry)
        chips = share + final - stakes
        # the result of this deal
        self._has_result[g] = True
        self.last_points[g] = points
        self.last_chips[g] = chips
        self._last_declarer[g] = self._declarer[g]
        self._last_target[g] = target
        self._last_tricks[g] = tricks
        self._last_hitters[g] = hit
        self._last_called[g] = called
        self._last_stakes[g] = stakes
        self._last_share[g] = share
        self._last_final_share[g] = final
        self._last_carry[g] = carry
        self._last_deal[g] = deals_done - 1
        self.winners[g] = winners
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
        self._phase[done] = OVER
        self.current_player[done] = -1
        self.game_over[done] = True
        nxt = g[~over]
        if len(nxt):
            self._dealer[nxt] = (self._dealer[nxt] + 1) % P
            self._deal_index[nxt] += 1
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
        if B == 1 and (seats is None or np.size(seats) == 1) and out.dtype == np.float32:
            seat = max(int(self.current_player[0]), 0) if seats is None else (
                int(np.asarray(seats).reshape(-1)[0]))
            if not 0 <= seat < P:
                raise ValueError(f"seats must be 1 seat numbers in 0..{P - 1}, got {seats}")
            self._encoder.encode_one(self, seat, out[0])
            return out
        if seats is None:
            seats = np.maximum(self.current_player, 0).astype(np.intp)
        else:
            seats = np.asarray(seats).astype(np.int64).reshape(-1)
            if seats.shape != (B,) or (seats < 0).any() or (seats >= P).any():
                raise ValueError(f"seats must be {B} seat numbers in 0..{P - 1}, got {seats}")
        return self._encoder.encode(self, seats, out)

    def observe_one(self, seat: int, out: np.ndarray) -> None:
        """See :meth:`envs.core.BatchEngine.observe_one` (game 0, no argument checks)."""
        self._encoder.encode_one(self, seat, out)

    # ===================================================================================
    # results and inspection
    # ===================================================================================
    def result(self, game: int = 0) -> dict | None:
        """The last finished deal of ``game`` as a dict (``info["result"]``), or None."""
        if not self._has_result[game]:
            return None
        P = self.num_players
        res = {
            "deal": int(self._last_deal[game]),
            "declarer": int(self._last_declarer[game]),
            "target": int(self._last_target[game]),
            "tricks": self._last_tricks[game].tolist(),
            "called": [int(s) for s in range(P) if self._last_called[game, s]],
            "hitters": [int(s) for s in range(P) if self._last_hitters[game, s]],
            "points": self.last_points[game].tolist(),
            "stakes": self._last_stakes[game].tolist(),
            "pot_share": self._last_share[game].tolist(),
            "final_share": self._last_final_share[game].tolist(),
            "carry": int(self._last_carry[game]),
            "chips": self.last_chips[game].tolist(),
            "totals": self.totals[game].tolist(),
            "match_over": bool(self.game_over[game]),
        }
        if self.game_over[game]:
            res["winners"] = [int(s) for s in range(P) if self.winners[game, s]]
        return res

    def phase_name(self, game: int = 0) -> str:
        return PHASE_NAMES[self._phase[game]]

    def hand_cards(self, game: int, hand: int) -> list[int]:
        """Card indices held by ``hand`` (seat, or the dummy's index) in ``game``."""
        return np.flatnonzero(unpack_cards(self._hand_bits[game, hand])).tolist()

    def snapshot(self) -> dict[str, np.ndarray]:
        """Copies of every state array, and the bool views of the card sets (for tests
        and debugging)."""
        state = {k: v.copy() for k, v in vars(self).items() if isinstance(v, np.ndarray)}
        state.update(_hands=self._hands, _played=self._played, _shown=self._shown)
        return state


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array
