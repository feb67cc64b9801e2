"""The configurations the fuzz plays: every variant and player count, crossed with the
options that change the rules' paths.

Abracadabra: each variant (and joker on/off where allowed, A1) × ``call_mode`` ×
``raise_mode`` × ``episode``, with ``reward``, ``ante`` and ``raise_increment`` cycling
through their kinds and extremes (the largest stakes of the config's ranges among them,
so that the worst-case sums are played). Four Aces: 3, 4 and 5 players × ``scoring`` ×
``dealer`` × ``episode``, with ``reward`` and ``target_points`` cycling.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import cycle, product

from envs.abracadabra.config import MAX_STAKE_UNIT

#: (variant, joker) pairs of Abracadabra: the joker is always used in ``four`` (A1)
_ABRA_DECKS = [("four", True), ("three", True), ("three", False), ("two_dummy", True),
               ("two_dummy", False), ("two", True), ("two", False)]
#: (ante, raise_increment): the smallest, a small odd pair and the largest allowed
_STAKES = [(1, 1), (3, 2), (MAX_STAKE_UNIT, MAX_STAKE_UNIT)]
#: match options: a short target, a deal limit reached before the target (M3), and long
#: matches with a pot carried over many deals
_ABRA_MATCHES = [dict(target_points=40), dict(target_points=1000, max_deals=3),
                 dict(target_points=10**6, max_deals=60)]
_FOUR_ACES_MATCHES = [dict(target_points=20), dict(target_points=10**6, max_rounds=4),
                      dict(target_points=60)]


@dataclass(frozen=True)
class FuzzCase:
    """One configuration: the game and its config options."""

    game: str
    options: dict = field(hash=False)

    @property
    def label(self) -> str:
        """``game key=value ...``: how reports name the case (and ``--only`` selects it)."""
        return " ".join([self.game, *(f"{k}={v}" for k, v in self.options.items())])


def abracadabra_cases() -> list[FuzzCase]:
    """Every Abracadabra variant × joker × call_mode × raise_mode × episode (56)."""
    rewards = {"deal": cycle(["points", "relative", "chips"]),
               "match": cycle(["points", "relative", "chips", "win"])}
    stakes, matches = cycle(_STAKES), cycle(_ABRA_MATCHES)
    cases = []
    for (variant, joker), call, raise_mode, episode in product(
        _ABRA_DECKS, ("manual", "auto"), ("multiple", "add"), ("deal", "match")
    ):
        ante, increment = next(stakes)
        options = dict(variant=variant, joker=joker, call_mode=call, raise_mode=raise_mode,
                       episode=episode, reward=next(rewards[episode]), ante=ante,
                       raise_increment=increment)
        if episode == "match":
            options.update(next(matches))
        cases.append(FuzzCase("abracadabra", options))
    return cases


def four_aces_cases() -> list[FuzzCase]:
    """Every Four Aces player count × scoring × dealer × episode (24)."""
    rewards = {"round": cycle(["points", "relative"]),
               "match": cycle(["points", "relative", "win"])}
    matches = cycle(_FOUR_ACES_MATCHES)
    cases = []
    for players, scoring, dealer, episode in product(
        (3, 4, 5), ("strict", "free"), ("ace_of_spades", "rotate"), ("round", "match")
    ):
        options = dict(num_players=players, scoring=scoring, dealer=dealer, episode=episode,
                       reward=next(rewards[episode]))
        if episode == "match":
            options.update(next(matches))
        cases.append(FuzzCase("four_aces", options))
    return cases


def all_cases(game: str | None = None) -> list[FuzzCase]:
    """The cases of ``game`` (None: both games)."""
    cases = {"abracadabra": abracadabra_cases, "four_aces": four_aces_cases}
    if game is not None and game not in cases:
        raise ValueError(f"game={game!r} is not allowed: expected one of {sorted(cases)}")
    return [c for name, make in cases.items() if game in (None, name) for c in make()]
