"""A High Card table as a :class:`~envs.table_view.Scene`: each hand (face down but the
viewer's, unless ``face_up``), the trick in the centre, tricks won."""

from __future__ import annotations

import numpy as np

from envs.cards import CARD_NAMES
from envs.table_view import Scene, SeatView


def scene(engine, game: int = 0, seat: int | None = 0, face_up: bool = False) -> Scene:
    st, g, P = engine.state, game, engine.num_players
    to_act = int(st.current_player[g])
    legal = engine.legal_action_mask()[g] if to_act >= 0 else np.zeros(52, bool)
    seats = []
    for p in range(P):
        cards = [CARD_NAMES[c] for c in np.flatnonzero(st.hand[g, p])]
        shown = face_up or p == seat
        seats.append(SeatView(
            hand_index=p, label=f"player_{p}", hand=cards if shown else [None] * len(cards),
            facts=[f"tricks {int(st.tricks[g, p])}"], to_act=p == to_act, viewer=p == seat,
            legal=[CARD_NAMES[c] for c in np.flatnonzero(legal)] if p == to_act == seat
            else []))
    played = [(p, CARD_NAMES[int(st.trick[g, p])]) for p in range(P) if st.trick[g, p] >= 0]
    over = bool(st.game_over[g])
    return Scene(
        game="high_card", title=f"High Card ({P} players)",
        headline=f"Deal 1 · {'over' if over else 'play'}"
                 + ("" if over else f" · player_{to_act} to act"),
        phase="over" if over else "play", seats=seats,
        center_title=f"Trick {int(st.tricks_played[g]) + 1}", center=played, info=[],
        viewer=None if face_up else seat, face_up=face_up, to_act=to_act,
        card_actions={CARD_NAMES[c]: f"play:{CARD_NAMES[c]}" for c in np.flatnonzero(legal)}
        if to_act == seat else {})
