"""A Four Aces table as a :class:`~envs.table_view.Scene` (docs/rules.md G–K).

Seen from one seat: its own hand, every player's face-up table cards (G3), the discard
pile (top cards, H2), the stock's size, every hand's size and limit L (G7), the dealer
(G2) and the scores (K4). ``face_up`` shows every hand (replays). Every read of the
engine's state is in this module.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

from envs.cards import CARD_NAMES, JOKER, sort_key
from envs.table_view import Scene, SeatView

from .explain import best_split
from .rules import DECK_SIZE, DISCARD_OFFSET

#: discard-pile cards drawn in the centre (the top ones)
PILE_SHOWN = 6


def _cards(counts: np.ndarray) -> list[str]:
    cards = [int(c) for c in np.flatnonzero(counts) for _ in range(int(counts[c]))]
    return [CARD_NAMES[c] for c in sorted(cards, key=sort_key)]


def scene(engine, game: int = 0, seat: int | None = 0, face_up: bool = False) -> Scene:
    """The table of ``game`` as ``seat`` sees it, or face up (see the module docstring)."""
    e, g = engine, game
    P = e.num_players
    viewer = None if face_up else int(seat)
    over = bool(e.game_over[g])
    to_act = int(e.current_player[g])
    mask = e.legal_action_mask()[g]
    card_actions, legal = {}, []
    if not over and (face_up or to_act == viewer):
        for name in _cards(e.state.hand[g, to_act]):
            card_actions[name] = f"discard:{name}"
            if mask[DISCARD_OFFSET + CARD_NAMES.index(name)]:
                legal.append(name)
    four = int(e.state.four_aces_winner[g])
    seats = []
    for s in range(P):
        visible = face_up or s == viewer
        hand = _cards(e.state.hand[g, s]) if visible else [None] * int(e.state.hand_size[g, s])
        badges = ["dealer"] if int(e.state.dealer[g]) == s else []
        if four == s and bool(e.state.has_result[g]):
            badges.append("four aces!")
        seats.append(SeatView(
            hand_index=s, label=f"player_{s}", hand=hand, table=_cards(e.state.table[g, s]),
            facts=[f"hand {int(e.state.hand_size[g, s])}, L={int(e.state.hand_limit[g, s])}",
                   f"total {int(e.totals[g, s])}"],
            badges=badges, to_act=not over and s == to_act, viewer=s == viewer,
            legal=list(dict.fromkeys(legal)) if s == to_act else []))
    size = int(e.state.discard_size[g])
    pile = [CARD_NAMES[int(c)] for c in e.state.discard[g, max(0, size - PILE_SHOWN):size]]
    stock = DECK_SIZE - int(e.state.stock_top[g])
    rounds = int(e.state.rounds_played[g])
    headline = f"Round {rounds + (0 if over else 1)} · "
    headline += "over" if over else f"player_{to_act} to act"
    info = [f"Stock: {stock} card{'s' if stock != 1 else ''}",
            f"Dealer: player_{int(e.state.dealer[g])}",
            f"Scoring: {e.config.scoring}"]
    return Scene(
        game="four_aces", title=f"Four Aces ({P} players)", headline=headline,
        phase="over" if over else "turn", seats=seats,
        center_title=f"Discard pile ({size} card{'s' if size != 1 else ''})" if size
        else "Discard pile: empty",
        center=[(-1, c) for c in pile], info=info, stock=stock, viewer=viewer,
        face_up=face_up, to_act=to_act, card_actions=card_actions,
        result=result_lines(e.result(g)))


def result_lines(result: dict | None) -> list[str]:
    """The last finished round in a few short lines (K1–K4)."""
    if result is None:
        return []
    if result["four_aces"] is not None:
        lines = [f"player_{result['four_aces']} holds all four aces and wins the match"]
    else:
        points = ", ".join(f"player_{s} {p:+d}" for s, p in enumerate(result["round_points"]))
        lines = [f"Round {result['round'] + 1}: {points}"]
    if result.get("match_over") and result.get("winners") is not None:
        lines.append("Winner: " + ", ".join(f"player_{s}" for s in result["winners"]))
    return lines


def scoring_cards(engine, game: int = 0) -> list[list[str]]:
    """Each seat's scoring cards now: the non-joker cards of his hand and table (K1)."""
    e, g = engine, game
    out = []
    for s in range(e.num_players):
        counts = e.state.hand[g, s, :JOKER] + e.state.table[g, s, :JOKER]
        out.append(_cards(counts))
    return out


def round_may_end(engine, game: int = 0) -> bool:
    """Whether the next turn can end the round by emptying the stock (H3): a turn takes
    at most three cards from it (a discard's refill with two jokers, G6/G7)."""
    return DECK_SIZE - int(engine.state.stock_top[game]) <= 3


def round_end_cards(engine, action: int, game: int = 0) -> list[list[str]] | None:
    """The scoring cards of every seat at the end of the round that ``action`` ends,
    or None if it does not end one. ``engine`` is the state before the action (it is
    not changed): the action is replayed on a copy of game ``game`` whose config stops
    at the round's end, so that a match's next deal does not replace the cards."""
    trial = play_to_round_end(engine, action, game, reward="points")
    return None if trial is None else scoring_cards(trial, game)


def play_to_round_end(engine, action: int, game: int = 0, **config):
    """A copy of ``engine`` (not changed) whose config stops at the round's end (plus the
    ``config`` changes), with ``action`` played in game ``game``; None if the action does
    not end the round there."""
    trial = copy.deepcopy(engine)
    trial.config = dataclasses.replace(trial.config, episode="round", **config)
    actions = np.zeros(trial.batch_size, np.int64)
    actions[game] = action
    active = np.zeros(trial.batch_size, bool)
    active[game] = True
    trial.step(actions, active)
    if not trial.deal_over[game]:
        return None
    return trial


def points_by_combination(result: dict, cards: list[list[str]], config) -> list[dict]:
    """Each seat's round points split into K2 combinations (:func:`best_split`), from
    the round's scoring cards (:func:`round_end_cards`). A four-aces round (H4, K1) has
    no split: that seat gets ``target_points``."""
    rows = []
    for s, seat_cards in enumerate(cards):
        if result["four_aces"] is not None:
            won = s == result["four_aces"]
            rows.append({"seat": s, "cards": seat_cards, "combinations": [], "loose": [],
                         "points": config.target_points if won else 0,
                         "four_aces": won, "total": result["totals"][s]})
            continue
        split = best_split(seat_cards, config.scoring)
        rows.append({"seat": s, "cards": seat_cards, "combinations": split["combinations"],
                     "loose": split["loose"], "points": split["total"], "four_aces": False,
                     "total": result["totals"][s]})
    return rows



# -- the web app's result pieces (this game's descriptor names this module as ``results``) --
def needs_state_before(engine, game: int = 0) -> bool:
    """Whether the next step's result needs the state before it: a match round that the
    step may end by emptying the stock (the next round is dealt at once, so the round's
    cards are gone after the step; a round episode keeps them, and a four-aces win, H4,
    has no combinations to show)."""
    return engine.config.episode == "match" and round_may_end(engine, game)


def breakdown(engine, result: dict, cards: list[list[str]] | None = None) -> dict:
    """A finished round's points by combination (:func:`points_by_combination`; ``cards``:
    the scoring cards at the round's end, default the engine's now) and the same as a
    table to show: ``heading``, ``columns``, ``cells`` (one list of strings per seat) and
    ``notes``."""
    if cards is None:
        cards = scoring_cards(engine)
    rows = points_by_combination(result, cards, engine.config)
    holder = result["four_aces"]
    heading = (f"player_{holder} holds all four aces!" if holder is not None
               else f"Round {result['round'] + 1}")
    cells = []
    for r in rows:
        combos = [f"{c['name']} {' '.join(c['cards'])} ({'+' if c['points'] > 0 else ''}"
                  f"{c['points']})" for c in r["combinations"]]
        cells.append([f"player_{r['seat']}", " ".join(r["cards"]) or "-",
                      "four aces" if r["four_aces"] else ("; ".join(combos) or "-"),
                      " ".join(r["loose"]) or "-", str(r["points"]), str(r["total"])])
    return {"kind": "combinations", "rows": rows, "heading": heading,
            "columns": ["seat", "scoring cards", "combinations", "loose", "points", "total"],
            "cells": cells, "notes": []}


def step_mark(engine, scene: Scene, step: int) -> str:
    """A replay's mark for the position after ``step`` actions of game 0: the round and
    the turn."""
    rounds = int(engine.state.rounds_played[0]) + (not engine.game_over[0])
    return f"Round {rounds}, turn {step + 1}"
