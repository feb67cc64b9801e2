"""Four Aces rules engine: pure numpy, a leading batch axis on every array (RULES.md G–K).

One engine holds ``batch_size`` independent games; a single game is a batch of one. No RL
framework is imported here: :mod:`envs.four_aces_v0` is the thin PettingZoo adapter.

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

Actions (one flat discrete space):

=========  ============  ==============================================================
id         name          meaning
=========  ============  ==============================================================
0 .. 51    discard:<c>   discard card c (``suit * 13 + rank``, envs.cards) from the hand
52         discard:JK    discard a joker (L stays raised, G7)
53         draw          turn up the stock's top card (H2 b)
=========  ============  ==============================================================

Randomness is counter-based (envs.core): each game owns a 64-bit key; the dealer draw of
round r is ``shuffled(key, 2r, deck)`` and its deal ``shuffled(key, 2r + 1, deck)``, so the
same key replays the same rounds whatever else shares the batch.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from envs.cards import CARD_NAMES, JOKER, NUM_CARDS, card_index, deck, parse_card
from envs.core import (
    BatchEngine,
    ObservationLayout,
    check_int,
    check_out,
    games_to_reset,
    hashed_uniform,
    observation_buffer,
    stable_argsort_rows,
)
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.scoring import score_presence

# -- actions ---------------------------------------------------------------------------
DISCARD_OFFSET = 0  #: discard:<card> is DISCARD_OFFSET + card index (joker: 52)
DRAW = 53  #: turn up the stock's top card (H2 b)
NUM_ACTIONS = 54
ACTION_NAMES: tuple[str, ...] = tuple(f"discard:{n}" for n in CARD_NAMES) + ("draw",)

# -- cards -----------------------------------------------------------------------------
DECK_SIZE = 54  #: 52 cards and two jokers (G1)
FULL_DECK = deck(jokers=2)  #: int8 [54], the 54 cards in index order
HAND_CARDS = 3  #: cards dealt into each hand (G3)
TABLE_CARDS = 3  #: face-up table cards dealt to each player (G3)
BASE_LIMIT = 3  #: L before any joker (G7)
ACES = np.array([card_index(12, s) for s in range(4)], dtype=np.intp)
ACE_OF_SPADES = card_index(12, 3)
MAX_SLOTS = 5  #: relative seat slots in the observation (the most players, G1)
#: a safe upper bound on one round's points: at most 8 scoring cards, at most 14/5 points
#: a card (a 5-card run)
MAX_ROUND_POINTS = 22
#: a lower bound on one round's points: no combination is worth less than -1 a card
MIN_ROUND_POINTS = -8

_IS_ACE = np.zeros(NUM_CARDS, dtype=bool)
_IS_ACE[ACES] = True
#: position of the ace of spades in FULL_DECK (the G2 draw)
_AS_POSITION = int(np.flatnonzero(FULL_DECK == ACE_OF_SPADES)[0])
#: observation value of a hand size or limit (int8 index, n / 5 as the layout says)
_FIFTHS = (np.arange(128) / 5.0).astype(np.float32)
_CARD_IDS = np.arange(NUM_CARDS, dtype=np.int8)
_SLOT_IDS = np.arange(MAX_SLOTS)
_NUM_PLAYERS_ONE_HOT = {p: np.eye(3, dtype=np.int8)[p - 3] for p in (3, 4, 5)}


def build_layout() -> ObservationLayout:
    """The observation layout (seat-relative: slot r is the seat r places to the left of
    the observer, i.e. seat ``(observer + r) mod P``; slots >= P stay zero)."""
    return ObservationLayout(
        [
            ("num_players", 3, "one-hot number of players: 3, 4, 5"),
            ("hand", NUM_CARDS, "own hand, count of each card (the joker may be 2)"),
            ("tables", MAX_SLOTS * NUM_CARDS, "table cards of each relative seat, counts"),
            ("discard_pile", NUM_CARDS, "cards ever put on the discard pile, counts"),
            ("last_discard", NUM_CARDS, "one-hot top card of the discard pile"),
            ("stock_size", 1, "cards left in the stock / 54"),
            ("hand_sizes", MAX_SLOTS, "cards in each relative seat's hand / 5"),
            ("hand_limits", MAX_SLOTS, "hand limit L of each relative seat / 5 (G7)"),
            ("jokers_seen", 1, "jokers in own hand, on tables and discarded / 2"),
            ("scores", MAX_SLOTS, "match totals of each relative seat / target_points"),
            ("dealer", MAX_SLOTS, "one-hot relative seat of the dealer"),
            ("round_number", 1, "rounds finished in this match / max_rounds"),
        ]
    )


LAYOUT = build_layout()


def observation_scale(config: FourAcesConfig) -> np.ndarray:
    """float32 [D]: the scale of every column of the int8 observation (see
    :attr:`envs.core.BatchEngine.observation_scale`): 1 for the counts and one-hots,
    1/54 for stock_size (cards left), 1/5 for hand_sizes and hand_limits, 1/2 for
    jokers_seen, 1 / target_points for scores and 1 / max rounds for round_number."""
    scale = np.ones(LAYOUT.size, np.float64)
    scale[LAYOUT["stock_size"]] = 1.0 / DECK_SIZE
    scale[LAYOUT["hand_sizes"]] = scale[LAYOUT["hand_limits"]] = 1.0 / 5
    scale[LAYOUT["jokers_seen"]] = 1.0 / 2
    scale[LAYOUT["scores"]] = 1.0 / config.target_points
    scale[LAYOUT["round_number"]] = 1.0 / config.round_limit
    return scale.astype(np.float32)


def int8_error(config: FourAcesConfig) -> str | None:
    """Why ``config`` has no exact int8 observation, or None: the match totals (scores)
    must stay in -128..127."""
    if config.episode != "round":
        return ("episode='match' accumulates totals and rounds beyond int8; use "
                "episode='round' or float32 observations")
    if max(config.target_points, MAX_ROUND_POINTS) > 127:
        return (f"target_points={config.target_points} (a four-aces round's points) is "
                "beyond int8's 127; use float32 observations")
    return None

#: (start, stop) of each observation segment, as plain ints for the hot path
_SEGMENTS = {seg.name: (seg.start, seg.start + seg.size) for seg in LAYOUT}


class FourAcesEngine(BatchEngine):
    """``batch_size`` games of Four Aces as fixed-shape numpy arrays (see module doc).

    Public per-step outputs besides the :class:`~envs.core.BatchEngine` attributes:
    ``deal_over`` (bool [B], a round ended during the last step), ``last_points`` (int32
    [B, P], the last finished round's points; on four aces the winner gets
    ``target_points`` and the others 0), ``totals`` (int32 [B, P]), ``winners`` (bool
    [B, P], set when the match is over) and ``four_aces_winner`` (int8 [B], -1 none).
    """

    def __init__(self, config: FourAcesConfig | dict | None = None, batch_size: int = 1):
        if config is None:
            config = FourAcesConfig()
        elif isinstance(config, dict):
            config = FourAcesConfig(**config)
        check_int("batch_size", batch_size, 1)
        self.config = config
        self.batch_size = B = int(batch_size)
        self.num_players = P = config.num_players
        self.num_actions = NUM_ACTIONS
        self.action_names = ACTION_NAMES
        self.layout = LAYOUT
        target = config.target_points
        rounds = 1 if config.episode == "round" else config.round_limit
        max_total = max(MAX_ROUND_POINTS, target) + (0 if rounds == 1 else target - 1)
        self.observation_bounds = (
            float(min(0.0, MIN_ROUND_POINTS * rounds / target)),
            float(max(2.0, max_total / target)),
        )
        self.observation_scale = observation_scale(config)  # of the int8 observation
        self._int8_error = int8_error(config)  # None: int8 observations are exact
        self._rng = np.random.default_rng()

        # -- state: one row per game ----------------------------------------------------
        self.keys = np.zeros(B, dtype=np.uint64)  # per-game key of the counter-based shuffles
        self.deck = np.zeros((B, DECK_SIZE), dtype=np.int8)  # this round's deal: hands
        # (3 per seat), tables (3 per seat), then the stock, top first
        self.stock_top = np.zeros(B, dtype=np.int16)  # deck index of the stock's top; 54 = empty
        self.hand = np.zeros((B, P, NUM_CARDS), dtype=np.int8)  # hand counts (joker up to 2)
        self.hand_size = np.zeros((B, P), dtype=np.int8)  # cards in each hand
        self.hand_limit = np.zeros((B, P), dtype=np.int8)  # L = 3 + jokers that entered (G7)
        self.table = np.zeros((B, P, NUM_CARDS), dtype=np.int8)  # face-up table card counts
        self.discard = np.full((B, DECK_SIZE), -1, dtype=np.int8)  # discard pile, bottom first
        self.discard_size = np.zeros(B, dtype=np.int16)  # cards on the discard pile
        self.discard_counts = np.zeros((B, NUM_CARDS), dtype=np.int8)  # discard pile counts
        self.dealer = np.zeros(B, dtype=np.int8)  # this round's dealer (G2)
        self.rounds_played = np.zeros(B, dtype=np.int32)  # rounds finished in this match
        self.totals = np.zeros((B, P), dtype=np.int32)  # match points so far (K4)
        self.current_player = np.full(B, -1, dtype=np.int8)  # seat to act; -1 when over
        self.game_over = np.ones(B, dtype=bool)  # the episode has ended
        self._four_now = np.full(B, -1, dtype=np.int8)  # seat that got four aces this round

        # -- results ----------------------------------------------------------------------
        self.deal_over = np.zeros(B, dtype=bool)  # a round ended during the last step
        self.last_points = np.zeros((B, P), dtype=np.int32)  # last finished round's points
        self.four_aces_winner = np.full(B, -1, dtype=np.int8)  # four aces (H4/K1) seat; -1
        self.winners = np.zeros((B, P), dtype=bool)  # match winners, once it is over
        self.match_over = np.zeros(B, dtype=bool)  # the match has ended (K4)
        self.has_result = np.zeros(B, dtype=bool)  # a round has finished in this episode

        # -- index tables of the hot path ---------------------------------------------------
        # a (game, seat) pair is the flat row ``game * P + seat`` of the per-seat arrays
        self._first_row = np.arange(B, dtype=np.intp) * P  # flat row of each game's seat 0
        #: absolute seat of relative slot r for observer seat s: _relative[s, r]
        self._relative = (np.arange(P)[:, None] + np.arange(P)[None, :]) % P
        self.reset()

    # flat views of the per-seat state, one row per (game, seat): made on use (a reshape
    # costs well under a microsecond), so copies and pickles of an engine stay consistent
    @property
    def _hand_rows(self) -> np.ndarray:
        return self.hand.reshape(-1, NUM_CARDS)

    @property
    def _table_rows(self) -> np.ndarray:
        return self.table.reshape(-1, NUM_CARDS)

    @property
    def _hand_size_flat(self) -> np.ndarray:
        return self.hand_size.reshape(-1)

    @property
    def _hand_limit_flat(self) -> np.ndarray:
        return self.hand_limit.reshape(-1)

    # ==================================================================================
    # reset
    # ==================================================================================
    def reset(
        self,
        seed: int | None = None,
        games: np.ndarray | None = None,
        game_seeds: Sequence[int] | np.ndarray | None = None,
    ) -> None:
        """Start new matches: in every game, or where the bool mask ``games`` is set.

        ``seed`` re-seeds the engine's generator; every reset game gets a new 64-bit key,
        ``game_seeds`` (one per reset game) if given, else drawn from the generator.
        """
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        sel, keys = games_to_reset(self.batch_size, games, game_seeds, self._rng)
        if len(sel) == 0:
            return
        self.keys[sel] = keys
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
        nothing) for wrong counts, unknown, duplicate or missing cards, or a bad dealer.
        """
        check_int("game", game, 0, self.batch_size - 1)
        cards = self.check_deal(dealer, hands, tables, stock)
        g = np.array([game])
        self._new_match(g)
        self._start_round(g, deck_rows=cards[None, :], dealers=np.array([dealer]))
        self._settle_start(g)

    def check_deal(
        self,
        dealer: int,
        hands: Sequence[Sequence[str]],
        tables: Sequence[Sequence[str]],
        stock: Sequence[str],
    ) -> np.ndarray:
        """Validate a fixed deal (see :meth:`reset_with_deal`); return its deck order
        (int8 [54]: hands, tables, stock top first). Raises ``ValueError`` saying what."""
        P = self.num_players
        check_int("dealer", dealer, 0, P - 1)
        for what, rows in (("hands", hands), ("tables", tables)):
            if isinstance(rows, str) or len(rows) != P:
                raise ValueError(f"{what} must list {P} players' cards, got {rows!r}")
            for seat, row in enumerate(rows):
                if isinstance(row, str) or len(row) != 3:
                    raise ValueError(f"{what}[{seat}] must hold exactly 3 cards, got {row!r}")
        if isinstance(stock, str):
            raise ValueError(f"stock must be a list of cards, got {stock!r}")
        order = [c for row in hands for c in row] + [c for row in tables for c in row]
        order += list(stock)
        cards = np.array([parse_card(c) for c in order], dtype=np.int64)
        counts = np.bincount(cards, minlength=NUM_CARDS)
        expected = np.bincount(FULL_DECK, minlength=NUM_CARDS)
        extra = [f"{CARD_NAMES[c]} x{counts[c]}" for c in np.flatnonzero(counts > expected)]
        if extra:
            raise ValueError(f"duplicate cards in the deal: {', '.join(extra)}")
        missing = [CARD_NAMES[c] for c in np.flatnonzero(counts < expected)]
        if missing:
            raise ValueError(
                f"the deal must hold all 54 cards; missing from hands/tables/stock: "
                f"{', '.join(missing)}"
            )
        return cards.astype(np.int8)

    def _new_match(self, g: np.ndarray) -> None:
        """Clear the match state of games ``g``."""
        self.totals[g] = 0
        self.rounds_played[g] = 0
        self.game_over[g] = False
        self.match_over[g] = False
        self.has_result[g] = False
        self.deal_over[g] = False
        self.last_points[g] = 0
        self.four_aces_winner[g] = -1
        self.winners[g] = False

    # ==================================================================================
    # round start: G2 dealer, G3 deal, G4 pre-fill, H1 first mover
    # ==================================================================================
    def _choose_dealers(self, g: np.ndarray, draw: np.ndarray) -> np.ndarray:
        """G2: players draw one card each in turn until the ace of spades shows. ``draw``:
        the numbers whose stable sort orders the draw (``shuffled(key, 2r, FULL_DECK)``)."""
        P = self.num_players
        first = self.rounds_played[g] == 0
        start = np.where(first, 0, (self.dealer[g].astype(np.int64) + 1) % P)
        if self.config.dealer == "rotate":
            dealers = start.copy()  # later rounds: the deal passes left
            drawing = np.flatnonzero(first)
        else:
            dealers = np.zeros(len(g), dtype=np.int64)
            drawing = np.arange(len(g))
        if len(drawing):
            # the ace's place in the draw: how many numbers sort before its own (ties
            # keep deck order), no full sort needed
            u = draw[drawing]
            ace = u[:, _AS_POSITION : _AS_POSITION + 1]
            position = np.count_nonzero(u < ace, axis=1)
            position += np.count_nonzero(u[:, :_AS_POSITION] == ace, axis=1)
            dealers[drawing] = (start[drawing] + position) % P
        return dealers

    def _start_round(
        self,
        g: np.ndarray,
        deck_rows: np.ndarray | None = None,
        dealers: np.ndarray | None = None,
    ) -> None:
        """Deal a new round in games ``g`` (G2–G4, H1)."""
        P = self.num_players
        if deck_rows is None or dealers is None:
            # round r: the dealer draw is shuffled(key, 2r, FULL_DECK) and the deal
            # shuffled(key, 2r + 1, FULL_DECK) (envs.core); one call makes both's numbers
            n = len(g)
            counters = 2 * self.rounds_played[g].astype(np.int64)
            u = hashed_uniform(
                np.concatenate([self.keys[g], self.keys[g]]),
                np.concatenate([counters, counters + 1]),
                DECK_SIZE,
            )
            if dealers is None:
                dealers = self._choose_dealers(g, u[:n])
            if deck_rows is None:
                deck_rows = FULL_DECK[stable_argsort_rows(u[n:])]
        self.deck[g] = deck_rows
        self.dealer[g] = dealers
        seat_rows = (self._first_row[g][:, None] + np.arange(P)).reshape(-1)  # [n * P]
        hands = deck_rows[:, : HAND_CARDS * P].reshape(len(g) * P, HAND_CARDS)
        tables = deck_rows[:, HAND_CARDS * P : (HAND_CARDS + TABLE_CARDS) * P]
        tables = tables.reshape(len(g) * P, TABLE_CARDS)
        self._hand_rows[seat_rows] = 0
        self._table_rows[seat_rows] = 0
        for k in range(3):  # (seat row, card) pairs are distinct within one k
            self._hand_rows[seat_rows, hands[:, k]] += 1
            self._table_rows[seat_rows, tables[:, k]] += 1
        self.hand_size[g] = HAND_CARDS
        # G4/G7: a joker dealt into the hand raises L; one on the table scores nothing
        jokers = self.hand[g, :, JOKER]  # [n, P]
        self.hand_limit[g] = BASE_LIMIT + jokers
        self.stock_top[g] = (HAND_CARDS + TABLE_CARDS) * P
        self.discard[g] = -1
        self.discard_size[g] = 0
        self.discard_counts[g] = 0
        self._four_now[g] = -1
        # G4: pre-fill in seat order from the player left of the dealer. Only seats dealt a
        # joker in hand need cards, and there are two jokers: each pass gives one card to
        # the first seat (in that order) still short of L, in every game that has one.
        order = self._relative[(dealers + 1) % P]  # [n, P] seats from the dealer's left
        needy = np.flatnonzero(jokers.any(axis=1))  # positions in g
        while len(needy):
            gn = g[needy]
            rows = self._first_row[gn][:, None] + order[needy]
            short = self._hand_size_flat[rows] < self._hand_limit_flat[rows]  # [n, P]
            go = short.any(axis=1) & (self.stock_top[gn] < DECK_SIZE) & (self._four_now[gn] < 0)
            needy, rows, short = needy[go], rows[go], short[go]
            if len(needy):
                self._draw(g[needy], rows[np.arange(len(needy)), np.argmax(short, axis=1)])
        self.current_player[g] = (dealers + 1) % P  # H1

    def _settle_start(self, g: np.ndarray) -> None:
        """Games whose pre-fill gave four aces (H4) end at once; the reward of that round
        cannot be returned by reset, it is in :meth:`result` and ``last_points``."""
        won = g[self._four_now[g] >= 0]
        if len(won):
            self._end_round(won, np.zeros((self.batch_size, self.num_players), np.float32))

    # ==================================================================================
    # turns: H2, G6, G7, H4
    # ==================================================================================
    def _draw(self, g: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The seats at flat rows ``rows`` (``game * P + seat``) of games ``g`` each take
        the top card of their non-empty stock into the hand; a joker raises L (G7), four
        aces (H4) are recorded in ``_four_now``. Returns bool [len(g)]: drew a joker."""
        hand = self._hand_rows
        c = self.deck[g, self.stock_top[g]].astype(np.intp)
        self.stock_top[g] += 1
        hand[rows, c] += 1
        self._hand_size_flat[rows] += 1
        joker = c == JOKER
        if joker.any():
            self._hand_limit_flat[rows[joker]] += 1
        ace = _IS_ACE[c]
        if ace.any():
            ga, ra = g[ace], rows[ace]
            four = (hand[ra[:, None], ACES] > 0).all(axis=1)
            self._four_now[ga[four]] = ra[four] - self._first_row[ga[four]]
        return joker

    def _refill(self, g: np.ndarray, rows: np.ndarray) -> None:
        """G6/G7 after a discard: the seats at flat rows ``rows`` of games ``g`` are one card
        short of L and their stock is not empty (a round ends with the turn that empties
        it, H3), so each takes one card; a joker raises L (G7), so its taker draws again
        while the stock lasts and nobody has four aces (H4, ``_four_now``)."""
        joker = self._draw(g, rows)
        while joker.any():
            g, rows = g[joker], rows[joker]
            go_on = (self.stock_top[g] < DECK_SIZE) & (self._four_now[g] < 0)
            g, rows = g[go_on], rows[go_on]
            if not len(g):
                break
            joker = self._draw(g, rows)

    def _push_discard(self, g: np.ndarray, c: np.ndarray) -> None:
        self.discard[g, self.discard_size[g]] = c
        self.discard_size[g] += 1
        self.discard_counts[g, c] += 1

    def legal_action_mask(self) -> np.ndarray:
        """bool [B, 54]: discard any card type in the hand; draw while the stock is not
        empty (always at a turn's start, H3); all False where the game is over."""
        if self.batch_size == 1:  # a single game: no index arrays
            mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
            if not self.game_over[0]:
                np.greater(self.hand[0, self.current_player[0]], 0, out=mask[0, :NUM_CARDS])
                mask[0, DRAW] = self.stock_top[0] < DECK_SIZE
            return mask
        rows = self._first_row + np.maximum(self.current_player, 0)
        mask = np.empty((self.batch_size, NUM_ACTIONS), dtype=bool)
        np.greater(self._hand_rows.take(rows, axis=0), 0, out=mask[:, :NUM_CARDS])
        mask[:, DRAW] = self.stock_top < DECK_SIZE
        if self.game_over.any():
            mask[self.game_over] = False
        return mask

    def _check_actions(self, idx: np.ndarray, a: np.ndarray, rows: np.ndarray) -> None:
        """Raise ``ValueError`` for the first illegal action among games ``idx`` (seats at
        flat rows ``rows``)."""
        in_range = (a >= 0) & (a < NUM_ACTIONS)
        card = np.minimum(np.maximum(a, 0), JOKER)
        ok = in_range & np.where(
            a < DRAW, self._hand_rows[rows, card] > 0, self.stock_top[idx] < DECK_SIZE
        )
        if ok.all():
            return
        i = int(np.flatnonzero(~ok)[0])
        where = f" in game {int(idx[i])}" if self.batch_size > 1 else ""
        if not in_range[i]:
            raise ValueError(f"action {int(a[i])}{where} is out of range 0..{NUM_ACTIONS - 1}")
        name = ACTION_NAMES[int(a[i])]
        seat = int(self.current_player[idx[i]])
        why = f"that card is not in seat {seat}'s hand" if a[i] < DRAW else "the stock is empty"
        raise ValueError(f"illegal action {int(a[i])} ({name!r}){where}: {why}")

    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """One turn (H2) in every live game (where ``active``, default all). Returns float32
        [B, P] rewards earned by this step; see :class:`FourAcesEngine`."""
        B, P = self.batch_size, self.num_players
        actions = np.asarray(actions)
        if actions.shape != (B,):
            actions = actions.reshape(-1)
            if actions.shape != (B,):
                raise ValueError(f"actions must have shape ({B},), got {np.shape(actions)}")
        if actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {actions.dtype}")
        if B == 1:
            return self._step_one(actions, active)
        live = ~self.game_over
        if active is not None:
            live &= np.asarray(active, dtype=bool).reshape(B)
        idx = live.nonzero()[0]
        a = actions[idx].astype(np.intp)
        s = self.current_player[idx].astype(np.intp)
        rows = self._first_row[idx] + s  # flat (game, seat) rows of the movers
        self._check_actions(idx, a, rows)  # nothing has changed yet
        rewards = np.zeros((B, P), dtype=np.float32)
        self.deal_over[:] = False
        if not len(idx):
            return rewards
        disc = a < DRAW
        # H2 a: discard a card type (a joker too: L stays raised), then fill (G6/G7)
        gd, rd, cd = idx[disc], rows[disc], a[disc]
        self._hand_rows[rd, cd] -= 1
        self._hand_size_flat[rd] -= 1
        self._push_discard(gd, cd)
        # H2 b: turn up the stock's top card; a joker goes into the hand (L + 1)
        if len(gd) < len(idx):
            gt, rt = idx[~disc], rows[~disc]
            c = self.deck[gt, self.stock_top[gt]].astype(np.intp)
            self.stock_top[gt] += 1
            joker = c == JOKER
            if joker.any():
                rj = rt[joker]
                self._hand_rows[rj, JOKER] += 1
                self._hand_size_flat[rj] += 1
                self._hand_limit_flat[rj] += 1
            self._push_discard(gt[~joker], c[~joker])
        if len(gd):
            self._refill(gd, rd)  # G6/G7
        # end of turn: H4 four aces, or H3 the stock became empty
        ends = (self._four_now[idx] >= 0) | (self.stock_top[idx] >= DECK_SIZE)
        if ends.any():
            go_on = ~ends
            self.current_player[idx[go_on]] = (s[go_on] + 1) % P
            self._end_round(idx[ends], rewards)
        else:
            self.current_player[idx] = (s + 1) % P
        return rewards

    def _step_one(self, actions: np.ndarray, active: np.ndarray | None) -> np.ndarray:
        """:meth:`step` for a batch of one, on Python scalars: the same turn (H2, G6, G7,
        H3, H4) without index arrays, whose per-call cost dominates a single game."""
        rewards = np.zeros((1, self.num_players), dtype=np.float32)
        self.deal_over[0] = False
        if self.game_over[0] or (active is not None
                                 and not np.asarray(active, dtype=bool).reshape(1)[0]):
            return rewards
        a, s = int(actions[0]), int(self.current_player[0])
        hand = self.hand[0, s]
        stock_top = int(self.stock_top[0])
        if not (0 <= a < DRAW and hand[a] > 0 or a == DRAW and stock_top < DECK_SIZE):
            self._check_actions(np.zeros(1, np.intp), np.array([a]), np.array([s]))  # raises
        if a < DRAW:  # H2 a: discard, then fill to L (G6/G7)
            hand[a] -= 1
            self.hand_size[0, s] -= 1
            self._push_discard_one(a)
            joker = self._draw_one(s)
            while joker and self.stock_top[0] < DECK_SIZE and self._four_now[0] < 0:
                joker = self._draw_one(s)
        else:  # H2 b: turn up the stock's top card; a joker goes into the hand (L + 1)
            c = int(self.deck[0, stock_top])
            self.stock_top[0] = stock_top + 1
            if c == JOKER:
                hand[JOKER] += 1
                self.hand_size[0, s] += 1
                self.hand_limit[0, s] += 1
            else:
                self._push_discard_one(c)
        if self._four_now[0] >= 0 or self.stock_top[0] >= DECK_SIZE:  # H4, H3
            self._end_round(np.zeros(1, np.intp), rewards)
        else:
            self.current_player[0] = (s + 1) % self.num_players
        return rewards

    def _draw_one(self, s: int) -> bool:
        """:meth:`_draw` for seat ``s`` of game 0 of a batch of one; True: drew a joker."""
        top = int(self.stock_top[0])
        c = int(self.deck[0, top])
        self.stock_top[0] = top + 1
        hand = self.hand[0, s]
        hand[c] += 1
        self.hand_size[0, s] += 1
        if c == JOKER:
            self.hand_limit[0, s] += 1
            return True
        if _IS_ACE[c] and (hand[ACES] > 0).all():
            self._four_now[0] = s
        return False

    def _push_discard_one(self, c: int) -> None:
        size = int(self.discard_size[0])
        self.discard[0, size] = c
        self.discard_size[0] = size + 1
        self.discard_counts[0, c] += 1

    # ==================================================================================
    # round end: K1–K4
    # ==================================================================================
    def _end_round(self, g: np.ndarray, rewards: np.ndarray) -> None:
        """Score the round of games ``g``, pay rewards, end the match or deal anew."""
        P = self.num_players
        cfg = self.config
        n = len(g)
        four = self._four_now[g].astype(np.int64)  # H4 during the round
        # K1: scoring cards = non-joker hand + table cards
        scoring = self.hand[g, :, :JOKER] + self.table[g, :, :JOKER]  # [n, P, 52] of 0/1
        k1 = scoring[:, :, ACES].all(axis=2)
        four = np.where((four < 0) & k1.any(axis=1), np.argmax(k1, axis=1), four)
        points = np.zeros((n, P), dtype=np.int32)
        normal = four < 0
        if normal.any():
            present = scoring[normal].reshape(-1, JOKER)
            points[normal] = score_presence(present, cfg.scoring).reshape(-1, P)
        won = np.flatnonzero(~normal)
        points[won, four[won]] = cfg.target_points  # four aces convention (K1/H4)
        self.last_points[g] = points
        self.four_aces_winner[g] = four
        self.totals[g] += points
        self.rounds_played[g] += 1
        self.deal_over[g] = True
        self.has_result[g] = True
        # K4
        totals = self.totals[g]
        if cfg.episode == "round":
            over = np.ones(n, dtype=bool)
            best = points
        else:
            over = (
                ~normal
                | (totals.max(axis=1) >= cfg.target_points)
                | (self.rounds_played[g] >= cfg.round_limit)
            )
            best = totals
        winners = np.where(
            normal[:, None],
            best == best.max(axis=1, keepdims=True),
            np.arange(P)[None, :] == four[:, None],
        )
        winners &= over[:, None]
        self.winners[g] = winners
        self.match_over[g] = over
        # rewards: every seat receives its reward now
        if cfg.reward == "points":
            rewards[g] += points
        elif cfg.reward == "relative":
            rewards[g] += points - (points.sum(axis=1, keepdims=True) - points) / (P - 1)
        else:  # "win": zero-sum at match end
            w = winners.sum(axis=1, keepdims=True)
            share = np.where(winners, 1.0 / np.maximum(w, 1), -1.0 / np.maximum(P - w, 1))
            rewards[g] += np.where(over[:, None] & (w < P), share, 0.0).astype(np.float32)
        done = g[over]
        self.game_over[done] = True
        self.current_player[done] = -1
        more = g[~over]
        if len(more):  # match mode: the next round is dealt within this step
            self._start_round(more)
            again = more[self._four_now[more] >= 0]  # H4 during the pre-fill (G4)
            if len(again):
                self._end_round(again, rewards)

    def result(self, game: int = 0) -> dict | None:
        """``info["result"]``: the last finished round of ``game`` (None before any)."""
        if not self.has_result[game]:
            return None
        four = int(self.four_aces_winner[game])
        out = {
            "round": int(self.rounds_played[game]) - 1,
            "round_points": None if four >= 0 else self.last_points[game].tolist(),
            "four_aces": four if four >= 0 else None,
            "totals": self.totals[game].tolist(),
            "match_over": bool(self.match_over[game]),
        }
        if self.match_over[game]:
            out["winners"] = np.flatnonzero(self.winners[game]).tolist()
        return out

    # ==================================================================================
    # observation: what each player sees
    # ==================================================================================
    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None,
                dtype: object = None) -> np.ndarray:
        """float32 [B, layout.size], seat-relative (see :func:`build_layout`). Holds only
        what ``seats`` may know: own hand, every table, the discard pile, the stock size,
        every hand size and L, scores, dealer and round. ``out`` (float32 or int8 [B, D],
        C-contiguous): written in full and returned instead of a fresh array.
        ``dtype=np.int8`` or an int8 ``out``: the integer observation, which times
        :attr:`observation_scale` is the float32 one (``episode="round"`` only)."""
        B, P = self.batch_size, self.num_players
        out = observation_buffer(B, LAYOUT.size, dtype, out)
        check_out(out, B, LAYOUT.size, self._int8_error)
        if B == 1 and (seats is None or np.size(seats) == 1) and out.dtype == np.float32:
            seat = max(int(self.current_player[0]), 0) if seats is None else (
                int(np.asarray(seats).reshape(-1)[0]))
            if not 0 <= seat < P:
                raise ValueError(f"seats must be in 0..{P - 1}")
            self._observe_one(seat, out[0])
            return out
        if seats is None:
            seats = np.maximum(self.current_player, 0).astype(np.intp)
        else:
            seats = np.broadcast_to(np.asarray(seats), (B,)).astype(np.intp)
            if seats.size and (seats.min() < 0 or seats.max() >= P):
                raise ValueError(f"seats must be in 0..{P - 1}")
        self._observe_batch(seats, out)
        return out

    def observe_one(self, seat: int, out: np.ndarray) -> None:
        """See :meth:`envs.core.BatchEngine.observe_one` (game 0, no argument checks)."""
        self._observe_one(seat, out)

    def _observe_batch(self, seats: np.ndarray, out: np.ndarray) -> None:
        """:meth:`observe` into ``out``, every entry written, whatever the batch size. An
        int8 ``out`` gets the integers of the fractional entries (cards left, hand sizes,
        jokers, totals, rounds): see :func:`observation_scale`."""
        B, P = self.batch_size, self.num_players
        int8 = out.dtype == np.int8
        seat_rows = self._first_row + seats  # flat row of each observer
        slot_rows = self._first_row[:, None] + self._relative[seats]  # [B, P] each slot
        out[:, slice(*_SEGMENTS["num_players"])] = _NUM_PLAYERS_ONE_HOT[P]
        hand = self._hand_rows
        out[:, slice(*_SEGMENTS["hand"])] = hand.take(seat_rows, axis=0)  # (take: faster)
        start, stop = _SEGMENTS["tables"]
        tables = self._table_rows.take(slot_rows.reshape(-1), axis=0)
        out[:, start : start + P * NUM_CARDS] = tables.reshape(B, P * NUM_CARDS)
        out[:, start + P * NUM_CARDS : stop] = 0.0
        out[:, slice(*_SEGMENTS["discard_pile"])] = self.discard_counts
        top = self.discard.reshape(-1).take(  # the pile's top card; -1: empty
            self._first_row // P * DECK_SIZE + np.maximum(self.discard_size - 1, 0))
        np.equal(top[:, None], _CARD_IDS, out=out[:, slice(*_SEGMENTS["last_discard"])])
        left = DECK_SIZE - self.stock_top
        out[:, _SEGMENTS["stock_size"][0]] = left if int8 else left / DECK_SIZE
        for name, values in (
            ("hand_sizes", self._hand_size_flat),
            ("hand_limits", self._hand_limit_flat),
        ):
            start, stop = _SEGMENTS[name]
            out[:, start : start + P] = values[slot_rows] if int8 else _FIFTHS[values[slot_rows]]
            out[:, start + P : stop] = 0.0
        jokers = (
            hand[seat_rows, JOKER].astype(np.int32)
            + np.einsum("bp->b", self.table[:, :, JOKER])  # (faster than sum(axis=1))
            + self.discard_counts[:, JOKER]
        )
        out[:, _SEGMENTS["jokers_seen"][0]] = jokers if int8 else jokers / 2.0
        start, stop = _SEGMENTS["scores"]
        totals = self.totals.reshape(-1)[slot_rows]
        out[:, start : start + P] = totals if int8 else totals / self.config.target_points
        out[:, start + P : stop] = 0.0
        dealer_slot = (self.dealer - seats) % P
        np.equal(dealer_slot[:, None], _SLOT_IDS, out=out[:, slice(*_SEGMENTS["dealer"])])
        rounds = self.rounds_played
        out[:, _SEGMENTS["round_number"][0]] = rounds if int8 else rounds / self.config.round_limit

    def _observe_one(self, seat: int, out: np.ndarray) -> None:
        """:meth:`observe` of a batch of one (game 0) from ``seat`` into ``out`` (float32
        [D]): the same values in a dozen numpy calls (their fixed cost dominates here)."""
        P = self.num_players
        rel = self._relative[seat]
        out.fill(0.0)
        out[_SEGMENTS["num_players"][0] + P - 3] = 1.0
        out[slice(*_SEGMENTS["hand"])] = self.hand[0, seat]
        start = _SEGMENTS["tables"][0]
        out[start : start + P * NUM_CARDS].reshape(P, NUM_CARDS)[...] = self.table[0].take(
            rel, axis=0)
        out[slice(*_SEGMENTS["discard_pile"])] = self.discard_counts[0]
        top = int(self.discard[0, max(int(self.discard_size[0]) - 1, 0)])
        if top >= 0:
            out[_SEGMENTS["last_discard"][0] + top] = 1.0
        rel = rel.tolist()
        sizes, limits = self.hand_size[0].tolist(), self.hand_limit[0].tolist()
        totals, target = self.totals[0].tolist(), self.config.target_points
        jokers = (int(self.hand[0, seat, JOKER]) + sum(self.table[0, :, JOKER].tolist())
                  + int(self.discard_counts[0, JOKER]))
        dealer = [0.0] * MAX_SLOTS
        dealer[(int(self.dealer[0]) - seat) % P] = 1.0
        pad = [0.0] * (MAX_SLOTS - P)
        # stock_size .. round_number are adjacent: one write
        out[_SEGMENTS["stock_size"][0] : _SEGMENTS["round_number"][1]] = (
            [(DECK_SIZE - int(self.stock_top[0])) / DECK_SIZE]
            + [sizes[r] / 5.0 for r in rel] + pad
            + [limits[r] / 5.0 for r in rel] + pad
            + [jokers / 2.0]
            + [totals[r] / target for r in rel] + pad
            + dealer
            + [int(self.rounds_played[0]) / self.config.round_limit]
        )
