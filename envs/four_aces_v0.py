"""Four Aces as a PettingZoo AEC environment (draw and discard, collect combinations).

Rules (docs/rules.md G–K, rule ids in brackets). 3 to 5 players, one 52-card deck plus two
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
render_mode        None             None, "ansi", "human" or "rgb_array"
illegal_action     "terminate"      what an illegal action does: "terminate" the game
                                    (PettingZoo's classic convention) or "raise" a
                                    ValueError, for debugging (see Actions); raw_env's
                                    default is "raise"
=================  ===============  =====================================================

Observation (``observation`` float32, seat-relative: slot r is the seat r places to the
left of the observer; slots beyond the number of players are zero). Only what the player
may know: his own hand, every table, the discard pile, the stock size, every hand size
and L, the scores, the dealer and the round. The observation space's bounds are the true
bounds of every column under the configuration (:func:`observation_bounds`): [0, 1]
for every entry except the joker's count in ``hand``, ``tables`` and ``discard_pile``
([0, 2]), ``stock_size`` (up to the stock left after the deal, (54 − 6P) / 54) and
``scores`` (from −8 points a round over every round the episode can last, up to 22
points or a four-aces win after target_points − 1 in a match, divided by
target_points; not rescaled in match mode: −80 … 2.05 with the defaults, see
docs/environments.md, "Observation bounds in match mode"):

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

An action is an integer id: an ``int`` or a numpy integer (scalar or 0-d array), at every
layer (``env()`` and ``raw_env()``). A float (even ``2.0``), a bool, a string or an id
outside 0..53 raises ``ValueError`` naming the action and the range, and changes nothing.
An action in range that the mask forbids is illegal; ``illegal_action`` says what happens
then: ``"terminate"`` (the default of ``env()``) — PettingZoo's classic convention
(``TerminateIllegalWrapper``): the game ends, the offender gets -1 and the others 0 (the
round in progress pays nothing), every agent is terminated (not truncated), the masks are
zero, every agent's ``info["illegal_action"]`` is ``{"agent", "action", "name",
"reason"}`` and an :class:`~envs.pettingzoo_base.IllegalActionWarning` is issued (shown
once per place by Python's default filter). Tools that step unmasked random actions then
run as on PettingZoo's own games: RLlib's environment check,
``pettingzoo.utils.average_total_reward`` (each of its random episodes ends at the first
illegal action, with -1), ``pettingzoo.test.state_test`` and ``parallel_seed_test``.
``"raise"`` (the default of ``raw_env()``) — ``ValueError`` naming the action and why,
nothing changed: the choice for debugging an agent.

Rewards, paid to every seat when a round ends: ``points`` the round's points (a four-aces
win gives the winner ``target_points`` and the others 0); ``relative`` own points minus
the mean of the others'; ``win`` at match end +1/w to each of w winners and -1/(P-w) to
each other player.

Once a round has finished, every agent's ``info["result"]`` describes the last finished
round of the episode (before that, ``info`` has no ``"result"``). Its keys and shapes
are the same on every step and episode of a configuration, and no value is None (replay
buffers that store ``info``, such as Tianshou's, need this); P is the number of players,
lists hold Python scalars:

============  =========  ===================================================================
key           shape      meaning
============  =========  ===================================================================
round         int        index of the round in the episode (0 for the first)
round_points  int [P]    per seat: the round's points (K2, K3); after four aces the winner
                         has target_points and the others 0 (H4, K1)
four_aces     int        the seat that won the round by four aces (H4, K1), -1 if none
totals        int [P]    per seat: match points so far, this round included (K4)
match_over    bool       the episode has ended
winners       bool [P]   per seat: a winner of the episode (all False until it ends, K4)
============  =========  ===================================================================

``reset(options={"dealer": d, "hands": [[3 cards] per player], "tables": [[3 cards] per
player], "stock": [cards, top first]})`` deals a fixed first round (card strings such as
"TH", "AS", "JK"; together exactly the 54 cards).

``state()`` (and ``state_space``, a float32 ``Box`` of 2628 columns with true bounds) is
the full state of the game, for centralised critics: everything an observation shows —
the observation of seat 0, whose relative slot r is seat r — and what none shows: every
hand, the order of the stock, the seat to act. Not included: the rounds still to come
(they are drawn from the episode's key). After a game ended by an illegal action it shows
the game as it was before that action.

==========  ===========  ==============================================
index       segment      meaning
==========  ===========  ==============================================
0..449      seat_0_view  the observation of seat 0 (slot r is seat r)
450..714    hands        per seat: its hand, count of each card
715..2622   stock        the stock from the top: one-hot card per place
2623..2627  to_act       one-hot seat to act (zeros once over)
==========  ===========  ==============================================

Version History
    v0: initial release.
    v0, API changes (the rules, the observation values and the random streams are
    unchanged, so the version stays v0): ``info["result"]`` has a fixed shape
    (``round_points`` is always the per-seat points, ``four_aces`` is -1 instead of None,
    ``winners`` is one bool per seat, always present); ``illegal_action="raise" |
    "terminate"``; actions must be integer ids (a float was truncated, an out-of-range id
    failed with a bare ``AssertionError``; both are now a ``ValueError``); the observation
    space has the true per-column bounds (its bounds were one pair for every column);
    ``state()`` and ``state_space``.
    v0, API change (the rules, observations, rewards and random streams are unchanged):
    ``env()`` follows PettingZoo's classic convention by default, ``illegal_action=
    "terminate"`` with an ``IllegalActionWarning``; ``illegal_action="raise"`` is asked
    for explicitly (``raw_env()`` still raises by default).
"""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv

from envs.cards import JOKER, NUM_CARDS
from envs.core import ObservationLayout
from envs.four_aces.config import FourAcesConfig
from envs.four_aces.engine import FourAcesEngine
from envs.four_aces.observation import LAYOUT, MAX_SLOTS, STOCK_DIVISOR
from envs.four_aces.render import render_text
from envs.four_aces.rules import (
    DECK_SIZE,
    HAND_CARDS,
    MAX_ROUND_POINTS,
    MIN_PLAYERS,
    MIN_ROUND_POINTS,
    NUM_JOKERS,
    TABLE_CARDS,
)
from envs.four_aces.scoring import score_cards
from envs.pettingzoo_base import (
    DEFAULT_ILLEGAL_ACTION,
    BatchEngineAEC,
    seat_flags,
    standard_wrappers,
)

__all__ = ["STATE_LAYOUT", "env", "hidden_state_bounds", "observation_bounds", "raw_env",
           "score_cards"]

_OPTION_KEYS = ("dealer", "hands", "tables", "stock")
#: the longest stock: the deck less the deal of the fewest players (G1, G3)
MAX_STOCK = DECK_SIZE - (HAND_CARDS + TABLE_CARDS) * MIN_PLAYERS

#: The global state (``raw_env.state()``): the observation of seat 0, then what no
#: observation shows.
STATE_LAYOUT = ObservationLayout(
    [
        ("seat_0_view", LAYOUT.size, "the observation of seat 0 (slot r is seat r)"),
        ("hands", MAX_SLOTS * NUM_CARDS, "per seat: its hand, count of each card"),
        ("stock", MAX_STOCK * NUM_CARDS, "the stock from the top: one-hot card per place"),
        ("to_act", MAX_SLOTS, "one-hot seat to act (zeros once over)"),
    ]
)
_HIDDEN = {seg.name: slice(seg.start - LAYOUT.size, seg.stop - LAYOUT.size)
           for seg in STATE_LAYOUT if seg.name != "seat_0_view"}


def _joker_columns(segment: slice) -> slice:
    """The joker's column in every card block of ``segment`` (blocks of 53, one per slot)."""
    return slice(segment.start + JOKER, segment.stop, NUM_CARDS)


def observation_bounds(config: FourAcesConfig) -> tuple[np.ndarray, np.ndarray]:
    """(low, high), float64 [450]: the true bounds of every observation column under
    ``config``. One-hots, fractions and counts of a card lie in [0, 1], except: the
    joker's count in ``hand``, ``tables`` and ``discard_pile`` (two jokers, G1) up to 2;
    ``stock_size`` up to the stock after the deal (G3); ``scores`` (totals /
    target_points) between a round's least points on every round of the episode and a
    round's most (or a four-aces win, K1) after ``target_points - 1`` in a match (K2–K4)."""
    low, high = np.zeros(LAYOUT.size), np.ones(LAYOUT.size)
    for name in ("hand", "tables", "discard_pile"):
        high[_joker_columns(LAYOUT[name])] = NUM_JOKERS
    dealt = (HAND_CARDS + TABLE_CARDS) * config.num_players
    high[LAYOUT["stock_size"]] = (DECK_SIZE - dealt) / STOCK_DIVISOR
    target, match = config.target_points, config.episode == "match"
    rounds = config.round_limit if match else 1
    low[LAYOUT["scores"]] = MIN_ROUND_POINTS * rounds / target
    high[LAYOUT["scores"]] = (max(MAX_ROUND_POINTS, target) + (target - 1) * match) / target
    return low, high


def hidden_state_bounds(config: FourAcesConfig) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the state columns after ``seat_0_view``: in [0, 1], the joker's
    count in a hand up to 2."""
    size = STATE_LAYOUT.size - LAYOUT.size
    low, high = np.zeros(size), np.ones(size)
    high[_joker_columns(_HIDDEN["hands"])] = NUM_JOKERS
    return low, high


def env(
    num_players: int = 4,
    scoring: str = "strict",
    dealer: str = "ace_of_spades",
    episode: str = "round",
    reward: str = "points",
    target_points: int = 20,
    max_rounds: int | None = None,
    render_mode: str | None = None,
    illegal_action: str = DEFAULT_ILLEGAL_ACTION,
) -> AECEnv:
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
        illegal_action=illegal_action,
    )
    return standard_wrappers(aec)


class raw_env(BatchEngineAEC):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped Four Aces AEC environment over a batch-of-one engine (``engine``;
    the game itself is ``engine.state``, a :class:`~envs.four_aces.state.FourAcesState`)."""

    metadata = {**BatchEngineAEC.metadata, "name": "four_aces_v0"}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise",
                 **config):
        self.config = FourAcesConfig(**config)
        super().__init__(FourAcesEngine(self.config, batch_size=1),
                         observation_bounds=observation_bounds(self.config),
                         hidden_state_bounds=hidden_state_bounds(self.config),
                         render_mode=render_mode, illegal_action=illegal_action)
        if render_mode == "rgb_array":  # draw the cards now: every frame is then quick
            from envs.raster import warm_up

            warm_up(self.engine)

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

    def fixed_result(self) -> dict | None:
        """``info["result"]`` (the module docstring's table), from the engine's result."""
        res = self.engine.result(0)
        if res is None:
            return None
        P = self.engine.num_players
        four_aces = res["four_aces"]
        return {
            "round": res["round"],
            "round_points": self.engine.last_points[0].tolist(),
            "four_aces": -1 if four_aces is None else four_aces,
            "totals": res["totals"],
            "match_over": res["match_over"],
            "winners": seat_flags(res.get("winners", ()), P),
        }

    def _write_hidden_state(self, out: np.ndarray) -> None:
        st, P = self.engine.state, self.engine.num_players
        out.fill(0.0)
        out[_HIDDEN["hands"]].reshape(MAX_SLOTS, NUM_CARDS)[:P] = st.hand[0]
        stock = st.deal_order[0, int(st.stock_top[0]):].astype(np.intp)
        out[_HIDDEN["stock"].start + np.arange(len(stock)) * NUM_CARDS + stock] = 1.0
        seat = int(st.current_player[0])
        if seat >= 0:
            out[_HIDDEN["to_act"].start + seat] = 1.0
