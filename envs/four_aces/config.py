"""Four Aces variants: one frozen, validated configuration (RULES.md G–K)."""

from __future__ import annotations

from dataclasses import dataclass

from envs.core import check_choice, check_int

#: rounds a match may last when ``max_rounds`` is None: generous (greedy matches to 20
#: points last 4 to 6 rounds, K3) but it guarantees that every episode ends (K4)
DEFAULT_MAX_ROUNDS = 200


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
        target_points: a match ends after the round in which someone reaches it (K4).
        max_rounds: bound on the rounds of a match (K4); None means
            :data:`DEFAULT_MAX_ROUNDS`.
    """

    num_players: int = 4
    scoring: str = "strict"
    dealer: str = "ace_of_spades"
    episode: str = "round"
    reward: str = "points"
    target_points: int = 20
    max_rounds: int | None = None

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, 3, 5)
        check_choice("scoring", self.scoring, ("strict", "free"))
        check_choice("dealer", self.dealer, ("ace_of_spades", "rotate"))
        check_choice("episode", self.episode, ("round", "match"))
        check_choice("reward", self.reward, ("points", "relative", "win"))
        if self.reward == "win" and self.episode != "match":
            raise ValueError(
                "reward='win' is not allowed with episode='round': the win reward is paid "
                "at match end, so it needs episode='match'"
            )
        check_int("target_points", self.target_points, 1)
        if self.max_rounds is not None:
            check_int("max_rounds", self.max_rounds, 1)

    @property
    def round_limit(self) -> int:
        """The effective bound on rounds per match (``max_rounds`` or the default)."""
        return DEFAULT_MAX_ROUNDS if self.max_rounds is None else int(self.max_rounds)
