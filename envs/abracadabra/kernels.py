"""Compiled kernels of Abracadabra's deal and decisions: the deal, the legal actions and
the step of each decision phase (numba, one game at a time, looped over the batch;
docs/rules.md B–F). The
observation's kernel is beside its layout, in :mod:`envs.abracadabra.observation`.

The engine (:mod:`envs.abracadabra.engine`) hands its
:class:`~envs.abracadabra.state.AbracadabraState` here field by field (numba cannot take
the dataclass); every kernel reads and writes those arrays in place, in their own dtypes,
so a batch of one and a batch of thousands run the same code. One function per step of
the rules:

1. :func:`is_legal` / :func:`legal_action_mask` — per phase: a bid 0..cards_each (C1),
   show a held card not yet shown or stop (D1), call or not (F1), play a card following
   the suit led if able (E2, B3);
2. :func:`step_bid` — C1–C3: the bid and its stake; after the last bid, the declarer and T;
3. :func:`step_show` — D1–D2: a shown card raises the stake; ``stop`` opens the play
   (:func:`start_play`, E1) or, for T = 0, the calls (F1);
4. :func:`step_call` — F1: the decision is recorded, play goes on or the deal is over;
5. :func:`step_play` — E1–E4: the card is played; :func:`end_trick` gives a complete
   trick to its winner (E3), who may reach T (F1);
6. :func:`step_games` — the batch: every live game's action checked before anything
   changes, then each live game's step by its phase; it lists the games whose deal ended;
7. :func:`finish_deals` — F2, S1–S4, M1–M3: those deals scored and recorded, the
   episode ended or the deal passed on;
8. :func:`start_episodes` and :func:`deal_games` — B1–B2 and C1: a new episode's key,
   the first dealer drawn, the deck shuffled and dealt, the leftover turned up
   (:func:`set_leftover`), the bidding opened (:func:`start_deal`), for a new episode
   and for the next deal of a match.

Card sets are ``uint64`` bit sets (bit ``c`` for card ``c``); numba mixes a ``uint64``
and a signed integer into a float, so every shift and mask here is spelled in ``uint64``.
Compiled with :data:`envs.compiled.kernel` (cached on disk, no object mode, no reference
counting: the kernels allocate nothing).
"""

from __future__ import annotations

import numpy as np

from envs.cards import NUM_CARDS, SUIT_OF
from envs.compiled import inlined_kernel, kernel, put_bits
from envs.core import hashed_uniform_row, seat_at, shuffle_order

from .rules import (
    BID_OFFSET,
    BID_VALUE,
    CALL,
    FOLLOW_BITS,
    NO_CALL,
    NUM_ACTIONS,
    PLAY_OFFSET,
    SHOW_OFFSET,
    STOP,
    TRICK_STRENGTH,
    Phase,
)

# numba freezes module globals at compile time: plain ints and read-only arrays (the rule
# tables of .rules are read-only already)
_BID, _SHOW, _CALL, _PLAY, _OVER = (int(p) for p in Phase)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@kernel
def _card_bit(c: int) -> np.uint64:
    """The bit of card ``c`` in a card set."""
    return _ONE << np.uint64(c)


@kernel
def _has(cards: np.uint64, c: int) -> bool:
    """Whether card ``c`` is in the card set ``cards``."""
    return (cards >> np.uint64(c)) & _ONE != _ZERO


@kernel
def controller(g: int, hand: int, num_players: int, dummy_ctrl: np.ndarray) -> int:
    """The seat choosing hand ``hand``'s card in game ``g``: its owner, or for the dummy
    the seat controlling it this trick (E4)."""
    if hand < num_players:
        return hand
    return dummy_ctrl[g]


# ==========================================================================================
# legal actions: C1, D1, F1, E2
# ==========================================================================================
@kernel
def playable(g: int, hand_bits: np.ndarray, trick: np.ndarray, leader: np.ndarray,
             to_play: np.ndarray, trump: np.ndarray) -> np.uint64:
    """E2: the cards hand ``to_play`` of game ``g`` may play: those of the effective suit
    led (the joker is a trump, B3) if it holds any, else all it holds (any card when
    leading)."""
    hand = hand_bits[g, to_play[g]]
    led = trick[g, leader[g]]  # -1: leading
    follow = hand & FOLLOW_BITS[trump[g] + 1, led + 1]
    return follow if follow != _ZERO else hand


@inlined_kernel
def is_legal(g: int, a: int, cards_each: int, phase: np.ndarray, declarer: np.ndarray,
             hand_bits: np.ndarray, shown_bits: np.ndarray, trick: np.ndarray,
             leader: np.ndarray, to_play: np.ndarray, trump: np.ndarray) -> bool:
    """Whether action ``a`` is legal in game ``g`` (:func:`legal_action_mask`'s entry)."""
    if a < 0 or a >= NUM_ACTIONS:
        return False
    ph = phase[g]
    if ph == _BID:  # C1
        return BID_OFFSET <= a <= BID_OFFSET + cards_each
    if ph == _SHOW:  # D1
        if a == STOP:
            return True
        if a < SHOW_OFFSET or a >= SHOW_OFFSET + NUM_CARDS:
            return False
        held = hand_bits[g, declarer[g]] & ~shown_bits[g]
        return _has(held, a - SHOW_OFFSET)
    if ph == _CALL:  # F1
        return CALL <= a <= NO_CALL  # (NO_CALL = CALL + 1)
    if ph == _PLAY:  # E2
        if a < PLAY_OFFSET or a >= PLAY_OFFSET + NUM_CARDS:
            return False
        return _has(playable(g, hand_bits, trick, leader, to_play, trump), a - PLAY_OFFSET)
    return False


@kernel
def legal_action_mask(mask: np.ndarray, cards_each: int, phase: np.ndarray,
                      declarer: np.ndarray, hand_bits: np.ndarray, shown_bits: np.ndarray,
                      trick: np.ndarray, leader: np.ndarray, to_play: np.ndarray,
                      trump: np.ndarray) -> None:
    """Write into ``mask`` (bool [B, 123]) each game's legal actions, by its phase: BID
    ``bid:0`` .. ``bid:<cards_each>`` (C1); SHOW ``show:<card>`` of every held card not
    yet shown, and ``stop`` (D1); CALL ``call`` and ``no_call`` (F1); PLAY
    ``play:<card>`` of :func:`playable` (E2); none once over."""
    for g in range(mask.shape[0]):
        for a in range(NUM_ACTIONS):
            mask[g, a] = False
        ph = phase[g]
        if ph == _BID:
            for n in range(cards_each + 1):
                mask[g, BID_OFFSET + n] = True
        elif ph == _SHOW:
            held = hand_bits[g, declarer[g]] & ~shown_bits[g]
            put_bits(mask[g], SHOW_OFFSET, held, NUM_CARDS)
            mask[g, STOP] = True
        elif ph == _CALL:
            mask[g, CALL] = True
            mask[g, NO_CALL] = True
        elif ph == _PLAY:
            legal = playable(g, hand_bits, trick, leader, to_play, trump)
            put_bits(mask[g], PLAY_OFFSET, legal, NUM_CARDS)


# ==========================================================================================
# the decision phases: C1–C3, D1–D2, F1, E1–E4
# ==========================================================================================
@inlined_kernel
def step_bid(g: int, a: int, ante: int, phase: np.ndarray, current_player: np.ndarray,
             dealer: np.ndarray, bids: np.ndarray, num_bids: np.ndarray,
             declarer: np.ndarray, target: np.ndarray, stakes: np.ndarray,
             pot: np.ndarray) -> None:
    """C1–C3: the bidder's bid and its stake (C2); after the last bid the highest bid,
    ties to the earliest bidder from the dealer's left, names the declarer and T (C3),
    who shows next (D1)."""
    P = bids.shape[1]
    seat = current_player[g]
    bids[g, seat] = a - BID_OFFSET
    stakes[g, seat] += ante  # C2
    pot[g] += ante
    num_bids[g] += 1
    current_player[g] = seat_at(1, seat, P)
    if num_bids[g] == P:  # C3: the first highest bid in bidding order
        first = seat_at(1, dealer[g], P)
        best = first
        for k in range(1, P):
            seat = seat_at(k, first, P)
            if bids[g, seat] > bids[g, best]:
                best = seat
        declarer[g] = best
        target[g] = bids[g, best]
        phase[g] = _SHOW
        current_player[g] = best


@kernel
def start_play(g: int, phase: np.ndarray, current_player: np.ndarray,
               declarer: np.ndarray, leader: np.ndarray, to_play: np.ndarray,
               dummy_ctrl: np.ndarray) -> None:
    """E1: the declarer leads the first trick (and plays for the dummy, E4)."""
    d = declarer[g]
    phase[g] = _PLAY
    leader[g] = d
    to_play[g] = d
    dummy_ctrl[g] = d
    current_player[g] = d


@inlined_kernel
def step_show(g: int, a: int, raise_amount: int, auto_call: bool, phase: np.ndarray,
              current_player: np.ndarray, declarer: np.ndarray, target: np.ndarray,
              shown_bits: np.ndarray, num_shown: np.ndarray, stakes: np.ndarray,
              pot: np.ndarray, leader: np.ndarray, to_play: np.ndarray,
              dummy_ctrl: np.ndarray, called: np.ndarray) -> None:
    """D1–D2: a shown card raises the declarer's stake (D2); ``stop`` ends the showing:
    the play starts (:func:`start_play`), unless T = 0 asks every bidding player, from
    the declarer, whether he calls (F1; with ``auto_call`` all of them do)."""
    if a != STOP:
        shown_bits[g] |= _card_bit(a - SHOW_OFFSET)
        num_shown[g] += 1
        stakes[g, declarer[g]] += raise_amount  # D2
        pot[g] += raise_amount
        return
    if target[g] == 0:
        if auto_call:
            for seat in range(called.shape[1]):
                called[g, seat] = True  # F1 auto: every bidding player says it
        else:
            phase[g] = _CALL
            current_player[g] = declarer[g]
            return
    start_play(g, phase, current_player, declarer, leader, to_play, dummy_ctrl)


@inlined_kernel
def step_call(g: int, a: int, cards_each: int, phase: np.ndarray,
              current_player: np.ndarray, declarer: np.ndarray, leader: np.ndarray,
              to_play: np.ndarray, dummy_ctrl: np.ndarray, tricks_done: np.ndarray,
              called: np.ndarray) -> bool:
    """F1: record the decision; the chance is gone either way. Before the first lead
    (T = 0) the next bidding player decides, and after the last one the declarer leads;
    after the T-th trick play goes on (the caller leads), or the deal is over: returns
    True then."""
    P = called.shape[1]
    seat = current_player[g]
    called[g, seat] = a == CALL
    if tricks_done[g] == 0:
        nxt = seat_at(1, seat, P)
        if nxt == declarer[g]:
            start_play(g, phase, current_player, declarer, leader, to_play, dummy_ctrl)
        else:
            current_player[g] = nxt
        return False
    if tricks_done[g] == cards_each:
        return True
    phase[g] = _PLAY
    current_player[g] = controller(g, to_play[g], P, dummy_ctrl)
    return False


@kernel
def end_trick(g: int, cards_each: int, auto_call: bool, phase: np.ndarray,
              current_player: np.ndarray, target: np.ndarray, trump: np.ndarray,
              trick: np.ndarray, trick_size: np.ndarray, leader: np.ndarray,
              to_play: np.ndarray, dummy_ctrl: np.ndarray, tricks_won: np.ndarray,
              tricks_done: np.ndarray, rank_cards: np.ndarray, called: np.ndarray) -> bool:
    """E3: the joker, else the highest trump, else the highest card of the suit led wins
    the complete trick and leads next; his cards of bid-rank T count (S3). E4: a player
    winning controls the dummy; when the dummy wins, the seat that did not control it
    does. F1: a player reaching T tricks may call (``auto_call``: he does). Returns True
    when the deal is over (the last trick, and no call to ask)."""
    P, H = called.shape[1], trick.shape[1]
    strength = TRICK_STRENGTH[trump[g] + 1, trick[g, leader[g]]]
    winner = 0
    for h in range(1, H):  # the cards are distinct: no ties
        if strength[trick[g, h]] > strength[trick[g, winner]]:
            winner = h
    won = tricks_won[g, winner] + 1
    tricks_won[g, winner] = won
    done = tricks_done[g] + 1
    tricks_done[g] = done
    t = target[g]
    of_rank = 0
    for h in range(H):
        if BID_VALUE[trick[g, h]] == t:
            of_rank += 1
    rank_cards[g, winner] += of_rank
    if H > P:  # E4
        dummy_ctrl[g] = winner if winner < P else seat_at(1, dummy_ctrl[g], P)
    for h in range(H):
        trick[g, h] = -1
    trick_size[g] = 0
    leader[g] = winner
    to_play[g] = winner
    current_player[g] = controller(g, winner, P, dummy_ctrl)
    reached = winner < P and won == t  # F1 (T >= 1 here: the winner has a trick)
    if auto_call:
        if reached:
            called[g, winner] = True
    elif reached:
        phase[g] = _CALL
        current_player[g] = winner
        return False
    return done == cards_each


@inlined_kernel
def step_play(g: int, a: int, cards_each: int, auto_call: bool, phase: np.ndarray,
              current_player: np.ndarray, target: np.ndarray, trump: np.ndarray,
              hand_bits: np.ndarray, shown_bits: np.ndarray, played_bits: np.ndarray,
              void_bits: np.ndarray, trick: np.ndarray, trick_size: np.ndarray,
              leader: np.ndarray, to_play: np.ndarray, dummy_ctrl: np.ndarray,
              tricks_won: np.ndarray, tricks_done: np.ndarray, rank_cards: np.ndarray,
              called: np.ndarray) -> bool:
    """E1–E4: the hand to play plays card ``a - PLAY_OFFSET``; not following the
    effective suit led records that suit as void (E2, B3); a shown card stays face up
    only until played (D1). The next hand clockwise plays (E1), or the complete trick
    goes to its winner (:func:`end_trick`). Returns True when the deal is over."""
    P, H = called.shape[1], trick.shape[1]
    card = a - PLAY_OFFSET
    bit = _card_bit(card)
    hand = to_play[g]
    follow = FOLLOW_BITS[trump[g] + 1, trick[g, leader[g]] + 1]  # empty when leading
    if follow & bit == _ZERO:
        void_bits[g, hand] |= follow
    hand_bits[g, hand] &= ~bit
    played_bits[g, hand] |= bit
    shown_bits[g] &= ~bit
    trick[g, hand] = card
    size = trick_size[g] + 1
    trick_size[g] = size
    nxt = seat_at(1, hand, H)  # E1: clockwise
    to_play[g] = nxt
    current_player[g] = controller(g, nxt, P, dummy_ctrl)
    if size < H:
        return False
    return end_trick(g, cards_each, auto_call, phase, current_player, target, trump, trick,
                     trick_size, leader, to_play, dummy_ctrl, tricks_won, tricks_done,
                     rank_cards, called)


# ==========================================================================================
# the batch
# ==========================================================================================
@kernel
def step_games(actions: np.ndarray, active: np.ndarray | None, ended: np.ndarray,
               cards_each: int, ante: int, raise_amount: int, auto_call: bool,
               game_over: np.ndarray, deal_over: np.ndarray, phase: np.ndarray,
               current_player: np.ndarray, dealer: np.ndarray, hand_bits: np.ndarray,
               trump: np.ndarray, bids: np.ndarray, num_bids: np.ndarray,
               declarer: np.ndarray, target: np.ndarray, shown_bits: np.ndarray,
               num_shown: np.ndarray, stakes: np.ndarray, pot: np.ndarray,
               played_bits: np.ndarray, void_bits: np.ndarray, trick: np.ndarray,
               trick_size: np.ndarray, leader: np.ndarray, to_play: np.ndarray,
               dummy_ctrl: np.ndarray, tricks_won: np.ndarray, tricks_done: np.ndarray,
               rank_cards: np.ndarray, called: np.ndarray) -> tuple[int, int]:
    """One decision in every live game: not over and, if ``active`` is given, where it is
    True. Every live game's action is checked first (:func:`is_legal`): for an illegal
    one nothing changes and ``(game, 0)`` is returned (the first such game). Otherwise
    ``deal_over`` is cleared, each live game takes the step of its phase, the games whose
    deal ended are written in increasing order to ``ended`` (int [B]) and ``(-1, how
    many)`` is returned: the caller scores them (S1–S4, M1–M3)."""
    B = actions.shape[0]
    for g in range(B):
        if game_over[g] or (active is not None and not active[g]):
            continue
        if not is_legal(g, actions[g], cards_each, phase, declarer, hand_bits, shown_bits,
                        trick, leader, to_play, trump):
            return g, 0
    n = 0
    for g in range(B):
        deal_over[g] = False
        if game_over[g] or (active is not None and not active[g]):
            continue
        a = actions[g]
        ph = phase[g]
        finished = False
        if ph == _PLAY:
            finished = step_play(g, a, cards_each, auto_call, phase, current_player, target,
                                 trump, hand_bits, shown_bits, played_bits, void_bits,
                                 trick, trick_size, leader, to_play, dummy_ctrl,
                                 tricks_won, tricks_done, rank_cards, called)
        elif ph == _BID:
            step_bid(g, a, ante, phase, current_player, dealer, bids, num_bids, declarer,
                     target, stakes, pot)
        elif ph == _SHOW:
            step_show(g, a, raise_amount, auto_call, phase, current_player, declarer,
                      target, shown_bits, num_shown, stakes, pot, leader, to_play,
                      dummy_ctrl, called)
        else:
            finished = step_call(g, a, cards_each, phase, current_player, declarer, leader,
                                 to_play, dummy_ctrl, tricks_done, called)
        if finished:
            ended[n] = g
            n += 1
    return -1, n


# -- the deal (B1, B2) and the start of the bidding (C1) ---------------------------------------
@kernel
def set_leftover(g: int, card: int, leftover: np.ndarray, trump: np.ndarray) -> None:
    """B2: ``card`` (-1: none) is game ``g``'s turned-up leftover and its suit is trump;
    the joker or no leftover means no trump (B3: a joker in a hand still makes a trump
    suit, the leftover's)."""
    leftover[g] = card
    trump[g] = SUIT_OF[card] if card >= 0 else -1  # SUIT_OF[JOKER] is -1


@kernel
def start_deal(g: int, num_players: int, dealer: np.ndarray, phase: np.ndarray,
               bids: np.ndarray, num_bids: np.ndarray, declarer: np.ndarray,
               target: np.ndarray, shown_bits: np.ndarray, num_shown: np.ndarray,
               stakes: np.ndarray, played_bits: np.ndarray, void_bits: np.ndarray,
               trick: np.ndarray, trick_size: np.ndarray, leader: np.ndarray,
               to_play: np.ndarray, dummy_ctrl: np.ndarray, tricks_won: np.ndarray,
               tricks_done: np.ndarray, rank_cards: np.ndarray, called: np.ndarray,
               current_player: np.ndarray) -> None:
    """Clear game ``g``'s per-deal state and open the bidding left of the dealer (C1)."""
    phase[g] = _BID
    bids[g, :] = -1
    num_bids[g] = 0
    declarer[g] = -1
    target[g] = -1
    shown_bits[g] = _ZERO
    num_shown[g] = 0
    stakes[g, :] = 0
    played_bits[g, :] = _ZERO
    void_bits[g, :] = _ZERO
    trick[g, :] = -1
    trick_size[g] = 0
    leader[g] = -1
    to_play[g] = -1
    dummy_ctrl[g] = -1
    tricks_won[g, :] = 0
    tricks_done[g] = 0
    rank_cards[g, :] = 0
    called[g, :] = False
    current_player[g] = (dealer[g] + 1) % num_players


@kernel
def start_episodes(games: np.ndarray, keys: np.ndarray, key: np.ndarray,
                   deal_index: np.ndarray, deals_done: np.ndarray, totals: np.ndarray,
                   pot: np.ndarray, winners: np.ndarray, game_over: np.ndarray,
                   deal_over: np.ndarray, has_result: np.ndarray) -> None:
    """A new episode in each game of ``games``: its key ``keys[i]`` (B1, B2), no deal
    played, no points (M1), an empty pot (C2), no result yet; :func:`deal_games` deals
    it next."""
    for i in range(games.shape[0]):
        g = games[i]
        key[g] = keys[i]
        deal_index[g] = 0
        deals_done[g] = 0
        for p in range(totals.shape[1]):
            totals[g, p] = 0
            winners[g, p] = False
        pot[g] = 0
        game_over[g] = False
        deal_over[g] = False
        has_result[g] = False


@kernel
def deal_games(games: np.ndarray, draw_dealer: bool, dealer_counter: np.uint64,
               keys: np.ndarray, deal_index: np.ndarray, deck: np.ndarray, cards_each: int,
               dealer: np.ndarray, hand_bits: np.ndarray, leftover: np.ndarray,
               trump: np.ndarray, phase: np.ndarray, bids: np.ndarray,
               num_bids: np.ndarray, declarer: np.ndarray, target: np.ndarray,
               shown_bits: np.ndarray, num_shown: np.ndarray, stakes: np.ndarray,
               played_bits: np.ndarray, void_bits: np.ndarray, trick: np.ndarray,
               trick_size: np.ndarray, leader: np.ndarray, to_play: np.ndarray,
               dummy_ctrl: np.ndarray, tricks_won: np.ndarray, tricks_done: np.ndarray,
               rank_cards: np.ndarray, called: np.ndarray, current_player: np.ndarray,
               u: np.ndarray, ordered: np.ndarray, order: np.ndarray,
               bucket_start: np.ndarray) -> None:
    """Deal the current deal (k = ``deal_index[g]``) of each game of ``games`` and open
    its bidding:

    * B1 (if ``draw_dealer``): the first dealer is drawn at random, lane 0 of
      ``hashed_uniform(key, dealer_counter)`` times the number of players;
    * B2: the deck in the order :func:`~envs.core.shuffle_order` gives for ``(key, k)``
      (the cards of :func:`envs.core.shuffled`), hand h gets the h-th ``cards_each``
      cards, a card left over is turned up (:func:`set_leftover`);
    * C1: :func:`start_deal`.

    ``u``, ``ordered`` (float64 [len(deck)]), ``order`` (int [len(deck)]) and
    ``bucket_start`` (int [buckets + 1]) are scratch (:func:`~envs.core.shuffle_order`)."""
    P, H = bids.shape[1], hand_bits.shape[1]
    dealt = H * cards_each
    for i in range(games.shape[0]):
        g = games[i]
        if draw_dealer:  # B1
            hashed_uniform_row(keys[g], dealer_counter, u)
            dealer[g] = min(np.int64(u[0] * P), P - 1)
        shuffle_order(keys[g], np.uint64(deal_index[g]), u, order, ordered,
                      bucket_start)  # B2
        for h in range(H):
            cards = _ZERO
            for k in range(h * cards_each, (h + 1) * cards_each):
                cards |= _card_bit(deck[order[k]])
            hand_bits[g, h] = cards
        set_leftover(g, deck[order[dealt]] if deck.shape[0] > dealt else -1, leftover,
                     trump)
        start_deal(g, P, dealer, phase, bids, num_bids, declarer, target, shown_bits,
                   num_shown, stakes, played_bits, void_bits, trick, trick_size, leader,
                   to_play, dummy_ctrl, tricks_won, tricks_done, rank_cards, called,
                   current_player)


#: the ``reward`` settings of :func:`finish_deals`, by code (the config's names)
REWARD_KINDS = ("points", "relative", "chips", "win")
_POINTS, _RELATIVE, _CHIPS, _WIN = range(4)


@kernel
def finish_deals(games: np.ndarray, rewards: np.ndarray, more: np.ndarray, bonus: np.ndarray,
                 episode_is_deal: bool, target_points: int, deals_limit: int,
                 reward_kind: int, tricks_won: np.ndarray, called: np.ndarray,
                 target: np.ndarray, stakes: np.ndarray, rank_cards: np.ndarray,
                 pot: np.ndarray, totals: np.ndarray, deals_done: np.ndarray,
                 deal_over: np.ndarray, declarer: np.ndarray, has_result: np.ndarray,
                 last_points: np.ndarray, last_chips: np.ndarray,
                 last_declarer: np.ndarray, last_target: np.ndarray,
                 last_tricks: np.ndarray, last_hitters: np.ndarray,
                 last_called: np.ndarray, last_stakes: np.ndarray, last_share: np.ndarray,
                 last_final_share: np.ndarray, last_carry: np.ndarray,
                 last_deal: np.ndarray, winners: np.ndarray, phase: np.ndarray,
                 current_player: np.ndarray, game_over: np.ndarray, dealer: np.ndarray,
                 deal_index: np.ndarray) -> int:
    """Score the deal of each game of ``games`` (their deals just ended), record it as the
    game's last result and end the episode or pass the deal on:

    * F2, S1–S3: a player hits when he called and took exactly T tricks; his points are
      ``bonus[hitters]`` if he hit, plus his tricks, plus 2 per taken card of bid-rank T;
    * S4: the pot is shared equally by the hitters, or carried over when nobody hit;
    * M1–M3: the episode ends after one deal (``episode_is_deal``), at ``target_points``
      or after ``deals_limit`` deals; then a pot still carried over is shared by the
      points winners (M2) and the game is over; otherwise the deal passes left (B1) and
      the game is written to ``more`` (int [len(games)]) for the caller to deal.

    ``rewards`` (float32 [B, P]) gets every seat's reward of ``reward_kind`` (a code of
    :data:`REWARD_KINDS`): the points, the points minus the mean of the others', the
    chips (pot share + final share - stake), or for ``win`` at the end of the episode
    +1/w to each of the w winners and -1/(P - w) to each loser (0 if all win). Returns
    how many games were written to ``more``."""
    P = called.shape[1]
    m = 0
    for i in range(games.shape[0]):
        g = games[i]
        t = target[g]
        hitters = 0
        for p in range(P):
            hit = called[g, p] and tricks_won[g, p] == t  # F2
            last_hitters[g, p] = hit
            hitters += hit
        points_sum = 0
        for p in range(P):  # S1–S3
            points = (bonus[hitters] if last_hitters[g, p] else 0) + np.int64(
                tricks_won[g, p]) + 2 * np.int64(rank_cards[g, p])
            last_points[g, p] = points
            points_sum += points
            totals[g, p] += points
        carry = pot[g] if hitters == 0 else np.int64(0)  # S4
        deals_done[g] += 1
        deal_over[g] = True
        best = totals[g, 0]
        for p in range(1, P):
            best = max(best, totals[g, p])
        over = episode_is_deal or best >= target_points or deals_done[g] >= deals_limit
        num_winners = 0
        for p in range(P):  # M1
            winners[g, p] = over and totals[g, p] == best
            num_winners += winners[g, p]
        for p in range(P):
            share = pot[g] / max(hitters, 1) if last_hitters[g, p] else 0.0  # S4
            final = carry / max(num_winners, 1) if winners[g, p] else 0.0  # M2
            chips = share + final - stakes[g, p]
            last_share[g, p] = share
            last_final_share[g, p] = final
            last_chips[g, p] = chips
            last_stakes[g, p] = stakes[g, p]
            last_called[g, p] = called[g, p]
            if reward_kind == _POINTS:
                rewards[g, p] = last_points[g, p]
            elif reward_kind == _RELATIVE:
                rewards[g, p] = last_points[g, p] - (points_sum - last_points[g, p]) / (P - 1)
            elif reward_kind == _CHIPS:
                rewards[g, p] = chips
            elif not over:
                rewards[g, p] = 0.0
            elif winners[g, p]:
                rewards[g, p] = 1.0 / num_winners if num_winners < P else 0.0
            else:
                rewards[g, p] = -1.0 / (P - num_winners)
        for h in range(tricks_won.shape[1]):
            last_tricks[g, h] = tricks_won[g, h]
        has_result[g] = True
        last_declarer[g] = declarer[g]
        last_target[g] = t
        last_carry[g] = carry
        last_deal[g] = deals_done[g] - 1
        pot[g] = 0 if over else carry
        if over:
            phase[g] = _OVER
            current_player[g] = -1
            game_over[g] = True
        else:  # the next deal: the deal passes left (B1), the pot carries (S4)
            dealer[g] = (dealer[g] + 1) % P
            deal_index[g] += 1
            more[m] = g
            m += 1
    return m
