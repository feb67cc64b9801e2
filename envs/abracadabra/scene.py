"""An Abracadabra table as a :class:`~envs.table_view.Scene` (docs/rules.md A–S).

Seen from one seat: its own hand, the dummy's face-up hand (E4), the declarer's shown
cards (D1) and the public facts — trump and the turned-up leftover (B2), bids (C1), the
declarer and target (C3), the current trick (E1–E3), tricks won, calls (F1), scores and
the pot (S4). ``face_up`` shows every hand (replays). Every read of the engine's state
is in this module.
"""

from __future__ import annotations

import numpy as np

from envs.cards import CARD_NAMES, SUIT_SYMBOLS, pretty_card, sort_key
from envs.table_view import Scene, SeatView

from .rules import PLAY_OFFSET, SHOW_OFFSET, Phase

CALL_PHASE, OVER, PLAY, SHOW = Phase.CALL, Phase.OVER, Phase.PLAY, Phase.SHOW

_PHASE_WORDS = ("bidding", "showing cards", "Abracadabra?", "play", "over")


def _names(cards, trump: int) -> list[str]:
    return [CARD_NAMES[c] for c in sorted((int(c) for c in cards),
                                           key=lambda c: sort_key(c, trump))]


def scene(engine, game: int = 0, seat: int | None = 0, face_up: bool = False) -> Scene:
    """The table of ``game`` as ``seat`` sees it, or face up (see the module docstring)."""
    e, g = engine, game
    P, H = e.num_players, e.num_hands
    viewer = None if face_up else int(seat)
    phase = int(e.state.phase[g])
    trump = int(e.state.trump[g])
    to_act = int(e.current_player[g])
    to_play = int(e.state.to_play[g])
    declarer = int(e.state.declarer[g])
    dummy_ctrl = int(e.state.dummy_ctrl[g])
    shown = set(np.flatnonzero(e.state.shown()[g]).tolist())
    label = [f"player_{s}" for s in range(P)] + (["dummy"] if e.has_dummy else [])
    acting_hand = to_play if phase == PLAY else (declarer if phase == SHOW else to_act)

    # the hand whose cards are chosen now, and what a click on one of its cards does
    mask = e.legal_action_mask()[g]
    click_hand, card_actions, legal = -1, {}, []
    if phase in (PLAY, SHOW) and (face_up or to_act == viewer):
        click_hand = acting_hand
        offset, verb = (PLAY_OFFSET, "play") if phase == PLAY else (SHOW_OFFSET, "show")
        for c in e.hand_cards(g, click_hand):
            card_actions[CARD_NAMES[c]] = f"{verb}:{CARD_NAMES[c]}"
            if mask[offset + c]:
                legal.append(CARD_NAMES[c])

    seats = []
    for h in range(H):
        cards = e.hand_cards(g, h)
        visible = face_up or h == viewer or h >= P  # E4: the dummy lies face up
        if visible:
            hand = _names(cards, trump)
        else:  # D1: shown cards face up, the rest face down
            hand = _names([c for c in cards if c in shown], trump)
            hand += [None] * (len(cards) - len(hand))
        facts, badges = [], []
        if h < P:
            bid = int(e.state.bids[g, h])
            if bid >= 0:
                facts.append(f"bid {bid}")
            if phase in (PLAY, CALL_PHASE) or int(e.state.tricks_done[g]) > 0:
                facts.append(f"tricks {int(e.state.tricks_won[g, h])}")
            facts.append(f"total {int(e.totals[g, h])}")
            if int(e.state.dealer[g]) == h:
                badges.append("dealer")
            if declarer == h:
                badges.append("declarer")
            if e.state.called[g, h]:
                badges.append("Abracadabra!")
            if e.has_dummy and dummy_ctrl == h and phase == PLAY:
                badges.append("plays the dummy")
        else:
            facts.append(f"tricks {int(e.state.tricks_won[g, h])}")
            if dummy_ctrl >= 0 and phase == PLAY:
                facts.append(f"played by {label[dummy_ctrl]}")
        seats.append(SeatView(
            hand_index=h, label=label[h], hand=hand,
            shown=[CARD_NAMES[c] for c in sorted(shown) if c in cards and h == declarer],
            facts=facts, badges=badges,
            to_act=phase != OVER and h == acting_hand,
            viewer=h == viewer, legal=legal if h == click_hand else []))

    # the current trick, in play order from its leader
    leader = int(e.state.leader[g])
    trick = e.state.trick[g].tolist()
    center = []
    if leader >= 0:
        for k in range(H):
            h = (leader + k) % H
            if trick[h] >= 0:
                center.append((h, CARD_NAMES[trick[h]]))
    done = int(e.state.tricks_done[g])
    if phase == PLAY or center:
        center_title = f"Trick {done + 1} of {e.cards_each}, led by {label[leader]}"
    elif phase == OVER:
        center_title = "Deal over"
    else:
        center_title = _PHASE_WORDS[phase].capitalize()

    leftover = int(e.state.leftover[g])
    if trump >= 0:
        info = [f"Trump {SUIT_SYMBOLS[trump]} ({pretty_card(leftover)} turned up)"]
    elif leftover >= 0:
        info = ["No trump (the joker turned up)"]
    else:
        info = ["No trump (no card left over)"]
    if declarer >= 0:
        info.append(f"Target {int(e.state.target[g])}, declarer {label[declarer]}")
        k = int(e.state.num_shown[g])
        if k:
            info.append(f"{k} card{'s' if k > 1 else ''} shown, stake "
                        f"{int(e.state.stakes[g, declarer])}")
    info.append(f"Pot {int(e.pot[g])}")
    deal = int(e.state.deals_done[g]) + (1 if phase != OVER else 0)
    headline = f"Deal {deal} · {_PHASE_WORDS[phase]}"
    if to_act >= 0:
        headline += f" · {label[to_act]} to act"
        if e.has_dummy and phase == PLAY and to_play >= P:
            headline += " (for the dummy)"
    return Scene(
        game="abracadabra", title=f"Abracadabra ({e.config.variant})", headline=headline,
        phase=("bid", "show", "call", "play", "over")[phase], seats=seats,
        center_title=center_title, center=center, info=info, stock=None,
        viewer=viewer, face_up=face_up, to_act=to_act, card_actions=card_actions,
        result=result_lines(e.result(g), P))


def result_lines(result: dict | None, num_players: int) -> list[str]:
    """The last finished deal in a few short lines (S1–S4)."""
    if result is None:
        return []
    points = ", ".join(f"player_{s} {p}" for s, p in enumerate(result["points"]))
    hit = ", ".join(f"player_{s}" for s in result["hitters"]) or "nobody"
    lines = [f"Deal {result['deal'] + 1}: target {result['target']}, hit: {hit}",
             f"Points: {points}"]
    if result.get("match_over") and result.get("winners") is not None:
        lines.append("Winner: " + ", ".join(f"player_{s}" for s in result["winners"]))
    return lines


def points_by_rule(result: dict, config) -> list[dict]:
    """Each seat's points of a finished deal split by rule: tricks (S2), cards of
    bid-rank T taken (S3, 2 each), bonus (S1), and the chips: stake, pot share (S4) and
    final share (M2). Sums: ``tricks + 2 * rank_cards + bonus == points``."""
    hitters = result["hitters"]
    bonus = config.bonus[len(hitters) - 1] if hitters else 0
    rows = []
    for s, points in enumerate(result["points"]):
        tricks = int(result["tricks"][s])
        got_bonus = bonus if s in hitters else 0
        rows.append({
            "seat": s, "tricks": tricks, "rank_cards": (points - tricks - got_bonus) // 2,
            "bonus": got_bonus, "points": points, "called": s in result["called"],
            "hit": s in hitters, "stake": result["stakes"][s],
            "pot_share": result["pot_share"][s], "final_share": result["final_share"][s],
            "chips": result["chips"][s], "total": result["totals"][s]})
    return rows



# -- the web app's result pieces (this game's descriptor names this module as ``results``) --
def breakdown(engine, result: dict, cards: list[list[str]] | None = None) -> dict:
    """A finished deal's points by rule (:func:`points_by_rule`) and the same as a table
    to show: ``heading``, ``columns``, ``cells`` (one list of strings per seat) and
    ``notes``."""
    rows = points_by_rule(result, engine.config)
    hitters = result["hitters"]
    heading = f"Deal {result['deal'] + 1}: target {result['target']}" + (
        f", hit by {', '.join(f'player_{s}' for s in hitters)}" if hitters else ", nobody hit")
    cells = [[f"player_{r['seat']}", _text(r["tricks"]),
              f"{_text(r['rank_cards'])} → {_text(2 * r['rank_cards'])}", _text(r["bonus"]),
              _text(r["points"]), "hit" if r["hit"] else ("called, missed" if r["called"]
                                                          else "-"),
              _text(r["stake"]), _text(r["pot_share"] + r["final_share"]), _text(r["chips"]),
              _text(r["total"])] for r in rows]
    return {"kind": "rules", "rows": rows, "heading": heading,
            "columns": ["seat", "tricks", "bid-rank cards ×2", "bonus", "points", "called",
                        "stake", "pot share", "chips", "total"],
            "cells": cells,
            "notes": [f"Pot carried over: {_text(result['carry'])}"] if result.get("carry")
            else []}


def step_mark(engine, scene: Scene, step: int) -> str:
    """A replay's mark for the position after ``step`` actions of game 0: the deal and
    the trick being played, or the deal and its phase (``scene``: its scene)."""
    deal = int(engine.state.deals_done[0]) + (scene.phase != "over")
    if scene.phase == "play":
        return f"Deal {deal}, trick {int(engine.state.tricks_done[0]) + 1} of {engine.cards_each}"
    return f"Deal {deal}, {scene.phase}"


def _text(value) -> str:
    """A number as the page writes it (``2`` for 2.0)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
