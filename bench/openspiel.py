"""The reference rows of ``cardrl bench``: OpenSpiel's ``oh_hell`` played at random.

``oh_hell(players=4,num_tricks_fixed=12)`` is the nearest OpenSpiel game to Abracadabra.
Three modes (``engine`` in the benchmark's records):

* ``openspiel_bare``: ``legal_actions`` + ``apply_action`` only;
* ``openspiel_obs``: the same plus the observation tensor at every decision. ``oh_hell``
  implements no ``observation_tensor()`` (pyspiel raises "unimplemented"), so this calls
  ``information_state_tensor()``, the only tensor it provides (a Python list of floats);
* ``openspiel_observer``: the same with the preallocated observer of
  ``open_spiel.python.observation.make_observation`` (information-state type, the only
  one ``oh_hell`` provides): ``set_from`` into a reused numpy buffer at every decision.

Chance nodes (dealer, the deal, the trump card) are sampled uniformly over
``chance_outcomes()``, which is their exact distribution in ``oh_hell``; only player
decisions count as agent-steps. open_spiel is the optional ``[bench]`` extra and is
imported only when a loop is built.
"""

from __future__ import annotations

import importlib.util
import random
import time
from collections.abc import Callable

from bench.loops import Loop

OPENSPIEL_GAME = "oh_hell(players=4,num_tricks_fixed=12)"
#: the game and variant labels of the OpenSpiel rows
OPENSPIEL_LABEL = ("oh_hell", "players=4,num_tricks_fixed=12")
#: mode -> the observation it produces ("obs" in the records)
OPENSPIEL_OBS: dict[str, str] = {
    "openspiel_bare": "none",
    "openspiel_obs": "list",
    "openspiel_observer": "float32",
}
OPENSPIEL_MODES = tuple(OPENSPIEL_OBS)


def available() -> bool:
    """Whether open_spiel (``pyspiel``) is installed."""
    return importlib.util.find_spec("pyspiel") is not None


def openspiel_loop(mode: str, seed: int = 0,
                   clock: Callable[[], float] = time.perf_counter) -> Loop:
    """Random play of OpenSpiel's oh_hell in one of :data:`OPENSPIEL_MODES`."""
    import pyspiel

    game = pyspiel.load_game(OPENSPIEL_GAME)
    choose = random.Random(seed).choice
    observer = None
    if mode == "openspiel_observer":
        from open_spiel.python.observation import INFO_STATE_OBS_TYPE, make_observation

        observer = make_observation(game, INFO_STATE_OBS_TYPE)
    provides_obs = game.get_type().provides_observation_tensor

    def run(seconds: float) -> tuple[int, int, float]:
        steps = deals = 0
        start = clock()
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(choose(state.chance_outcomes())[0])
                    continue
                if mode == "openspiel_obs":
                    if provides_obs:
                        state.observation_tensor()
                    else:
                        state.information_state_tensor()
                elif observer is not None:
                    observer.set_from(state, state.current_player())
                state.apply_action(choose(state.legal_actions()))
                steps += 1
            deals += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, deals, elapsed

    return run
