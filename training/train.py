"""Training a masked policy by self-play: :func:`train` runs one config into a run folder.

Two algorithms share the configs (``training/config.py``), the opponent pool and the
evaluation (``training/evaluate.py``):

- ``algo: batch_ppo`` — :mod:`training.ppo_batch`, a CleanRL-style masked PPO that acts
  on the whole batch engine at once (the fast path);
- ``algo: sb3`` — :mod:`training.sb3_ppo`, ``sb3_contrib.MaskablePPO`` on
  :class:`~training.vec_env.BatchSeatVecEnv`;
- ``algo: exit`` — :mod:`training.exit`, expert iteration: generations of a search
  guided by the network, its labels, and the network's fit to them.

A batch_ppo config with a ``distill:`` section first fits the network to a teacher's
decisions (:mod:`training.distill`, e.g. the PIMC search playing every seat), then PPO
continues from those weights; one budget (``max_minutes``, ``total_steps``) covers both.

A run folder (``cardrl train --out``, default ``runs/<config>_s<seed>``) holds::

    config.yaml        the resolved config of the run
    policy.pt          the latest policy (agents.make("policy", game, path=...))
    policy_best.pt     the policy with the best evaluation so far
    train_state.pt     batch_ppo: everything --resume needs (sb3: sb3_state.pt), read
                       without running code (training/resume.py)
    sb3_model.zip      sb3: the model for SB3's own tools (unpickled by MaskablePPO.load:
                       trusted use only; --resume does not read it)
    eval.csv           one row per evaluation (steps, time, points, difference and its CI)
    baselines.json     the baseline agents' scores in the same evaluation (once per run)
    learning_curve.png evaluation score vs. steps, baselines as horizontal lines
    tb/                TensorBoard logs (charts/…, losses/…, eval/…)

:func:`train` validates the config (and, resuming, the resume file against it) before it
creates anything. Ctrl-C saves a resume file and raises
:class:`~training.resume.Interrupted`; ``resume=True`` continues the run from that file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from training.config import TrainConfig, check_config
from training.resume import load_resume


def prepare_run_dir(cfg: TrainConfig, run_dir: Path, resume: bool) -> None:
    """Create the run folder and write its config.yaml; refuse (``ValueError``) to start a
    run in a folder that holds one."""
    config_path = run_dir / "config.yaml"
    if config_path.exists() and not resume:
        raise ValueError(f"{run_dir} already holds a run ({config_path}): resume it with "
                         f"--resume, or choose another --out")
    run_dir.mkdir(parents=True, exist_ok=True)
    config_path.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))


def seed_everything(seed: int, threads: int) -> None:
    """Seed Python's, NumPy's and torch's global generators; set torch's thread count."""
    import random

    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, int(threads)))


def train(cfg: TrainConfig, run_dir: str | Path, resume: bool = False,
          progress: bool = True) -> dict:
    """Train ``cfg`` into ``run_dir``; with ``resume``, continue the run there from its
    resume file (``ValueError`` if there is none or it belongs to another config).

    Everything is checked before anything is created. Returns ``{"steps", "eval",
    "seconds"}``: the learner decisions trained on in all, the last evaluation row and
    this session's training seconds. Ctrl-C raises :class:`~training.resume.Interrupted`
    after saving the resume file.
    """
    run_dir = Path(run_dir)
    check_config(cfg)
    if cfg.algo == "exit":  # generations of search and fit, resumed from exit_state.json
        from training.exit import check_exit_resume, train_exit

        if resume:
            check_exit_resume(cfg, run_dir)
        prepare_run_dir(cfg, run_dir, resume)
        seed_everything(cfg.seed, cfg.torch_threads)
        return train_exit(cfg, run_dir, resume, progress)
    saved = load_resume(run_dir, cfg) if resume else None
    prepare_run_dir(cfg, run_dir, resume)
    if saved is not None:
        print(f"resuming {run_dir} from {saved.describe()}")
    if cfg.algo == "sb3":
        from training.sb3_ppo import train_sb3 as trainer
    else:
        from training.ppo_batch import train_batch_ppo as trainer
    seed_everything(cfg.seed, cfg.torch_threads)
    return trainer(cfg, run_dir, saved, progress)
