"""High Card as a PettingZoo AEC environment: a thin adapter over :mod:`.engine` through
:class:`envs.pettingzoo_base.BatchEngineAEC` (``env()`` wraps ``raw_env`` in the standard
wrappers). ``reset(options={"hands": [...]})`` deals fixed hands; ``info["result"]`` is
``{"points": [P], "winners": [P] flags}`` once the deal is over."""

from __future__ import annotations

import numpy as np

from envs.cards import names
from envs.pettingzoo_base import BatchEngineAEC, seat_flags, standard_wrappers

from .config import MAX_PLAYERS, HighCardConfig
from .engine import DECK, LAYOUT, HighCardEngine


def env(**kwargs) -> BatchEngineAEC:
    """The wrapped environment (PettingZoo's standard wrappers over :class:`raw_env`)."""
    kwargs.setdefault("illegal_action", "terminate")
    return standard_wrappers(raw_env(**kwargs))


class raw_env(BatchEngineAEC):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped High Card environment over a batch-of-one engine."""

    metadata = {**BatchEngineAEC.metadata, "name": "high_card_v0"}

    def __init__(self, render_mode: str | None = None, illegal_action: str = "raise",
                 **config):
        self.config = HighCardConfig(**config)
        size = LAYOUT.size
        super().__init__(HighCardEngine(self.config, batch_size=1),
                         observation_bounds=(np.zeros(size), np.ones(size)),
                         hidden_state_bounds=(np.zeros(MAX_PLAYERS * DECK),
                                              np.ones(MAX_PLAYERS * DECK)),
                         render_mode=render_mode, illegal_action=illegal_action)

    def _reset_with_options(self, seed: int | None, options: dict) -> None:
        self.engine.reset(seed=seed)
        if "hands" in options:
            self.engine.reset_with_deal(0, options["hands"])

    def render_text(self, seat: int) -> str:
        st = self.engine.state
        return (f"player_{seat}: {' '.join(names(np.flatnonzero(st.hand[0, seat])))}; "
                f"trick: {' '.join(names(st.trick[0][st.trick[0] >= 0]))}")

    def fixed_result(self) -> dict | None:
        res = self.engine.result(0)
        if res is None:
            return None
        return {"points": res["points"],
                "winners": seat_flags(res["winners"], self.engine.num_players)}

    def _write_hidden_state(self, out: np.ndarray) -> None:
        out.fill(0.0)
        hands = self.engine.state.hand[0]
        out.reshape(MAX_PLAYERS, DECK)[: len(hands)] = hands
