"""Tell the steps of one game of a batch engine in sentences, for any game.

:class:`Narrator` is the game-neutral driver: it names seats and cards and adds what all
games share (the deal header after a finished deal, the match winners); the game's
``narration`` module (:attr:`envs.registry.Game.narration`) tells its deals, moves and
results, reading the engine through the narrator passed to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from envs import registry
from envs.cards import pretty_card, sort_key


def seat_name(seat: int, viewer: int | None = None) -> str:
    """How a seat is called: ``player_2``, or ``player_2 (you)`` for the ``viewer``."""
    return f"player_{seat}" + (" (you)" if seat == viewer else "")


class Narrator:
    """Turns the steps of one game (row ``g``) of an engine into sentences.

    ``viewer``: the seat of a human player (marked "(you)"; his own draws are told);
    ``reveal``: tell every hidden card (replays). ``compact``: one line per bidding round
    and per trick instead of one per action.
    """

    def __init__(self, game: str, engine, g: int = 0, viewer: int | None = None,
                 reveal: bool = False, compact: bool = False):
        self.game, self.engine, self.g = game, engine, g
        self.viewer, self.reveal, self.compact = viewer, reveal, compact
        self.pending: list[str] = []  # the parts of the compact line being built
        self.turn = 0  # turns told in this deal / round
        self._rules = registry.get(game).load("narration")

    # -- wording shared by the games ------------------------------------------------------
    def name(self, seat: int) -> str:
        """A seat's name, "(you)" for the viewer."""
        return seat_name(seat, self.viewer)

    def hand_name(self, hand: int) -> str:
        """A hand's name: its seat's, or "dummy" for the hand beyond the seats."""
        return "dummy" if hand >= self.engine.num_players else self.name(hand)

    @staticmethod
    def cards_text(cards: Iterable[int], trump: int = -1) -> str:
        """Cards (indices) in display order under ``trump``, "-" for none."""
        cards = sorted((int(c) for c in cards), key=lambda c: sort_key(c, trump))
        return " ".join(pretty_card(c) for c in cards) or "-"

    @staticmethod
    def by_seat(values: Sequence, viewer: int | None = None) -> str:
        """One value per seat: ``player_0 3, player_1 -1.5``."""
        return ", ".join(f"{seat_name(s, viewer)} {v:g}" if isinstance(v, float) else
                         f"{seat_name(s, viewer)} {v}" for s, v in enumerate(values))

    # -- telling --------------------------------------------------------------------------
    def deal_header(self) -> list[str]:
        """The deal just dealt: dealer, trump / table cards, and every hand if revealed."""
        return self._rules.deal_header(self)

    def step(self, action: int, do_step: Callable[[], object]) -> list[str]:
        """Call ``do_step()`` (which applies ``action`` to the game) and return what
        happened, in sentences: the move, and at the end of a deal its result and the
        next deal."""
        lines = self._rules.step(self, action, do_step)
        e, g = self.engine, self.g
        if e.deal_over[g]:
            lines += self.result_lines(e.result(g))
            if not e.game_over[g]:
                lines += self.deal_header()
        return lines

    def flush(self) -> list[str]:
        """The unfinished compact line, if any."""
        out, self.pending = self.pending, []
        return ["  " + ", ".join(out)] if out else []

    def result_lines(self, res: dict | None) -> list[str]:
        """A finished deal / round, and the match result when it is over."""
        if res is None:
            return []
        lines = self._rules.result_lines(self, res)
        if res.get("match_over") and res.get("winners") is not None:
            won = ", ".join(self.name(s) for s in res["winners"])
            lines.append(f"Winner{'s' if len(res['winners']) > 1 else ''}: {won}")
        return lines
