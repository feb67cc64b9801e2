"""Compiled kernels of the Four Aces turn: the legal actions and the step (numba, one game
at a time, looped over the batch; docs/rules.md H1–H4, G6, G7). The observation's kernel
is beside its layout, in :mod:`envs.four_aces.observation`.

The engine (:mod:`envs.four_aces.engine`) hands its :class:`~envs.four_aces.state.FourAcesState`
here field by field (numba cannot take the dataclass); every kernel reads and writes those
arrays in place, in their own dtypes, so a batch of one and a batch of thousands run the
same code. One function per step of the rules:

1. :func:`is_legal` / :func:`legal_action_mask` — discard any card type held, turn up while
   the stock lasts (H2, H3);
2. :func:`push_discard` — a card onto the discard pile (H2);
3. :func:`draw_card` / :func:`fill_hand` — a card from the stock into the hand: a joker
   raises L and its taker keeps drawing (G6, G7); the fourth ace is recorded (H4);
4. :func:`discard_turn` (H2 a) and :func:`turn_up` (H2 b);
5. :func:`play_turn` — one turn, and whether it ends the round (H3 stock empty, H4 four
   aces); otherwise the turn passes left (H1);
6. :func:`step_games` — the batch: every action checked before anything changes, then
   each live game's turn; it lists the games whose round ended. Scoring them (K1–K4) and
   dealing anew stays with the engine's numpy ``_end_round``;
7. :func:`draw_cards` — the deal's pre-fill (G4) draws through :func:`draw_card` too;

Compiled with :data:`envs.compiled.kernel` (cached on disk, no object mode, no reference
counting: the kernels allocate nothing).
"""

from __future__ import annotations

import numpy as np

from envs.cards import JOKER, NUM_CARDS
from envs.compiled import kernel
from envs.four_aces.rules import ACES, DECK_SIZE, DISCARD_OFFSET, DRAW, IS_ACE

# numba freezes module globals at compile time: plain ints and read-only arrays
_ACES = ACES.astype(np.int64)
_IS_ACE = IS_ACE.copy()
_ACES.flags.writeable = _IS_ACE.flags.writeable = False


# ==========================================================================================
# legal actions: H2, H3
# ==========================================================================================
@kernel
def is_legal(a: int, hand: np.ndarray, stock_top: int) -> bool:
    """Whether action ``a`` is legal for the seat holding ``hand`` (int8 [53], counts):
    ``discard:<c>`` of a card type held (H2 a), ``draw`` while the stock is not empty
    (H2 b, H3)."""
    if a < DISCARD_OFFSET or a > DRAW:
        return False
    if a == DRAW:
        return stock_top < DECK_SIZE
    return hand[a - DISCARD_OFFSET] > 0


@kernel
def legal_action_mask(hand: np.ndarray, current_player: np.ndarray, stock_top: np.ndarray,
                      game_over: np.ndarray, mask: np.ndarray) -> None:
    """Write into ``mask`` (bool [B, 54]) each game's legal actions (:func:`is_legal`);
    all False where the game is over."""
    for g in range(mask.shape[0]):
        over = game_over[g]
        s = max(current_player[g], 0)
        for c in range(NUM_CARDS):
            mask[g, DISCARD_OFFSET + c] = not over and hand[g, s, c] > 0
        mask[g, DRAW] = not over and stock_top[g] < DECK_SIZE


# ==========================================================================================
# moving cards: H2, G6, G7, H4
# ==========================================================================================
@kernel
def push_discard(g: int, c: int, discard: np.ndarray, discard_size: np.ndarray,
                 discard_counts: np.ndarray) -> None:
    """Card ``c`` goes face up onto game ``g``'s discard pile (H2)."""
    size = discard_size[g]
    discard[g, size] = c
    discard_size[g] = size + 1
    discard_counts[g, c] += 1


@kernel
def draw_card(g: int, s: int, deal_order: np.ndarray, stock_top: np.ndarray,
              hand: np.ndarray, hand_size: np.ndarray, hand_limit: np.ndarray,
              four_aces_now: np.ndarray) -> bool:
    """Seat ``s`` of game ``g`` takes the stock's top card (the stock is not empty) into
    the hand, seen by him only (G6). A joker raises L (G7); the card that completes the
    four aces in the hand records ``s`` in ``four_aces_now`` (H4). Returns True for a
    joker."""
    top = stock_top[g]
    c = deal_order[g, top]
    stock_top[g] = top + 1
    hand[g, s, c] += 1
    hand_size[g, s] += 1
    if c == JOKER:
        hand_limit[g, s] += 1
        return True
    if _IS_ACE[c]:
        for ace in _ACES:
            if hand[g, s, ace] == 0:
                return False
        four_aces_now[g] = s
    return False


@kernel
def fill_hand(g: int, s: int, deal_order: np.ndarray, stock_top: np.ndarray,
              hand: np.ndarray, hand_size: np.ndarray, hand_limit: np.ndarray,
              four_aces_now: np.ndarray) -> None:
    """G6 after a discard: seat ``s`` is one card short of L and the stock is not empty
    (a round ends with the turn that empties it, H3), so he takes one card; a joker
    raises L (G7), so he draws again while the stock lasts and nobody has four aces
    (H4)."""
    joker = draw_card(g, s, deal_order, stock_top, hand, hand_size, hand_limit,
                      four_aces_now)
    while joker and stock_top[g] < DECK_SIZE and four_aces_now[g] < 0:
        joker = draw_card(g, s, deal_order, stock_top, hand, hand_size, hand_limit,
                          four_aces_now)


@kernel
def draw_cards(games: np.ndarray, seats: np.ndarray, joker: np.ndarray,
               deal_order: np.ndarray, stock_top: np.ndarray, hand: np.ndarray,
               hand_size: np.ndarray, hand_limit: np.ndarray,
               four_aces_now: np.ndarray) -> None:
    """:func:`draw_card` for seat ``seats[i]`` of game ``games[i]`` (distinct games, each
    stock not empty), in order; ``joker[i]``: drew a joker (the deal's pre-fill, G4)."""
    for i in range(len(games)):
        joker[i] = draw_card(games[i], seats[i], deal_order, stock_top, hand, hand_size,
                             hand_limit, four_aces_now)


# ==========================================================================================
# the turn: H1, H2, H3, H4
# ==========================================================================================
@kernel
def discard_turn(g: int, s: int, c: int, deal_order: np.ndarray, stock_top: np.ndarray,
                 hand: np.ndarray, hand_size: np.ndarray, hand_limit: np.ndarray,
                 discard: np.ndarray, discard_size: np.ndarray, discard_counts: np.ndarray,
                 four_aces_now: np.ndarray) -> None:
    """H2 a: seat ``s`` discards a card of type ``c`` (a joker too: L stays raised, G7),
    then fills his hand (:func:`fill_hand`, G6)."""
    hand[g, s, c] -= 1
    hand_size[g, s] -= 1
    push_discard(g, c, discard, discard_size, discard_counts)
    fill_hand(g, s, deal_order, stock_top, hand, hand_size, hand_limit, four_aces_now)


@kernel
def turn_up(g: int, s: int, deal_order: np.ndarray, stock_top: np.ndarray,
            hand: np.ndarray, hand_size: np.ndarray, hand_limit: np.ndarray,
            discard: np.ndarray, discard_size: np.ndarray,
            discard_counts: np.ndarray) -> None:
    """H2 b: seat ``s`` turns up the stock's top card onto the discard pile; a joker goes
    into his hand instead and raises L (G7)."""
    top = stock_top[g]
    c = deal_order[g, top]
    stock_top[g] = top + 1
    if c == JOKER:
        hand[g, s, JOKER] += 1
        hand_size[g, s] += 1
        hand_limit[g, s] += 1
    else:
        push_discard(g, c, discard, discard_size, discard_counts)


@kernel
def play_turn(g: int, a: int, current_player: np.ndarray, deal_order: np.ndarray,
              stock_top: np.ndarray, hand: np.ndarray, hand_size: np.ndarray,
              hand_limit: np.ndarray, discard: np.ndarray, discard_size: np.ndarray,
              discard_counts: np.ndarray, four_aces_now: np.ndarray) -> bool:
    """The current player of game ``g`` plays legal action ``a`` (H2). Returns True when
    the turn ends the round: four aces (H4) or the stock is empty (H3); else the turn
    passes to the left (H1)."""
    s = current_player[g]
    if a < DRAW:
        discard_turn(g, s, a - DISCARD_OFFSET, deal_order, stock_top, hand, hand_size,
                     hand_limit, discard, discard_size, discard_counts, four_aces_now)
    else:
        turn_up(g, s, deal_order, stock_top, hand, hand_size, hand_limit, discard,
                discard_size, discard_counts)
    if four_aces_now[g] >= 0 or stock_top[g] >= DECK_SIZE:
        return True
    current_player[g] = (s + 1) % hand.shape[1]
    return False


@kernel
def step_games(actions: np.ndarray, active: np.ndarray | None, ended: np.ndarray,
               game_over: np.ndarray, deal_over: np.ndarray, current_player: np.ndarray,
               deal_order: np.ndarray, stock_top: np.ndarray, hand: np.ndarray,
               hand_size: np.ndarray, hand_limit: np.ndarray, discard: np.ndarray,
               discard_size: np.ndarray, discard_counts: np.ndarray,
               four_aces_now: np.ndarray) -> tuple[int, int]:
    """One turn (:func:`play_turn`) in every live game: not over and, if ``active`` is
    given, where it is True. Every live game's action is checked first
    (:func:`is_legal`): for an illegal one nothing changes and ``(game, 0)`` is returned
    (the first such game). Otherwise ``deal_over`` is cleared, the turns are played, the
    games whose round ended (H3, H4) are written in increasing order to ``ended``
    (int [B]) and ``(-1, how many)`` is returned: the caller scores them (K1–K4)."""
    B = actions.shape[0]
    for g in range(B):
        if game_over[g] or (active is not None and not active[g]):
            continue
        if not is_legal(actions[g], hand[g, current_player[g]], stock_top[g]):
            return g, 0
    n = 0
    for g in range(B):
        deal_over[g] = False
        if game_over[g] or (active is not None and not active[g]):
            continue
        if play_turn(g, actions[g], current_player, deal_order, stock_top, hand,
                     hand_size, hand_limit, discard, discard_size, discard_counts,
                     four_aces_now):
            ended[n] = g
            n += 1
    return -1, n
