"""The one PettingZoo AEC adapter shared by both games.

A game's ``raw_env`` subclasses :class:`BatchEngineAEC` and supplies its engine (a batch
of one), how ``reset(options=…)`` deals a fixed deal, and its text renderer. Everything
PettingZoo-specific lives here: spaces built once, masks only for the agent to act,
rewards accumulated for every seat that earned them, results in ``info``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core import BatchEngine


class BatchEngineAEC(AECEnv):
    """AEC environment over a :class:`~envs.core.BatchEngine` holding one game."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"],
                                "is_parallelizable": False}

    def __init__(self, engine: BatchEngine, render_mode: str | None = None):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode={render_mode!r} is not allowed: expected one of "
                f"{(None, *self.metadata['render_modes'])}"
            )
        if engine.batch_size != 1:
            raise ValueError("the AEC environment drives a batch of exactly one game")
        self.engine = engine
        self.render_mode = render_mode
        self.action_names: list[str] = list(engine.action_names)
        self.possible_agents = [f"player_{i}" for i in range(engine.num_players)]
        self.agents = self.possible_agents[:]
        low, high = engine.observation_bounds
        observation_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=low, high=high, shape=(engine.observation_size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(engine.num_actions,), dtype=np.int8),
            }
        )
        action_space = spaces.Discrete(engine.num_actions)
        # Built once and returned by identity: api_test checks `is`.
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: action_space for a in self.possible_agents}
        self._no_mask = np.zeros(engine.num_actions, dtype=np.int8)
        self._mask = self._no_mask
        self._seeded = False
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        # The observation of the current state per seat, computed on first use and kept
        # until the next reset or step; observe() returns copies of its rows.
        self._obs = np.zeros((engine.num_players, engine.observation_size), np.float32)
        self._obs_fresh = [False] * engine.num_players
        self._result: dict | None = None

    # -- PettingZoo API ---------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is None and not self._seeded:
            seed = int(np.random.SeedSequence().entropy % (2**63))
        if seed is not None:
            self._seeded = True
        if options:
            self._reset_with_options(seed, options)
        else:
            self.engine.reset(seed=seed)
        self.agents = self.possible_agents[:]
        self._skip_agent_selection = None  # stale after a reset amid dead steps
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_change()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        if not self._obs_fresh[seat]:
            self.engine.observe_one(seat, self._obs[seat])
            self._obs_fresh[seat] = True
        mask = self._mask if agent == self.agent_selection and not self._over else self._no_mask
        return {"observation": self._obs[seat].copy(), "action_mask": mask.copy()}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: action None is only for finished agents")
        rewards = self.engine.step(np.array([action], dtype=np.int64))[0].tolist()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict(zip(self.possible_agents, rewards, strict=True))
        self._accumulate_rewards()
        self._after_change(deal_over=bool(getattr(self.engine, "deal_over", (True,))[0]))
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The table as the agent to act sees it: text (``"ansi"``; printed for
        ``"human"``) or a picture, uint8 [720, 1000, 3] (``"rgb_array"``, drawn by
        :mod:`envs.raster`)."""
        if self.render_mode is None:
            return None
        seat = self.possible_agents.index(self.agent_selection)
        if self.render_mode == "rgb_array":
            from envs.raster import engine_rgb  # Pillow is imported only for pictures

            return engine_rgb(self.engine, 0, seat)
        text = self.render_text(seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # -- to be supplied by each game -------------------------------------------------
    def _reset_with_options(self, seed: int | None, options: dict) -> None:
        raise NotImplementedError

    def render_text(self, seat: int) -> str:
        """A readable text view of the table as ``seat`` sees it."""
        raise NotImplementedError

    # -- internals ---------------------------------------------------------------------
    @property
    def _over(self) -> bool:
        return bool(self.engine.game_over[0])

    def _after_change(self, deal_over: bool = True) -> None:
        """Refresh selection, mask, terminations and infos from the engine; the result
        dict is rebuilt only when a deal may have ended (``deal_over``)."""
        self._obs_fresh = [False] * self.engine.num_players
        if deal_over:
            self._result = self.engine.result(0)
        result = self._result
        if self._over:
            self._mask = self._no_mask
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[int(self.engine.current_player[0])]
            self._mask = self.engine.legal_action_mask()[0].view(np.int8)  # (a fresh copy)
        selected, mask, no_mask = self.agent_selection, self._mask, self._no_mask
        if result is None:
            self.infos = {a: {"action_mask": mask if a == selected else no_mask}
                          for a in self.agents}
        else:
            self.infos = {a: {"action_mask": mask if a == selected else no_mask,
                              "result": result} for a in self.agents}


# -- the standard wrapper stack, without its per-call overhead --------------------------------
#: attributes PettingZoo's OrderEnforcingWrapper refuses before the first reset
_NEED_RESET = frozenset(
    ("rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents",
     "agents")
)


class CheckedActions(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper``, the same assertion made faster: an
    integer action (``int`` or a numpy integer scalar, which ``Discrete.contains`` accepts)
    is checked against the ``Discrete`` range directly (anything else goes to
    ``action_space(agent).contains`` as before), and the state it reads comes straight
    from the environment it wraps, not through ``__getattr__``."""

    def step(self, action: Any) -> None:
        env = self.env
        agent = env.agent_selection
        if isinstance(action, (int, np.integer)):
            space = env.action_spaces[agent]
            ok = space.start <= action < space.start + space.n
        else:
            ok = (action is None and (env.terminations[agent] or env.truncations[agent])) or (
                env.action_space(agent).contains(action))
        assert ok, "action is not in action space"
        env.step(action)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (the same checks, errors and warnings),
    with ``last()`` and attribute reads going straight to the unwrapped environment once
    ``reset`` has been called, instead of through one ``__getattr__`` per wrapper layer
    (the inner layers only forward those reads). ``api_test`` sees the standard
    classes: both wrappers here subclass PettingZoo's."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._raw = env.unwrapped

    def __getattr__(self, name: str) -> Any:
        raw = self.__dict__.get("_raw")
        if raw is None or name[0] == "_" or (name in _NEED_RESET and not self._has_reset):
            return super().__getattr__(name)  # PettingZoo's checks and errors
        return getattr(raw, name)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw.last(observe)


def standard_wrappers(env: AECEnv) -> AECEnv:
    """``env`` in PettingZoo's standard wrappers (out-of-bounds assertion, order
    enforcement), as :class:`CheckedActions` and :class:`OrderEnforcing`."""
    return OrderEnforcing(CheckedActions(env))


def register_aec(env_id: str, entry_point: str) -> None:
    """Register ``env_id`` (e.g. ``"cardgames/abracadabra_v0"``) in PettingZoo's registry,
    so that ``pettingzoo.make("aec", env_id)`` works; a no-op on PettingZoo without one."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # PettingZoo < 1.27 has no registry
        return
    namespace, _, name = env_id.rpartition("/")
    stored = f"{namespace}/{name.replace('_v', '-v')}"  # PettingZoo stores "name-vN"
    if stored not in aec_registry:
        register("aec", env_id, entry_point=entry_point)
