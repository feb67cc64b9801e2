"""Text rendering of a Four Aces game as one seat sees it (no hidden card is shown)."""

from __future__ import annotations

import numpy as np

from envs.cards import JOKER, pretty_card, sort_key
from envs.four_aces.rules import DECK_SIZE


def _cards(counts: np.ndarray) -> str:
    cards = [c for c in np.flatnonzero(counts) for _ in range(int(counts[c]))]
    cards.sort(key=sort_key)
    return " ".join(pretty_card(c) for c in cards) or "-"


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def render_text(engine, game: int = 0, seat: int = 0) -> str:
    """A readable view of ``game`` of ``engine`` (a FourAcesEngine) for ``seat``, from its
    public state: own hand, every table, the discard pile (top card and size), the stock
    size, hand sizes and limits L (G7: "hand 4 of L=4"), and the scores (docs/rules.md, "What
    each player knows")."""
    st = engine.state
    lines = []
    if st.game_over[game]:
        lines.append(f"Four Aces — game over (round {int(st.rounds_played[game])})")
    else:
        to_act = int(st.current_player[game])
        lines.append(
            f"Four Aces — round {int(st.rounds_played[game]) + 1}, "
            f"dealer player_{int(st.dealer[game])}, player_{to_act} to act"
        )
    size = int(st.discard_size[game])
    top = pretty_card(int(st.discard[game, size - 1])) if size else "-"
    stock = DECK_SIZE - int(st.stock_top[game])
    lines.append(f"stock: {_count(stock)}   discard pile: {_count(size)}, top {top}")
    for p in range(engine.num_players):
        me = " (you)" if p == seat else ""
        lines.append(
            f"player_{p}{me}: total {int(st.totals[game, p])}, "
            f"hand {int(st.hand_size[game, p])} of L={int(st.hand_limit[game, p])}, "
            f"table {_cards(st.table[game, p])}"
        )
    hand = st.hand[game, seat]
    jokers = f" (+{int(hand[JOKER])} joker)" if hand[JOKER] == 1 else ""
    jokers = f" (+{int(hand[JOKER])} jokers)" if hand[JOKER] > 1 else jokers
    hand_cards = hand.copy()
    hand_cards[JOKER] = 0
    lines.append(f"your hand: {_cards(hand_cards)}{jokers}")
    return "\n".join(lines)
