"""Abracadabra as a PettingZoo AEC environment (``abracadabra_v0``).

A trick-taking game in which everyone aims at the declarer's bid. The rules are RULES.md
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
render_mode=None)`` — see :class:`envs.abracadabra.config.AbracadabraConfig`.
``call_mode="auto"`` says "Abracadabra" automatically whenever allowed (no call decisions).
``max_deals=None`` in match mode means 1000 deals at most.

``reset(seed=None, options=None)``: ``options`` may fix the deal — ``{"hands": [[card,
...], ...] (seat order, the dummy's hand last), "dealer": seat (default 0), "leftover":
card or None (default: the one undealt card)}``; ``"dealer"`` alone keeps the random deal
and fixes who deals it (default: drawn at random, B1). Cards are strings like ``"TH"``,
``"AS"``, ``"JK"``. Other option keys are ignored.

Agents, observation, actions
----------------------------
Agents ``player_0`` .. ``player_{n-1}`` (seats clockwise; the dummy is not an agent). The
observation is a dict ``{"observation": float32[755], "action_mask": int8[123]}``; the mask
is all zeros except for the agent to act. The observation is seat-relative: player slot 0
is the observer, slot i the player i seats to his left; hand slots are the player slots,
the dummy's hand is slot 2. All entries lie in [0, 1] except ``scores``, ``pot`` (which
can exceed 1); the declared bounds are [0, 1e6].

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

Rewards
-------
Given to every seat when a deal ends (``reward``): ``points`` — the deal's points
(S1–S3); ``relative`` — own points minus the mean of the others'; ``chips`` — net chips
of the deal (pot share + final share − stake); ``win`` (match only) — at match end +1/w to
each of w winners and −1/(n−w) to each loser (0 if all win). ``info["result"]`` holds the
last finished deal: declarer, target, tricks (per hand, dummy included), called, hitters,
points, stakes, pot_share, final_share, carry, chips, totals, deal, match_over, winners.

Version History
---------------
- v0: initial release.
"""
from __future__ import annotations

from envs.abracadabra.config import AbracadabraConfig
from envs.abracadabra.engine import AbracadabraEngine
from envs.abracadabra.render import render_text
from envs.pettingzoo_base import BatchEngineAEC, register_aec, standard_wrappers

__all__ = ["env", "raw_env"]

_OPTION_KEYS = ("dealer", "hands", "leftover")


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
):
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
    )
    return standard_wrappers(e)


class raw_env(BatchEngineAEC):  # noqa: N801 - PettingZoo's naming convention
    """Abracadabra over a batch-of-one :class:`AbracadabraEngine`."""

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "abracadabra_v0",
        "is_parallelizable": False,
    }

    def __init__(self, render_mode: str | None = None, **config):
        self.config = AbracadabraConfig(**config)
        super().__init__(AbracadabraEngine(self.config, 1), render_mode=render_mode)

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


register_aec("cardgames/abracadabra_v0", entry_point=f"{__name__}:env")
