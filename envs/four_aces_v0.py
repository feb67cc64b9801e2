"""Four Aces as a PettingZoo AEC environment (draw and discard, collect combinations).

Rules (RULES.md G–K, rule ids in brackets). 3 to 5 players, one 52-card deck plus two
jokers [G1]. Before each round the players draw cards until the ace of spades shows; its
drawer deals [G2]. Everyone gets 3 hidden hand cards and 3 face-up table cards; the rest
is the stock [G3]. A hand may hold L = 3 + (jokers that entered it this round) cards [G7];
a player dealt a joker fills his hand before the first turn [G4]. The player left of the
dealer moves first [H1]; on his turn a player either discards a card and refills his hand
to L from the stock, or turns up the stock's top card onto the discard pile (a joker goes
into his hand instead, L + 1, and his turn ends) [H2, G6, G7]. The round ends after the
turn that empties the stock [H3]. Holding all four aces in hand wins the match at once
[H4]; at round end all four aces among hand + table cards win too [K1]. Otherwise each
player scores his non-joker hand + table cards as combinations [K2]: pairs, trips, two
pairs, full house, four of a kind; 2–5 cards of one suit; suited runs of 2–5 — with
``scoring`` deciding the loose cards [K3]. A match runs until someone reaches
``target_points`` [K4].

Options (``env(**options)``):

=================  ===============  =====================================================
option             default          meaning
=================  ===============  =====================================================
num_players        4                3 to 5 (G1)
scoring            "strict"         "strict": loose cards pairwise differ in rank and
                                    suit; "free": loose cards unrestricted (K3)
dealer             "ace_of_spades"  "ace_of_spades" draw every round, or "rotate" (the
                                    draw for round one, then the deal passes left) (G2)
episode            "round"          "round": an episode is one round; "match": until K4
reward             "points"         "points", "relative" (own minus mean of the others)
                                    or "win" (zero-sum at match end; needs "match")
target_points      20               K4 match target
max_rounds         None             bound on a match's rounds (None: 200)
render_mode        None             None, "ansi" or "human"
=================  ===============  =====================================================

Observation (``observation`` float32, seat-relative: slot r is the seat r places to the
left of the observer; slots beyond the number of players are zero). Only what the player
may know: his own hand, every table, the discard pile, the stock size, every hand size
and L, the scores, the dealer and the round:

========  ============  ==================================================
index     segment       meaning
========  ============  ==================================================
0..2      num_players   one-hot number of players: 3, 4, 5
3..55     hand          own hand, count of each card (the joker may be 2)
56..320   tables        table cards of each relative seat, counts
321..373  discard_pile  cards ever put on the discard pile, counts
374..426  last_discard  one-hot top card of the discard pile
427..427  stock_size    cards left in the stock / 54
428..432  hand_sizes    cards in each relative seat's hand / 5
433..437  hand_limits   hand limit L of each relative seat / 5 (G7)
438..438  jokers_seen   jokers in own hand, on tables and discarded / 2
439..443  scores        match totals of each relative seat / target_points
444..448  dealer        one-hot relative seat of the dealer
449..449  round_number  rounds finished in this match / max_rounds
========  ============  ==================================================

Actions (``Discrete(54)``; ``action_mask`` in the observation and in ``info``, set
only for the agent to act):

=========  ============  ==============================================================
id         name          meaning
=========  ============  ==============================================================
0 .. 51    discard:<c>   discard card c (``suit * 13 + rank``, envs.cards), then fill
52         discard:JK    discard a joker (L stays raised, G7), then fill
53         draw          turn up the stock's top card (H2 b)
=========  ============  ==============================================================

Rewards, paid to every seat when a round ends: ``points`` the round's points (a four-aces
win gives the winner ``target_points`` and the others 0); ``relative`` own points minus
the mean of the others'; ``win`` at match end +1/w to each of w winners and -1/(P-w) to
each other player. ``info["result"]`` describes the last finished round: ``round``,
``round_points`` (None after four aces), ``four_aces``, ``totals``, ``match_over`` and,
once the match is over, ``winners``.

``reset(options={"dealer": d, "hands": [[3 cards] per player], "tables": [[3 cards] per
player], "stock": [cards, top first]})`` deals a fixed first round (card strings such as
"TH", "AS", "JK"; together exactly the 54 cards).

Version History
    v0: initial release.
"""

from __future__ import annotations

from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.render import render_text
from envs.four_aces.scoring import score_cards
from envs.pettingzoo_base import BatchEngineAEC, register_aec, standard_wrappers

__all__ = ["env", "raw_env", "score_cards"]

_OPTION_KEYS = ("dealer", "hands", "tables", "stock")


def env(
    num_players: int = 4,
    scoring: str = "strict",
    dealer: str = "ace_of_spades",
    episode: str = "round",
    reward: str = "points",
    target_points: int = 20,
    max_rounds: int | None = None,
    render_mode: str | None = None,
):
    """Four Aces with PettingZoo's standard wrappers (see the module docstring)."""
    aec = raw_env(
        num_players=num_players,
        scoring=scoring,
        dealer=dealer,
        episode=episode,
        reward=reward,
        target_points=target_points,
        max_rounds=max_rounds,
        render_mode=render_mode,
    )
    return standard_wrappers(aec)


class raw_env(BatchEngineAEC):
    """The unwrapped Four Aces AEC environment over a batch-of-one engine (``engine``;
    the game itself is ``engine.state``, a :class:`~envs.four_aces.state.FourAcesState`)."""

    metadata = {**BatchEngineAEC.metadata, "name": "four_aces_v0"}

    def __init__(self, render_mode: str | None = None, **config):
        self.config = FourAcesConfig(**config)
        super().__init__(FourAcesEngine(self.config, batch_size=1), render_mode=render_mode)

    def _reset_with_options(self, seed: int | None, options: dict) -> None:
        if not set(options) & set(_OPTION_KEYS):  # no fixed deal asked for (api_test
            self.engine.reset(seed=seed)  # passes unrelated options): a shuffled deal
            return
        unknown = sorted(set(options) - set(_OPTION_KEYS))
        if unknown:
            raise ValueError(f"unknown reset options {unknown}: expected {list(_OPTION_KEYS)}")
        missing = [k for k in _OPTION_KEYS if k not in options]
        if missing:
            raise ValueError(f"reset options need all of {list(_OPTION_KEYS)}; missing {missing}")
        options = dict(options)
        self.engine.check_deal(  # validate first: a bad deal changes nothing
            options["dealer"], options["hands"], options["tables"], options["stock"]
        )
        self.engine.reset(seed=seed)  # a fresh game key: later rounds of a match
        self.engine.reset_with_deal(
            0, options["dealer"], options["hands"], options["tables"], options["stock"]
        )

    def render_text(self, seat: int) -> str:
        return render_text(self.engine, 0, seat)


register_aec("cardgames/four_aces_v0", entry_point=f"{__name__}:env")
