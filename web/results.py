"""A finished deal's points explained: by rule (Abracadabra S1–S4) or by combination
(Four Aces K2), from the game's ``scene`` module."""

from __future__ import annotations

from envs.abracadabra.scene import points_by_rule
from envs.four_aces.scene import points_by_combination, round_may_end, scoring_cards
from envs.four_aces.scene import round_end_cards as _four_round_end


def needs_state_before(game: str, engine) -> bool:
    """Whether the next step's result needs the state before it: a Four Aces match round
    that the step may end by emptying the stock (the next round is dealt at once, so the
    round's cards are gone after the step; a round episode keeps them, and a four-aces
    win, H4, has no combinations to show)."""
    return game == "four_aces" and engine.config.episode == "match" and round_may_end(engine)


def round_end_cards(engine_before, action: int) -> list[list[str]] | None:
    """Four Aces: every seat's scoring cards at the end of the round ``action`` ends
    (``engine_before``: the state before it), or None."""
    return _four_round_end(engine_before, action)


def breakdown(game: str, engine, result: dict, cards: list[list[str]] | None = None) -> dict:
    """``{"kind": "rules" | "combinations", "rows": [...]}``: one row per seat.
    ``cards``: Four Aces' scoring cards at the round's end (default: the engine's now)."""
    if game == "abracadabra":
        return {"kind": "rules", "rows": points_by_rule(result, engine.config)}
    if cards is None:
        cards = scoring_cards(engine)
    return {"kind": "combinations",
            "rows": points_by_combination(result, cards, engine.config)}
