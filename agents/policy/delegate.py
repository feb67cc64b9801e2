"""Policies that make only some decisions and hand the others to a delegate agent.

A network trained with ``ppo.delegate: heuristic`` (Abracadabra) decides the **bids** (C1 in
docs/rules.md) — the skill the bidding benchmark measures — and every other decision of its
seats (showing cards, D1; card play, E; saying "Abracadabra", F1) is made by the delegate,
e.g. the heuristic's exact-target card play. So the network learns *what to bid given how
the hand will be played*, which it cannot learn in 30 minutes when it must also learn the
card play from scratch.

The split is by the legal-action mask alone (an agent sees nothing else): a row is the
network's when a bid is legal (:data:`NETWORK_ACTIONS`). The same routing is used while
training (:mod:`training.ppo_batch`, the opponent pool) and when the checkpoint plays
(:class:`agents.policy.agent.PolicyAgent`), so both see the same split.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from envs import registry

ActFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


class _NetworkActions(Mapping):
    """game -> the actions whose decisions the network makes when a delegate plays the
    rest (int array), for the games whose descriptor declares them
    (``Game.network_actions``: Abracadabra's bids, C1)."""

    def __getitem__(self, game: str) -> np.ndarray:
        return np.arange(*_DECLARED[game])

    def __iter__(self):
        return iter(_DECLARED)

    def __len__(self) -> int:
        return len(_DECLARED)


_DECLARED = registry.Declared("network_actions")
#: game -> the actions whose decisions the network makes when a delegate plays the rest
NETWORK_ACTIONS = _NetworkActions()


def check_delegate(game: str, delegate: str | None) -> str | None:
    """Validate a model config's ``delegate`` (None: the network makes every decision)."""
    if delegate is None:
        return None
    if game not in NETWORK_ACTIONS:
        raise ValueError(f"delegate={delegate!r}: only {sorted(NETWORK_ACTIONS)} policies can "
                         f"delegate decisions; use delegate: null for {game}")
    import agents

    allowed = sorted(set(agents.available(game)) - {"policy", "bidder"})  # no networks
    if delegate not in allowed:
        raise ValueError(f"delegate={delegate!r}: expected a registered {game} agent that "
                         f"is not a network, one of {allowed}")
    return delegate


def make_delegate(game: str, delegate: str | None, seed: int | None = None):
    """The delegate agent named by a model config (validated), or None."""
    if check_delegate(game, delegate) is None:
        return None
    from agents.registry import make

    return make(delegate, game, seed=seed)


def network_rows(game: str, masks: np.ndarray) -> np.ndarray:
    """bool [N]: the rows the network decides (a network action is legal)."""
    return np.asarray(masks, dtype=bool)[:, NETWORK_ACTIONS[game]].any(axis=1)


def delegated(game: str, network_act: ActFn, delegate_act: ActFn) -> ActFn:
    """``act(obs, masks)`` that calls ``network_act`` on the network's rows and
    ``delegate_act`` on the others (each at most once per call)."""

    def act(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        mine = network_rows(game, masks)
        actions = np.zeros(len(mine), dtype=np.int64)
        if mine.any():
            actions[mine] = network_act(observations[mine], masks[mine])
        if not mine.all():
            actions[~mine] = delegate_act(observations[~mine], masks[~mine])
        return actions

    return act
