"""The one PettingZoo AEC adapter shared by both games.

A game's ``raw_env`` subclasses :class:`BatchEngineAEC` and supplies its engine (a batch
of one), how ``reset(options=…)`` deals a fixed deal, its text renderer, the true bounds of
its observation columns, its fixed-shape ``info["result"]`` and the hidden part of its
global state. Everything PettingZoo-specific lives here: spaces built once, masks only for
the agent to act, rewards accumulated for every seat that earned them, actions checked
(integer ids in range; an illegal one ends the game with a warning, or raises,
``illegal_action``), results in ``info``, and :meth:`BatchEngineAEC.state` for centralised
critics.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECIterable
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from envs.core import BatchEngine, check_choice

#: the values of ``illegal_action``: ``"terminate"`` the game with ``ILLEGAL_ACTION_REWARD``
#: for the offender and 0 for the others, with an :class:`IllegalActionWarning` (the
#: convention of PettingZoo's classic games, ``TerminateIllegalWrapper``; the default of
#: every ``env()``), or ``"raise"`` a ValueError (the state is unchanged; for debugging,
#: and the default of ``raw_env``)
ILLEGAL_ACTION_MODES = ("terminate", "raise")
ILLEGAL_ACTION_REWARD = -1.0
#: the ``illegal_action`` of every wrapped ``env()``: PettingZoo's classic convention
DEFAULT_ILLEGAL_ACTION = "terminate"
#: the warning of an illegal action under ``"terminate"`` (one text, so that Python's
#: default filter shows it once per place; ``info["illegal_action"]`` has the details)
ILLEGAL_ACTION_MESSAGE = (
    "illegal action (not in the action mask): the game ends, -1 to the player who made it, "
    "0 to the others; info['illegal_action'] says who, what and why "
    "(env(illegal_action='raise') raises a ValueError instead, for debugging)")


class IllegalActionWarning(UserWarning):
    """An illegal action ended the game (``illegal_action="terminate"``). Silence it with
    ``warnings.filterwarnings("ignore", category=IllegalActionWarning)``."""


def action_id(action: object, num_actions: int) -> int:
    """``action`` as a Python int in ``0..num_actions - 1``.

    An action is an ``int`` or a numpy integer (a scalar or a 0-d array). Anything else —
    floats (even ``2.0``), bools, strings, ``None``, arrays of another shape — raises
    ``ValueError`` naming the value and its type, and so does an integer out of range:
    nothing is rounded, truncated or wrapped around.
    """
    if type(action) is int:  # the common case first
        a = action
    elif (isinstance(action, (int, np.integer)) and not isinstance(action, bool)) or (
            isinstance(action, np.ndarray) and action.shape == ()
            and action.dtype.kind in "iu"):
        a = int(action)
    else:
        raise ValueError(
            f"action {action!r} ({type(action).__name__}) is not an action id: expected an "
            f"integer 0..{num_actions - 1} (an int or a numpy integer; floats, bools and "
            "strings are refused, not rounded)")
    if not 0 <= a < num_actions:
        raise ValueError(f"action {a} is out of range: expected an integer "
                         f"0..{num_actions - 1} (the action space is Discrete({num_actions}))")
    return a


def _caller_stacklevel() -> int:
    """The ``stacklevel`` of a warning issued in a method of this module that names the
    first caller outside it and outside PettingZoo's wrappers: the line of the user's
    ``step`` (Python's default filter then shows the warning once per such line)."""
    level, frame = 1, sys._getframe(2)  # (the caller of the method that warns)
    while frame is not None and (frame.f_globals.get("__name__") == __name__ or str(
            frame.f_globals.get("__name__", "")).startswith("pettingzoo.utils")):
        level, frame = level + 1, frame.f_back
    return level + 1


def seat_flags(seats: Iterable[int], num_players: int) -> list[bool]:
    """``[seat in seats for seat in range(num_players)]``: a list of seats as one bool per
    seat (the fixed-shape form of ``info["result"]``)."""
    chosen = set(seats)
    return [seat in chosen for seat in range(num_players)]


def _box(low: np.ndarray, high: np.ndarray) -> spaces.Box:
    """A float32 ``Box`` with per-column bounds ``low`` and ``high`` (1-d, equal sizes)."""
    low, high = np.asarray(low, np.float32), np.asarray(high, np.float32)
    if low.shape != high.shape or low.ndim != 1 or (low > high).any():
        raise ValueError(f"bounds must be 1-d of one shape with low <= high, got "
                         f"{low.shape} and {high.shape}")
    return spaces.Box(low=low, high=high, dtype=np.float32)


class BatchEngineAEC(AECEnv):
    """AEC environment over a :class:`~envs.core.BatchEngine` holding one game.

    Args:
        engine: the game's engine, a batch of one.
        observation_bounds: (low, high), float [observation size]: the true bounds of
            every observation column under this configuration.
        hidden_state_bounds: (low, high), float [n]: the bounds of the columns of
            :meth:`state` after the seat-0 view (what :meth:`_write_hidden_state` writes).
        render_mode: None, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        illegal_action: ``"raise"`` (a ``ValueError``, nothing changes; the default here,
            in ``raw_env``) or ``"terminate"`` (the default of every ``env()``: the game
            ends, -1 for the offender, 0 for the others, an
            :class:`IllegalActionWarning`, the reason in every agent's
            ``info["illegal_action"]``).
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"],
                                "is_parallelizable": False}

    def __init__(self, engine: BatchEngine, *,
                 observation_bounds: tuple[np.ndarray, np.ndarray],
                 hidden_state_bounds: tuple[np.ndarray, np.ndarray],
                 render_mode: str | None = None, illegal_action: str = "raise"):
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(
                f"render_mode={render_mode!r} is not allowed: expected one of "
                f"{(None, *self.metadata['render_modes'])}"
            )
        check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        if engine.batch_size != 1:
            raise ValueError("the AEC environment drives a batch of exactly one game")
        self.engine = engine
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.action_names: list[str] = list(engine.action_names)
        self.possible_agents = [f"player_{i}" for i in range(engine.num_players)]
        self.agents = self.possible_agents[:]
        observation = _box(*observation_bounds)
        if observation.shape != (engine.observation_size,):
            raise ValueError(f"observation_bounds must have {engine.observation_size} "
                             f"columns, got {observation.shape}")
        observation_space = spaces.Dict(
            {
                "observation": observation,
                "action_mask": spaces.Box(0, 1, shape=(engine.num_actions,), dtype=np.int8),
            }
        )
        action_space = spaces.Discrete(engine.num_actions)
        # Built once and returned by identity: api_test checks `is`.
        self.observation_spaces = {a: observation_space for a in self.possible_agents}
        self.action_spaces = {a: action_space for a in self.possible_agents}
        #: the global state's space: the seat-0 view, then the hidden columns
        self.state_space = _box(
            np.concatenate([observation.low, np.asarray(hidden_state_bounds[0], np.float32)]),
            np.concatenate([observation.high, np.asarray(hidden_state_bounds[1], np.float32)]))
        self._num_actions = engine.num_actions
        self._no_mask = np.zeros(engine.num_actions, dtype=np.int8)
        #: the mask of the agent to act (a fresh array per step: infos hold it); the zero
        #: mask once the game is over
        self._mask = self._no_mask
        self._seeded = False
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        # The observation of the current state per seat, computed on first use and kept
        # until the next reset or step; observe() returns copies of its rows.
        self._obs = np.zeros((engine.num_players, engine.observation_size), np.float32)
        self._obs_rows = list(self._obs)  # the rows as views, indexed without numpy
        self._obs_fresh = [False] * engine.num_players
        self._result: dict | None = None
        self._illegal: dict | None = None  # what ended the game, under "terminate"
        self._zero_rewards = {a: 0.0 for a in self.possible_agents}

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
        self._illegal = None
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
        row = self._obs_rows[seat]
        if not self._obs_fresh[seat]:
            self._observe_into(seat, row)
            self._obs_fresh[seat] = True
        # (self._mask is the zero mask once the game is over)
        mask = self._mask if agent == self.agent_selection else self._no_mask
        return {"observation": row.copy(), "action_mask": mask.copy()}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        """PettingZoo's ``last``: the observation (a fresh dict, see :meth:`observe`),
        cumulative reward, termination, truncation and info of the agent to act."""
        agent = self.agent_selection
        assert agent is not None
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def step(self, action: int | None) -> None:
        """Play ``action`` (an integer id, see :func:`action_id`) for the agent to act;
        ``None`` for an agent whose game is over. A non-integer or out-of-range action
        raises ``ValueError`` whatever ``illegal_action`` says; an illegal one (in range,
        not in the mask) ends the game with a warning or raises (``illegal_action``).
        Once every agent has left (``agents`` is empty), ``step(None)`` does nothing
        (PettingZoo's convention for finished agents) and any other action is a
        ``ValueError`` saying to call ``reset()``; so is a step before the first
        ``reset()``."""
        try:
            agent = self.agent_selection
            dead = self.terminations[agent] or self.truncations[agent]
        except (KeyError, AttributeError):  # every agent has left, or no reset yet
            self._step_without_agents(action)
            return
        if dead:
            self._was_dead_step(action)  # PettingZoo's: ValueError unless action is None
            return
        if action is None:
            raise ValueError(f"{agent} is to act: action None is only for finished agents")
        a = action_id(action, self._num_actions)
        try:
            rewards = self._engine_step(a)
        except ValueError as error:  # illegal: the engine has changed nothing
            if self.illegal_action == "raise":
                raise
            self._terminate_illegal(agent, a, str(error))
            return
        self._cumulative_rewards[agent] = 0.0
        if rewards is None:  # no deal ended: nobody earned anything (adding 0.0 is a no-op)
            self.rewards = self._zero_rewards.copy()
            self._after_change(deal_over=False)
        else:
            self.rewards = dict(zip(self.possible_agents, rewards, strict=True))
            self._accumulate_rewards()
            self._after_change(deal_over=True)
        if self.render_mode == "human":
            self.render()

    def _step_without_agents(self, action: int | None) -> None:
        """``step`` when no agent is left to act: None is a no-op (the last agents' dead
        steps are done), anything else a ValueError naming what to do."""
        if not hasattr(self, "terminations"):
            raise ValueError(f"step({action!r}) before reset(): call reset() first")
        if action is not None:
            raise ValueError(f"step({action!r}) after the game ended: every agent has "
                             f"finished and left (agents is empty); the only valid action "
                             f"is None, or call reset() to play again")

    def state(self) -> np.ndarray:
        """float32 [state_space.shape[0]]: the global state, for centralised critics (a
        fresh array inside ``state_space``): the observation of seat 0 — the public state
        and seat 0's hand, its relative slot ``i`` being seat ``i`` — followed by what no
        observation shows (every hand, ...; see the game's module docstring)."""
        out = np.empty(self.state_space.shape, np.float32)
        size = self.engine.observation_size
        self.engine.observe_one(0, out[:size])
        self._write_hidden_state(out[size:])
        return out

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

    def fixed_result(self) -> dict | None:
        """``info["result"]``: the last finished deal or round, with the same keys and
        shapes in every episode of this configuration and no ``None`` (per-seat entries
        are lists of length ``num_players``); None while no deal or round has finished."""
        raise NotImplementedError

    def _write_hidden_state(self, out: np.ndarray) -> None:
        """Write the columns of :meth:`state` after the seat-0 view into ``out``
        (float32, every entry)."""
        raise NotImplementedError

    # -- the engine calls of a step ------------------------------------------------------
    def _engine_step(self, action: int) -> list[float] | None:
        """Play ``action`` (a valid id) in the engine's game. Returns every seat's reward
        (floats in seat order), or None when no deal or round ended in this step (then
        every reward is 0, :meth:`~envs.core.BatchEngine.step`). An illegal action raises
        the engine's ``ValueError`` and changes nothing."""
        rewards = self.engine.step(np.array([action], dtype=np.int64))
        deal_over = getattr(self.engine, "deal_over", None)  # None: the engine cannot tell
        if deal_over is not None and not deal_over[0]:
            return None
        return rewards[0].tolist()

    def _legal_mask(self) -> np.ndarray:
        """int8 [num_actions]: the legal actions of the player to act, a fresh array."""
        return self.engine.legal_action_mask()[0].view(np.int8)

    def _observe_into(self, seat: int, out: np.ndarray) -> None:
        """Write ``seat``'s observation of the game into ``out`` (float32 [size])."""
        self.engine.observe_one(seat, out)

    # -- internals ---------------------------------------------------------------------
    def _after_change(self, deal_over: bool = True) -> None:
        """Refresh selection, mask, terminations and infos from the engine; the result
        dict is rebuilt only when a deal may have ended (``deal_over``)."""
        self._obs_fresh = [False] * len(self._obs_rows)
        if deal_over:
            self._result = self.fixed_result()
        result = self._result
        over = self._illegal is not None or bool(self.engine.game_over[0])
        if over:
            self._mask = mask = self._no_mask
            self.terminations = {a: True for a in self.agents}
        else:
            self.agent_selection = self.possible_agents[int(self.engine.current_player[0])]
            self._mask = mask = self._legal_mask()
        # a fresh info dict per agent and step (callers may keep or extend them)
        no_mask = self._no_mask
        if result is None:
            infos = {a: {"action_mask": no_mask} for a in self.agents}
            if not over:
                infos[self.agent_selection] = {"action_mask": mask}
        else:
            infos = {a: {"action_mask": no_mask, "result": result} for a in self.agents}
            if not over:
                infos[self.agent_selection] = {"action_mask": mask, "result": result}
        self.infos = infos

    def _terminate_illegal(self, agent: str, action: int, reason: str) -> None:
        """End the game after ``agent``'s illegal ``action``: ``ILLEGAL_ACTION_REWARD``
        for him, 0 for the others, every agent terminated (not truncated: the game is
        over, nothing was cut short), no masks, and ``info["illegal_action"]`` saying
        who, what and why; an :class:`IllegalActionWarning`. The engine's game is left as
        it was before the action."""
        warnings.warn(ILLEGAL_ACTION_MESSAGE, IllegalActionWarning,
                      stacklevel=_caller_stacklevel())
        self._illegal = {"agent": agent, "action": action, "name": self.action_names[action],
                         "reason": reason}
        self._mask = self._no_mask
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = ILLEGAL_ACTION_REWARD
        self._accumulate_rewards()
        self.terminations = {a: True for a in self.agents}
        self.infos = {a: {**info, "action_mask": self._no_mask,
                          "illegal_action": self._illegal} for a, info in self.infos.items()}


# -- the standard wrapper stack, without its per-call overhead --------------------------------
#: attributes PettingZoo's OrderEnforcingWrapper refuses before the first reset
_NEED_RESET = frozenset(
    ("rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents",
     "agents")
)


class CheckedActions(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` in its place in the standard stack, its
    check made by the environment itself: ``raw_env.step`` refuses a non-integer or
    out-of-range action with a ``ValueError`` naming the action and the range (see
    :func:`action_id`), so this layer passes every action straight through."""

    def step(self, action: Any) -> None:
        self.env.step(action)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (the same checks, errors and warnings),
    with ``last()``, ``observe()``, ``step()``, the ``agent_iter()`` loop and attribute
    reads going straight to the unwrapped environment once ``reset`` has been called,
    instead of through each wrapper layer (the inner layer, :class:`CheckedActions`,
    passes every call through unchanged). ``api_test`` sees the standard classes: both
    wrappers here subclass PettingZoo's."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._raw = env.unwrapped
        # the layers below only forward step() and observe(): call the environment's own
        self._direct = all(type(layer) is CheckedActions for layer in _layers(env))

    def __getattr__(self, name: str) -> Any:
        raw = self.__dict__.get("_raw")
        if raw is None or name[0] == "_" or (name in _NEED_RESET and not self._has_reset):
            return super().__getattr__(name)  # PettingZoo's checks and errors
        return getattr(raw, name)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self._raw.last(observe)

    def step(self, action: Any) -> None:
        if self._has_reset and self._direct and self._raw.agents:
            self._has_updated = True
            self._raw.step(action)
        else:
            super().step(action)  # PettingZoo's (errors, warnings, the inner layers)

    def observe(self, agent: str) -> Any:
        if self._has_reset and self._direct:
            return self._raw.observe(agent)
        return super().observe(agent)

    def agent_iter(self, max_iter: int = 2**63) -> AECIterable:
        if not self._has_reset:
            return super().agent_iter(max_iter)  # PettingZoo's error
        return _OrderEnforcingIterable(self, max_iter)


def _layers(env: AECEnv) -> list[AECEnv]:
    """The wrappers between ``env`` (included) and the unwrapped environment."""
    layers = []
    while isinstance(env, wrappers.BaseWrapper):
        layers.append(env)
        env = env.env
    return layers


class _OrderEnforcingIterable(AECOrderEnforcingIterable):
    """PettingZoo's ``agent_iter()`` of :class:`OrderEnforcing`, its iterator reading the
    unwrapped environment directly."""

    def __iter__(self) -> AECOrderEnforcingIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class _OrderEnforcingIterator(AECOrderEnforcingIterator):
    """PettingZoo's iterator (stops when no agent is left or after ``max_iter`` agents;
    asserts that ``step`` or ``reset`` came between two agents), reading ``agents`` and
    ``agent_selection`` from the unwrapped environment."""

    def __next__(self) -> str:
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection


def standard_wrappers(env: AECEnv) -> AECEnv:
    """``env`` in PettingZoo's standard wrappers (out-of-bounds check, order
    enforcement), as :class:`CheckedActions` and :class:`OrderEnforcing`."""
    return OrderEnforcing(CheckedActions(env))


def register_aec(env_id: str, entry_point: str) -> bool:
    """Register ``env_id`` (e.g. ``"cardgames/abracadabra_v1"``) in PettingZoo's registry,
    so that ``pettingzoo.make("aec", env_id)`` works. Returns whether the registry holds
    it: False on PettingZoo without a registry (before 1.27), where nothing is done."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, register
    except ImportError:  # PettingZoo < 1.27 has no registry
        return False
    namespace, _, name = env_id.rpartition("/")
    stored = f"{namespace}/{name.replace('_v', '-v')}"  # PettingZoo stores "name-vN"
    if stored not in aec_registry:
        register("aec", env_id, entry_point=entry_point)
    return True
