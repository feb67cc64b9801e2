"""High Card: a third game that lives in the tests, to prove that a game is one plug-in.

The rules (ids HC1–HC4, cited where they are implemented):

- **HC1.** 2 to 4 players; each is dealt ``hand_size`` cards of one 52-card deck, shuffled
  from the game's key. Seat 0 leads the first trick.
- **HC2.** The leader plays any card; the others, in seat order, must follow the led suit
  when they can, else play any card.
- **HC3.** The highest card of the led suit wins the trick; its winner leads the next.
- **HC4.** After ``hand_size`` tricks the deal is over: each player scores one point per
  trick won. An episode is one deal; the winners are the players with the most tricks.

The pieces are those of a real game (``docs/adding-a-game.md``): :mod:`.config`,
:mod:`.engine` (batch-first numpy state), :mod:`.high_card_v0` (the PettingZoo adapter over
:mod:`envs.pettingzoo_base`), :mod:`.deal_io` and :mod:`.narration` (records),
:mod:`.scene` (the web app's table), :mod:`.agents` (one heuristic) and :mod:`.game`, the
descriptor registered with :func:`envs.registry.register` (importing it registers the
game; ``CARDRL_GAMES=tests.plugin_game.game`` does so in a ``cardrl`` process).
"""
