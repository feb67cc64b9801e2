"""Text view of an Abracadabra table as one seat sees it (no hidden cards of others)."""

from __future__ import annotations

import numpy as np

from envs.cards import SUIT_SYMBOLS, pretty_card, sort_key

from .engine import AbracadabraEngine
from .rules import Phase
from .state import unpack_cards


def _cards(cards, trump: int) -> str:
    cards = sorted((int(c) for c in cards), key=lambda c: sort_key(c, trump))
    return " ".join(pretty_card(c) for c in cards) if cards else "-"


def deal_number(engine: AbracadabraEngine, game: int) -> int:
    """The deal on the table, counted from 1: the one being played, or once the episode is
    over the last one played (``deals_done`` already counts it then), as the picture's
    headline and ``info["result"]["deal"] + 1`` say."""
    st = engine.state
    return int(st.deals_done[game]) + (0 if int(st.phase[game]) == Phase.OVER else 1)


def render_text(engine: AbracadabraEngine, game: int, seat: int) -> str:
    """A readable table of ``game`` from ``seat``: own hand (by suit, trumps last), the
    dummy's and the shown cards, trump, bids, declarer and target, the current trick,
    tricks won, calls, scores and pot."""
    e, st, P, H = engine, engine.state, engine.num_players, engine.num_hands
    trump = int(st.trump[game])
    name = [f"player_{s}" for s in range(P)] + (["dummy"] if e.has_dummy else [])
    lines = [
        f"Abracadabra ({e.config.variant}) - deal {deal_number(engine, game)}, "
        f"dealer {name[st.dealer[game]]}, phase {e.phase_name(game)}"
        + (f", {name[st.current_player[game]]} to act" if st.current_player[game] >= 0 else "")
    ]
    lo = int(st.leftover[game])
    trump_text = SUIT_SYMBOLS[trump] if trump >= 0 else "none"
    lines.append(f"Trump: {trump_text} (leftover {pretty_card(lo) if lo >= 0 else '-'})")
    bids = ", ".join(
        f"{name[s]} {b if b >= 0 else '-'}" for s, b in enumerate(st.bids[game].tolist())
    )
    lines.append(f"Bids: {bids}")
    d = int(st.declarer[game])
    if d >= 0:
        shown = np.flatnonzero(unpack_cards(st.shown_bits[game]))
        lines.append(
            f"Declarer: {name[d]}, target {int(st.target[game])}, "
            f"shown {int(st.num_shown[game])}: {_cards(shown, trump)}"
        )
    if e.has_dummy:
        lines.append(f"Dummy: {_cards(e.hand_cards(game, P), trump)}")
        if st.dummy_ctrl[game] >= 0:
            lines.append(f"Dummy played by: {name[st.dummy_ctrl[game]]}")
    if st.phase[game] == Phase.PLAY or st.trick_size[game] > 0:
        trick = [
            f"{name[h]} {pretty_card(int(c))}" for h, c in enumerate(st.trick[game]) if c >= 0
        ]
        lines.append(f"Trick (led by {name[st.leader[game]]}): {', '.join(trick) or '-'}")
    won = ", ".join(f"{name[h]} {int(st.tricks_won[game, h])}" for h in range(H))
    lines.append(f"Tricks won: {won}")
    called = [name[s] for s in range(P) if st.called[game, s]]
    lines.append(f"Called Abracadabra: {', '.join(called) or '-'}")
    scores = ", ".join(f"{name[s]} {int(st.totals[game, s])}" for s in range(P))
    lines.append(f"Scores: {scores}; pot {int(st.pot[game])}")
    lines.append(f"Your hand ({name[seat]}): {_cards(e.hand_cards(game, seat), trump)}")
    return "\n".join(lines)
