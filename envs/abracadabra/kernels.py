"""Compiled kernels of Abracadabra's deal and decisions: the deal, the legal actions and
the step of each decision phase (numba, one game at a time, looped over the batch;
docs/rules.md B–F). The
observation's kernel is beside its layout, in :mod:`envs.abracadabra.observation`.

The engine (:mod:`envs.abracadabra.engine`) hands its
:class:`~envs.abracadabra.state.AbracadabraState` here as the groups each kernel reads
and writes (:class:`~envs.abracadabra.state.Episode`, ``Deal``, ``Bidding``, ``Play``,
``Match``, ``LastDeal``: named tuples of the state's arrays, numba cannot take the
dataclass); every kernel reads and writes those arrays in place, in their own dtypes,
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
from .state import Bidding, Deal, Episode, LastDeal, Match, Play

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
def playable(g: int, deal: Deal, play: Play) -> np.uint64:
    """E2: the cards hand ``to_play`` of game ``g`` may play: those of the effective suit
    led (the joker is a trump, B3) if it holds any, else all it holds (any card when
    leading)."""
    hand = deal.hand_bits[g, play.to_play[g]]
    led = play.trick[g, play.leader[g]]  # -1: leading
    follow = hand & FOLLOW_BITS[deal.trump[g] + 1, led + 1]
    return follow if follow != _ZERO else hand


@inlined_kernel
def is_legal(g: int, a: int, cards_each: int, episode: Episode, deal: Deal,
             bidding: Bidding, play: Play) -> bool:
    """Whether action ``a`` is legal in game ``g`` (:func:`legal_action_mask`'s entry)."""
    if a < 0 or a >= NUM_ACTIONS:
        return False
    ph = episode.phase[g]
    if ph == _BID:  # C1
        return BID_OFFSET <= a <= BID_OFFSET + cards_each
    if ph == _SHOW:  # D1
        if a == STOP:
            return True
        if a < SHOW_OFFSET or a >= SHOW_OFFSET + NUM_CARDS:
            return False
        held = deal.hand_bits[g, bidding.declarer[g]] & ~bidding.shown_bits[g]
        return _has(held, a - SHOW_OFFSET)
    if ph == _CALL:  # F1
        return CALL <= a <= NO_CALL  # (NO_CALL = CALL + 1)
    if ph == _PLAY:  # E2
        if a < PLAY_OFFSET or a >= PLAY_OFFSET + NUM_CARDS:
            return False
        return _has(playable(g, deal, play), a - PLAY_OFFSET)
    return False


@kernel
def legal_action_mask(mask: np.ndarray, cards_each: int, episode: Episode, deal: Deal,
                      bidding: Bidding, play: Play) -> None:
    """Write into ``mask`` (bool [B, 123]) each game's legal actions, by its phase: BID
    ``bid:0`` .. ``bid:<cards_each>`` (C1); SHOW ``show:<card>`` of every held card not
    yet shown, and ``stop`` (D1); CALL ``call`` and ``no_call`` (F1); PLAY
    ``play:<card>`` of :func:`playable` (E2); none once over."""
    for g in range(mask.shape[0]):
        for a in range(NUM_ACTIONS):
            mask[g, a] = False
        ph = episode.phase[g]
        if ph == _BID:
            for n in range(cards_each + 1):
                mask[g, BID_OFFSET + n] = True
        elif ph == _SHOW:
            held = deal.hand_bits[g, bidding.declarer[g]] & ~bidding.shown_bits[g]
            put_bits(mask[g], SHOW_OFFSET, held, NUM_CARDS)
            mask[g, STOP] = True
        elif ph == _CALL:
            mask[g, CALL] = True
            mask[g, NO_CALL] = True
        elif ph == _PLAY:
            legal = playable(g, deal, play)
            put_bits(mask[g], PLAY_OFFSET, legal, NUM_CARDS)


# ==========================================================================================
# the decision phases: C1–C3, D1–D2, F1, E1–E4
# ==========================================================================================
@inlined_kernel
def step_bid(g: int, a: int, ante: int, episode: Episode, deal: Deal,
             bidding: Bidding) -> None:
    """C1–C3: the bidder's bid and its stake (C2); after the last bid the highest bid,
    ties to the earliest bidder from the dealer's left, names the declarer and T (C3),
    who shows next (D1)."""
    b = bidding
    P = b.bids.shape[1]
    seat = episode.current_player[g]
    b.bids[g, seat] = a - BID_OFFSET
    b.stakes[g, seat] += ante  # C2
    b.pot[g] += ante
    b.num_bids[g] += 1
    episode.current_player[g] = seat_at(1, seat, P)
    if b.num_bids[g] == P:  # C3: the first highest bid in bidding order
        first = seat_at(1, deal.dealer[g], P)
        best = first
        for k in range(1, P):
            seat = seat_at(k, first, P)
            if b.bids[g, seat] > b.bids[g, best]:
                best = seat
        b.declarer[g] = best
        b.target[g] = b.bids[g, best]
        episode.phase[g] = _SHOW
        episode.current_player[g] = best


@kernel
def start_play(g: int, episode: Episode, bidding: Bidding, play: Play) -> None:
    """E1: the declarer leads the first trick (and plays for the dummy, E4)."""
    d = bidding.declarer[g]
    episode.phase[g] = _PLAY
    play.leader[g] = d
    play.to_play[g] = d
    play.dummy_ctrl[g] = d
    episode.current_player[g] = d


@inlined_kernel
def step_show(g: int, a: int, raise_amount: int, auto_call: bool, episode: Episode,
              bidding: Bidding, play: Play) -> None:
    """D1–D2: a shown card raises the declarer's stake (D2); ``stop`` ends the showing:
    the play starts (:func:`start_play`), unless T = 0 asks every bidding player, from
    the declarer, whether he calls (F1; with ``auto_call`` all of them do)."""
    b = bidding
    if a != STOP:
        b.shown_bits[g] |= _card_bit(a - SHOW_OFFSET)
        b.num_shown[g] += 1
        b.stakes[g, b.declarer[g]] += raise_amount  # D2
        b.pot[g] += raise_amount
        return
    if b.target[g] == 0:
        if auto_call:
            for seat in range(play.called.shape[1]):
                play.called[g, seat] = True  # F1 auto: every bidding player says it
        else:
            episode.phase[g] = _CALL
            episode.current_player[g] = b.declarer[g]
            return
    start_play(g, episode, bidding, play)


@inlined_kernel
def step_call(g: int, a: int, cards_each: int, episode: Episode, bidding: Bidding,
              play: Play) -> bool:
    """F1: record the decision; the chance is gone either way. Before the first lead
    (T = 0) the next bidding player decides, and after the last one the declarer leads;
    after the T-th trick play goes on (the caller leads), or the deal is over: returns
    True then."""
    P = play.called.shape[1]
    seat = episode.current_player[g]
    play.called[g, seat] = a == CALL
    if play.tricks_done[g] == 0:
        nxt = seat_at(1, seat, P)
        if nxt == bidding.declarer[g]:
            start_play(g, episode, bidding, play)
        else:
            episode.current_player[g] = nxt
        return False
    if play.tricks_done[g] == cards_each:
        return True
    episode.phase[g] = _PLAY
    episode.current_player[g] = controller(g, play.to_play[g], P, play.dummy_ctrl)
    return False


@kernel
def end_trick(g: int, cards_each: int, auto_call: bool, episode: Episode, deal: Deal,
              bidding: Bidding, play: Play) -> bool:
    """E3: the joker, else the highest trump, else the highest card of the suit led wins
    the complete trick and leads next; his cards of bid-rank T count (S3). E4: a player
    winning controls the dummy; when the dummy wins, the seat that did not control it
    does. F1: a player reaching T tricks may call (``auto_call``: he does). Returns True
    when the deal is over (the last trick, and no call to ask)."""
    p = play
    P, H = p.called.shape[1], p.trick.shape[1]
    strength = TRICK_STRENGTH[deal.trump[g] + 1, p.trick[g, p.leader[g]]]
    winner = 0
    for h in range(1, H):  # the cards are distinct: no ties
        if strength[p.trick[g, h]] > strength[p.trick[g, winner]]:
            winner = h
    won = p.tricks_won[g, winner] + 1
    p.tricks_won[g, winner] = won
    done = p.tricks_done[g] + 1
    p.tricks_done[g] = done
    t = bidding.target[g]
    of_rank = 0
    for h in range(H):
        if BID_VALUE[p.trick[g, h]] == t:
            of_rank += 1
    p.rank_cards[g, winner] += of_rank
    if H > P:  # E4
        p.dummy_ctrl[g] = winner if winner < P else seat_at(1, p.dummy_ctrl[g], P)
    for h in range(H):
        p.trick[g, h] = -1
    p.trick_size[g] = 0
    p.leader[g] = winner
    p.to_play[g] = winner
    episode.current_player[g] = controller(g, winner, P, p.dummy_ctrl)
    reached = winner < P and won == t  # F1 (T >= 1 here: the winner has a trick)
    if auto_call:
        if reached:
            p.called[g, winner] = True
    elif reached:
        episode.phase[g] = _CALL
        episode.current_player[g] = winner
        return False
    return done == cards_each


@inlined_kernel
def step_play(g: int, a: int, cards_each: int, auto_call: bool, episode: Episode,
              deal: Deal, bidding: Bidding, play: Play) -> bool:
    """E1–E4: the hand to play plays card ``a - PLAY_OFFSET``; not following the
    effective suit led records that suit as void (E2, B3); a shown card stays face up
    only until played (D1). The next hand clockwise plays (E1), or the complete trick
    goes to its winner (:func:`end_trick`). Returns True when the deal is over."""
    p = play
    P, H = p.called.shape[1], p.trick.shape[1]
    card = a - PLAY_OFFSET
    bit = _card_bit(card)
    hand = p.to_play[g]
    follow = FOLLOW_BITS[deal.trump[g] + 1, p.trick[g, p.leader[g]] + 1]  # empty: leading
    if follow & bit == _ZERO:
        p.void_bits[g, hand] |= follow
    deal.hand_bits[g, hand] &= ~bit
    p.played_bits[g, hand] |= bit
    bidding.shown_bits[g] &= ~bit
    p.trick[g, hand] = card
    size = p.trick_size[g] + 1
    p.trick_size[g] = size
    nxt = seat_at(1, hand, H)  # E1: clockwise
    p.to_play[g] = nxt
    episode.current_player[g] = controller(g, nxt, P, p.dummy_ctrl)
    if size < H:
        return False
    return end_trick(g, cards_each, auto_call, episode, deal, bidding, play)


# ==========================================================================================
# the batch
# ==========================================================================================
@kernel
def step_games(actions: np.ndarray, active: np.ndarray | None, ended: np.ndarray,
               cards_each: int, ante: int, raise_amount: int, auto_call: bool,
               episode: Episode, deal: Deal, bidding: Bidding, play: Play
               ) -> tuple[int, int]:
    """One decision in every live game: not over and, if ``active`` is given, where it is
    True. Every live game's action is checked first (:func:`is_legal`): for an illegal
    one nothing changes and ``(game, 0)`` is returned (the first such game). Otherwise
    ``deal_over`` is cleared, each live game takes the step of its phase, the games whose
    deal ended are written in increasing order to ``ended`` (int [B]) and ``(-1, how
    many)`` is returned: the caller scores them (S1–S4, M1–M3)."""
    B = actions.shape[0]
    game_over = episode.game_over
    for g in range(B):
        if game_over[g] or (active is not None and not active[g]):
            continue
        if not is_legal(g, actions[g], cards_each, episode, deal, bidding, play):
            return g, 0
    n = 0
    for g in range(B):
        episode.deal_over[g] = False
        if game_over[g] or (active is not None and not active[g]):
            continue
        a = actions[g]
        ph = episode.phase[g]
        finished = False
        if ph == _PLAY:
            finished = step_play(g, a, cards_each, auto_call, episode, deal, bidding, play)
        elif ph == _BID:
            step_bid(g, a, ante, episode, deal, bidding)
        elif ph == _SHOW:
            step_show(g, a, raise_amount, auto_call, episode, bidding, play)
        else:
            finished = step_call(g, a, cards_each, episode, bidding, play)
        if finished:
            ended[n] = g
            n += 1
    return -1, n


# -- the deal (B1, B2) and the start of the bidding (C1) ---------------------------------------
@kernel
def set_leftover(g: int, card: int, deal: Deal) -> None:
    """B2: ``card`` (-1: none) is game ``g``'s turned-up leftover and its suit is trump;
    the joker or no leftover means no trump (B3: a joker in a hand still makes a trump
    suit, the leftover's)."""
    deal.leftover[g] = card
    deal.trump[g] = SUIT_OF[card] if card >= 0 else -1  # SUIT_OF[JOKER] is -1


@kernel
def start_deal(g: int, num_players: int, episode: Episode, deal: Deal, bidding: Bidding,
               play: Play) -> None:
    """Clear game ``g``'s per-deal state and open the bidding left of the dealer (C1)."""
    b, p = bidding, play
    episode.phase[g] = _BID
    b.bids[g, :] = -1
    b.num_bids[g] = 0
    b.declarer[g] = -1
    b.target[g] = -1
    b.shown_bits[g] = _ZERO
    b.num_shown[g] = 0
    b.stakes[g, :] = 0
    p.played_bits[g, :] = _ZERO
    p.void_bits[g, :] = _ZERO
    p.trick[g, :] = -1
    p.trick_size[g] = 0
    p.leader[g] = -1
    p.to_play[g] = -1
    p.dummy_ctrl[g] = -1
    p.tricks_won[g, :] = 0
    p.tricks_done[g] = 0
    p.rank_cards[g, :] = 0
    p.called[g, :] = False
    episode.current_player[g] = (deal.dealer[g] + 1) % num_players


@kernel
def start_episodes(games: np.ndarray, keys: np.ndarray, episode: Episode,
                   bidding: Bidding, match: Match, last: LastDeal) -> None:
    """A new episode in each game of ``games``: its key ``keys[i]`` (B1, B2), no deal
    played, no points (M1), an empty pot (C2), no result yet; :func:`deal_games` deals
    it next."""
    e = episode
    for i in range(games.shape[0]):
        g = games[i]
        e.key[g] = keys[i]
        e.deal_index[g] = 0
        e.deals_done[g] = 0
        for p in range(match.totals.shape[1]):
            match.totals[g, p] = 0
            match.winners[g, p] = False
        bidding.pot[g] = 0
        e.game_over[g] = False
        e.deal_over[g] = False
        last.has_result[g] = False


@kernel
def deal_games(games: np.ndarray, draw_dealer: bool, dealer_counter: np.uint64,
               deck: np.ndarray, cards_each: int, episode: Episode, deal: Deal,
               bidding: Bidding, play: Play, u: np.ndarray, ordered: np.ndarray,
               order: np.ndarray, bucket_start: np.ndarray) -> None:
    """Deal the current deal (k = ``episode.deal_index[g]``) of each game of ``games``
    and open its bidding:

    * B1 (if ``draw_dealer``): the first dealer is drawn at random, lane 0 of
      ``hashed_uniform(key, dealer_counter)`` times the number of players;
    * B2: the deck in the order :func:`~envs.core.shuffle_order` gives for ``(key, k)``
      (the cards of :func:`envs.core.shuffled`), hand h gets the h-th ``cards_each``
      cards, a card left over is turned up (:func:`set_leftover`);
    * C1: :func:`start_deal`.

    ``u``, ``ordered`` (float64 [len(deck)]), ``order`` (int [len(deck)]) and
    ``bucket_start`` (int [buckets + 1]) are scratch (:func:`~envs.core.shuffle_order`)."""
    P, H = bidding.bids.shape[1], deal.hand_bits.shape[1]
    keys = episode.key
    dealt = H * cards_each
    for i in range(games.shape[0]):
        g = games[i]
        if draw_dealer:  # B1
            hashed_uniform_row(keys[g], dealer_counter, u)
            deal.dealer[g] = min(np.int64(u[0] * P), P - 1)
        shuffle_order(keys[g], np.uint64(episode.deal_index[g]), u, order, ordered,
                      bucket_start)  # B2
        for h in range(H):
            cards = _ZERO
            for k in range(h * cards_each, (h + 1) * cards_each):
                cards |= _card_bit(deck[order[k]])
            deal.hand_bits[g, h] = cards
        set_leftover(g, deck[order[dealt]] if deck.shape[0] > dealt else -1, deal)
        start_deal(g, P, episode, deal, bidding, play)


#: the ``reward`` settings of :func:`finish_deals`, by code (the config's names)
REWARD_KINDS = ("points", "relative", "chips", "win")
_POINTS, _RELATIVE, _CHIPS, _WIN = range(4)


@kernel
def finish_deals(games: np.ndarray, rewards: np.ndarray, more: np.ndarray, bonus: np.ndarray,
                 episode_is_deal: bool, target_points: int, deals_limit: int,
                 reward_kind: int, episode: Episode, deal: Deal, bidding: Bidding,
                 play: Play, match: Match, last: LastDeal) -> int:
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
    e, b, p, r = episode, bidding, play, last
    P = p.called.shape[1]
    m = 0
    for i in range(games.shape[0]):
        g = games[i]
        t = b.target[g]
        hitters = 0
        for s in range(P):
            hit = p.called[g, s] and p.tricks_won[g, s] == t  # F2
            r.last_hitters[g, s] = hit
            hitters += hit
        points_sum = 0
        for s in range(P):  # S1–S3
            points = (bonus[hitters] if r.last_hitters[g, s] else 0) + np.int64(
                p.tricks_won[g, s]) + 2 * np.int64(p.rank_cards[g, s])
            r.last_points[g, s] = points
            points_sum += points
            match.totals[g, s] += points
        carry = b.pot[g] if hitters == 0 else np.int64(0)  # S4
        e.deals_done[g] += 1
        e.deal_over[g] = True
        best = match.totals[g, 0]
        for s in range(1, P):
            best = max(best, match.totals[g, s])
        over = episode_is_deal or best >= target_points or e.deals_done[g] >= deals_limit
        num_winners = 0
        for s in range(P):  # M1
            match.winners[g, s] = over and match.totals[g, s] == best
            num_winners += match.winners[g, s]
        for s in range(P):
            share = b.pot[g] / max(hitters, 1) if r.last_hitters[g, s] else 0.0  # S4
            final = carry / max(num_winners, 1) if match.winners[g, s] else 0.0  # M2
            chips = share + final - b.stakes[g, s]
            r.last_share[g, s] = share
            r.last_final_share[g, s] = final
            r.last_chips[g, s] = chips
            r.last_stakes[g, s] = b.stakes[g, s]
            r.last_called[g, s] = p.called[g, s]
            if reward_kind == _POINTS:
                rewards[g, s] = r.last_points[g, s]
            elif reward_kind == _RELATIVE:
                rewards[g, s] = r.last_points[g, s] - (points_sum - r.last_points[g, s]) / (
                    P - 1)
            elif reward_kind == _CHIPS:
                rewards[g, s] = chips
            elif not over:
                rewards[g, s] = 0.0
            elif match.winners[g, s]:
                rewards[g, s] = 1.0 / num_winners if num_winners < P else 0.0
            else:
                rewards[g, s] = -1.0 / (P - num_winners)
        for h in range(p.tricks_won.shape[1]):
            r.last_tricks[g, h] = p.tricks_won[g, h]
        r.has_result[g] = True
        r.last_declarer[g] = b.declarer[g]
        r.last_target[g] = t
        r.last_carry[g] = carry
        r.last_deal[g] = e.deals_done[g] - 1
        b.pot[g] = 0 if over else carry
        if over:
            e.phase[g] = _OVER
            e.current_player[g] = -1
            e.game_over[g] = True
        else:  # the next deal: the deal passes left (B1), the pot carries (S4)
            deal.dealer[g] = (deal.dealer[g] + 1) % P
            e.deal_index[g] += 1
            more[m] = g
            m += 1
    return m
