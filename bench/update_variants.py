"""What faster numerics would buy the PPO update: one rollout, updated under variants.

The throughput goal asks training (learner decisions/s of the default Four Aces config)
to go 1.5× faster. ``cardrl bench --entry-points`` shows the update is most of an
iteration and bounds what any change keeping its arithmetic could gain. This script
measures the candidates instead: it collects one rollout of a config
(:class:`bench.entry_points.PPOLoop`), then runs ``training.ppo_batch.ppo_update`` on it
from the same weights, optimizer state and minibatch order under each variant of
:data:`VARIANTS`, interleaved round by round on the process's CPU clock:

* ``as trained``: the code as it is (Adam's for-loop step, torch's tanh);
* ``adam foreach`` / ``adam fused``: ``torch.optim.Adam(foreach=True)`` / ``(fused=True)``;
* ``tanh by sigmoid``: every ``nn.Tanh`` computed as ``2 * sigmoid(2x) - 1`` (torch's tanh
  is several times slower than its sigmoid on some CPUs);
* ``fused + sigmoid``: both;
* ``half the epochs``: ``update_epochs`` halved, half the arithmetic per decision: not a
  faster update but a different training, for scale.

For each it reports the update's median seconds, its speed-up, the speed-up of a whole
iteration (the rollout's median time plus the update's) and whether the weights after the
update are bit-identical to ``as trained``'s: a variant that changes them changes every
trained network.

It is a developer's script rather than a ``cardrl`` command; its entry point is this
module::

    python -m bench.update_variants --config configs/four_aces_4p.yaml --repeats 5 \\
        --out results/update_variants.md
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from bench.entry_points import PPOLoop, ppo_label, torch_threads
from records.provenance import cpu_model, machine_line, package_version, utc_now

DEFAULT_OUT = Path("runs/bench/update_variants.md")


class Variant(NamedTuple):
    """A way of running the update: the optimizer's keyword arguments, whether tanh is
    computed by sigmoid, and the factor on ``update_epochs``."""

    name: str
    adam: dict
    tanh_by_sigmoid: bool = False
    epochs_factor: float = 1.0

    @property
    def is_as_trained(self) -> bool:
        """Whether this is the update as the code trains (the reference of the others)."""
        return not self.adam and not self.tanh_by_sigmoid and self.epochs_factor == 1.0


VARIANTS: tuple[Variant, ...] = (
    Variant("as trained", {}),
    Variant("adam foreach", {"foreach": True}),
    Variant("adam fused", {"fused": True}),
    Variant("tanh by sigmoid", {}, tanh_by_sigmoid=True),
    Variant("fused + sigmoid", {"fused": True}, tanh_by_sigmoid=True),
    Variant("half the epochs", {}, epochs_factor=0.5),
)


class VariantRow(NamedTuple):
    """The measured update of one variant."""

    name: str
    update_s: float  #: median seconds of the update
    update_speedup: float  #: ``as trained``'s median over this one's
    iteration_speedup: float  #: (rollout + ``as trained``'s update) / (rollout + this update)
    #: the weights after its last update equal those after the first ``as trained`` update
    #: (the warm-up's), bit for bit: ``as trained`` itself says the update repeats exactly
    same_weights: bool


def _tanh_by_sigmoid(net) -> None:
    """Replace every ``nn.Tanh`` of ``net.actor`` and ``net.critic`` by ``2σ(2x) − 1``."""
    import torch
    from torch import nn

    class SigmoidTanh(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.sigmoid(2 * x) * 2 - 1

    for branch in (net.actor, net.critic):
        for i, module in enumerate(branch):
            if isinstance(module, nn.Tanh):
                branch[i] = SigmoidTanh()


def _updater(loop: PPOLoop, variant: Variant, seed: int) -> Callable:
    """``update(buf, adv, ret, clock) -> (seconds, weights after)``: one update of
    ``variant`` from the loop's network as it is now, with a fresh optimizer and the
    minibatch order of ``seed``; only the update is timed."""
    import dataclasses

    from agents.policy.net import PolicyNet
    from training import ppo_batch

    p = loop.cfg.ppo
    cfg = loop.cfg
    if variant.epochs_factor != 1.0:
        epochs = max(1, round(p.update_epochs * variant.epochs_factor))
        cfg = dataclasses.replace(cfg, ppo=dataclasses.replace(p, update_epochs=epochs))
    start_weights = {k: v.detach().clone() for k, v in loop.net.state_dict().items()}

    def update(buf, adv, ret, clock: Callable[[], float]) -> tuple[float, dict]:
        net = PolicyNet(**loop.net.config)
        net.load_state_dict(start_weights)
        if variant.tanh_by_sigmoid:
            _tanh_by_sigmoid(net)
        optimizer = ppo_batch.ppo_optimizer(net, p, **variant.adam)
        rng = np.random.default_rng(seed)
        start = clock()
        ppo_batch.ppo_update(net, optimizer, buf, adv, ret, cfg, rng)
        return clock() - start, net.state_dict()

    return update


def measure_variants(config: str | Path, repeats: int = 3, seed: int = 0,
                     num_games: int | None = None, threads: int = 1,
                     variants: Sequence[Variant] = VARIANTS,
                     clock: Callable[[], float] = time.process_time,
                     progress: bool = True) -> tuple[list[VariantRow], dict]:
    """The rows of :data:`VARIANTS` for ``config``'s rollout, and the facts of the run
    (``{"config", "num_games", "threads", "decisions", "rollout_s", "epochs",
    "minibatch"}``): one warm-up round, then ``repeats`` rounds of every variant in turn,
    medians over the rounds."""
    if repeats < 1:
        raise ValueError(f"repeats={repeats!r}: expected an integer >= 1")
    if not variants or not variants[0].is_as_trained:
        raise ValueError("the first variant must be the update as trained (the reference)")
    import torch
    from tqdm import tqdm

    loop = PPOLoop(config, seed=seed, clock=clock, num_games=num_games, threads=threads)
    p = loop.cfg.ppo
    with torch_threads(threads):
        rollouts = []
        for _ in range(repeats + 1):  # the first is the warm-up
            start = clock()
            buf = loop._collect()
            rollouts.append(clock() - start)
        adv, ret = buf.advantages(p.gamma, p.gae_lambda)
        updates = [_updater(loop, v, seed) for v in variants]
        times: list[list[float]] = [[] for _ in variants]  # the warm-up's first
        weights: list[dict] = [{} for _ in variants]  # after each variant's latest update
        rounds = tqdm(range(repeats + 1), desc="update variants", disable=not progress)
        for r in rounds:
            for i, update in enumerate(updates):
                seconds, weights[i] = update(buf, adv, ret, clock)
                times[i].append(seconds)
            if r == 0:
                reference = weights[0]  # after the first update as trained
    rollout_s = statistics.median(rollouts[1:])
    medians = [statistics.median(t[1:]) for t in times]
    rows = []
    for variant, median, after in zip(variants, medians, weights, strict=True):
        same = all(torch.equal(after[k], reference[k]) for k in reference)
        rows.append(VariantRow(variant.name, median, medians[0] / median,
                               (rollout_s + medians[0]) / (rollout_s + median), same))
    facts = {"config": ppo_label(str(config)), "num_games": loop.cfg.num_games,
             "threads": threads, "decisions": buf.n, "rollout_s": rollout_s,
             "epochs": p.update_epochs, "minibatch": p.minibatch_size}
    return rows, facts


def render_markdown(rows: Sequence[VariantRow], facts: dict, command: str, load: float,
                    repeats: int) -> str:
    """The Markdown report: provenance, the run's facts and one table line per variant."""
    lines = [
        "# What faster numerics would buy the PPO update",
        "",
        f"- machine: {machine_line()}, CPU {cpu_model()}, torch {package_version('torch')}",
        f"- date: {utc_now()}",
        f"- load average (1 min) at start: {load:.2f}",
        f"- command: `{command}`",
        f"- config: `{facts['config']}`, {facts['num_games']} games, one rollout of "
        f"{facts['decisions']:,} learner decisions ({facts['rollout_s']:.2f} s to collect, "
        f"median), {facts['epochs']} epochs of minibatches of {facts['minibatch']}; "
        f"{facts['threads']} torch thread(s), process CPU time; medians of {repeats} "
        "interleaved rounds after a warm-up (`bench/update_variants.py`)",
        "",
        "| variant | update s | update speed-up | iteration speed-up | same weights as trained |",
        "|---|---:|---:|---:|---|",
    ]
    lines += [f"| {r.name} | {r.update_s:.3f} | {r.update_speedup:.2f}× | "
              f"{r.iteration_speedup:.2f}× | {'yes' if r.same_weights else 'no'} |"
              for r in rows]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.update_variants``: measure and write the report to ``--out``."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.update_variants",
        description="Time training.ppo_batch.ppo_update on one rollout of a training config "
                    "under variants that change its numerics (Adam foreach/fused, tanh by "
                    "sigmoid) or its arithmetic (half the epochs), and say which keep the "
                    "trained weights bit-identical.")
    parser.add_argument("--config", default="configs/four_aces_4p.yaml",
                        help="a batch_ppo training config (default: %(default)s)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="timed rounds of every variant after a warm-up (default: 3)")
    parser.add_argument("--games", type=int, default=None, metavar="N",
                        help="games of the rollout instead of the config's num_games")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default: 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the rollout and update")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"Markdown report (default: {DEFAULT_OUT}, not committed)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    load = os.getloadavg()[0]
    rows, facts = measure_variants(args.config, args.repeats, args.seed, args.games,
                                   args.threads, progress=not args.no_progress)
    command = "python -m bench.update_variants " + " ".join(shlex.quote(a) for a in argv)
    report = render_markdown(rows, facts, command, load, args.repeats)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report)
    print(report, end="")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
