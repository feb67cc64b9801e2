"""High Card's options (HC1, HC4), validated on construction."""

from __future__ import annotations

from dataclasses import dataclass

from envs.core import check_choice, check_int

MAX_PLAYERS = 4  #: HC1
MAX_HAND = 8  #: the most cards a hand is dealt


@dataclass(frozen=True)
class HighCardConfig:
    """The table of a High Card game."""

    num_players: int = 3  #: HC1: 2..4 players
    hand_size: int = 4  #: HC1: cards dealt to each player, 1..8 (= tricks of a deal)
    episode: str = "deal"  #: HC4: an episode is one deal
    reward: str = "points"  #: HC4: the reward is the tricks won

    def __post_init__(self):
        check_int("num_players", self.num_players, 2, MAX_PLAYERS)
        check_int("hand_size", self.hand_size, 1, MAX_HAND)
        check_choice("episode", self.episode, ("deal",))
        check_choice("reward", self.reward, ("points",))
