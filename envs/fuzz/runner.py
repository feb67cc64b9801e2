"""Random play of one configuration with every invariant checked after every step.

:func:`run_case` plays a batch of games with uniformly random legal actions
(:func:`envs.core.sample_uniform_legal`), a random few games sitting out each step
(``active``), and finished games restarted in place (``reset(games=…, game_seeds=…)``,
alternating a bool mask and shuffled integer indices). Around every step its game's
checker (:mod:`envs.fuzz.abracadabra`, :mod:`envs.fuzz.four_aces`) compares the engine
with the rules; in addition, every ``probe_every`` steps one game is given an action its
mask forbids (or one out of range), which must raise ``ValueError`` and change no state
array, and now and then the observation is checked to be finite and within the engine's
declared bounds. Everything is a function of ``seed``: a violation is reproduced by the
same case, batch and seed (it happened at the reported step).
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from envs import registry
from envs.core import sample_uniform_legal
from envs.fuzz.cases import FuzzCase
from envs.fuzz.checks import InvariantViolation

#: the reference checker of each game, as its descriptor names it (``fuzz_checker``)
CHECKERS = registry.Declared("fuzz_checker", load=True)
#: the state field holding each game's 64-bit key (``key_field``)
KEY_FIELDS = registry.Declared("key_field")
SIT_OUT = 0.05  #: the chance that a live game sits a step out (``active`` False)
OBSERVE_EVERY = 16  #: steps between observation checks
#: the memory a game takes while its case plays, over the arrays it keeps between steps
#: (the probe's copy of the state, the checker's temporaries): tracemalloc's peak per game
#: was 1.3 to 1.6 times those arrays
MEMORY_FACTOR = 2.0


@dataclass
class Violation:
    """An invariant that failed: where, and how to reproduce it."""

    case: str  #: the case's label
    seed: int
    batch: int
    step: int  #: the batch step (0-based) after which it was found
    game: int | None  #: the batch row, if known
    message: str


@dataclass
class CaseResult:
    """What one case played and found."""

    case: FuzzCase
    seed: int
    batch: int
    steps: int = 0  #: batch steps
    agent_steps: int = 0  #: actions applied (one per acting game per step)
    deals: int = 0  #: finished deals (Abracadabra) or rounds (Four Aces)
    episodes: int = 0  #: episodes started
    probes: int = 0  #: illegal actions refused with the state unchanged
    seconds: float = 0.0
    violations: list[Violation] = field(default_factory=list)


def case_seed(seed: int, case: FuzzCase) -> int:
    """The seed ``case`` plays with in a run seeded ``seed`` (a function of its label, so
    that one case run alone plays exactly as in the full run)."""
    return (seed * 2**32 + zlib.crc32(case.label.encode())) % 2**63


def run_case(case: FuzzCase, batch: int, seed: int, seconds: float | None = None,
             max_steps: int | None = None, max_deals: int | None = None,
             probe_every: int = 20, progress: Callable[[CaseResult], None] | None = None
             ) -> CaseResult:
    """Play ``case`` on a batch of ``batch`` games until ``seconds`` have passed,
    ``max_steps`` batch steps were played or ``max_deals`` deals (rounds) finished,
    whichever comes first (at least one must be given), checking every invariant; stops
    at the first violation (recorded in the result). ``progress`` is called with the
    running result about twice a second."""
    if seconds is None and max_steps is None and max_deals is None:
        raise ValueError("run_case needs seconds, max_steps or max_deals")
    engine = registry.make_engine(case.game, batch_size=batch, **case.options)
    checker = CHECKERS[case.game](engine)
    result = CaseResult(case, seed, batch)
    rng = np.random.default_rng(seed)
    start = shown = time.perf_counter()
    try:
        engine.reset(seed=seed)
        result.episodes += batch
        result.deals += checker.started(np.arange(batch))
        while (
            (max_steps is None or result.steps < max_steps)
            and (max_deals is None or result.deals < max_deals)
            and (seconds is None or time.perf_counter() - start < seconds)
        ):
            _restart_finished(engine, checker, rng, result)
            mask = engine.legal_action_mask()
            checker.check_before(mask)
            active = mask.any(axis=1) & (rng.random(batch) >= SIT_OUT)
            actions = np.zeros(batch, np.int64)
            if active.any():
                actions[active] = sample_uniform_legal(rng, mask[active])
            if probe_every and result.steps % probe_every == 0:
                result.probes += _probe(engine, rng, mask, actions, active)
            if result.steps % OBSERVE_EVERY == 0:
                _check_observation(engine)
            rewards = engine.step(actions, active)
            result.agent_steps += int(active.sum())
            result.deals += checker.after_step(actions, active, rewards)
            result.steps += 1
            if progress is not None and time.perf_counter() - shown > 0.5:
                shown = time.perf_counter()
                result.seconds = shown - start
                progress(result)
    except InvariantViolation as error:
        result.violations.append(Violation(case.label, seed, batch, result.steps, error.game,
                                           str(error)))
    except Exception as error:  # a crash of the engine is a finding too
        result.violations.append(Violation(case.label, seed, batch, result.steps, None,
                                           f"{type(error).__name__}: {error}"))
    result.seconds = time.perf_counter() - start
    if progress is not None:
        progress(result)
    return result


def bytes_per_game(case: FuzzCase) -> int:
    """About the memory (bytes) one game of the batch takes while :func:`run_case` plays
    ``case``: the engine's state arrays, legal-action mask and observation and the
    checker's arrays, measured on a batch of 16, times :data:`MEMORY_FACTOR`."""
    batch = 16
    engine = registry.make_engine(case.game, batch_size=batch, **case.options)
    checker = CHECKERS[case.game](engine)
    kept = sum(array.nbytes for array in engine.state.arrays().values())
    kept += sum(v.nbytes for v in vars(checker).values() if isinstance(v, np.ndarray))
    kept += batch * (engine.num_actions + 4 * engine.observation_size)  # bool, float32
    return math.ceil(MEMORY_FACTOR * kept / batch)


def run_cases(cases: Sequence[FuzzCase], batch: int, seed: int,
              seconds: float | None = None, deals: int | None = None,
              progress: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Play every case in turn, each with :func:`case_seed`. ``seconds``: the whole run's
    time, shared equally by the games present and within a game by its cases; ``deals``:
    the deals (rounds) each game plays at least, shared equally by its cases (each case
    stops at the end of the step reaching its share). At least one must be given."""
    if seconds is None and deals is None:
        raise ValueError("run_cases needs seconds or deals")
    games = sorted({case.game for case in cases})
    per_game = {g: sum(case.game == g for case in cases) for g in games}
    results = []
    for case in cases:
        n = per_game[case.game]
        results.append(run_case(
            case, batch, case_seed(seed, case),
            seconds=None if seconds is None else seconds / len(games) / n,
            max_deals=None if deals is None else math.ceil(deals / n),
            progress=progress,
        ))
    return results


def _restart_finished(engine, checker, rng: np.random.Generator, result: CaseResult) -> None:
    """Reset the finished games in place with fresh keys, as a bool mask or as shuffled
    integer indices (every other step), and check each got its own key."""
    over = engine.game_over
    if not over.any():
        return
    rows = np.flatnonzero(over)
    keys = rng.integers(0, 2**64, size=len(rows), dtype=np.uint64)
    if result.steps % 2:
        order = rng.permutation(len(rows))
        engine.reset(games=rows[order], game_seeds=keys[order])
    else:
        engine.reset(games=over.copy(), game_seeds=keys)
    key = engine.state.arrays()[KEY_FIELDS[result.case.game]]
    if not np.array_equal(key[rows], keys):
        raise InvariantViolation("reset(games=..., game_seeds=...) gave a game another "
                                 "game's key", int(rows[0]))
    result.episodes += len(rows)
    result.deals += checker.started(rows)


def _probe(engine, rng: np.random.Generator, mask: np.ndarray, actions: np.ndarray,
           active: np.ndarray) -> int:
    """One acting game gets an action its mask forbids (or one out of range): the step
    must raise ``ValueError`` and leave every state array as it was. Returns 1 if a probe
    was made."""
    acting = np.flatnonzero(active)
    if not len(acting):
        return 0
    b = int(rng.choice(acting))
    forbidden = np.concatenate([np.flatnonzero(~mask[b]), [-1, engine.num_actions]])
    bad = actions.copy()
    bad[b] = int(rng.choice(forbidden))
    before = {name: array.copy() for name, array in engine.state.arrays().items()}
    try:
        engine.step(bad, active)
    except ValueError:
        pass
    else:
        raise InvariantViolation(f"the forbidden action {bad[b]} was accepted", b)
    for name, array in engine.state.arrays().items():
        if not np.array_equal(array, before[name]):
            raise InvariantViolation(f"a refused action changed the state ({name})", b)
    return 1


def _check_observation(engine) -> None:
    obs = engine.observe()
    low, high = engine.observation_bounds
    ok = np.isfinite(obs).all(axis=1) & (obs >= low).all(axis=1) & (obs <= high).all(axis=1)
    if not ok.all():
        b = int(np.flatnonzero(~ok)[0])
        raise InvariantViolation("the observation leaves the declared bounds", b)
