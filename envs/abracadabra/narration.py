"""Abracadabra told to people: its deals, moves and results in sentences, and the words of
a terminal game (prompts, why a move is not allowed).

The telling functions take a *teller*, the game-neutral driver
(:class:`records.narrate.Narrator`) that holds the engine and the game row (``engine``,
``g``), who is told (``viewer``, ``reveal``, ``compact``), the compact line being built
(``pending``), and the wording of seats and cards (``name``, ``hand_name``,
``cards_text``, ``by_seat``). The others read the engine of a single game (row 0).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from envs.abracadabra.config import VARIANTS
from envs.cards import CARD_NAMES, SUIT_SYMBOLS, parse_card, pretty_card

#: the game-neutral driver of :mod:`records.narrate` (see the module docstring)
Teller = Any


# =========================================================================================
# telling a game
# =========================================================================================
def title(options: dict) -> str:
    """The game and its options in a few words."""
    return f"Abracadabra ({options['variant']}, {options['episode']})"


def trump(engine, game: int = 0) -> int:
    """The trump suit of ``game``'s deal (0..3), -1 without trump (B2): the order in
    which cards are listed."""
    return int(engine.state.trump[game])


def deal_header(teller: Teller) -> list[str]:
    """The deal just dealt: dealer, leftover and trump (B2), the dummy's hand (E4) or
    every hand if revealed."""
    e, g = teller.engine, teller.g
    trump_suit = trump(e, g)
    lo = int(e.state.leftover[g])
    lines = [
        f"Deal {int(e.state.deals_done[g]) + 1}: dealer {teller.name(int(e.state.dealer[g]))}, "
        f"leftover {pretty_card(lo) if lo >= 0 else '-'}, trump "
        f"{SUIT_SYMBOLS[trump_suit] if trump_suit >= 0 else 'none'}"
    ]
    hands = range(e.num_hands) if teller.reveal else ([e.num_players] if e.has_dummy else [])
    lines += [f"  {teller.hand_name(h)}: {teller.cards_text(e.hand_cards(g, h), trump_suit)}"
              for h in hands]
    return lines


def step(teller: Teller, action: int, do_step: Callable[[], object]) -> list[str]:
    """Call ``do_step()`` (which applies ``action``) and tell the move: a bid and the
    declarer it makes (C3), the cards shown and the stake (D2), the call (F1), a card
    played and the trick it completes. Compact: one line per bidding, per showing and
    per trick."""
    e, g = teller.engine, teller.g
    P = e.num_players
    name = e.action_names[action]
    seat = int(e.current_player[g])
    hand = int(e.state.to_play[g])
    won_before = e.state.tricks_won[g].copy()
    tricks_before = int(e.state.tricks_done[g])
    do_step()
    lines: list[str] = []
    kind, _, arg = name.partition(":")
    over = bool(e.deal_over[g])
    if kind == "bid":
        if teller.compact:
            teller.pending.append(f"{teller.name(seat)} {arg}")
        else:
            lines.append(f"{teller.name(seat)} bids {arg}")
        if over or e.state.declarer[g] >= 0:
            if teller.compact:
                lines.append("Bidding: " + ", ".join(teller.pending))
                teller.pending = []
            res = e.result(g) if over else None
            d = res["declarer"] if res else int(e.state.declarer[g])
            t = res["target"] if res else int(e.state.target[g])
            lines.append(f"{teller.name(d)} is the declarer; target {t}")
    elif kind == "show":
        if teller.compact:
            teller.pending.append(pretty_card(parse_card(arg)))
        else:
            lines.append(f"{teller.name(seat)} shows {pretty_card(parse_card(arg))}")
    elif kind == "stop":
        if teller.compact:
            shown = " ".join(teller.pending) or "nothing"
            lines.append(f"{teller.name(seat)} shows {shown} "
                         f"(stake {int(e.state.stakes[g, seat])})")
            teller.pending = []
        else:
            shown, stake = int(e.state.num_shown[g]), int(e.state.stakes[g, seat])
            lines.append(f"{teller.name(seat)} stops showing ({shown} shown, stake {stake})")
    elif kind == "call":
        lines.append(f"{teller.name(seat)} says \"Abracadabra!\"")
    elif kind == "no_call":
        lines.append(f"{teller.name(seat)} does not say Abracadabra")
    elif kind == "play":
        card = pretty_card(parse_card(arg))
        who = teller.name(seat) + (" for the dummy" if hand >= P else "")
        if teller.compact:
            teller.pending.append(f"{teller.hand_name(hand)} {card}"
                                  + (f" ({teller.name(seat)})" if hand >= P else ""))
        else:
            lines.append(f"{who} plays {card}")
        won_after = np.array(e.result(g)["tricks"]) if over else e.state.tricks_won[g]
        gained = np.flatnonzero(won_after > won_before)
        if len(gained) and (over or int(e.state.tricks_done[g]) > tricks_before):
            h = int(gained[0])
            n = int(won_after[h])
            if teller.compact:
                lines.append(f"Trick {tricks_before + 1}: " + ", ".join(teller.pending)
                             + f" -> {teller.hand_name(h)}")
                teller.pending = []
            else:
                lines.append(f"{teller.hand_name(h)} takes trick {tricks_before + 1} "
                             f"({n} trick{'' if n == 1 else 's'})")
    return lines


def result_lines(teller: Teller, res: dict) -> list[str]:
    """A finished deal: declarer, target and tricks, who called and who hit (F1, S1), the
    pot carried over (S4), points and chips, and the match totals (M1)."""
    v = teller.viewer
    tricks = ", ".join(f"{teller.hand_name(h)} {t}" for h, t in enumerate(res["tricks"]))
    lines = [
        f"Deal {res['deal'] + 1} over: declarer {teller.name(res['declarer'])}, "
        f"target {res['target']}; tricks: {tricks}",
        "  called: " + (", ".join(teller.name(s) for s in res["called"]) or "-")
        + "; hit: " + (", ".join(teller.name(s) for s in res["hitters"]) or "-")
        + (f"; pot carried over: {res['carry']}" if res["carry"] else ""),
        f"  points: {teller.by_seat(res['points'], v)}",
        f"  chips:  {teller.by_seat([round(c, 2) for c in res['chips']], v)}",
    ]
    if teller.engine.config.episode == "match":
        lines.append(f"  totals: {teller.by_seat(res['totals'], v)}")
    return lines


# =========================================================================================
# a terminal game
# =========================================================================================
def play_options(variant: str | None, players: int | None) -> dict:
    """The config options meant by ``cardrl play``'s ``--variant`` (the table, A1) and
    ``--players`` (not Abracadabra's: the variant fixes the player count)."""
    if players is not None:
        raise ValueError("--players is for four_aces; Abracadabra's player count comes "
                         f"from --variant (one of {VARIANTS})")
    return {} if variant is None else {"variant": variant}


#: words of the terminal game that name an action (F1: calling is saying the game's name)
WORDS = {"abracadabra": "call"}


def lone_card(card: str, legal: list[str]) -> str:
    """The action meant by a card typed alone: a card to show while showing (D1), else a
    card to play."""
    kinds = {name.partition(":")[0] for name in legal}
    return f"show:{card}" if "show" in kinds else f"play:{card}"


def prompt(engine) -> str:
    """The question put to the player to act."""
    phase = engine.phase_name(0)
    if phase == "bid":
        return f"Your bid (0-{engine.cards_each}): "
    if phase == "show":
        return "Show a card or 'stop': "
    if phase == "call":
        return "Say Abracadabra? (call / no call): "
    dummy = int(engine.state.to_play[0]) >= engine.num_players
    return "Play a card for the dummy: " if dummy else "Play a card: "


def table_lines(engine, seat: int) -> list[str]:
    """What ``seat`` may see beyond the rendered table: nothing (the render shows it all)."""
    return []


def why_illegal(engine, name: str, legal: list[str]) -> str:
    """Why the action ``name`` is not legal now, in words (C1, D1, E2, F1)."""
    kind, _, arg = name.partition(":")
    legal_kinds = {n.partition(":")[0] for n in legal}
    if kind not in ("bid", "show", "stop", "play", "call", "no_call"):
        return f"'{kind}' is not an Abracadabra move"
    phase = engine.phase_name(0)
    doing = {"bid": "it is the bidding", "show": "the declarer is showing cards",
             "call": "it is the moment to say Abracadabra or not",
             "play": "it is the card play"}.get(phase, "the game is over")
    if kind not in legal_kinds and not (kind == "no_call" and "call" in legal_kinds):
        return f"you can't {kind.replace('_', ' ')} now: {doing}"
    if kind == "bid":
        return f"bids go from 0 to {engine.cards_each}"
    card = CARD_NAMES.index(arg)
    if kind == "show":
        seat = int(engine.current_player[0])
        if card not in engine.hand_cards(0, seat):
            return f"you don't hold {pretty_card(card)}"
        return f"{pretty_card(card)} is already shown"
    hand = int(engine.state.to_play[0])
    whose = "the dummy doesn't" if hand >= engine.num_players else "you don't"
    if card not in engine.hand_cards(0, hand):
        return f"{whose} hold {pretty_card(card)}"
    led = int(engine.state.trick[0, engine.state.leader[0]])
    suit = trump(engine) if led == CARD_NAMES.index("JK") else int(led // 13)
    return f"you must follow suit: {SUIT_SYMBOLS[suit]} was led and you hold one"
