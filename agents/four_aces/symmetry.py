"""Suit symmetry of Four Aces: a network that sees every deal with its suits in one order.

The four suits of Four Aces play identical roles: no rule of play or scoring names a suit
(docs/rules.md G–K; the ace of spades only picks the dealer, G2, before any decision). A deal
and the same deal with its suits renamed are the same problem, so a policy should act
alike on both. ``symmetry: suits`` (a model-config field) makes a network see each
observation with its suits **sorted into a canonical order** — by the own hand, then the
own table, then the cards already seen, of each suit (:func:`canonical_suit_order`) — and
maps its actions back. The network then learns one answer for up to 24 renamings of a
deal instead of 24 separate ones; nothing else changes (PPO, rollouts, checkpoints).

Card ``c`` is suit ``c // 13`` and rank ``c % 13`` (``envs.cards``); the joker (52) and
the turn-up action (53) are not renamed. Every observation segment indexed by card —
``hand``, the ``tables`` of every seat, ``discard_pile``, ``last_discard`` — is permuted;
the other columns are copied.
"""

from __future__ import annotations

from functools import cache
from itertools import permutations

import numpy as np

from envs.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from envs.four_aces.observation import LAYOUT

SYMMETRIES = ("none", "suits")
SUITED = NUM_SUITS * NUM_RANKS  #: cards 0..51 carry a suit; 52 is the joker
_PERMUTATIONS = np.array(list(permutations(range(NUM_SUITS))), dtype=np.int64)  # [24, 4]
_CODE_WEIGHTS = NUM_SUITS ** np.arange(NUM_SUITS - 1, -1, -1)  # a suit order as a base-4 code
_CODE_TO_INDEX = np.full(NUM_SUITS ** NUM_SUITS, -1, dtype=np.int64)
_CODE_TO_INDEX[_PERMUTATIONS @ _CODE_WEIGHTS] = np.arange(len(_PERMUTATIONS))


def check_symmetry(game: str, name: str) -> str:
    """``name`` if it is a symmetry of ``game``; ValueError naming the allowed ones."""
    allowed = ("none", "suits") if game == "four_aces" else ("none",)
    if name not in allowed:
        raise ValueError(f"symmetry={name!r} does not fit game {game!r}: expected one of "
                         f"{allowed} (suits are interchangeable in Four Aces only; "
                         "Abracadabra has trumps)")
    return name


def _card_segments() -> list[tuple[int, int]]:
    """(start, number of 53-card blocks) of the card-indexed observation segments."""
    blocks = []
    for seg in LAYOUT:
        if seg.name in ("hand", "tables", "discard_pile", "last_discard"):
            blocks.append((seg.start, seg.size // NUM_CARDS))
    return blocks


def _card_order(perm: np.ndarray, size: int) -> np.ndarray:
    """int [size]: original card of each canonical card index, for suit order ``perm``
    (canonical suit k is original suit ``perm[k]``); indices >= 52 map to themselves."""
    order = np.arange(size)
    cards = np.arange(SUITED)
    order[:SUITED] = perm[cards // NUM_RANKS] * NUM_RANKS + cards % NUM_RANKS
    return order


@cache
def _tables(observation_size: int, num_actions: int):
    """Per suit permutation (24): the source column of every canonical observation column
    [24, D] and the original action of every canonical action [24, A]."""
    columns = np.tile(np.arange(observation_size), (len(_PERMUTATIONS), 1))
    actions = np.zeros((len(_PERMUTATIONS), num_actions), dtype=np.int64)
    for p, perm in enumerate(_PERMUTATIONS):
        cards = _card_order(perm, NUM_CARDS)
        for start, count in _card_segments():
            for block in range(count):
                at = start + block * NUM_CARDS
                columns[p, at:at + NUM_CARDS] = at + cards
        actions[p] = _card_order(perm, num_actions)
    return columns, actions


def _suit_bits(block: np.ndarray) -> np.ndarray:
    """int64 [N, 4]: the 13 ranks of each suit held in a card block [N, >=52], as bits."""
    held = (block[:, :SUITED] > 0).reshape(-1, NUM_SUITS, NUM_RANKS).astype(np.int64)
    return held @ (1 << np.arange(NUM_RANKS, dtype=np.int64))


def canonical_suit_order(observations: np.ndarray) -> np.ndarray:
    """int [N]: index into the 24 suit permutations that sorts each observation's suits.

    Suits are ranked, highest first, by the ranks of the own hand, then of the own table,
    then of the cards seen elsewhere (the discard pile and the other tables), each read
    as a 13-bit number (aces the highest bit). Suits that tie on all three hold the same
    ranks everywhere that matters to the player; the lower original suit goes first.
    """
    obs = np.asarray(observations)
    hand = obs[:, LAYOUT["hand"]]
    tables = obs[:, LAYOUT["tables"]]
    own_table = tables[:, :NUM_CARDS]
    others = tables[:, NUM_CARDS:].reshape(len(obs), -1, NUM_CARDS).sum(axis=1)
    seen = others + obs[:, LAYOUT["discard_pile"]]
    key = (_suit_bits(hand) << 2 * NUM_RANKS) | (_suit_bits(own_table) << NUM_RANKS)
    key |= _suit_bits(seen)
    # descending key, ties by the lower suit: sort on (-key, suit)
    order = np.lexsort((np.broadcast_to(np.arange(NUM_SUITS), key.shape), -key), axis=1)
    return _CODE_TO_INDEX[order @ _CODE_WEIGHTS]


def to_canonical(observations: np.ndarray, masks: np.ndarray):
    """Observations and masks with their suits in canonical order.

    Returns ``(observations, masks, action_map)``: float32 [N, D], bool [N, A] and int
    [N, A], where ``action_map[n, a]`` is the game action of canonical action ``a``.
    """
    obs = np.asarray(observations, dtype=np.float32)
    masks = np.asarray(masks, dtype=bool)
    columns, actions = _tables(obs.shape[1], masks.shape[1])
    which = canonical_suit_order(obs)
    action_map = actions[which]
    return (np.take_along_axis(obs, columns[which], axis=1),
            np.take_along_axis(masks, action_map, axis=1), action_map)


def to_game_actions(actions: np.ndarray, action_map: np.ndarray) -> np.ndarray:
    """int64 [N]: the game actions of canonical ``actions`` [N]."""
    return action_map[np.arange(len(actions)), np.asarray(actions, dtype=np.int64)]


def to_game_order(values, action_map: np.ndarray):
    """Per-action values [N, A] (numpy or torch) from canonical to game action order:
    canonical column ``a`` of row ``n`` goes to column ``action_map[n, a]``."""
    if isinstance(values, np.ndarray):
        out = np.empty_like(values)
        np.put_along_axis(out, action_map, values, axis=1)
        return out
    import torch

    index = torch.as_tensor(action_map, device=values.device)
    return torch.empty_like(values).scatter_(1, index, values)
