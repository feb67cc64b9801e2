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

:func:`train` checks everything a run reads before it creates anything
(:func:`check_inputs`): the config, the run folder, the agents of the evaluation
(``eval.opponent`` and ``eval.baselines``, built and asked to play the table) and of the
opponent pool, a ``distill.record`` (read and checked against the config), the ``init``
checkpoint, and the memory the network and its buffers need (:func:`check_memory`). A
refused run leaves no folder behind, so the corrected command runs into the same
``--out``. Ctrl-C saves a resume file and raises :class:`~training.resume.Interrupted`;
``resume=True`` continues the run from that file, refused when the config or a file the
run reads (their SHA-256, :func:`training.resume.run_inputs`) changed. Every file of the
run folder is written whole or not at all (a ``.tmp`` replaced at the end,
:func:`training.resume.write_file`): a full disk is one ``ValueError`` line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml

from records.output import available_memory
from training.config import TrainConfig, check_config
from training.resume import load_resume, run_inputs, write_file

#: the rollout rows the batch-PPO buffer starts with, per game and seat
#: (training.ppo_batch.collect: ``Rollout(B * 16 * P, ...)``)
ROWS_PER_GAME_SEAT = 16
#: the copies of the network's weights a batch-PPO run holds at once: the weights, their
#: gradients, Adam's two moments, the state captured at the end of each iteration
#: (weights and moments), the anchor, the evaluated policy and its checkpoint; each
#: snapshot adds two (its weights and its frozen net)
WEIGHT_COPIES = 10


def check_run_dir(run_dir: Path, resume: bool) -> None:
    """``ValueError`` unless a run can be started in (``resume``: continued from)
    ``run_dir``: a folder or nothing at that path and above it, and no run there unless
    resuming. Creates nothing."""
    existing = next(p for p in (run_dir, *run_dir.parents)
                    if p.exists() or p == Path(p.anchor))
    if not existing.is_dir():
        where = "is a file" if existing == run_dir else f"lies under the file {existing}"
        raise ValueError(f"--out {run_dir} {where}: expected a folder for the run")
    config_path = run_dir / "config.yaml"
    if config_path.exists() and not resume:
        raise ValueError(f"{run_dir} already holds a run ({config_path}): resume it with "
                         f"--resume, or choose another --out")


def prepare_run_dir(cfg: TrainConfig, run_dir: Path, resume: bool) -> None:
    """Create the run folder and write its config.yaml (whole or not at all); refuse
    (``ValueError``) to start a run in a folder that holds one."""
    check_run_dir(run_dir, resume)
    config_path = run_dir / "config.yaml"
    run_dir.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(cfg.to_dict(), sort_keys=False)
    write_file(config_path, lambda tmp: tmp.write_text(text))


def memory_needed(cfg: TrainConfig, observation_size: int, num_actions: int,
                  num_players: int) -> dict:
    """What a run of ``cfg`` holds in memory at the least, in bytes, by part: ``network``
    (the copies of its float32 weights, :data:`WEIGHT_COPIES` and two per snapshot),
    ``rollout`` (the buffer of one rollout's decisions: batch_ppo's first allocation,
    sb3's ``n_steps * num_games``), ``minibatch`` (the activations of a gradient step), and
    ``weights``, the network's size (``ValueError`` over
    :data:`agents.policy.checkpoint.MAX_PARAMETERS`, the largest network a checkpoint may
    hold, or over its MAX_LAYERS layers)."""
    from agents.policy.checkpoint import check_network_size
    from agents.policy.features import feature_size

    p = cfg.ppo
    features = p.features if cfg.algo == "batch_ppo" else "none"
    weights = check_network_size(observation_size, num_actions, list(p.hidden), features,
                                 where=f"ppo.hidden={list(p.hidden)}")
    input_size = observation_size + feature_size(features)
    snapshots = cfg.max_snapshots if cfg.snapshot_interval > 0 else 0
    network = 4 * weights * (WEIGHT_COPIES + 2 * snapshots)
    rows = (cfg.num_games * ROWS_PER_GAME_SEAT * num_players if cfg.algo == "batch_ppo"
            else cfg.num_games * p.n_steps)
    rollout = rows * (4 * input_size + num_actions + 40)  # obs, mask, six scalars
    batch = min(p.minibatch_size, rows)
    minibatch = 4 * batch * (3 * 2 * sum(p.hidden) + 4 * num_actions + input_size)
    return {"weights": weights, "network": network, "rollout": rollout,
            "minibatch": minibatch}


def check_memory(cfg: TrainConfig, available: int | None = None) -> None:
    """``ValueError`` when the network of ``cfg`` is larger than a checkpoint may be
    (:func:`memory_needed`) or when what the run needs at the least is more than the
    memory this machine can still give (``available``: :func:`available_memory` if None)."""
    from envs.registry import make_engine

    engine = make_engine(cfg.game, 1, **cfg.options)
    need = memory_needed(cfg, engine.observation_size, engine.num_actions, engine.num_players)
    available = available_memory() if available is None else available
    total = need["network"] + need["rollout"] + need["minibatch"]
    if available is not None and total > available:
        gib = 2**30
        raise ValueError(
            f"the run needs at least {total / gib:,.1f} GiB of memory (a network of "
            f"{need['weights']:,} weights, ppo.hidden={list(cfg.ppo.hidden)}: "
            f"{need['network'] / gib:,.1f} GiB with its copies; the rollout buffer of "
            f"num_games={cfg.num_games}: {need['rollout'] / gib:,.1f} GiB; a minibatch of "
            f"{cfg.ppo.minibatch_size:,}: {need['minibatch'] / gib:,.1f} GiB), this machine "
            f"has {available / gib:,.1f} GiB available: expected a smaller ppo.hidden, "
            f"num_games or ppo.minibatch_size")


def check_record(cfg: TrainConfig) -> None:
    """``ValueError`` naming ``distill.record`` unless it holds this config's teacher
    episodes (:func:`training.distill.load_record`): a file that is not a whole record (a
    truncated or foreign ``.npz``) or the record of another config."""
    if cfg.distill is None or cfg.distill.record is None:
        return
    from training.distill import load_record

    path = cfg.distill.record
    try:
        load_record(cfg, path)
    except ValueError as error:
        if str(error).startswith("distill.record"):
            raise
        raise ValueError(_unreadable_record(path, error)) from None
    except MemoryError:
        raise
    except Exception as error:  # noqa: BLE001 - zip, numpy and field errors: not a record
        raise ValueError(_unreadable_record(path, error)) from None


def _unreadable_record(path: str, error: BaseException) -> str:
    reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return (f"distill.record {path!r} cannot be read as a teacher record "
            f"({type(error).__name__}{': ' + reason[:200] if reason else ''}); expected the "
            f"whole teacher.npz an earlier run of this config wrote")


def check_pool(cfg: TrainConfig) -> None:
    """``ValueError`` naming the ``opponents`` entry whose agent cannot be built or cannot
    play the config's table (a policy of another game, variant or observation size): each
    is built as the pool builds it and acts on the table's first decision."""
    import agents
    from envs.registry import make_engine
    from training.opponents import SELF, SNAPSHOT, parse_pool

    engine = make_engine(cfg.game, 1, **cfg.options)
    engine.reset(seed=cfg.seed)
    for i, spec in enumerate(parse_pool(cfg.opponents)):
        if spec.name in (SELF, SNAPSHOT):
            continue
        try:
            agent = agents.make(spec.name, cfg.game, **{"seed": cfg.seed, **spec.kwargs})
            if not getattr(agent, "needs_engine", False):
                agent.act_batch(engine.observe(), engine.legal_action_mask())
        except (ValueError, TypeError, RuntimeError) as error:
            message = str(error).strip().splitlines()[0] if str(error).strip() else ""
            raise ValueError(f"opponents[{i}]: {spec.name!r} with {spec.kwargs} cannot play "
                             f"the run's table ({cfg.game} {cfg.options}): "
                             f"{message or type(error).__name__}") from None


def check_inputs(cfg: TrainConfig) -> list[dict]:
    """Check everything a batch_ppo or sb3 run of the checked config ``cfg`` reads besides
    the config, before anything is created: the agents of the evaluation
    (:func:`training.evaluate.check_evaluation`) and of the pool (:func:`check_pool`), a
    ``distill.record`` (:func:`check_record`), the memory (:func:`check_memory`). The
    ``init`` checkpoint is checked with the config. ``ValueError`` naming the field; the
    files the run reads (:func:`training.resume.run_inputs`)."""
    from training.evaluate import check_evaluation

    check_memory(cfg)
    check_evaluation(cfg)
    check_pool(cfg)
    check_record(cfg)
    return run_inputs(cfg)


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
    resume file (``ValueError`` if there is none, it belongs to another config, or a file
    the run reads changed since it began).

    Everything is checked before anything is created (:func:`check_inputs`). Returns
    ``{"steps", "eval",
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
    check_run_dir(run_dir, resume)
    inputs = check_inputs(cfg)
    saved = load_resume(run_dir, cfg, inputs) if resume else None
    prepare_run_dir(cfg, run_dir, resume)
    if saved is not None:
        print(f"resuming {run_dir} from {saved.describe()}")
    seed_everything(cfg.seed, cfg.torch_threads)
    if cfg.algo == "sb3":
        from training.sb3_ppo import train_sb3

        return train_sb3(cfg, run_dir, saved, progress)
    from training.ppo_batch import train_batch_ppo

    return train_batch_ppo(cfg, run_dir, saved, progress, inputs)
