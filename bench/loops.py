"""What ``cardrl bench`` plays and how it is timed: the benchmarked games, the timed loops
of our batch engines, AEC environments and ``VecEnv`` view, and the interleaved timer.

A loop (:data:`Loop`) plays uniformly random legal actions for a given number of seconds
and returns ``(agent-steps, complete deals, elapsed seconds)``. Agent-steps are player
decisions (a batch step of B live games is B agent-steps); deals are complete deals
(Abracadabra) or rounds (Four Aces). The batched loops draw actions with
:func:`envs.core.sample_uniform_legal` (exactly uniform, one random integer per game); the
single-game AEC loop uses Python's ``random.Random`` over the legal ids, as the OpenSpiel
loops of :mod:`bench.openspiel` do.
"""

from __future__ import annotations

import importlib.util
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from envs import registry
from envs.core import sample_uniform_legal


class _Rows(Mapping):
    """(game, variant label) -> engine/environment options: every game's ``bench_tables``
    (its descriptor), in the registry's order."""

    def _rows(self) -> dict[tuple[str, str], dict]:
        return {(game, label): options for game in registry.GAMES
                for label, options in registry.get(game).bench_tables}

    def __getitem__(self, key: tuple[str, str]) -> dict:
        return self._rows()[key]

    def __iter__(self):
        return iter(self._rows())

    def __len__(self) -> int:
        return len(self._rows())


#: (game, variant label) -> engine/environment options; the rows the benchmark runs
VARIANTS = _Rows()
#: observation dtypes of the batch rows (``--obs``)
OBS_DTYPES = ("float32", "int8")
#: ``--clock`` choices: what a "second" is
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}

#: plays for ``seconds`` and returns (agent-steps, complete deals, elapsed seconds)
Loop = Callable[[float], tuple[int, int, float]]


def variants(games: Iterable[str]) -> list[tuple[str, str]]:
    """The ``(game, variant label)`` rows of :data:`VARIANTS` for ``games``, in order."""
    games = [registry.get(game).name for game in games]
    return [key for key in VARIANTS if key[0] in games]


# -- what we measure -------------------------------------------------------------------------
def make_batch_engine(game: str, variant: str, batch_size: int):
    """The batch engine of ``(game, variant)`` holding ``batch_size`` games."""
    return registry.make_engine(game, batch_size, **VARIANTS[(game, variant)])


def make_aec_env(game: str, variant: str):
    """The PettingZoo AEC environment a user gets: ``<game>_v0.env(**options)``."""
    return registry.make_env(game, **VARIANTS[(game, variant)])


def vec_env_available() -> bool:
    """Whether the ``VecEnv`` view can be built: it needs stable-baselines3 (the
    ``[train]`` extra)."""
    return importlib.util.find_spec("stable_baselines3") is not None


def make_vec_env(game: str, variant: str, batch_size: int):
    """The stable-baselines3 ``VecEnv`` view (:mod:`training.vec_env`) of ``batch_size``
    games against random opponents, or None without the ``[train]`` extra."""
    if not vec_env_available():
        return None
    from training.vec_env import make_vec_env as factory

    return factory(game, batch_size, options=VARIANTS[(game, variant)], opponents=("random",))


def play_random(engine, steps: int, int8_out: np.ndarray | None = None) -> None:
    """``steps`` batch steps of uniformly random legal play from ``reset(seed=0)``, with
    the float32 observation at every step (and the int8 one into ``int8_out``, if given);
    finished games are reset in place. Untimed: what the memory and compilation figures
    play."""
    rng = np.random.default_rng(0)
    engine.reset(seed=0)
    for _ in range(steps):
        engine.observe()
        if int8_out is not None:
            engine.observe(out=int8_out)
        engine.step(sample_uniform_legal(rng, engine.legal_action_mask()))
        if engine.game_over.any():
            engine.reset(games=engine.game_over)


# -- the timed loops ---------------------------------------------------------------------------
def batch_loop(engine, seed: int = 0, clock: Callable[[], float] = time.perf_counter,
               obs: str = "float32") -> Loop:
    """Random play on a batch engine with observations (of dtype ``obs``, written into one
    preallocated buffer) and masks at every step; finished games are reset in place."""
    rng = np.random.default_rng(seed)
    engine.reset(seed=seed)
    observations = np.zeros((engine.batch_size, engine.observation_size), np.dtype(obs))

    batch_size = engine.batch_size
    # the state's own arrays: the engine writes them in place and never rebinds them
    game_over, deal_over = engine.game_over, engine.deal_over

    def run(seconds: float) -> tuple[int, int, float]:
        # The games carry on from the previous run: with every game of a big batch
        # starting together, a fresh reset per run would time a transient.
        steps = deals = 0
        start = clock()
        while True:
            # every game is live here: one that ended was reset below (an episode ends
            # only when a deal or round does, so game_over is read only then)
            engine.observe(out=observations)
            mask = engine.legal_action_mask()
            engine.step(sample_uniform_legal(rng, mask))
            steps += batch_size
            # np.count_nonzero: a tenth of the cost of .sum() or .any() on a batch of one
            ended = np.count_nonzero(deal_over)
            if ended:
                deals += ended
                if not np.count_nonzero(game_over):
                    continue
                engine.reset(games=game_over)
                # the clock is read when games end, as the OpenSpiel loops read it once a
                # deal: at batch 1 a read of the CPU clock every step would cost the row a
                # noticeable share of its time
                elapsed = clock() - start
                if elapsed >= seconds:
                    return steps, deals, elapsed

    return run


#: the most fills of one run of :func:`batch_time_split`'s floor (bounds the run at a
#: batch of one, whose fills are quick)
_MOST_FILLS = 100_000
#: the parts of a batch step that :func:`batch_time_split` times, in the loop's order
SPLIT_PARTS = ("observe", "mask", "sample", "step", "reset")


def batch_time_split(engine, seconds: float, repeats: int = 1, seed: int = 0,
                     obs: str = "float32") -> dict[str, float]:
    """Where a batch row's time goes: :func:`batch_loop`'s calls timed one by one, as
    nanoseconds per agent-step of each part of :data:`SPLIT_PARTS` (``observe(out=...)``,
    ``legal_action_mask()``, :func:`~envs.core.sample_uniform_legal`, ``step``, the
    in-place ``reset`` of finished games) and ``other_ns`` (the loop's own bookkeeping and
    the clock reads); each the median of ``repeats`` runs of ``seconds`` after a warm-up
    of a fifth of that. Wall clock (``time.perf_counter``, a cheap read): a read of the
    CPU clock costs far more, which would swamp a batch of one.

    Also ``fill_ns``, the floor of ``observe``: the time per game of numpy's
    ``fill(0)`` of the same observation buffer (the median of ``repeats`` runs of a
    tenth of ``seconds`` or 100,000 fills each, after one fill), i.e. writing that many
    bytes as fast as numpy writes a buffer, with no encoding at all."""
    clock = time.perf_counter
    rng = np.random.default_rng(seed)
    engine.reset(seed=seed)
    observations = np.zeros((engine.batch_size, engine.observation_size), np.dtype(obs))

    def run(length: float) -> dict[str, float]:
        spent = dict.fromkeys(SPLIT_PARTS, 0.0)
        steps = 0
        start = clock()
        while True:
            steps += engine.batch_size - np.count_nonzero(engine.game_over)
            t0 = clock()
            engine.observe(out=observations)
            t1 = clock()
            mask = engine.legal_action_mask()
            t2 = clock()
            actions = sample_uniform_legal(rng, mask)
            t3 = clock()
            engine.step(actions)
            t4 = clock()
            if np.count_nonzero(engine.game_over):
                engine.reset(games=engine.game_over)
            t5 = clock()
            for part, (a, b) in zip(SPLIT_PARTS, ((t0, t1), (t1, t2), (t2, t3), (t3, t4),
                                                  (t4, t5)), strict=True):
                spent[part] += b - a
            if t5 - start >= length:
                split = {f"{part}_ns": 1e9 * spent[part] / steps for part in SPLIT_PARTS}
                split["other_ns"] = 1e9 * (t5 - start - sum(spent.values())) / steps
                return split

    def fill(length: float) -> float:
        fills = 0
        start = clock()
        while True:
            observations.fill(0)
            fills += 1
            elapsed = clock() - start
            if elapsed >= length or fills == _MOST_FILLS:
                return 1e9 * elapsed / (fills * engine.batch_size)

    run(max(seconds / 5, 0.01))
    runs = [run(seconds) for _ in range(max(int(repeats), 1))]
    split = {key: float(np.median([r[key] for r in runs])) for key in runs[0]}
    observations.fill(0)
    split["fill_ns"] = float(np.median([fill(seconds / 10) for _ in range(max(int(repeats), 1))]))
    return split


def aec_loop(env, seed: int = 0, clock: Callable[[], float] = time.perf_counter) -> Loop:
    """A user's PettingZoo loop: agent_iter / last / step, mask from the observation."""
    choose = random.Random(seed).choice

    def run(seconds: float) -> tuple[int, int, float]:
        env.reset(seed=seed)
        steps = deals = 0
        start = clock()
        while True:
            for _agent in env.agent_iter():
                observation, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    action = None
                else:
                    action = choose(np.flatnonzero(observation["action_mask"]))
                    steps += 1
                env.step(action)
            deals += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, deals, elapsed
            env.reset()

    return run


def vec_env_loop(venv, seed: int = 0, clock: Callable[[], float] = time.perf_counter
                 ) -> Loop:
    """The SB3 VecEnv: masks from ``action_masks()``, one step for all its games. Counts
    the learner's steps only (the opponents move inside ``step``)."""
    rng = np.random.default_rng(seed)
    venv.seed(seed)
    venv.reset()

    def run(seconds: float) -> tuple[int, int, float]:
        steps = deals = 0
        start = clock()
        while True:
            masks = np.asarray(venv.action_masks())
            _, _, dones, _ = venv.step(sample_uniform_legal(rng, masks.astype(bool)))
            steps += venv.num_envs
            deals += int(np.sum(dones))
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, deals, elapsed

    return run


# -- the timer -----------------------------------------------------------------------------------
#: the length of each reference run that precedes a timed run (:func:`measure`), as a
#: share of the timed run's
REFERENCE_SHARE = 0.3


def measure(
    loops: list[Loop], seconds: float, repeats: int, labels: list[str],
    references: Sequence[Loop] = (),
) -> list[tuple[list[float], float, list[list[float]]]]:
    """Per loop: steps/s of ``repeats`` timed runs after a warm-up, deals per step, and
    per timed run the steps/s of each of ``references`` run just before it.

    The runs are interleaved (pass 1 over all loops, then pass 2, …) so that a change in
    the machine's load during the benchmark affects every row, ours and OpenSpiel's, alike.
    Each timed run is preceded by a run of every reference loop (OpenSpiel's), of
    :data:`REFERENCE_SHARE` times ``seconds``: a row's rate over the reference's rate of
    the same moment is a ratio that this VM's drift of 20–40% within minutes leaves alone.
    Deals per step is over all runs, warm-up included: in a big batch deals end in bursts,
    so a short window's count of them is noisy, while deals/step is not. ``labels`` name
    the loops in the progress
    lines printed after each run.
    """
    rates: list[list[float]] = [[] for _ in loops]
    paired: list[list[list[float]]] = [[] for _ in loops]
    totals = [[0, 0] for _ in loops]
    for r in range(repeats):
        for i, loop in enumerate(loops):
            runs = [max(seconds / 2, 0.01), seconds] if r == 0 else [seconds]
            for length in runs:
                if length == runs[-1]:  # the timed run: its references just before it
                    paired[i].append([_rate(ref(REFERENCE_SHARE * seconds))
                                      for ref in references])
                steps, deals, elapsed = loop(length)
                totals[i][0] += steps
                totals[i][1] += deals
            rates[i].append(steps / elapsed)
            print(
                f"pass {r + 1}/{repeats} [{i + 1:2d}/{len(loops)}] {labels[i]}: "
                f"{steps / elapsed:12,.0f} steps/s, {deals / elapsed:10,.1f} deals/s",
                flush=True,
            )
    return [(rate, deals / max(steps, 1), pairs)
            for rate, (steps, deals), pairs in zip(rates, totals, paired, strict=True)]


def _rate(run: tuple[int, int, float]) -> float:
    """Steps/s of a loop's ``(steps, deals, elapsed)``."""
    steps, _, elapsed = run
    return steps / elapsed
