"""Text view of an Abracadabra table as one seat sees it (no hidden cards of others)."""

from __future__ import annotations

import numpy as np

from envs.cards import SUIT_SYMBOLS, pretty_card, sort_key

from .engine import PLAY, AbracadabraEngine


def _cards(cards, trump: int) -> str:
    cards = sorted((int(c) for c in cards), key=lambda c: sort_key(c, trump))
    return " ".join(pretty_card(c) for c in cards) if cards else "-"


def render_text(engine: AbracadabraEngine, game: int, seat: int) -> str:
    """A readable table of ``game`` from ``seat``: own hand (by suit, trumps last), the
    dummy's and the shown cards, trump, bids, declarer and target, the current trick,
    tricks won, calls, scores and pot."""
    e, P, H = engine, engine.num_players, engine.num_hands
    trump = int(e._trump[game])
    name = [f"player_{s}" for s in range(P)] + (["dummy"] if e.has_dummy else [])
    lines = [
        f"Abracadabra ({e.config.variant}) - deal {int(e._deals_done[game]) + 1}, "
        f"dealer {name[e._dealer[game]]}, phase {e.phase_name(game)}"
        + (f", {name[e.current_player[game]]} to act" if e.current_player[game] >= 0 else "")
    ]
    lo = int(e._leftover[game])
    trump_text = SUIT_SYMBOLS[trump] if trump >= 0 else "none"
    lines.append(f"Trump: {trump_text} (leftover {pretty_card(lo) if lo >= 0 else '-'})")
    bids = ", ".join(
        f"{name[s]} {b if b >= 0 else '-'}" for s, b in enumerate(e._bids[game].tolist())
    )
    lines.append(f"Bids: {bids}")
    d = int(e._declarer[game])
    if d >= 0:
        shown = np.flatnonzero(e._shown[game])
        lines.append(
            f"Declarer: {name[d]}, target {int(e._target[game])}, "
            f"shown {int(e._num_shown[game])}: {_cards(shown, trump)}"
        )
    if e.has_dummy:
        lines.append(f"Dummy: {_cards(e.hand_cards(game, P), trump)}")
        if e._dummy_ctrl[game] >= 0:
            lines.append(f"Dummy played by: {name[e._dummy_ctrl[game]]}")
    if e._phase[game] == PLAY or e._trick_size[game] > 0:
        trick = [
            f"{name[h]} {pretty_card(int(c))}" for h, c in enumerate(e._trick[game]) if c >= 0
        ]
        lines.append(f"Trick (led by {name[e._leader[game]]}): {', '.join(trick) or '-'}")
    won = ", ".join(f"{name[h]} {int(e._tricks_won[game, h])}" for h in range(H))
    lines.append(f"Tricks won: {won}")
    called = [name[s] for s in range(P) if e._called[game, s]]
    lines.append(f"Called Abracadabra: {', '.join(called) or '-'}")
    scores = ", ".join(f"{name[s]} {int(e.totals[game, s])}" for s in range(P))
    lines.append(f"Scores: {scores}; pot {int(e.pot[game])}")
    lines.append(f"Your hand ({name[seat]}): {_cards(e.hand_cards(game, seat), trump)}")
    return "\n".join(lines)
