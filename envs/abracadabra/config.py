"""Abracadabra variants and options: a frozen, validated configuration.

Every option is a declared parameter with a one-line meaning, checked when the config is
built (``ValueError`` naming the option and listing what is allowed). The variant table
is docs/rules.md section A.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.cards import deck
from envs.core import check_choice, check_int

VARIANTS = ("four", "three", "two_dummy", "two")
RAISE_MODES = ("multiple", "add")
CALL_MODES = ("manual", "auto")
EPISODES = ("deal", "match")
REWARDS = ("points", "relative", "chips", "win")

#: match mode with ``max_deals=None`` stops after this many deals at most (M3)
DEFAULT_MAX_DEALS = 1000

# -- ranges of the numeric options, checked on construction ------------------------------
# Chosen so that no sum inside a step can overflow its array (envs/abracadabra/state.py).
# Worst cases, with P <= 4 bidding players, at most 13 cards shown (D1) and a raise of at
# most MAX_STAKE_UNIT per shown card (D2):
# - a seat's stake in one deal (int32 ``stakes``): ante + 13 * raise <= 14 * 2**20 < 2**24;
# - chips put in one deal: 4 * ante + 13 * raise <= 17 * 2**20 < 2**25; the pot (int64) carries
#   over at most MAX_DEALS deals: < 17 * 2**20 * 10**5 < 2**41, so the pot and the chips
#   (float64 shares of it) are integers or fractions well inside float64's exact 2**53;
# - a deal's points (S1-S3): at most 40 + 13 + 2 * 4 = 61, so match totals (int64) stay
#   below 61 * MAX_DEALS.
MAX_STAKE_UNIT = 2**20  #: the largest ``ante`` and ``raise_increment`` (C2, D2)
MAX_TARGET_POINTS = 10**6  #: the largest ``target_points`` (M1)
MAX_DEALS = 10**5  #: the largest ``max_deals`` (M3)
#: (low, high) of every numeric option (inclusive)
RANGES: dict[str, tuple[int, int]] = {
    "ante": (1, MAX_STAKE_UNIT),
    "raise_increment": (1, MAX_STAKE_UNIT),
    "target_points": (1, MAX_TARGET_POINTS),
    "max_deals": (1, MAX_DEALS),
}


@dataclass(frozen=True)
class VariantSpec:
    """One row of docs/rules.md table A."""

    name: str
    num_players: int  # bidding players (agents)
    num_hands: int  # hands dealt; two_dummy has a dummy, hand index 2
    lowest_rank: str  # lowest rank in the deck ("2", "6" or "9")
    cards_each: int  # cards dealt to every hand = tricks in a deal
    bonus: tuple[int, ...]  # S1 bonus when 1, 2, ... players hit

    @property
    def has_dummy(self) -> bool:
        return self.num_hands > self.num_players


VARIANT_SPECS: dict[str, VariantSpec] = {
    "four": VariantSpec("four", 4, 4, "2", 13, (40, 30, 20, 10)),
    "three": VariantSpec("three", 3, 3, "6", 12, (30, 20, 10)),
    "two_dummy": VariantSpec("two_dummy", 2, 3, "6", 12, (20, 10)),
    "two": VariantSpec("two", 2, 2, "9", 12, (20, 10)),
}


@dataclass(frozen=True)
class AbracadabraConfig:
    """Options of an Abracadabra game (docs/rules.md A–M).

    Attributes:
        variant: ``four`` | ``three`` | ``two_dummy`` | ``two`` — players, deck and bonus
            table (A).
        joker: play with the joker (A1); must be True for ``four``.
        ante: chips every bidding player stakes with his bid (C2), 1..2**20.
        raise_mode: how each shown card raises the declarer's stake (D2): ``multiple``
            (stake = ante × (1 + k)) or ``add`` (stake = ante + k × raise_increment).
        raise_increment: the amount added per shown card in ``add`` mode, 1..2**20.
        call_mode: ``manual`` — saying "Abracadabra" is an agent decision (F1); ``auto`` —
            it is said automatically whenever allowed, never asked.
        episode: ``deal`` — an episode is one deal (a match of one deal); ``match`` — deals
            until someone reaches ``target_points`` (M1) or ``max_deals`` (M3).
        reward: ``points`` (deal points, S1–S3), ``relative`` (own points minus the mean of
            the others'), ``chips`` (net chips of the deal: pot share minus stake), or
            ``win`` (match result; only with ``episode="match"``).
        target_points: points that end a match (M1), 1..10**6.
        max_deals: bound on the deals of a match (M3), 1..10**5; ``None`` means
            ``DEFAULT_MAX_DEALS`` (1000) in match mode. A ``deal`` episode is one deal.

    The numeric ranges (:data:`RANGES`) keep every stake, pot and total inside its array's
    integer type whatever the play (worst cases in the comment above :data:`RANGES`); a
    value outside them, or not an int, is a ``ValueError`` naming the field, the value
    and the range.
    """

    variant: str = "four"
    joker: bool = True
    ante: int = 1
    raise_mode: str = "multiple"
    raise_increment: int = 1
    call_mode: str = "manual"
    episode: str = "deal"
    reward: str = "points"
    target_points: int = 100
    max_deals: int | None = None

    def __post_init__(self) -> None:
        check_choice("variant", self.variant, VARIANTS)
        if not isinstance(self.joker, (bool, np.bool_)):
            raise ValueError(f"joker={self.joker!r} is not allowed: expected True or False")
        if self.variant == "four" and not self.joker:
            raise ValueError("joker=False is not allowed with variant='four': the joker is "
                             "always used in 'four' (rule A1)")
        check_int("ante", self.ante, *RANGES["ante"])
        check_choice("raise_mode", self.raise_mode, RAISE_MODES)
        check_int("raise_increment", self.raise_increment, *RANGES["raise_increment"])
        check_choice("call_mode", self.call_mode, CALL_MODES)
        check_choice("episode", self.episode, EPISODES)
        check_choice("reward", self.reward, REWARDS)
        if self.reward == "win" and self.episode != "match":
            raise ValueError("reward='win' is not allowed with episode='deal': it needs "
                             "episode='match'")
        check_int("target_points", self.target_points, *RANGES["target_points"])
        if self.max_deals is not None:
            check_int("max_deals", self.max_deals, *RANGES["max_deals"])

    # -- derived -------------------------------------------------------------------------
    @property
    def spec(self) -> VariantSpec:
        return VARIANT_SPECS[self.variant]

    @property
    def num_players(self) -> int:
        return self.spec.num_players

    @property
    def num_hands(self) -> int:
        return self.spec.num_hands

    @property
    def cards_each(self) -> int:
        return self.spec.cards_each

    @property
    def bonus(self) -> tuple[int, ...]:
        return self.spec.bonus

    @property
    def deck(self) -> np.ndarray:
        """Card indices of this variant's deck (A), joker last if used."""
        return deck(self.spec.lowest_rank, jokers=int(bool(self.joker)))

    @property
    def leftover_count(self) -> int:
        """Cards left over after the deal: 1 with the joker, else 0 (A1, B2)."""
        return len(self.deck) - self.num_hands * self.cards_each

    @property
    def deals_limit(self) -> int:
        """The most deals an episode can last (M3): 1 for ``deal`` episodes."""
        if self.episode == "deal":
            return 1
        return self.max_deals if self.max_deals is not None else DEFAULT_MAX_DEALS
