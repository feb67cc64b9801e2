"""Four Aces told to people: its rounds, turns and results in sentences, and the words of a
terminal game (prompts, why a move is not allowed).

The telling functions take a *teller*, the game-neutral driver
(:class:`records.narrate.Narrator`) that holds the engine and the game row (``engine``,
``g``), who is told (``viewer``, ``reveal``, ``compact``), the turn counter of the round
(``turn``), and the wording of seats and cards (``name``, ``cards_text``, ``by_seat``).
The others read the engine of a single game (row 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from envs.cards import CARD_NAMES, parse_card, pretty_card

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
    return lines


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
    """A finished round: four aces (H4), or the round's points (K) and the match totals."""
    v = teller.viewer
    if res["four_aces"] is not None:
        return [f"{teller.name(res['four_aces'])} holds all four aces and wins the match!"]
    lines = [f"Round {res['round'] + 1} over: points {teller.by_seat(res['round_points'], v)}"]
    if teller.engine.config.episode == "match":
        lines.append(f"  totals: {teller.by_seat(res['totals'], v)}")
    return lines


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
    public (RULES "What each player sees")."""
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
