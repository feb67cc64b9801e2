"""The configurations the fuzz plays: every variant and player count, crossed with the
options that change the rules' paths.

Each game lists its own (its descriptor's ``fuzz_cases``, next to its reference checker:
:func:`envs.fuzz.abracadabra.fuzz_options`, :func:`envs.fuzz.four_aces.fuzz_options`);
:func:`all_cases` reads them from the registry.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from envs import registry


@dataclass(frozen=True)
class FuzzCase:
    """One configuration: the game and its config options."""

    game: str
    options: dict = field(hash=False)

    @property
    def label(self) -> str:
        """``game key=value ...``: how reports name the case (and ``--only`` selects it)."""
        return " ".join([self.game, *(f"{k}={v}" for k, v in self.options.items())])


def fuzzed_games() -> tuple[str, ...]:
    """The registered games that provide fuzz cases and a reference checker."""
    return tuple(g for g in registry.GAMES
                 if registry.get(g).fuzz_cases and registry.get(g).fuzz_checker)


def all_cases(game: str | None = None) -> list[FuzzCase]:
    """The cases of ``game`` (None: every game that provides them). A game without a
    fuzz reference is a ``ValueError`` in one line."""
    if game is not None:
        descriptor = registry.get(game)
        descriptor.require("fuzz_checker", "fuzz reference")
        return [FuzzCase(game, options) for options in descriptor.load("fuzz_cases")()]
    return [c for name in fuzzed_games() for c in all_cases(name)]
