"""A finished deal's points explained, by the game's own ``results`` module (its
descriptor's :attr:`envs.registry.Game.results`: Abracadabra's points by rule S1–S4,
Four Aces' by combination K2); a game without one gets each seat's points and total."""

from __future__ import annotations

from envs import registry


def _piece(game: str, name: str):
    """The function ``name`` of ``game``'s results module, or None."""
    descriptor = registry.get(game)
    return getattr(descriptor.load("results"), name, None) if descriptor.results else None


def needs_state_before(game: str, engine) -> bool:
    """Whether the next step's result needs the state before it (the game's
    ``needs_state_before``; Four Aces: a match round the step may end, whose cards the
    next deal replaces)."""
    check = _piece(game, "needs_state_before")
    return bool(check(engine)) if check is not None else False


def round_end_cards(game: str, engine_before, action: int) -> list[list[str]] | None:
    """Every seat's scoring cards at the end of the round ``action`` ends
    (``engine_before``: the state before it), or None (the game's ``round_end_cards``)."""
    cards = _piece(game, "round_end_cards")
    return cards(engine_before, action) if cards is not None else None


def breakdown(game: str, engine, result: dict, cards: list[list[str]] | None = None) -> dict:
    """``{"kind", "rows", "heading", "columns", "cells", "notes"}``: the points of a
    finished deal, one row per seat, and the table the page shows (cells as strings)."""
    explain = _piece(game, "breakdown")
    if explain is not None:
        return explain(engine, result, cards)
    points, totals = result.get("points", []), result.get("totals", [])
    rows = [{"seat": s, "points": p, "total": t}
            for s, (p, t) in enumerate(zip(points, totals, strict=False))]
    return {"kind": "points", "rows": rows, "heading": "Result",
            "columns": ["seat", "points", "total"],
            "cells": [[f"player_{r['seat']}", str(r["points"]), str(r["total"])]
                      for r in rows], "notes": []}


def step_mark(game: str, engine, scene, step: int) -> str:
    """The replay's mark of the position after ``step`` actions (the game's
    ``step_mark``; else the scene's first headline part and the step)."""
    mark = _piece(game, "step_mark")
    if mark is not None:
        return mark(engine, scene, step)
    return f"{scene.headline.split(' · ')[0]}, step {step + 1}"
