"""High Card told to people (the functions :class:`records.narrate.Narrator` and the
terminal game call): the deal, each card played, and the result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from envs.cards import CARD_NAMES, pretty_card

Teller = Any  #: records.narrate.Narrator


def title(options: dict) -> str:
    return f"High Card ({options['num_players']} players, {options['hand_size']} cards each)"


def trump(engine, game: int = 0) -> int:
    """No trump (HC3): -1."""
    return -1


def deal_header(teller: Teller) -> list[str]:
    """The deal: who leads and, if revealed, every hand."""
    e, g = teller.engine, teller.g
    lines = [f"Deal: {teller.name(0)} leads"]
    if teller.reveal:
        for p in range(e.num_players):
            hand = teller.cards_text(np.flatnonzero(e.state.hand[g, p]))
            lines.append(f"  {teller.name(p)}: {hand}")
    return lines


def step(teller: Teller, action: int, do_step: Callable[[], object]) -> list[str]:
    """Play the card (``do_step``) and tell it, and who took the trick (HC3)."""
    e, g = teller.engine, teller.g
    seat = int(e.current_player[g])
    before = e.state.tricks[g].copy()
    do_step()
    lines = [f"{teller.name(seat)} plays {pretty_card(action)}"]
    won = np.flatnonzero(e.state.tricks[g] > before)
    if len(won):
        lines.append(f"  {teller.name(int(won[0]))} takes the trick")
    return lines


def result_lines(teller: Teller, res: dict) -> list[str]:
    """The deal's tricks (HC4)."""
    return [f"Deal over: tricks {teller.by_seat(res['points'], teller.viewer)}"]


def play_options(variant: str | None, players: int | None) -> dict:
    """``cardrl play``'s ``--players``; High Card has no variant."""
    if variant is not None:
        raise ValueError("High Card has no --variant")
    return {} if players is None else {"num_players": players}


def lone_card(card: str, legal: list[str]) -> str:
    return f"play:{card}"


def prompt(engine) -> str:
    return "Your card (? for help): "


def table_lines(engine, seat: int) -> list[str]:
    return []


def why_illegal(engine, name: str, legal: list[str]) -> str:
    kind, _, card = name.partition(":")
    if kind == "play" and card in CARD_NAMES:
        return "you must follow the led suit, with a card you hold (HC2)"
    return f"'{name}' is not a High Card move"
