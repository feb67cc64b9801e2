"""High Card's batch engine: every game of the batch in fixed-shape numpy arrays with a
leading batch axis, stepped together by masks (no per-game Python loop), a batch of one
being the single game. Rule ids are those of the package docstring (HC1–HC4).

Observation (seat-relative: slot 0 is the observer; :data:`LAYOUT`):

{layout}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from envs.cards import CARD_NAMES, RANK_OF, SUIT_OF, parse_card
from envs.core import (
    BatchEngine,
    ObservationLayout,
    check_actions,
    check_active,
    check_int,
    check_out,
    check_seats,
    check_seed,
    games_to_reset,
    observation_buffer,
    random_keys,
    shuffled,
)

from .config import MAX_PLAYERS, HighCardConfig

DECK = 52  #: HC1: one deck, no joker
NUM_ACTIONS = DECK  #: action c plays card c (envs.cards index)
ACTION_NAMES = tuple(f"play:{CARD_NAMES[c]}" for c in range(DECK))

LAYOUT = ObservationLayout([
    ("hand", DECK, "the observer's cards"),
    ("trick", DECK, "the cards of the trick being played (HC2)"),
    ("played", DECK, "every card played in earlier tricks of the deal"),
    ("led_suit", 4, "the suit led in this trick, one-hot (none before the lead)"),
    ("tricks", MAX_PLAYERS, "tricks won by each seat, observer first, / hand_size (HC4)"),
    ("to_act", 1, "1 when the observer is to act"),
])
__doc__ = __doc__.format(layout=LAYOUT.table())


@dataclass(frozen=True)
class HighCardState:
    """Every per-game array of a batch of B games of P players."""

    keys: np.ndarray  #: uint64 [B]: the game's key; its deal is a function of it (HC1)
    dealt: np.ndarray  #: int8 [B, P, hand_size]: the cards dealt to each seat (records)
    hand: np.ndarray  #: bool [B, P, 52]: the cards each seat holds
    trick: np.ndarray  #: int8 [B, P]: the card each seat played in this trick, -1 none
    played: np.ndarray  #: bool [B, 52]: cards played in the deal's finished tricks
    led_suit: np.ndarray  #: int8 [B]: the suit led in this trick, -1 before the lead
    current_player: np.ndarray  #: int8 [B]: the seat to act, -1 once over
    tricks: np.ndarray  #: int32 [B, P]: tricks won in this deal (HC3)
    tricks_played: np.ndarray  #: int32 [B]: finished tricks of this deal
    deal_over: np.ndarray  #: bool [B]: the deal ended during the last step
    game_over: np.ndarray  #: bool [B]: the episode is over (HC4)
    has_result: np.ndarray  #: bool [B]: a deal has finished (``result`` has one)
    last_points: np.ndarray  #: int32 [B, P]: the last finished deal's points (HC4)
    totals: np.ndarray  #: int32 [B, P]: points of the episode
    winners: np.ndarray  #: bool [B, P]: the most tricks, once over (HC4)

    @classmethod
    def allocate(cls, B: int, P: int, H: int) -> HighCardState:
        """Zeroed arrays for ``B`` games of ``P`` players with hands of ``H`` cards."""
        return cls(keys=np.zeros(B, np.uint64), dealt=np.zeros((B, P, H), np.int8),
                   hand=np.zeros((B, P, DECK), bool), trick=np.full((B, P), -1, np.int8),
                   played=np.zeros((B, DECK), bool), led_suit=np.full(B, -1, np.int8),
                   current_player=np.full(B, -1, np.int8), tricks=np.zeros((B, P), np.int32),
                   tricks_played=np.zeros(B, np.int32), deal_over=np.zeros(B, bool),
                   game_over=np.ones(B, bool), has_result=np.zeros(B, bool),
                   last_points=np.zeros((B, P), np.int32), totals=np.zeros((B, P), np.int32),
                   winners=np.zeros((B, P), bool))

    def select(self, rows: np.ndarray) -> HighCardState:
        """A copy of games ``rows``."""
        return HighCardState(**{f.name: getattr(self, f.name)[rows].copy()
                                for f in fields(self)})


class HighCardEngine(BatchEngine):
    """``batch_size`` games of High Card (see the module docstring)."""

    def __init__(self, config: HighCardConfig | None = None, batch_size: int = 1):
        config = HighCardConfig() if config is None else config
        check_int("batch_size", batch_size, 1)
        self.config = config
        self.batch_size = B = int(batch_size)
        self.num_players = P = config.num_players
        self.num_actions = NUM_ACTIONS
        self.action_names = ACTION_NAMES
        self.layout = LAYOUT
        self.observation_bounds = (0.0, 1.0)
        self.observation_scale = np.ones(LAYOUT.size, np.float32)
        self.observation_scale[LAYOUT["tricks"]] = 1.0 / config.hand_size
        self._rng = np.random.default_rng()
        self.state = HighCardState.allocate(B, P, config.hand_size)
        self.reset()

    # -- the deal (HC1) ---------------------------------------------------------------
    def reset(self, seed: int | None = None, games: np.ndarray | None = None,
              game_seeds: np.ndarray | None = None) -> None:
        """Start new episodes in every game, or in ``games`` (see
        :meth:`envs.core.BatchEngine.reset`): each dealt from its key (HC1)."""
        check_seed(seed)
        rows, keys = games_to_reset(self.batch_size, games, game_seeds, None)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if keys is None:
            keys = random_keys(self._rng, len(rows))
        if len(rows) == 0:
            return
        P, H = self.num_players, self.config.hand_size
        self.state.keys[rows] = keys
        cards = shuffled(keys, np.zeros(len(rows), np.uint64), np.arange(DECK))
        self._deal(rows, cards[:, : P * H].reshape(len(rows), P, H))

    def reset_with_deal(self, game: int, hands: Sequence[Sequence[str]]) -> None:
        """Start a new episode in ``game`` from fixed hands (card strings, ``hand_size``
        per seat, no card twice). Raises ``ValueError`` saying what is wrong."""
        check_int("game", game, 0, self.batch_size - 1)
        P, H = self.num_players, self.config.hand_size
        if not isinstance(hands, (list, tuple)) or len(hands) != P or any(
                not isinstance(h, (list, tuple)) or len(h) != H for h in hands):
            raise ValueError(f"hands must list {P} hands of {H} cards")
        cards = np.array([[parse_card(c) for c in hand] for hand in hands], np.int64)
        if cards.max() >= DECK or len(np.unique(cards)) != cards.size:
            raise ValueError("hands must hold distinct cards of one deck (no joker)")
        self._deal(np.array([game]), cards[None])

    def _deal(self, rows: np.ndarray, cards: np.ndarray) -> None:
        """Deal ``cards`` (int [n, P, H]) to games ``rows``; seat 0 leads (HC1)."""
        st, P = self.state, self.num_players
        st.dealt[rows] = cards
        st.hand[rows] = False
        n = len(rows)
        st.hand[np.repeat(rows, cards[0].size), np.tile(np.repeat(np.arange(P),
                cards.shape[2]), n), cards.reshape(-1)] = True
        st.trick[rows] = -1
        st.played[rows] = False
        st.led_suit[rows] = -1
        st.current_player[rows] = 0
        st.tricks[rows] = 0
        st.tricks_played[rows] = 0
        st.deal_over[rows] = False
        st.game_over[rows] = False
        st.has_result[rows] = False
        st.totals[rows] = 0
        st.winners[rows] = False

    # -- legal actions (HC2) ----------------------------------------------------------
    def legal_action_mask(self) -> np.ndarray:
        """bool [B, 52]: the cards of the seat to act, only the led suit's when it holds
        one (HC2); all False where the game is over."""
        st = self.state
        seat = np.maximum(st.current_player, 0).astype(np.intp)
        mask = st.hand[np.arange(self.batch_size), seat].copy()
        follows = mask & (SUIT_OF[:DECK][None, :] == st.led_suit[:, None])
        must = follows.any(axis=1)
        mask = np.where(must[:, None], follows, mask)
        mask[st.game_over] = False
        return mask

    # -- a step: one card in every live game (HC2–HC4) --------------------------------
    def step(self, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
        """One card played in every live game (where ``active``); returns float32 [B, P],
        the tricks of the deals that ended (HC4). An illegal action raises ``ValueError``
        naming it before anything changes."""
        B, P = self.batch_size, self.num_players
        actions = check_actions(actions, B)
        active = check_active(active, B)
        st = self.state
        live = ~st.game_over if active is None else ~st.game_over & active
        rows = np.flatnonzero(live)
        a = actions[rows]
        ok = (a >= 0) & (a < NUM_ACTIONS)
        ok[ok] = self.legal_action_mask()[rows[ok], a[ok]]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            where = f" in game {int(rows[i])}" if B > 1 else ""
            raise ValueError(f"illegal action {int(a[i])}{where}: not a card the seat to "
                             "act may play (HC2)")
        st.deal_over[:] = False
        rewards = np.zeros((B, P), np.float32)
        if len(rows) == 0:
            return rewards
        seat = st.current_player[rows].astype(np.intp)
        st.hand[rows, seat, a] = False
        st.trick[rows, seat] = a
        st.led_suit[rows] = np.where(st.led_suit[rows] < 0, SUIT_OF[a], st.led_suit[rows])
        st.current_player[rows] = (seat + 1) % P
        full = rows[(st.trick[rows] >= 0).all(axis=1)]
        if len(full):
            self._end_tricks(full, rewards)
        return rewards

    def _end_tricks(self, rows: np.ndarray, rewards: np.ndarray) -> None:
        """The highest card of the led suit takes the trick and leads next (HC3); the
        deal ends after ``hand_size`` tricks (HC4)."""
        st = self.state
        cards = st.trick[rows].astype(np.intp)
        value = np.where(SUIT_OF[cards] == st.led_suit[rows, None], RANK_OF[cards], -1)
        winner = value.argmax(axis=1)
        st.tricks[rows, winner] += 1
        st.played[np.repeat(rows, cards.shape[1]), cards.reshape(-1)] = True
        st.trick[rows] = -1
        st.led_suit[rows] = -1
        st.current_player[rows] = winner
        st.tricks_played[rows] += 1
        done = rows[st.tricks_played[rows] == self.config.hand_size]
        if len(done):  # HC4
            points = st.tricks[done]
            st.last_points[done] = points
            st.totals[done] += points
            st.winners[done] = points == points.max(axis=1, keepdims=True)
            rewards[done] = points
            st.deal_over[done] = True
            st.game_over[done] = True
            st.has_result[done] = True
            st.current_player[done] = -1

    def result(self, game: int = 0) -> dict | None:
        """The finished deal of ``game``: tricks (= points) per seat, and the winners."""
        st = self.state
        if not st.has_result[game]:
            return None
        return {"deal": 0, "points": st.last_points[game].tolist(),
                "totals": st.totals[game].tolist(), "match_over": True,
                "winners": np.flatnonzero(st.winners[game]).tolist()}

    # -- observation (the layout in the module docstring) -----------------------------
    def observe(self, seats: np.ndarray | None = None, out: np.ndarray | None = None,
                dtype: object = None) -> np.ndarray:
        """Each game's observation from ``seats`` (default: the seat to act), written in
        full into a fresh array or ``out`` (float32, or int8: times
        :attr:`observation_scale` it is the float32 one)."""
        B, P = self.batch_size, self.num_players
        out = observation_buffer(B, LAYOUT.size, dtype, out)
        check_out(out, B, LAYOUT.size)
        st = self.state
        seats = (np.maximum(st.current_player, 0).astype(np.intp) if seats is None
                 else check_seats(seats, B, P).astype(np.intp))
        rows = np.arange(B)
        out.fill(0)
        out[:, LAYOUT["hand"]] = st.hand[rows, seats]
        trick = st.trick >= 0
        out[:, LAYOUT["trick"]][np.nonzero(trick)[0], st.trick[trick]] = 1
        out[:, LAYOUT["played"]] = st.played
        led = st.led_suit >= 0
        out[:, LAYOUT["led_suit"]][led, st.led_suit[led]] = 1
        slots = (seats[:, None] + np.arange(P)[None, :]) % P  # slot k: seat + k
        tricks = st.tricks[rows[:, None], slots]
        scale = 1 if out.dtype == np.int8 else self.config.hand_size
        out[:, LAYOUT["tricks"].start: LAYOUT["tricks"].start + P] = tricks / scale
        out[:, LAYOUT["to_act"].start] = (st.current_player == seats) & ~st.game_over
        return out

    def observe_one(self, seat: int, out: np.ndarray) -> None:
        """Game 0's observation from ``seat`` into ``out`` (one row)."""
        full = np.empty((self.batch_size, LAYOUT.size), out.dtype)
        self.observe(np.full(self.batch_size, seat), out=full)
        out[:] = full[0]
