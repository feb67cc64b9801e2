"""The remaining entry points of ``cardrl bench``: the seat view, a tournament of
heuristics and batch-PPO training, each as a timed :data:`bench.loops.Loop`.

Rows (``engine`` in the records):

=============  ================================================================================
engine         what is timed
=============  ================================================================================
seat           :class:`training.seat_env.SeatEnv`, the single-agent seat view over a batch
               engine of one game (the core, ``SeatDriver``, also drives the ``vecenv`` rows),
               against random opponents: ``action_masks()``, a uniform legal action, ``step``,
               ``reset`` when the episode ends. Counts the learner's steps only.
tournament     :func:`arena.tournament.runner.run_tournament` of the game's heuristics
               (:data:`TOURNAMENT_AGENTS`) at the game's default table, in memory, one
               process, the whole call (set-up and statistics included), repeated until the
               run's seconds are spent. Agent-steps: every decision of every seat (counted
               by wrapping ``arena.tournament.chunk.act_grouped``); deals: games played
               (each dealt key is played once per seat rotation)
ppo            batch-PPO training iterations (:mod:`training.ppo_batch`) of a config of
               :data:`PPO_CONFIGS`: ``collect`` (one episode in every game), advantages and
               ``ppo_update``, built as ``train_batch_ppo`` builds them but without its
               evaluation, logging and checkpoints. Agent-steps: learner decisions (what the
               trainer counts as steps); deals: episodes (one per game and iteration)
=============  ================================================================================

**The PPO split** (:class:`PPOLoop`, ``detail`` of the record): per timed iteration,

* ``forward_s``: the policy's forward passes of the learner's decisions
  (``training.ppo_batch.sample_actions``, wrapped with a timer for the run);
* ``features_s``: the network's input preparation, ``net.encode`` (observation features
  and the symmetry's canonical form), for the learner and for the pool's ``self`` seats;
* ``env_s``: the rest of ``collect``: engine steps, observations, masks, the opponents'
  and the delegate's decisions, the rollout buffer;
* ``update_s``: advantages and ``ppo_update`` (forward, backward and optimizer steps).

**Where the update's limit is:** the update's model arithmetic, 6 FLOPs per weight of the
network's linear layers and per sample passed through them (2 forward, 2 for the weights'
gradient, 2 for the input's), 4 for the layers that read the network's input, whose
gradient nobody needs (:func:`update_flops_per_sample`; samples counted by a forward hook
during ``ppo_update``), over ``update_s``, next to the rate of one ``torch.mm`` of a
minibatch through the first layer on the same threads (:func:`matmul_flops`): how close
the update runs to what the CPU's matrix multiply does. And the update's profile
(:func:`update_profile`, torch's profiler over one more ``ppo_update`` after the timed
runs): the shares of its time in matrix multiplies, in the activation and its gradient,
in the optimizer and in the rest, from which the report bounds an iteration's speed-up
with the same arithmetic: an update made of its matrix multiplies alone.

``training/ppo_batch.py`` has no timers of its own (it logs ``charts/SPS`` and
``charts/collect_fraction`` only), hence the wrappers; they cost two clock reads per call.
Torch runs on one thread by default, like every other row on one core, whatever the
config's ``torch_threads`` (``--ppo-threads`` sets it; on a machine busy with other jobs,
OpenMP threads spin and inflate the update many times over). With ``--clock cpu`` every
torch thread's CPU time counts.
"""

from __future__ import annotations

import contextlib
import importlib.util
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import numpy as np

from bench.loops import Loop
from envs import registry

#: game -> the heuristics of its tournament row
TOURNAMENT_AGENTS = registry.Declared("bench_agents")
#: dealt keys per tournament (``--tournament-deals``); each is played once per rotation
TOURNAMENT_DEALS = 128
#: torch threads of the PPO rows (``--ppo-threads``)
PPO_THREADS = 1
#: game -> the training configs of its PPO rows (the proof runs' configs)
PPO_CONFIGS = registry.Declared("bench_configs")
ROOT = Path(__file__).resolve().parent.parent


def table_label(game: str) -> str:
    """The label of ``game``'s default table: its table option's default (``four``, ``4p``)."""
    from agents.policy.agent import variant_key

    return variant_key(game, {})


# -- the seat view ------------------------------------------------------------------------------
def seat_loop(game: str, options: dict, seed: int = 0,
              clock: Callable[[], float] = time.perf_counter) -> Loop:
    """The single-agent seat view (``SeatEnv``) of one game against random opponents."""
    from training.seat_env import make_seat_env

    env = make_seat_env(game, options, opponents=("random",), seed=seed)
    choose = random.Random(seed).choice
    env.reset(seed=seed)

    def run(seconds: float) -> tuple[int, int, float]:
        steps = deals = 0
        start = clock()
        while True:
            action = choose(np.flatnonzero(env.action_masks()))
            _, _, terminated, truncated, _ = env.step(action)
            steps += 1
            if terminated or truncated:
                deals += 1
                env.reset()
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, deals, elapsed

    return run


# -- a tournament of heuristics --------------------------------------------------------------
@contextlib.contextmanager
def counting_decisions() -> Iterator[list[int]]:
    """While open, count every decision the tournament's chunks ask of their agents (the
    active rows of each ``act_grouped`` call); yields a one-element list holding the count."""
    from arena.tournament import chunk

    count = [0]
    act_grouped = chunk.act_grouped

    def counted(players, who, observations, masks, active=None, engine=None):
        count[0] += len(who) if active is None else int(np.count_nonzero(active))
        return act_grouped(players, who, observations, masks, active, engine=engine)

    with mock.patch.object(chunk, "act_grouped", counted):
        yield count


def tournament_loop(game: str, deals: int = TOURNAMENT_DEALS, seed: int = 0,
                    clock: Callable[[], float] = time.perf_counter) -> Loop:
    """Whole tournaments of :data:`TOURNAMENT_AGENTS` of ``game`` on ``deals`` dealt keys at
    the default table, one after another until the run's seconds are spent."""
    from arena.tournament.runner import run_tournament

    if not isinstance(deals, int) or deals < 1:
        raise ValueError(f"tournament deals {deals!r}: expected an integer >= 1")
    agents = list(registry.get(game).require("bench_agents", "bench tournament agents"))

    def run(seconds: float) -> tuple[int, int, float]:
        steps = games = 0
        start = clock()
        while True:
            with counting_decisions() as count:
                result = run_tournament(game, agents, deals, seed, progress=False)
            steps += count[0]
            games += result.played_deals * result.spec.num_seats
            elapsed = clock() - start
            if elapsed >= seconds:
                return steps, games, elapsed

    return run


# -- batch-PPO training ---------------------------------------------------------------------
def ppo_available() -> bool:
    """Whether the PPO rows can run: they need torch (the ``[train]`` extra)."""
    return importlib.util.find_spec("torch") is not None


def ppo_label(config: str) -> str:
    """The variant label of a PPO row: the config's file name."""
    return Path(config).name


def linear_macs(net) -> int:
    """Multiply-adds of one sample through every ``nn.Linear`` of ``net`` (its weights)."""
    import torch

    return sum(m.in_features * m.out_features for m in net.modules()
               if isinstance(m, torch.nn.Linear))


def update_flops_per_sample(net) -> int:
    """FLOPs of one sample's forward and backward pass through the linear layers of a
    :class:`~agents.policy.net.PolicyNet` (``net.actor``, ``net.critic`` and their heads):
    6 per weight, 4 for the first layer of each branch, which reads the network's input
    and computes no input gradient."""
    first = net.actor[0].in_features * net.actor[0].out_features
    first += net.critic[0].in_features * net.critic[0].out_features
    return 6 * linear_macs(net) - 2 * first


#: aten operators of each share of :func:`update_profile` ("other": the rest)
PROFILE_PARTS = {
    "matmul": ("aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear"),
    "activation": ("aten::tanh", "aten::tanh_backward", "aten::relu", "aten::threshold_backward"),
}


def update_profile(update: Callable[[], object]) -> dict[str, float]:
    """Shares of ``update()``'s CPU time (torch's profiler, self times of the operators)
    in ``matmul`` and ``activation`` (:data:`PROFILE_PARTS`), in ``optimizer`` (the
    optimizer's step and zero_grad, whole) and in ``other``; they add up to 1."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        update()
    events = prof.key_averages()
    shares = dict.fromkeys((*PROFILE_PARTS, "optimizer"), 0.0)
    total = sum(e.self_cpu_time_total for e in events)
    for event in events:
        if event.key.startswith("Optimizer."):
            shares["optimizer"] += event.cpu_time_total
            continue
        for part, names in PROFILE_PARTS.items():
            if event.key in names:
                shares[part] += event.self_cpu_time_total
    total = max(total, 1e-9)  # (the optimizer's own operators are none of the parts)
    shares = {k: v / total for k, v in shares.items()}
    shares["other"] = max(0.0, 1.0 - sum(shares.values()))
    return shares


@contextlib.contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Run the block with ``threads`` torch threads; the previous number comes back after."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def matmul_flops(rows: int, inner: int, cols: int, threads: int, seconds: float = 0.3,
                 clock: Callable[[], float] = time.perf_counter) -> float:
    """FLOP/s of ``torch.mm`` of a float32 ``[rows, inner]`` by ``[inner, cols]`` on
    ``threads`` torch threads (2 FLOPs per multiply-add), repeated for ``seconds``."""
    import torch

    with torch_threads(threads):
        a, b = torch.randn(rows, inner), torch.randn(inner, cols)
        out = torch.empty(rows, cols)
        for _ in range(3):
            torch.mm(a, b, out=out)
        count, start = 0, clock()
        while True:
            torch.mm(a, b, out=out)
            count += 1
            elapsed = clock() - start
            if elapsed >= seconds:
                return 2.0 * rows * inner * cols * count / elapsed


class PPOLoop:
    """Batch-PPO iterations of a training config, as a :data:`bench.loops.Loop` that also
    keeps the time split of each call (:attr:`runs`; the first call is the warm-up)."""

    def __init__(self, config: str | Path, seed: int = 0,
                 clock: Callable[[], float] = time.perf_counter,
                 num_games: int | None = None, threads: int = PPO_THREADS):
        import torch

        from training.config import load_config
        from training.ppo_batch import build_trainer

        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"torch threads {threads!r}: expected an integer >= 1")
        self.threads = threads
        self.config = str(config)
        path = Path(config)
        overrides = {} if num_games is None else {"num_games": num_games}
        self.cfg = cfg = load_config(path if path.is_absolute() else ROOT / path, overrides)
        if cfg.algo != "batch_ppo":
            raise ValueError(f"{config}: algo {cfg.algo!r}, expected batch_ppo")
        self.clock = clock
        self.rng = np.random.default_rng(seed)
        torch.manual_seed(seed)
        self.engine, self.pool, self.net, self.optimizer, self.delegate = build_trainer(
            cfg, seed)
        self.iteration = 0
        self.flops_per_sample = update_flops_per_sample(self.net)
        #: samples through the network during ppo_update (a forward hook counts them)
        self._update_samples = None
        self.net.register_forward_hook(self._count_update_samples)
        #: per call: {"iterations", "decisions", "total_s", "env_s", "features_s",
        #: "forward_s", "update_s"}
        self.runs: list[dict] = []

    def _count_update_samples(self, module, inputs, output) -> None:
        if self._update_samples is not None:
            self._update_samples[0] += int(inputs[0].shape[0])

    def _timed(self, function, key: str, split: dict):
        clock = self.clock

        def timed(*args, **kwargs):
            start = clock()
            try:
                return function(*args, **kwargs)
            finally:
                split[key] += clock() - start

        return timed

    def iterate(self, split: dict) -> tuple[int, int]:
        """One training iteration (rollout, advantages, update), adding its times to
        ``split``; returns (learner decisions, episodes)."""
        from training import ppo_batch

        cfg, p, clock = self.cfg, self.cfg.ppo, self.clock
        try:
            with torch_threads(self.threads):
                inner = {"features_s": 0.0, "forward_s": 0.0}
                start = clock()
                with mock.patch.object(ppo_batch, "sample_actions", self._timed(
                        ppo_batch.sample_actions, "forward_s", inner)), \
                        mock.patch.object(self.net, "encode",
                                          self._timed(self.net.encode, "features_s", inner)):
                    buf = self._collect()
                collected = clock()
                adv, ret = buf.advantages(p.gamma, p.gae_lambda)
                self._update_samples = [0]
                ppo_batch.ppo_update(self.net, self.optimizer, buf, adv, ret, cfg, self.rng)
                done = clock()
                split["update_samples"] += self._update_samples[0]
        finally:
            self._update_samples = None
        split["env_s"] += collected - start - inner["features_s"] - inner["forward_s"]
        split["features_s"] += inner["features_s"]
        split["forward_s"] += inner["forward_s"]
        split["update_s"] += done - collected
        split["total_s"] += done - start
        return buf.n, self.engine.batch_size

    def __call__(self, seconds: float) -> tuple[int, int, float]:
        split = dict.fromkeys(("env_s", "features_s", "forward_s", "update_s", "total_s",
                               "update_samples"), 0.0)
        decisions = episodes = iterations = 0
        start = self.clock()
        while True:
            n, games = self.iterate(split)
            decisions, episodes, iterations = decisions + n, episodes + games, iterations + 1
            elapsed = self.clock() - start
            if elapsed >= seconds:
                break
        self.runs.append({"iterations": iterations, "decisions": decisions, **split})
        return decisions, episodes, elapsed

    def detail(self) -> dict:
        """The split over the timed calls (all but the first), as seconds per iteration
        and the config: ``{"config", "num_games", "torch_threads", "iterations",
        "decisions_per_iteration",
        "env_s", "features_s", "forward_s", "update_s", "total_s", "update_flops",
        "matmul_flops", "update_profile"}`` (seconds per iteration; the update's model
        FLOP/s and the matrix multiply's; the update's :func:`update_profile`, over one
        more iteration's update: see the module doc)."""
        timed = self.runs[1:] or self.runs
        iterations = sum(r["iterations"] for r in timed)
        keys = ("env_s", "features_s", "forward_s", "update_s", "total_s")
        out = {"config": ppo_label(self.config), "num_games": self.cfg.num_games,
               "torch_threads": self.threads,
               "iterations": iterations,
               "decisions_per_iteration": sum(r["decisions"] for r in timed) / max(iterations, 1)}
        out.update({k: sum(r[k] for r in timed) / max(iterations, 1) for k in keys})
        update_s = sum(r["update_s"] for r in timed)
        samples = sum(r["update_samples"] for r in timed)
        out["update_flops"] = (self.flops_per_sample * samples / update_s if update_s > 0
                               else 0.0)
        import torch

        first = next(m for m in self.net.modules() if isinstance(m, torch.nn.Linear))
        out["matmul_flops"] = matmul_flops(self.cfg.ppo.minibatch_size, first.in_features,
                                           first.out_features, self.threads,
                                           clock=self.clock)
        out["update_profile"] = self._profile_update()
        return out

    def _collect(self):
        """The rollout of the next iteration (:func:`training.ppo_batch.collect`, a seed
        from :attr:`rng`), counted as one iteration."""
        from training import ppo_batch

        cfg = self.cfg
        buf, _ = ppo_batch.collect(self.engine, self.pool, self.net, self.iteration,
                                   int(self.rng.integers(2**62)), cfg.train_self_seats,
                                   cfg.reward_scale, self.delegate)
        self.iteration += 1
        return buf

    def _profile_update(self) -> dict[str, float]:
        """:func:`update_profile` of the update of one more iteration (not timed)."""
        from training import ppo_batch

        cfg, p = self.cfg, self.cfg.ppo
        with torch_threads(self.threads):
            buf = self._collect()
            adv, ret = buf.advantages(p.gamma, p.gae_lambda)
            return update_profile(lambda: ppo_batch.ppo_update(
                self.net, self.optimizer, buf, adv, ret, cfg, self.rng))
