"""Four Aces told to people: its rounds, turns and results in sentences, and the words of a
terminal game (prompts, why a move is not allowed).

The telling functions take a *teller*, the game-neutral driver
(:class:`records.narrate.Narrator`) that holds the engine and the game row (``engine``,
``g``), who is told (``viewer``, ``reveal``, ``compact``), the turn counter of the round
(``turn``), and the wording of seats and cards (``name``, ``cards_text``, ``by_seat``).
The others read the engine of a single game (row 0).

A round's end is told with each player's points by combination (K2, K3): :func:`step`
keeps the scoring cards of the round its move ends in ``teller.round_cards``, because a
match deals the next round in the same step, and :func:`result_lines` names the
combinations behind each score (:func:`envs.four_aces.explain.best_split`). A player at
the table (a ``viewer``) is told at the first deal what a turn is (H2), what the hand
limit L is (G7) and how the round ends and scores (H3, K1–K3).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from envs.cards import CARD_NAMES, JOKER, parse_card, pretty_card
from envs.four_aces.explain import best_split, describe_split
from envs.four_aces.rules import DECK_SIZE
from envs.four_aces.scene import play_to_round_end

#: the game-neutral driver of :mod:`records.narrate` (see the module docstring)
Teller = Any

#: the scoring rules (K3), chosen by ``cardrl play``'s ``--variant``
SCORINGS = ("strict", "free")


# =========================================================================================
# telling a game
# =========================================================================================
def title(options: dict) -> str:
    """The game and its options in a few words."""
    return (f"Four Aces ({options['num_players']} players, {options['scoring']} scoring, "
            f"{options['episode']})")


def trump(engine, game: int = 0) -> int:
    """No trump in Four Aces: -1 (cards are listed in plain suit order)."""
    return -1


def _counts_text(teller: Teller, counts: np.ndarray) -> str:
    """Cards given as counts per card index, in words."""
    return teller.cards_text(c for c in np.flatnonzero(counts) for _ in range(int(counts[c])))


def deal_header(teller: Teller) -> list[str]:
    """The round just dealt: dealer, stock size, every table (G3) and, if revealed, every
    hand."""
    e, g = teller.engine, teller.g
    teller.turn = 0
    state = e.state
    dealer = teller.name(int(state.dealer[g]))
    stock = int(len(state.deal_order[g]) - state.stock_top[g])
    lines = [f"Round {int(state.rounds_played[g]) + 1}: dealer {dealer}, stock {stock} cards"]
    for p in range(e.num_players):
        hand = f"hand {_counts_text(teller, e.state.hand[g, p])}, " if teller.reveal else ""
        lines.append(f"  {teller.name(p)}: {hand}table {_counts_text(teller, e.state.table[g, p])}")
    if teller.viewer is not None and not teller.reveal and int(state.rounds_played[g]) == 0:
        lines += how_to_play(e.config.scoring)
    return lines


def how_to_play(scoring: str) -> list[str]:
    """A turn (H2), the hand limit L (G7) and the round's end and scoring (H3, K1–K3), in
    words for a player at the table."""
    return [
        "How to play (H2): each turn is one move.",
        "  discard CARD: the card goes face up on the discard pile, then you refill your hand",
        "    from the stock up to your hand limit L (G6).",
        "  draw: turn up the stock's top card onto the discard pile and keep your hand; a",
        "    joker turned up goes into your hand instead and raises your L by 1 (G7).",
        "  L = 3 + the jokers that have come into that hand this round, dealt or drawn (G7).",
        "The round ends when the stock is empty (H3); then hand and table cards score by",
        f"  combination (K2; '{scoring}' scoring, K3). All four aces in your hand win the "
        "match (H4).",
    ]


def step(teller: Teller, action: int, do_step: Callable[[], object]) -> list[str]:
    """Call ``do_step()`` (which applies ``action``) and tell the turn (H2): the card
    turned up or the joker taken into the hand (G7), or the discard and, where the
    listener may know them, the cards drawn to fill the hand (G6)."""
    e, g = teller.engine, teller.g
    name = e.action_names[action]
    seat = int(e.current_player[g])
    hand_before = e.state.hand[g, seat].copy()
    limit_before = int(e.state.hand_limit[g, seat])
    discards_before = int(e.state.discard_size[g])
    teller.round_cards = round_end_cards(e, action, g)
    do_step()
    teller.turn += 1
    over = bool(e.deal_over[g])
    prefix = f"Turn {teller.turn}: " if teller.compact else ""
    if name == "draw":
        if int(e.state.discard_size[g]) > discards_before:
            card = int(e.state.discard[g, discards_before])
            text = f"{teller.name(seat)} turns up {pretty_card(card)}"
        else:
            text = (f"{teller.name(seat)} turns up a joker: it goes into the hand "
                    f"(L={limit_before + 1})")
    else:
        card = parse_card(name.partition(":")[2])
        text = f"{teller.name(seat)} discards {pretty_card(card)}"
        if not over and (teller.reveal or seat == teller.viewer):
            after = e.state.hand[g, seat].astype(np.int64)
            before = hand_before.astype(np.int64)
            before[card] -= 1
            drawn = [c for c in np.flatnonzero(after > before)
                     for _ in range(int(after[c] - before[c]))]
            if drawn:
                text += f", draws {teller.cards_text(drawn)}"
    return [prefix + text]


def result_lines(teller: Teller, res: dict) -> list[str]:
    """A finished round: four aces (H4), or the round's points (K) with each player's
    points by combination (K2, K3) when :func:`step` told the round's last move, and the
    match totals."""
    v = teller.viewer
    winner = _four_aces_seat(res)
    if winner is not None:
        return [f"{teller.name(winner)} holds all four aces and wins the match!"]
    lines = [f"Round {res['round'] + 1} over: points {teller.by_seat(res['round_points'], v)}"]
    cards = getattr(teller, "round_cards", None)
    teller.round_cards = None
    if cards is not None:
        scoring = teller.engine.config.scoring
        for seat, seat_cards in enumerate(cards):
            split = best_split(seat_cards, scoring)
            lines.append(f"  {teller.name(seat)} {split['total']:+d}: {describe_split(split)}")
    if teller.engine.config.episode == "match":
        lines.append(f"  totals: {teller.by_seat(res['totals'], v)}")
    return lines


def _four_aces_seat(res: dict) -> int | None:
    """The seat that won with four aces (H4, K1) in a result, or None: the field is a
    seat, None / -1 for none, or one flag per seat."""
    value = res.get("four_aces")
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value) if value >= 0 else None
    flags = np.flatnonzero(np.asarray(value, dtype=bool))
    return int(flags[0]) if len(flags) else None


def round_end_cards(engine, action: int, game: int = 0) -> list[list[int]] | None:
    """Each seat's scoring cards (K1: hand and table, no jokers) at the end of the round
    that ``action`` ends in ``game``, or None if it does not end one (or is illegal).
    ``engine`` is not changed: when the stock is short enough for the move to empty it
    (H3; a turn takes at most three cards, G6/G7), the move is played on a copy that stops
    at the round's end."""
    if DECK_SIZE - int(engine.state.stock_top[game]) > 3:
        return None
    mask = engine.legal_action_mask()[game]
    if not 0 <= action < len(mask) or not mask[action]:
        return None  # the engine refuses the move itself
    trial = play_to_round_end(engine, action, game)
    if trial is None:
        return None
    counts = trial.state.hand[game, :, :JOKER] + trial.state.table[game, :, :JOKER]
    return [[int(c) for c in np.flatnonzero(row) for _ in range(int(row[c]))] for row in counts]


# =========================================================================================
# a terminal game
# =========================================================================================
def play_options(variant: str | None, players: int | None) -> dict:
    """The config options meant by ``cardrl play``'s ``--variant`` (the scoring rule, K3)
    and ``--players`` (the number of players, G1)."""
    options: dict = {}
    if variant is not None:
        if variant not in SCORINGS:
            raise ValueError(f"--variant={variant!r} is not a Four Aces variant: expected "
                             f"a scoring rule, one of {SCORINGS}")
        options["scoring"] = variant
    if players is not None:
        options["num_players"] = players
    return options


def lone_card(card: str, legal: list[str]) -> str:
    """The action meant by a card typed alone: discard it (H2)."""
    return f"discard:{card}"


def prompt(engine) -> str:
    """The question put to the player to act."""
    return "Your move (discard a card or draw; ? for help): "


def table_lines(engine, seat: int) -> list[str]:
    """What ``seat`` may see beyond the rendered table: the whole discard pile, which is
    public (docs/rules.md, "What each player knows")."""
    pile = engine.state.discard[0, : int(engine.state.discard_size[0])]
    return ["discard pile (oldest first): "
            + (" ".join(pretty_card(int(c)) for c in pile) or "-")]


def why_illegal(engine, name: str, legal: list[str]) -> str:
    """Why the action ``name`` is not legal now, in words (H2)."""
    kind, _, arg = name.partition(":")
    if kind == "discard":
        return f"you don't hold {pretty_card(CARD_NAMES.index(arg))}"
    if kind == "draw":
        return "the stock is empty"
    return f"'{kind.replace('_', ' ')}' is not a Four Aces move"
