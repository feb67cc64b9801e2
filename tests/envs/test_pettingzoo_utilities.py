"""PettingZoo's own testing utilities pass on every configuration with default arguments.

``api_test``, ``seed_test``, ``state_test``, ``average_total_reward``, ``render_test``,
``parallel_api_test`` and ``parallel_seed_test`` (``pettingzoo.test``,
``pettingzoo.utils``), each as PettingZoo's documentation calls it, on Abracadabra
``four``, ``three``, ``two_dummy`` and ``two`` and Four Aces with 3, 4 and 5 players, the
env built with nothing but the table's keyword. Several of them step random actions
without the mask; ``env()`` ends the game at the first illegal one (PettingZoo's classic
convention, its default ``illegal_action="terminate"``). The games are sequential, so the
parallel API is ``turn_based_aec_to_parallel`` (``metadata["is_parallelizable"]`` is
False, as docs/environments.md says). The cycles are few: each utility plays a game or
two.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import partial

import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)
from pettingzoo.utils import average_total_reward
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from envs import abracadabra_v1, four_aces_v0
from envs.pettingzoo_base import ILLEGAL_ACTION_MESSAGE, IllegalActionWarning

#: every table, each with only the keyword that chooses it (everything else the default)
CONFIGS = {
    **{f"abracadabra-{v}": partial(abracadabra_v1.env, variant=v)
       for v in ("four", "three", "two_dummy", "two")},
    **{f"four_aces-{p}p": partial(four_aces_v0.env, num_players=p) for p in (3, 4, 5)},
}
#: cycles of the utilities that take them: more than a game lasts under random actions
CYCLES = 200

#: the warnings the utilities may give: api_test's notes on dict observations (PettingZoo's
#: own classic games, whose observations hold an action mask, get them too) and ours, for
#: an illegal action ended by "terminate"
EXPECTED_WARNINGS = {
    (UserWarning, "Observation space for each agent probably should be gymnasium.spaces.box "
                  "or gymnasium.spaces.discrete"),
    (UserWarning, "Observation is not a NumPy array"),
    (IllegalActionWarning, ILLEGAL_ACTION_MESSAGE),
}


def _average_total_reward(make: Callable) -> None:
    """Random play of 10 episodes: each ends at its first illegal action (-1) or is a
    whole deal or round (Abracadabra's points are >= 0, Four Aces' >= -8 a seat)."""
    env = make()
    average = average_total_reward(env, max_episodes=10, max_steps=10_000)
    assert np.isfinite(average) and -8 * len(env.possible_agents) <= average


UTILITIES: dict[str, Callable[[Callable], object]] = {
    "api_test": lambda make: api_test(make(), num_cycles=CYCLES),
    "seed_test": lambda make: seed_test(make, num_cycles=CYCLES),
    "state_test": lambda make: state_test(make(), turn_based_aec_to_parallel(make()),
                                          num_cycles=CYCLES),
    "average_total_reward": _average_total_reward,
    "render_test": lambda make: render_test(make),
    "parallel_api_test": lambda make: parallel_api_test(turn_based_aec_to_parallel(make()),
                                                        num_cycles=CYCLES),
    "parallel_seed_test": lambda make: parallel_seed_test(
        lambda: turn_based_aec_to_parallel(make()), num_cycles=CYCLES),
}


@pytest.mark.parametrize("utility", UTILITIES)
@pytest.mark.parametrize("config", CONFIGS)
def test_pettingzoo_utility_passes_with_default_arguments(config, utility, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        UTILITIES[utility](CONFIGS[config])
    capsys.readouterr()  # render_test prints "human" frames, api_test its progress
    unexpected = {(w.category, str(w.message)) for w in caught} - EXPECTED_WARNINGS
    assert not unexpected, unexpected
