"""Four Aces variants: one frozen, validated configuration (docs/rules.md G–K)."""

from __future__ import annotations

from dataclasses import dataclass

from envs.core import check_choice, check_int

#: rounds a match may last when ``max_rounds`` is None: generous (greedy matches to 20
#: points last 4 to 6 rounds, K3) but it guarantees that every episode ends (K4)
DEFAULT_MAX_ROUNDS = 200

# -- ranges of the numeric options, checked on construction ------------------------------
# Chosen so that no sum inside a step can overflow (envs/four_aces/state.py): a round is
# worth -8..22 points to a player (rules.MIN/MAX_ROUND_POINTS), or target_points on four
# aces (which ends the match), so a match total (int32) stays within
# -8 * MAX_ROUNDS .. 22 * MAX_ROUNDS + MAX_TARGET_POINTS, below 2**22 in size.
MAX_TARGET_POINTS = 10**6  #: the largest ``target_points`` (K4)
MAX_ROUNDS = 10**5  #: the largest ``max_rounds`` (K4)
#: (low, high) of every numeric option (inclusive)
RANGES: dict[str, tuple[int, int]] = {
    "num_players": (3, 5),
    "target_points": (1, MAX_TARGET_POINTS),
    "max_rounds": (1, MAX_ROUNDS),
}


@dataclass(frozen=True)
class FourAcesConfig:
    """The variant played. Every field is validated on construction (``ValueError``).

    Attributes:
        num_players: 3 to 5 players (G1).
        scoring: ``"strict"`` (default: loose cards pairwise differ in rank and suit) or
            ``"free"`` (loose cards unrestricted) — K3.
        dealer: ``"ace_of_spades"`` (default: the ace-of-spades draw before every round)
            or ``"rotate"`` (the draw for the first round, then the deal passes left) — G2.
        episode: ``"round"`` (an episode is one round) or ``"match"`` (rounds until K4).
        reward: ``"points"`` (round points when a round ends), ``"relative"`` (own round
            points minus the mean of the others') or ``"win"`` (zero-sum at match end;
            needs ``episode="match"``).
        target_points: a match ends after the round in which someone reaches it (K4),
            1..10**6.
        max_rounds: bound on the rounds of a match (K4), 1..10**5; None means
            :data:`DEFAULT_MAX_ROUNDS`.

    The numeric ranges (:data:`RANGES`) keep every total inside its int32 array whatever
    the play (worst case above :data:`RANGES`); a value outside them, or not an int, is a
    ``ValueError`` naming the field, the value and the range.
    """

    num_players: int = 4
    scoring: str = "strict"
    dealer: str = "ace_of_spades"
    episode: str = "round"
    reward: str = "points"
    target_points: int = 20
    max_rounds: int | None = None

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, *RANGES["num_players"])
        check_choice("scoring", self.scoring, ("strict", "free"))
        check_choice("dealer", self.dealer, ("ace_of_spades", "rotate"))
        check_choice("episode", self.episode, ("round", "match"))
        check_choice("reward", self.reward, ("points", "relative", "win"))
        if self.reward == "win" and self.episode != "match":
            raise ValueError(
                "reward='win' is not allowed with episode='round': the win reward is paid "
                "at match end, so it needs episode='match'"
            )
        check_int("target_points", self.target_points, *RANGES["target_points"])
        if self.max_rounds is not None:
            check_int("max_rounds", self.max_rounds, *RANGES["max_rounds"])

    @property
    def round_limit(self) -> int:
        """The effective bound on rounds per match (``max_rounds`` or the default)."""
        return DEFAULT_MAX_ROUNDS if self.max_rounds is None else int(self.max_rounds)
