"""Compiled kernels of Four Aces: the round's deal, the legal actions and the step (numba,
one game at a time, looped over the batch; docs/rules.md G2–G4, G6, G7, H1–H4). The
observation's kernel is beside its layout, in :mod:`envs.four_aces.observation`.

The engine (:mod:`envs.four_aces.engine`) hands its :class:`~envs.four_aces.state.FourAcesState`
here by its groups (named tuples of arrays: ``match``, ``rnd`` and ``result`` are its
:class:`~envs.four_aces.state.Match`, :class:`~envs.four_aces.state.Round` and
:class:`~envs.four_aces.state.Result`; numba cannot take the dataclass); every kernel
reads and writes those arrays in place, in their own dtypes, so a batch of one and a
batch of thousands run the same code. One function per step of the rules:

1. :func:`is_legal` / :func:`legal_action_mask` — discard any card type held, turn up while
   the stock lasts (H2, H3);
2. :func:`push_discard` — a card onto the discard pile (H2);
3. :func:`draw_card` / :func:`fill_hand` — a card from the stock into the hand: a joker
   raises L and its taker keeps drawing (G6, G7); the fourth ace is recorded (H4);
   :func:`refill_card` reads the card a refill will bring, for a search in a known world;
4. :func:`discard_turn` (H2 a) and :func:`turn_up` (H2 b);
5. :func:`play_turn` — one turn, and whether it ends the round (H3 stock empty, H4 four
   aces); otherwise the turn passes left (H1);
6. :func:`step_games` — the batch: every action checked before anything changes, then
   each live game's turn; it lists the games whose round ended;
7. :func:`end_rounds` — the round end of the games listed (K1–K4): the scoring cards
   (:func:`scoring_cards`) and four aces (:func:`has_four_aces`), the points (the
   compiled scorer :func:`envs.four_aces.scoring.score_set`), totals, winners, rewards
   (:func:`add_rewards`) and the match end; it lists the games whose match goes on, and
   the engine deals them anew through 8.;
8. :func:`new_matches` and :func:`start_rounds` — a new match, a new round in the games
   listed: the dealer draw
   (:func:`ace_of_spades_place`, G2), the shuffle (:func:`~envs.core.shuffle_order`) and the
   deal (:func:`deal_round`, G3), the pre-fill
   (:func:`prefill`, G4, drawing through :func:`draw_card`) and the first mover (H1).
   Its random numbers are those of :func:`envs.core.hashed_uniform` bit for bit
   (:func:`envs.core.hashed_uniform_row`, its compiled twin), so a key deals the same
   rounds as the numpy shuffle :func:`envs.core.shuffled` would.

Compiled with :data:`envs.compiled.kernel` (cached on disk, no object mode, no reference
counting: the kernels allocate nothing).
"""

from __future__ import annotations

import numpy as np

from envs.cards import JOKER, NUM_CARDS
from envs.compiled import inlined_kernel, kernel, popcount
from envs.core import hashed_uniform_row, shuffle_order
from envs.four_aces.rules import (
    ACES,
    AS_POSITION,
    BASE_LIMIT,
    DECK_SIZE,
    DISCARD_OFFSET,
    DRAW,
    FULL_DECK,
    HAND_CARDS,
    IS_ACE,
    TABLE_CARDS,
)
from envs.four_aces.scoring import ScorerTables, score_set
from envs.four_aces.state import Match, Result, Round

# numba freezes module globals at compile time: plain ints, numpy scalars (their dtype
# kept) and read-only arrays
_ACES = ACES.astype(np.int64)
_IS_ACE = IS_ACE.copy()
_FULL_DECK = FULL_DECK.copy()
_ACES.flags.writeable = _IS_ACE.flags.writeable = _FULL_DECK.flags.writeable = False
_ONE = np.uint64(1)
_TWO = np.uint64(2)

#: the config's ``reward`` as :func:`end_rounds` takes it: its index here
REWARD_MODES = ("points", "relative", "win")
_POINTS, _RELATIVE, _WIN = 0, 1, 2


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
def legal_action_mask(mask: np.ndarray, match: Match, rnd: Round) -> None:
    """Write into ``mask`` (bool [B, 54]) each game's legal actions (:func:`is_legal`);
    all False where the game is over."""
    hand, stock_top = rnd.hand, rnd.stock_top
    for g in range(mask.shape[0]):
        over = match.game_over[g]
        s = max(match.current_player[g], 0)
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
def draw_card(g: int, s: int, rnd: Round) -> bool:
    """Seat ``s`` of game ``g`` takes the stock's top card (the stock is not empty) into
    the hand, seen by him only (G6). A joker raises L (G7); the card that completes the
    four aces in the hand records ``s`` in ``four_aces_now`` (H4). Returns True for a
    joker."""
    top = rnd.stock_top[g]
    c = rnd.deal_order[g, top]
    rnd.stock_top[g] = top + 1
    rnd.hand[g, s, c] += 1
    rnd.hand_size[g, s] += 1
    if c == JOKER:
        rnd.hand_limit[g, s] += 1
        return True
    if _IS_ACE[c]:
        for ace in _ACES:
            if rnd.hand[g, s, ace] == 0:
                return False
        rnd.four_aces_now[g] = s
    return False


@kernel
def fill_hand(g: int, s: int, rnd: Round) -> None:
    """G6 after a discard: seat ``s`` is one card short of L and the stock is not empty
    (a round ends with the turn that empties it, H3), so he takes one card; a joker
    raises L (G7), so he draws again while the stock lasts and nobody has four aces
    (H4)."""
    joker = draw_card(g, s, rnd)
    while joker and rnd.stock_top[g] < DECK_SIZE and rnd.four_aces_now[g] < 0:
        joker = draw_card(g, s, rnd)


@kernel
def refill_card(g: int, deal_order: np.ndarray, stock_top: np.ndarray) -> int:
    """The scoring card (K1) that the refill after a discard (:func:`fill_hand`) brings
    into the hand of game ``g``'s mover, read without drawing: the first non-joker from
    the stock's top (G6; a joker drawn raises L and its taker draws on, G7); -1 when the
    stock runs out first."""
    for k in range(stock_top[g], DECK_SIZE):
        if deal_order[g, k] != JOKER:
            return np.int64(deal_order[g, k])
    return -1


# ==========================================================================================
# the turn: H1, H2, H3, H4
# ==========================================================================================
@kernel
def discard_turn(g: int, s: int, c: int, rnd: Round) -> None:
    """H2 a: seat ``s`` discards a card of type ``c`` (a joker too: L stays raised, G7),
    then fills his hand (:func:`fill_hand`, G6)."""
    rnd.hand[g, s, c] -= 1
    rnd.hand_size[g, s] -= 1
    push_discard(g, c, rnd.discard, rnd.discard_size, rnd.discard_counts)
    fill_hand(g, s, rnd)


@kernel
def turn_up(g: int, s: int, rnd: Round) -> None:
    """H2 b: seat ``s`` turns up the stock's top card onto the discard pile; a joker goes
    into his hand instead and raises L (G7)."""
    top = rnd.stock_top[g]
    c = rnd.deal_order[g, top]
    rnd.stock_top[g] = top + 1
    if c == JOKER:
        rnd.hand[g, s, JOKER] += 1
        rnd.hand_size[g, s] += 1
        rnd.hand_limit[g, s] += 1
    else:
        push_discard(g, c, rnd.discard, rnd.discard_size, rnd.discard_counts)


@inlined_kernel
def play_turn(g: int, a: int, match: Match, rnd: Round) -> bool:
    """The current player of game ``g`` plays legal action ``a`` (H2). Returns True when
    the turn ends the round: four aces (H4) or the stock is empty (H3); else the turn
    passes to the left (H1)."""
    s = match.current_player[g]
    if a < DRAW:
        discard_turn(g, s, a - DISCARD_OFFSET, rnd)
    else:
        turn_up(g, s, rnd)
    if rnd.four_aces_now[g] >= 0 or rnd.stock_top[g] >= DECK_SIZE:
        return True
    match.current_player[g] = (s + 1) % rnd.hand.shape[1]
    return False


@kernel
def step_games(actions: np.ndarray, active: np.ndarray | None, ended: np.ndarray,
               match: Match, rnd: Round, result: Result) -> tuple[int, int]:
    """One turn (:func:`play_turn`) in every live game: not over and, if ``active`` is
    given, where it is True. Every live game's action is checked first
    (:func:`is_legal`): for an illegal one nothing changes and ``(game, 0)`` is returned
    (the first such game). Otherwise ``deal_over`` is cleared, the turns are played, the
    games whose round ended (H3, H4) are written in increasing order to ``ended``
    (int [B]) and ``(-1, how many)`` is returned: the caller scores them (K1–K4)."""
    B = actions.shape[0]
    game_over = match.game_over
    for g in range(B):
        if game_over[g] or (active is not None and not active[g]):
            continue
        if not is_legal(actions[g], rnd.hand[g, match.current_player[g]],
                        rnd.stock_top[g]):
            return g, 0
    n = 0
    for g in range(B):
        result.deal_over[g] = False
        if game_over[g] or (active is not None and not active[g]):
            continue
        if play_turn(g, actions[g], match, rnd):
            ended[n] = g
            n += 1
    return -1, n


# ==========================================================================================
# the round's end: K1, K2, K3, K4
# ==========================================================================================
@kernel
def has_four_aces(g: int, s: int, hand: np.ndarray, table: np.ndarray) -> bool:
    """K1: all four aces are among seat ``s``'s scoring cards (hand and table) in game
    ``g`` (their int8 sums are not 0, as in :func:`scoring_cards`)."""
    held = 0
    for ace in _ACES:
        held += np.int8(hand[g, s, ace] + table[g, s, ace]) != 0
    return held == len(_ACES)


@kernel
def scoring_cards(g: int, s: int, hand: np.ndarray, table: np.ndarray,
                  max_cards: int) -> int:
    """K1: seat ``s``'s scoring cards in game ``g``, the non-joker cards of his hand and
    table, as a 52-bit mask (bit c = card c); -1 when they are not a set of at most
    ``max_cards`` cards (a count other than 0 or 1: a state the engine did not deal).
    A count is the int8 sum, as in the numpy code the kernel replaced."""
    bits = np.int64(0)
    other = 0  # not 0 when a count is neither 0 nor 1
    for c in range(JOKER):
        n = np.int8(hand[g, s, c] + table[g, s, c])
        bits |= np.int64(n != 0) << c
        other |= n & ~1
    return bits if other == 0 and popcount(bits) <= max_cards else -1


@kernel
def add_rewards(g: int, i: int, mode: int, over: bool, points: np.ndarray,
                winners: np.ndarray, rewards: np.ndarray) -> None:
    """Add game ``g``'s rewards of the round just scored (``points[i]``) to
    ``rewards[g]`` (float32 [B, P]), every seat at once, for the config's ``reward``
    (:data:`REWARD_MODES`): ``points``: the round points; ``relative``: own points minus
    the mean of the others'; ``win`` (K4, zero-sum at the match end, ``over``): 1/w to
    each of the w winners and -1/(P - w) to the others, 0 if all win. Bit for bit the
    numpy code's: ``points`` and ``relative`` are summed in float64 and rounded to float32
    once; ``win`` adds the float32 share in float32."""
    P = rewards.shape[1]
    if mode == _POINTS:
        for s in range(P):
            rewards[g, s] = np.float32(np.float64(rewards[g, s]) + np.float64(points[i, s]))
    elif mode == _RELATIVE:
        total = np.int64(0)
        for s in range(P):
            total += points[i, s]
        for s in range(P):
            p = points[i, s]
            x = np.float64(p) - np.float64(total - p) / np.float64(P - 1)
            rewards[g, s] = np.float32(np.float64(rewards[g, s]) + x)
    else:  # _WIN
        w = 0
        for s in range(P):
            w += winners[g, s]
        for s in range(P):
            share = 0.0
            if over and w < P:
                share = 1.0 / max(w, 1) if winners[g, s] else -1.0 / max(P - w, 1)
            rewards[g, s] += np.float32(share)


@kernel
def end_rounds(games: np.ndarray, rewards: np.ndarray, more: np.ndarray, four: np.ndarray,
               points: np.ndarray, round_episode: bool, reward_mode: int, target_points: int,
               round_limit: int, match: Match, rnd: Round, result: Result,
               scorer: ScorerTables, slot_cards: np.ndarray) -> tuple[int, int]:
    """End the round of each game of ``games`` (distinct indices): score it, pay the
    rewards into ``rewards`` (float32 [B, P], added), end the match or list the game in
    ``more`` (int [len(games)]) to be dealt anew. ``round_episode``: an episode is one
    round; ``reward_mode``: the index of the config's ``reward`` in
    :data:`REWARD_MODES`. The arguments that change from call to call come first (the
    engine binds the others once, :meth:`envs.compiled.KernelState.bound_kernel`).

    First every game is scored into the scratch ``four`` (int64 [n]) and ``points``
    (int32 [n, P]), nothing else written:

    * K1/H4: the four-aces winner is ``four_aces_now[g]`` (during the round), else the
      first seat with all four aces among his scoring cards (:func:`has_four_aces`);
      he gets ``target_points``, the others 0;
    * K2/K3: else every seat's scoring cards (:func:`scoring_cards`) are scored by
      :func:`~envs.four_aces.scoring.score_set` (``scorer`` from
      :func:`~envs.four_aces.scoring.scorer_tables`; ``slot_cards`` its scratch). A
      set that is not one (a state the engine did not deal) stops here: ``(its index in
      games, 0)`` is returned and nothing has changed.

    Then per game: ``last_points``, ``four_aces_winner``, ``totals``, ``rounds_played``,
    ``deal_over`` and ``has_result``; K4: the episode is over after every round in a
    round episode, else on four aces, when a total reaches ``target_points`` or after
    ``round_limit`` rounds; the winners (set only then) have the highest round points
    (round episode) or total, or the four aces; the rewards (:func:`add_rewards`); an
    ended game gets ``game_over`` and no current player (-1). Returns ``(-1, m)``: the
    first m entries of ``more`` are the games whose match goes on, in ``games``' order."""
    hand, table = rnd.hand, rnd.table
    totals, winners = match.totals, result.winners
    P = hand.shape[1]
    n = games.shape[0]
    for i in range(n):
        g = games[i]
        f = np.int64(rnd.four_aces_now[g])  # H4 during the round
        if f < 0:
            for s in range(P):
                if has_four_aces(g, s, hand, table):  # K1
                    f = s
                    break
        four[i] = f
        if f >= 0:
            for s in range(P):
                points[i, s] = target_points if s == f else 0
            continue
        for s in range(P):
            bits = scoring_cards(g, s, hand, table, slot_cards.shape[0])
            if bits < 0:
                return i, 0
            points[i, s] = score_set(bits, scorer, slot_cards)
    m = 0
    for i in range(n):
        g = games[i]
        f = four[i]
        high_points = high_total = np.int64(-(1 << 62))
        for s in range(P):
            result.last_points[g, s] = points[i, s]
            totals[g, s] += points[i, s]
            high_points = max(high_points, points[i, s])
            high_total = max(high_total, totals[g, s])
        result.four_aces_winner[g] = f
        match.rounds_played[g] += 1
        result.deal_over[g] = True
        result.has_result[g] = True
        over = (round_episode or f >= 0 or high_total >= target_points
                or match.rounds_played[g] >= round_limit)  # K4
        high = high_points if round_episode else high_total
        for s in range(P):
            best = points[i, s] if round_episode else totals[g, s]
            winners[g, s] = over and (best == high if f < 0 else s == f)
        result.match_over[g] = over
        add_rewards(g, i, reward_mode, over, points, winners, rewards)
        if over:
            match.game_over[g] = True
            match.current_player[g] = -1
        else:
            more[m] = g
            m += 1
    return -1, m


# ==========================================================================================
# the round's deal: G2, G3, G4, H1
# ==========================================================================================
@kernel
def ace_of_spades_place(u: np.ndarray) -> int:
    """G2: how many cards are drawn before the ace of spades when the deck is ordered by
    the stable sort of ``u`` (float64 [54], one number per card of ``FULL_DECK``): the
    numbers below the ace's, and those equal to it earlier in deck order. No sort needed."""
    ace = u[AS_POSITION]
    place = 0
    for i in range(u.shape[0]):
        if u[i] < ace or (u[i] == ace and i < AS_POSITION):
            place += 1
    return place


@inlined_kernel
def deal_round(g: int, rnd: Round) -> None:
    """G3: deal game ``g``'s ``deal_order`` (int8 [B, 54]): seat s gets hand cards ``3s ..
    3s + 2`` and table cards ``3P + 3s .. 3P + 3s + 2``; the rest is the stock, top first.
    A joker dealt into the hand raises L (G4, G7); one on the table scores nothing. The
    discard pile is empty and nobody holds four aces yet."""
    deal_order, hand, table = rnd.deal_order, rnd.hand, rnd.table
    P = hand.shape[1]
    for s in range(P):
        for c in range(NUM_CARDS):
            hand[g, s, c] = 0
            table[g, s, c] = 0
        for k in range(HAND_CARDS):
            hand[g, s, deal_order[g, HAND_CARDS * s + k]] += 1
        for k in range(TABLE_CARDS):
            table[g, s, deal_order[g, HAND_CARDS * P + TABLE_CARDS * s + k]] += 1
        rnd.hand_size[g, s] = HAND_CARDS
        rnd.hand_limit[g, s] = BASE_LIMIT + hand[g, s, JOKER]
    rnd.stock_top[g] = (HAND_CARDS + TABLE_CARDS) * P
    for k in range(rnd.discard.shape[1]):
        rnd.discard[g, k] = -1
    for c in range(NUM_CARDS):
        rnd.discard_counts[g, c] = 0
    rnd.discard_size[g] = 0
    rnd.four_aces_now[g] = -1


@inlined_kernel
def prefill(g: int, dealer: int, rnd: Round) -> None:
    """G4: before anyone moves, the players short of L (dealt a joker in hand, G7) fill
    their hands (G6) in seat order from the dealer's left: one card at a time
    (:func:`draw_card`) to the first seat in that order still short, while the stock
    lasts and nobody has four aces (H4)."""
    P = rnd.hand.shape[1]
    while rnd.stock_top[g] < DECK_SIZE and rnd.four_aces_now[g] < 0:
        seat = -1
        for r in range(1, P + 1):
            s = (dealer + r) % P
            if rnd.hand_size[g, s] < rnd.hand_limit[g, s]:
                seat = s
                break
        if seat < 0:
            return
        draw_card(g, seat, rnd)


@kernel
def new_matches(games: np.ndarray, match: Match, result: Result) -> None:
    """A new match in each game of ``games``: no points (K3), no round played, no result
    yet; :func:`start_rounds` deals its first round next."""
    for i in range(games.shape[0]):
        g = games[i]
        for p in range(match.totals.shape[1]):
            match.totals[g, p] = 0
            result.last_points[g, p] = 0
            result.winners[g, p] = False
        match.rounds_played[g] = 0
        match.game_over[g] = False
        result.match_over[g] = False
        result.has_result[g] = False
        result.deal_over[g] = False
        result.four_aces_winner[g] = -1


@kernel
def start_rounds(games: np.ndarray, draw_dealer: bool, shuffle: bool, rotate: bool,
                 match: Match, rnd: Round, u: np.ndarray, ordered: np.ndarray,
                 order: np.ndarray, bucket_start: np.ndarray) -> None:
    """Deal a new round in each game of ``games`` (distinct indices), round r =
    ``rounds_played[g]``:

    * G2 (if ``draw_dealer``; else ``dealer[g]`` is already set): the draw starts at seat
      0 in the first round, else left of the last dealer; its order is the stable sort of
      ``hashed_uniform(key, 2r)``, and the drawer of the ace of spades deals. With
      ``rotate`` only the first round draws; later the deal passes left.
    * G3 (if ``shuffle``; else ``deal_order[g]`` is already set): ``deal_order[g] =
      FULL_DECK[stable argsort of hashed_uniform(key, 2r + 1)]``, then dealt
      (:func:`deal_round`).
    * G4: the pre-fill (:func:`prefill`); H1: the player left of the dealer moves first.

    ``u``, ``ordered`` (float64 [54]), ``order`` (int [54]) and ``bucket_start`` (int
    [buckets + 1]) are scratch (:func:`~envs.core.shuffle_order`)."""
    keys, rounds_played, dealer = match.keys, match.rounds_played, rnd.dealer
    P = rnd.hand.shape[1]
    for i in range(games.shape[0]):
        g = games[i]
        counter = np.uint64(rounds_played[g]) * _TWO
        if draw_dealer:  # G2
            first = rounds_played[g] == 0
            d = 0 if first else (dealer[g] + 1) % P
            if first or not rotate:
                hashed_uniform_row(keys[g], counter, u)
                d = (d + ace_of_spades_place(u)) % P
            dealer[g] = d
        if shuffle:  # G3
            shuffle_order(keys[g], counter + _ONE, u, order, ordered, bucket_start)
            for k in range(DECK_SIZE):
                rnd.deal_order[g, k] = _FULL_DECK[order[k]]
        deal_round(g, rnd)
        d = np.int64(dealer[g])
        prefill(g, d, rnd)  # G4
        match.current_player[g] = (d + 1) % P  # H1
