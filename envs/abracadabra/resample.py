"""Copies of Abracadabra games, and worlds resampled from what one seat has seen.

The engine's :meth:`~envs.abracadabra.engine.AbracadabraEngine.clone`,
:meth:`~envs.abracadabra.engine.AbracadabraEngine.resample` and
:meth:`~envs.abracadabra.engine.AbracadabraEngine.resample_many` are thin wrappers over
:func:`game_rows`, :func:`take_games` and :func:`resample_state`; this module works on
:class:`~envs.abracadabra.state.AbracadabraState` alone (it never imports the engine).

**What a seat has seen.** Everything in the state is public except the other players'
hands and the game's key (which decides the later deals of a match, B2). Public: the
seat's own hand, the dummy's face-up hand (``two_dummy``, E4), the turned-up leftover card
and trump (B2), the bids, declarer and target (C1–C3), the shown cards still held by the
declarer (D1), every card played this deal and by which hand, the current trick, the
tricks and rank cards won, the calls (F1), stakes, pot, totals and results, and the void
record (``void_bits``: a hand that did not follow the led effective suit holds none of it,
E2; the joker counts as a trump, B3).

**A world** is a copy of the game with the hidden part drawn again: the cards no one has
seen (the *unknown* cards: the deck less the seat's hand, the dummy's hand, the shown
cards, the cards played and the leftover) are dealt to the other players, each getting as
many as it holds (cards per hand less the cards it has played, less its shown cards), and
none getting a card of its void record; the game key is drawn fresh. Only public fields
and the seed are read to build a world, and the unknown cards are handled in card-index
order, so two states that look the same to the seat give the same worlds for the same
seed.

**The sampler is exactly uniform over the consistent worlds** (up to the float64
rounding of the count weights and of the uniforms). The unknown cards fall in
groups by the set of hidden hands allowed to hold them (at most three hands are hidden
from a seat, so a card is free, allowed to two hands, or forced to one); cards of a group are
exchangeable. A world is drawn in two steps: (1) how many cards of each group go to each
hand, with probability proportional to the number of worlds with those counts (a product
of binomials and one multinomial; with three hidden hands the counts are fixed by the
three numbers x, y, z of the two-hand groups, enumerated on a grid of at most 14³
cells); (2) a uniformly random order of each group's cards, cut at those counts. Without
voids step (1) has one outcome and step (2) is a seeded shuffle of the unknown cards dealt
into the known hand sizes.

**Randomness.** World ``k`` of a game resampled with seed ``s`` is a pure function of
``(s, k)`` and the public state (counter-based hashing, :func:`~envs.core.hashed_uniform`):
the worlds of one game do not depend on the other games of the call, and the first ``k``
worlds are the same whatever ``n``.
"""

from __future__ import annotations

from dataclasses import fields
from math import lgamma

import numpy as np

from envs.cards import NUM_CARDS
from envs.compiled import popcount
from envs.core import hashed_uniform, splitmix64

from .config import AbracadabraConfig
from .rules import CARD_BIT
from .state import AbracadabraState, unpack_cards

#: domain constants of the hash draws (any fixed values; they keep the streams apart)
_WORLD_DOMAIN = np.uint64(0x5EED_0F_A3_0000_0001)
_KEY_DOMAIN = np.uint64(0x5EED_0F_A3_0000_0002)
#: log(k!) for k = 0..53
_LOG_FACT = np.array([lgamma(k + 1.0) for k in range(NUM_CARDS + 1)])
_MAX_SEED = 2**64 - 1


# ======================================================================================
# arguments
# ======================================================================================
def _int_array(name: str, values: object, low: int, high: int) -> np.ndarray:
    """int64 (uint64 for seeds) 1-d array of ``values``, each an integer in low..high."""
    array = np.asarray(values)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d sequence of integers, got "
                         f"shape {array.shape}")
    if array.dtype == object:
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for v in array.tolist()):
            raise ValueError(f"{name} must hold integers, got {values!r}")
    elif array.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers, got dtype {array.dtype}")
    ints = [int(v) for v in array.tolist()]
    bad = [v for v in ints if not low <= v <= high]
    if bad:
        raise ValueError(f"{name} holds {bad[0]}, out of range: expected {low}..{high}")
    return np.array(ints, np.uint64 if high > 2**63 - 1 else np.int64)


def game_rows(games: object, batch_size: int) -> np.ndarray:
    """int64 row indices from a game selection: None (every game), a bool mask of length
    ``batch_size``, or integer indices in 0..batch_size-1 (repeats allowed, order kept)."""
    if games is None:
        return np.arange(batch_size)
    array = np.asarray(games)
    if array.dtype == bool:
        if array.shape != (batch_size,):
            raise ValueError(f"games as a bool mask must have shape ({batch_size},), got "
                             f"{array.shape}")
        rows = np.flatnonzero(array)
        if len(rows) == 0:
            raise ValueError("games selects no game: expected at least one True")
        return rows
    return _int_array("games", array, 0, batch_size - 1)


def check_resample(state: AbracadabraState, config: AbracadabraConfig, games: object,
                   seats: object, n: object, seeds: object
                   ) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """The checked arguments of :func:`resample_state`: games, seats (int64 [G]), n, seeds
    (uint64 [G]); ``ValueError`` naming the argument otherwise."""
    B = len(state.key)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n={n!r} is not allowed: expected an integer >= 1 (worlds per "
                         "game)")
    games = _int_array("games", games, 0, B - 1)
    seats = _int_array("seats", seats, 0, config.num_players - 1)
    seeds = _int_array("seeds", seeds, 0, _MAX_SEED)
    if not len(games) == len(seats) == len(seeds):
        raise ValueError(f"games, seats and seeds must have one entry per game: got "
                         f"{len(games)}, {len(seats)} and {len(seeds)}")
    over = games[state.game_over[games]]
    if len(over):
        raise ValueError(f"games holds game {int(over[0])}, which is over (game_over): "
                         "there is nothing to resample")
    return games, seats, int(n), seeds


# ======================================================================================
# copies
# ======================================================================================
def take_games(state: AbracadabraState, rows: np.ndarray) -> AbracadabraState:
    """A new state holding copies of the games ``rows`` (int [N], repeats allowed)."""
    return AbracadabraState(**{f.name: np.take(getattr(state, f.name), rows, axis=0)
                               for f in fields(state)})


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent copy of ``rng``: it continues the same stream from the same point,
    and drawing from either leaves the other unchanged."""
    bit_generator = type(rng.bit_generator)()
    bit_generator.state = rng.bit_generator.state
    return np.random.Generator(bit_generator)


def generator_for(seeds: object) -> np.random.Generator:
    """The generator of a resampled engine: a function of the seeds (one per game) alone."""
    checked = _int_array("seeds", seeds, 0, _MAX_SEED)
    return np.random.default_rng([int(s) for s in checked.tolist()])


# ======================================================================================
# resampling
# ======================================================================================
def resample_state(state: AbracadabraState, config: AbracadabraConfig, games: object,
                   seats: object, n: int, seeds: object) -> AbracadabraState:
    """``n`` worlds of each game ``games[i]`` as seen by ``seats[i]``, drawn with
    ``seeds[i]`` (see the module docstring): a new state of ``len(games) * n`` games,
    game-major (row ``i * n + k`` is world ``k`` of ``games[i]``)."""
    games, seats, n, seeds = check_resample(state, config, games, seats, n, seeds)
    G, P, K = len(games), config.num_players, config.num_players - 1
    out = take_games(state, np.repeat(games, n))
    # -- the public picture of each game (nothing hidden is read) ---------------------
    hands = state.hand_bits[games]  # [G, H]; only the seat's and the dummy's rows are read
    played = state.played_bits[games]
    shown = state.shown_bits[games]
    declarer = state.declarer[games].astype(np.int64)
    leftover = state.leftover[games].astype(np.int64)
    hidden = (seats[:, None] + 1 + np.arange(K)) % P  # [G, K]: the other players
    known = hands[np.arange(G), seats] | shown | np.bitwise_or.reduce(played, axis=1)
    if config.spec.has_dummy:
        known |= hands[:, P]  # E4: face up
    known |= np.where(leftover >= 0, CARD_BIT[np.maximum(leftover, 0)], np.uint64(0))  # B2
    unknown = CARD_BIT[config.deck].sum() & ~known
    own_played = np.take_along_axis(played, hidden, axis=1)
    shows = (hidden == declarer[:, None]) * popcount(shown).astype(np.int64)[:, None]
    sizes = config.cards_each - popcount(own_played).astype(np.int64) - shows  # [G, K]
    allowed = unknown[:, None] & ~np.take_along_axis(state.void_bits[games], hidden, axis=1)
    _check_sizes(games, sizes, unknown)
    # -- groups: the unknown cards by the set of hidden hands allowed to hold them ------
    masks = np.arange(1 << K)
    group_bits = np.zeros((G, 1 << K), np.uint64)
    for m in masks.tolist():
        bits = unknown.copy()
        for j in range(K):
            bits &= allowed[:, j] if m >> j & 1 else ~allowed[:, j]
        group_bits[:, m] = bits
    group_size = popcount(group_bits).astype(np.int64)  # [G, 2^K]
    if group_size[:, 0].any():
        g = int(games[np.argmax(group_size[:, 0] > 0)])
        raise ValueError(f"game {g}: an unknown card is in every hidden hand's void "
                         "record; the state is not consistent")
    # -- randomness: world k of game i from (seeds[i], k) only -------------------------
    base = np.repeat(splitmix64(seeds ^ _WORLD_DOMAIN), n)
    world = np.tile(np.arange(n, dtype=np.uint64), G)
    u = hashed_uniform(base, world, NUM_CARDS + 1)  # lanes 0..52: cards; 53: the counts
    # -- step 1: cards of each group to each hidden hand ----------------------------------
    counts = _group_counts(group_size, sizes, u[:, NUM_CARDS].reshape(G, n), games)
    # -- step 2: a random order of each group's cards, cut at those counts --------------
    dealt_bits = _deal_groups(group_bits, counts, u[:, :NUM_CARDS], n)
    shown_w = np.repeat(np.where(hidden == declarer[:, None], shown[:, None], np.uint64(0)),
                        n, axis=0)  # D1: the shown cards stay in the declarer's hand
    hidden_w = np.repeat(hidden, n, axis=0)
    np.put_along_axis(out.hand_bits, hidden_w, dealt_bits | shown_w, axis=1)
    # -- a fresh key per world: the deals after this one are hidden too (B2) ------------
    with np.errstate(over="ignore"):
        out.key[:] = splitmix64(splitmix64(base ^ _KEY_DOMAIN) + world)
    return out


def _check_sizes(games: np.ndarray, sizes: np.ndarray, unknown: np.ndarray) -> None:
    total = sizes.sum(axis=1)
    bad = (total != popcount(unknown).astype(np.int64)) | (sizes < 0).any(axis=1)
    if bad.any():
        g = int(games[np.argmax(bad)])
        raise ValueError(f"game {g}: the hidden hand sizes do not add up to the unseen "
                         "cards; the state is not consistent")


def _group_counts(group_size: np.ndarray, sizes: np.ndarray, u: np.ndarray,
                  games: np.ndarray) -> np.ndarray:
    """int64 [G * n, 2^K, K]: how many cards of each group (allowed-hand mask) go to each
    hidden hand in each world, drawn with probability proportional to the number of
    consistent worlds with those counts; ``u`` [G, n] one uniform per world."""
    G, n = u.shape
    K = sizes.shape[1]
    full = (1 << K) - 1
    counts = np.zeros((G, n, 1 << K, K), np.int64)
    free = sizes.copy()  # what is left for the free group after the forced cards
    for j in range(K if K > 1 else 0):  # (one hidden hand: its one group is the free one)
        counts[:, :, 1 << j, j] = group_size[:, None, 1 << j]
        free[:, j] -= group_size[:, 1 << j]
    free = np.broadcast_to(free[:, None, :], (G, n, K)).copy()
    if K == 3:
        pairs = group_size[:, [3, 5, 6]]  # hands {0,1}, {0,2}, {1,2}
        need = np.flatnonzero(pairs.any(axis=1))
        if len(need):
            x, y, z = _draw_pair_splits(pairs[need], free[need, 0], u[need], games[need])
            m01, m02, m12 = (pairs[need, i, None] for i in range(3))
            counts[need, :, 3, 0], counts[need, :, 3, 1] = x, m01 - x
            counts[need, :, 5, 0], counts[need, :, 5, 2] = y, m02 - y
            counts[need, :, 6, 1], counts[need, :, 6, 2] = z, m12 - z
            free[need] -= np.stack([x + y, m01 - x + z, m02 - y + m12 - z], axis=-1)
    if (free < 0).any():
        g = int(games[np.argmax((free < 0).any(axis=(1, 2)))])
        raise ValueError(f"game {g}: no deal of the unseen cards fits the hand sizes and "
                         "the void record; the state is not consistent")
    counts[:, :, full, :] = free
    return counts.reshape(G * n, 1 << K, K)


def _draw_pair_splits(pairs: np.ndarray, cap: np.ndarray, u: np.ndarray,
                      games: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three hidden hands, cards allowed to two of them: x of the {0,1} cards to hand 0,
    y of the {0,2} cards to hand 0, z of the {1,2} cards to hand 1, drawn per world (``u``
    [G, n]) with probability proportional to
    C(m01, x) C(m02, y) C(m12, z) f! / (a0! a1! a2!), the number of worlds with those
    counts (a_j: the free cards hand j then takes; ``cap`` [G, 3]: free cards plus pair
    cards each hand takes, after the forced ones). Returns x, y, z (int64 [G, n])."""
    G, n = u.shape
    m01, m02, m12 = (pairs[:, i, None, None, None] for i in range(3))
    X = np.arange(pairs[:, 0].max() + 1)[None, :, None, None]
    Y = np.arange(pairs[:, 1].max() + 1)[None, None, :, None]
    Z = np.arange(pairs[:, 2].max() + 1)[None, None, None, :]
    c0, c1, c2 = (cap[:, j, None, None, None] for j in range(3))
    a0, a1, a2 = c0 - X - Y, c1 - (m01 - X) - Z, c2 - (m02 - Y) - (m12 - Z)
    ok = (m01 >= X) & (m02 >= Y) & (m12 >= Z) & (a0 >= 0) & (a1 >= 0) & (a2 >= 0)
    lf = _LOG_FACT

    def log_binom(m: np.ndarray, k: np.ndarray) -> np.ndarray:
        k = np.clip(k, 0, m)
        return lf[m] - lf[k] - lf[m - k]

    log_w = (log_binom(m01, X) + log_binom(m02, Y) + log_binom(m12, Z)
             - lf[np.maximum(a0, 0)] - lf[np.maximum(a1, 0)] - lf[np.maximum(a2, 0)])
    log_w = np.where(ok, log_w, -np.inf).reshape(G, -1)
    top = log_w.max(axis=1, keepdims=True)
    if not np.isfinite(top).all():
        g = int(games[np.argmin(np.isfinite(top[:, 0]))])
        raise ValueError(f"game {g}: no deal of the unseen cards fits the hand sizes and "
                         "the void record; the state is not consistent")
    cdf = np.cumsum(np.exp(log_w - top), axis=1)
    cdf /= cdf[:, -1:]
    # inverse transform, all games in one search: game i's cdf is shifted to (i, i + 1]
    cells = cdf.shape[1]
    offset = np.arange(G)[:, None]
    cell = np.searchsorted((cdf + offset).reshape(-1), (u + offset).reshape(-1), "right")
    cell = np.minimum(cell.reshape(G, n) - offset * cells, cells - 1)
    ny, nz = Y.shape[2], Z.shape[3]
    return cell // (ny * nz), cell // nz % ny, cell % nz


def _deal_groups(group_bits: np.ndarray, counts: np.ndarray, u: np.ndarray,
                 n: int) -> np.ndarray:
    """uint64 [G * n, K]: the unknown cards each hidden hand gets in each world. Each
    group's cards are put in the order of the uniforms ``u`` [G * n, 53] (indexed by
    card) and cut at the world's ``counts`` [G * n, groups, K]: sorted by group, then at
    random, the unknown cards of a world fall in runs, one per (group, hand) in that
    order, of the counted lengths; a run's cards are a difference of prefix sums."""
    W, groups, K = counts.shape
    in_group = unpack_cards(group_bits)  # [G, groups, 53]
    group_of = np.where(in_group.any(axis=1), np.argmax(in_group, axis=1), groups)  # [G, 53]
    keys = u.reshape(-1, n, NUM_CARDS) + group_of[:, None, :]  # [G, n, 53]
    order = np.argsort(keys.reshape(W, NUM_CARDS), axis=1)  # not unknown: last
    prefix = np.zeros((W, NUM_CARDS + 1), np.uint64)  # distinct bits: sums are unions
    np.cumsum(CARD_BIT.take(order), axis=1, dtype=np.uint64, out=prefix[:, 1:])
    runs = counts.reshape(W, -1)
    ends = np.cumsum(runs, axis=1) + (np.arange(W) * (NUM_CARDS + 1))[:, None]
    flat = prefix.reshape(-1)
    run_bits = flat.take(ends) - flat.take(ends - runs)  # [W, groups * K]
    return run_bits.reshape(W, groups, K).sum(axis=1, dtype=np.uint64)
