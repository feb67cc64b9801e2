"""Abracadabra as a PettingZoo AEC environment (``abracadabra_v1``).

A trick-taking game in which everyone aims at the declarer's bid. The rules are docs/rules.md
sections A–M (rule ids cited below); the pure-numpy batch engine is
:class:`envs.abracadabra.engine.AbracadabraEngine`, this module is a thin adapter over a
batch of one (:class:`envs.pettingzoo_base.BatchEngineAEC`).

Rules summary
-------------
- Variants (A): ``four`` (4 players, 52 cards + joker, 13 each, bonus 40/30/20/10),
  ``three`` (3 players, 36 cards 6..A, 12 each, bonus 30/20/10), ``two_dummy`` (2 players
  and a face-up dummy hand, 36 cards, 12 each, bonus 20/10), ``two`` (2 players, 24 cards
  9..A, 12 each, bonus 20/10). The joker is optional except in ``four`` (A1).
- Deal (B): the first dealer is random, then the deal passes left (B1). With the joker one
  card is left over and turned up: its suit is trump; the joker or no leftover means no
  trump (B2). The joker is the highest trump (B3).
- Bidding (C): from the left of the dealer each player bids 0..cards_each tricks and
  stakes the ante; the highest bid (ties: first bidder) is the declarer, his bid the
  target T.
- Showing (D): before leading, the declarer may show cards one by one; each raises his
  stake (``multiple``: ante × (1 + k); ``add``: ante + k × raise_increment).
- Play (E): the declarer leads; follow suit if able; joker, else highest trump, else
  highest card of the suit led wins; the winner leads. In ``two_dummy`` the trick's
  leader plays the dummy's card; when the dummy leads, the seat that did not control it in
  the previous trick plays it; the dummy's tricks belong to no one (E4).
- Calling (F): right after taking his T-th trick a player may say "Abracadabra" (for T = 0:
  before the first lead, each player in turn from the declarer); he hits if he ends with
  exactly T tricks.
- Scoring (S): each hitter scores the bonus for the number of hitters; everyone scores 1 per
  trick and 2 per card of bid-rank value T in his tricks (A = 1, J = 11, Q = 12, K = 13);
  the pot goes to the hitters in equal shares, or carries over.
- Match (M): deals until someone has ``target_points``; highest total wins; a leftover pot
  goes to the winners; ``max_deals`` bounds the match. An ``episode="deal"`` episode is a
  match of one deal (so a pot left without hitters goes to the deal's points winners).

Options
-------
``env(variant="four", joker=True, ante=1, raise_mode="multiple", raise_increment=1,
call_mode="manual", episode="deal", reward="points", target_points=100, max_deals=None,
render_mode=None, illegal_action="terminate")`` — the game's options are
:class:`envs.abracadabra.config.AbracadabraConfig`. ``call_mode="auto"`` says
"Abracadabra" automatically whenever allowed (no call decisions). ``max_deals=None`` in
match mode means 1000 deals at most. ``illegal_action``: see "Actions" below
(``raw_env`` takes the same options; its ``illegal_action`` defaults to ``"raise"``).

``reset(seed=None, options=None)``: ``options`` may fix the deal — ``{"hands": [[card,
...], ...] (seat order, the dummy's hand last), "dealer": seat (default 0), "leftover":
card or None (default: the one undealt card)}``; ``"dealer"`` alone keeps the random deal
and fixes who deals it (default: drawn at random, B1). Cards are strings like ``"TH"``,
``"AS"``, ``"JK"``. Other option keys are ignored.

Agents, observation, actions
----------------------------
Agents ``player_0`` .. ``player_{n-1}`` (seats clockwise; the dummy is not an agent). The
observation is a dict ``{"observation": float32[771], "action_mask": int8[123]}``; the mask
is all zeros except for the agent to act. The observation is seat-relative: player slot 0
is the observer, slot i the player i seats to his left; hand slots are the player slots,
the dummy's hand is slot 2. The observation space's bounds are the true bounds of every
column under the configuration (:func:`observation_bounds`): [0, 1] for every entry
(0/1 entries, and fractions of ``cards_each``) except ``scores`` (up to the most points
an episode can give: a deal's 1-hitter bonus + cards_each + 8, after target_points − 1 in
a match, divided by target_points) and ``pot`` (up to every deal's antes and raises
carried over the most deals an episode can last, divided by 10 × ante). In match mode
those two columns are not rescaled: with the defaults the pot's bound is 1,700 (1,000
deals), and it is reached when nobody hits; docs/environments.md ("Observation bounds in
match mode") gives the ranges and how to squash them for a network.

    ========  =============  ===========================================================
    index     segment        meaning
    ========  =============  ===========================================================
    0..3      variant        one-hot variant: four, three, two_dummy, two
    4..56     hand           own hand, by card index
    57..109   dummy_hand     the dummy's face-up hand (two_dummy), else zeros
    110..162  shown          cards the declarer has shown and still holds (D1)
    163..215  leftover       one-hot turned-up leftover card (B2), zeros if none
    216..220  trump_suit     one-hot trump suit: C, D, H, S, none
    221..224  phase          one-hot phase: bid, show, call, play (zeros when over)
    225..228  dealer         one-hot dealer, relative player slot
    229..284  bids           per relative player slot: one-hot bid 0..13 (zeros: no bid)
    285..288  declarer       one-hot declarer, relative player slot
    289..302  target         one-hot target T (zeros during bidding)
    303..303  shown_count    cards shown by the declarer / cards_each
    304..515  played         per relative hand slot: cards played this deal
    516..727  trick          per relative hand slot: its card in the current trick
    728..731  trick_leader   one-hot relative hand slot leading the current trick
    732..735  acting_hand    one-hot relative hand slot the decision is for
    736..739  tricks_won     per relative hand slot: tricks taken / cards_each
    740..740  tricks_played  tricks completed / cards_each
    741..744  called         per relative player slot: said Abracadabra (F1)
    745..748  scores         per relative player slot: match totals / target_points
    749..749  pot            chips in the pot / (10 * ante)
    750..750  deal_number    deals finished / max deals (match mode), else 0
    751..754  dummy_control  one-hot relative player slot playing the dummy (E4)
    755..770  voids          per relative hand slot: void in suit C, D, H, S (E2, B3)
    ========  =============  ===========================================================

Actions (one ``Discrete(123)`` space for every variant; ``env.unwrapped.action_names``):

    ========  ===========  ====================================================
    action    name         meaning
    ========  ===========  ====================================================
    0..13     bid:N        bid N tricks (C1); legal N = 0..cards_each
    14..66    show:<card>  the declarer shows a card (D1); card = action - 14
    67        stop         stop showing (D1); play or T = 0 calls begin
    68..120   play:<card>  play a card (E1–E4); card = action - 68
    121       call         say "Abracadabra" (F1)
    122       no_call      let the chance go (F1)
    ========  ===========  ====================================================

Card index: ``suit * 13 + rank`` (suits C, D, H, S; ranks 2..A), 52 = joker
(:mod:`envs.cards`). In ``two_dummy`` the seat controlling the dummy plays its cards with
the same ``play:<card>`` actions; ``acting_hand`` says which hand the decision is for.

An action is an integer id: an ``int`` or a numpy integer (scalar or 0-d array), at every
layer (``env()`` and ``raw_env()``). A float (even ``2.0``), a bool, a string or an id
outside 0..122 raises ``ValueError`` naming the action and the range, and changes
nothing. An action in range that the mask forbids is illegal; ``illegal_action`` says
what happens then: ``"terminate"`` (the default of ``env()``) — PettingZoo's classic
convention (``TerminateIllegalWrapper``): the game ends, the offender gets −1 and the
others 0 (the deal in progress pays nothing), every agent is terminated (not truncated),
the masks are zero, every agent's ``info["illegal_action"]`` is ``{"agent", "action",
"name", "reason"}`` and an :class:`~envs.pettingzoo_base.IllegalActionWarning` is issued
(Python shows it once per place; ``warnings.filterwarnings("ignore",
category=IllegalActionWarning)`` silences it). Tools that step unmasked random actions
then run as on PettingZoo's own games: RLlib's environment check,
``pettingzoo.utils.average_total_reward`` (each of its random episodes ends at the first
illegal action, with −1), ``pettingzoo.test.state_test`` and ``parallel_seed_test``.
``"raise"`` (the default of ``raw_env()``) — ``ValueError`` naming the action and why
(the phase, the seat to act), nothing changed: the choice for debugging an agent.

Rewards
-------
Given to every seat when a deal ends (``reward``): ``points`` — the deal's points
(S1–S3); ``relative`` — own points minus the mean of the others'; ``chips`` — net chips
of the deal (pot share + final share − stake); ``win`` (match only) — at match end +1/w to
each of w winners and −1/(n−w) to each loser (0 if all win).

Result
------
Once a deal has finished, every agent's ``info["result"]`` describes the last finished
deal of the episode (before that, ``info`` has no ``"result"``). Its keys and shapes are
the same on every step and episode of a configuration, and no value is None (replay
buffers that store ``info``, such as Tianshou's, need this). P is the number of players,
H the number of hands (P, plus the dummy in ``two_dummy``); lists hold Python scalars.

    ===========  =========  ================================================================
    key          shape      meaning
    ===========  =========  ================================================================
    deal         int        index of the deal in the episode (0 for the first)
    declarer     int        seat of the declarer (C3)
    target       int        the target T (C3)
    tricks       int [H]    tricks taken per hand, the dummy's last (E3)
    called       bool [P]   per seat: said "Abracadabra" (F1)
    hitters      bool [P]   per seat: hit, i.e. called and took exactly T tricks (F2)
    points       int [P]    per seat: the deal's points (S1–S3)
    stakes       int [P]    per seat: chips staked in the deal (C2, D2)
    pot_share    float [P]  per seat: share of the pot won as a hitter (S4)
    final_share  float [P]  per seat: share of a pot left at the episode's end (M2)
    carry        int        chips carried over to the next deal (S4)
    chips        float [P]  per seat: net chips, pot_share + final_share − stakes
    totals       int [P]    per seat: match points so far, this deal included (M1)
    match_over   bool       the episode has ended
    winners      bool [P]   per seat: a winner of the episode (all False until it ends, M1)
    ===========  =========  ================================================================

Global state
------------
``state()`` (and ``state_space``, a float32 ``Box`` of 991 columns with true bounds) is
the full state of the game, for centralised critics: everything an observation shows —
the observation of seat 0, whose relative slot i is seat i — and what none shows: every
hand, the cards of value T each hand has taken, the seat to act. Not included: the
deals still to come (they are drawn from the episode's key). After a game ended by an
illegal action it shows the game as it was before that action.

    ========  ===========  ==================================================
    index     segment      meaning
    ========  ===========  ==================================================
    0..770    seat_0_view  the observation of seat 0 (slot i is seat i)
    771..982  hands        per hand (seats, then the dummy): cards held
    983..986  rank_cards   per hand: cards of bid-rank value T taken / 4 (S3)
    987..990  to_act       one-hot seat to act (zeros once over)
    ========  ===========  ==================================================

Version History
---------------
- v0: initial release.
- v0 (API changes; the rules, the observation values and the random streams are
  unchanged, so the version stays v0): ``info["result"]`` has a fixed shape (``called``,
  ``hitters`` and ``winners`` are one bool per seat instead of lists of seats,
  ``winners`` is always present); ``illegal_action="raise" | "terminate"``; actions must
  be integer ids (a float was truncated, an out-of-range id failed with a bare
  ``AssertionError``; both are now a ``ValueError``); the observation space has the true
  per-column bounds (it was [0, 1e6]); ``state()`` and ``state_space``.
- v1: the observation gains a last segment, ``voids`` (16 columns, 755 -> 771; the
  global state 975 -> 991): who is known to be void in which suit, from the public
  record of the suits led that a hand did not follow (E2; the joker counts as a trump,
  B3). The 755 columns before it are v0's observation, value for value; the rules,
  actions, rewards and random streams are unchanged. A policy network trained on v0
  reads those first 755 columns (:mod:`agents.policy.net`); ``envs.abracadabra_v0`` now
  only says to use v1.
- v1 (API change; the rules, observations, rewards and random streams are unchanged):
  ``env()`` follows PettingZoo's classic convention by default, ``illegal_action=
  "terminate"`` with an ``IllegalActionWarning``; ``illegal_action="raise"`` is asked
  for explicitly (``raw_env()`` still raises by default).
"""
from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv

from envs.abracadabra.config import AbracadabraConfig
from envs.abracadabra.engine import AbracadabraEngine
from envs.abracadabra.observation import LAYOUT, MAX_SLOTS
from envs.abracadabra.render import render_text
from envs.cards import NUM_CARDS
from envs.core import ObservationLayout
from envs.pettingzoo_base import (
    DEFAULT_ILLEGAL_ACTION,
    BatchEngineAEC,
    seat_flags,
    standard_wrappers,
)

__all__ = ["STATE_LAYOUT", "env", "hidden_state_bounds", "observation_bounds", "raw_env"]

_OPTION_KEYS = ("dealer", "hands", "leftover")
_RANK_CARDS = 4  #: the most cards of one bid-rank value T: one per suit (A3, S3)

#: The global state (``raw_env.state()``): the observation of seat 0, then what no
#: observation shows. Hand slots are hand indices (the seats, then the dummy).
STATE_LAYOUT = ObservationLayout(
    [
        ("seat_0_view", LAYOUT.size, "the observation of seat 0 (slot i is seat i)"),
        ("hands", MAX_SLOTS * NUM_CARDS, "per hand (seats, then the dummy): cards held"),
        ("rank_cards", MAX_SLOTS, "per hand: cards of bid-rank value T taken / 4 (S3)"),
        ("to_act", MAX_SLOTS, "one-hot seat to act (zeros once over)"),
    ]
)
_HIDDEN = {seg.name: slice(seg.start - LAYOUT.size, seg.stop - LAYOUT.size)
           for seg in STATE_LAYOUT if seg.name != "seat_0_view"}


def observation_bounds(config: AbracadabraConfig) -> tuple[np.ndarray, np.ndarray]:
    """(low, high), float64 [771]: the true bounds of every observation column under
    ``config``. Every entry is 0/1 or a fraction of ``cards_each`` in [0, 1], except:
    ``scores`` (match totals / target_points) up to the most points a deal can score
    (S1–S3: the 1-hitter bonus, every trick, the four cards of value T), after
    ``target_points - 1`` in a match (M1); ``pot`` (chips / (10 ante)) up to every
    bidder's ante and the declarer's raise for every card shown (C2, D2), carried over
    every deal an episode can last (S4, M3)."""
    low, high = np.zeros(LAYOUT.size), np.ones(LAYOUT.size)
    most_points = max(config.bonus) + config.cards_each + 2 * _RANK_CARDS
    most_total = most_points + (0 if config.episode == "deal" else config.target_points - 1)
    high[LAYOUT["scores"]] = most_total / config.target_points
    stake = config.ante if config.raise_mode == "multiple" else config.raise_increment
    most_chips = config.num_players * config.ante + config.cards_each * stake
    high[LAYOUT["pot"]] = config.deals_limit * most_chips / (10.0 * config.ante)
    return low, high


def hidden_state_bounds(config: AbracadabraConfig) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the state columns after ``seat_0_view``: all in [0, 1]."""
    size = STATE_LAYOUT.size - LAYOUT.size
    return np.zeros(size), np.ones(size)


def env(
    variant: str = "four",
    joker: bool = True,
    ante: int = 1,
    raise_mode: str = "multiple",
    raise_increment: int = 1,
    call_mode: str = "manual",
    episode: str = "deal",
    reward: str = "points",
    target_points: int = 100,
    max_deals: int | None = None,
    render_mode: str | None = None,
    illegal_action: str = DEFAULT_ILLEGAL_ACTION,
) -> AECEnv:
    """The Abracadabra AEC environment with PettingZoo's standard wrappers."""
    e = raw_env(
        variant=variant,
        joker=joker,
        ante=ante,
        raise_mode=raise_mode,
        raise_increment=raise_increment,
        call_mode=call_mode,
        episode=episode,
        reward=reward,
        target_points=target_points,
        max_deals=max_deals,
        render_mode=render_mode,
        illegal_action=illegal_action,
    )
    return standard_wrappers(e)


class raw_env(BatchEngineAEC):  # noqa: N801 - PettingZoo's naming convention
    """Abracadabra over a batch-of-one :class:`AbracadabraEngine`."""

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "abracadabra_v1",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise",
                 **config):
        self.config = AbracadabraConfig(**config)
        super().__init__(AbracadabraEngine(self.config, 1),
                         observation_bounds=observation_bounds(self.config),
                         hidden_state_bounds=hidden_state_bounds(self.config),
                         render_mode=render_mode, illegal_action=illegal_action)
        if render_mode == "rgb_array":  # draw the cards now: every frame is then quick
            from envs.raster import warm_up

            warm_up(self.engine)

    def _reset_with_options(self, seed: int | None, options: dict) -> None:
        # other keys are ignored, as PettingZoo's api_test expects of every environment
        if not any(k in options for k in _OPTION_KEYS):
            self.engine.reset(seed=seed)
            return
        self.engine.reset_with_deal(
            0,
            options.get("dealer"),
            options.get("hands"),
            options.get("leftover"),
            seed=seed,
        )

    def render_text(self, seat: int) -> str:
        return render_text(self.engine, 0, seat)

    def fixed_result(self) -> dict | None:
        """``info["result"]`` (the module docstring's table), from the engine's result."""
        res = self.engine.result(0)
        if res is None:
            return None
        P = self.engine.num_players
        return {
            "deal": res["deal"],
            "declarer": res["declarer"],
            "target": res["target"],
            "tricks": res["tricks"],
            "called": seat_flags(res["called"], P),
            "hitters": seat_flags(res["hitters"], P),
            "points": res["points"],
            "stakes": res["stakes"],
            "pot_share": res["pot_share"],
            "final_share": res["final_share"],
            "carry": res["carry"],
            "chips": res["chips"],
            "totals": res["totals"],
            "match_over": res["match_over"],
            "winners": seat_flags(res.get("winners", ()), P),
        }

    def _write_hidden_state(self, out: np.ndarray) -> None:
        s, H = self.engine.state, self.engine.num_hands
        out.fill(0.0)
        out[_HIDDEN["hands"]].reshape(MAX_SLOTS, NUM_CARDS)[:H] = s.hands()[0]
        out[_HIDDEN["rank_cards"]][:H] = s.rank_cards[0] / _RANK_CARDS
        seat = int(s.current_player[0])
        if seat >= 0:
            out[_HIDDEN["to_act"].start + seat] = 1.0
