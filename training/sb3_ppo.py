"""``algo: sb3``: ``sb3_contrib.MaskablePPO`` on :class:`~training.vec_env.BatchSeatVecEnv`.

The learner plays one seat in each game of one batch engine; the opponent pool plays the
others (``training/seat_env.py``). The policy is saved in the checkpoint format of
``agents.policy`` (``algo="sb3"``).

``--resume`` reads ``sb3_state.pt`` (:mod:`training.resume`: the policy's and its
optimizer's state dicts from ``get_parameters()``, the step and update counts, the
snapshots, the generators), never SB3's own zip: a fresh ``MaskablePPO`` is built from the
config and the saved state is put into it, so nothing is unpickled. ``sb3_model.zip``,
written at the end of a run, is the model for SB3's own tools only; ``MaskablePPO.load``
unpickles it (cloudpickle), which runs any code the file names: load it only from a
trusted source (``agents.make("policy", ..., trust_pickle=True)`` converts it).
"""

from __future__ import annotations

import copy
import math
import time
from pathlib import Path

import numpy as np

from training.actors import frozen_act_fn
from training.config import TrainConfig
from training.evaluate import Evaluator, eval_line
from training.progress import BudgetBar
from training.resume import Interrupted, Resume, restoring, resume_file, save_resume


def train_sb3(cfg: TrainConfig, run_dir: Path, resume: Resume | None = None,
              progress: bool = True) -> dict:
    """MaskablePPO on :class:`training.vec_env.BatchSeatVecEnv` into ``run_dir``, continuing
    from the checked resume file ``resume`` if given; the learner plays one seat per game, seats
    given to ``self`` are played by the current policy (not trained on).
    :func:`training.train.train` validates, seeds and prepares ``run_dir`` first.

    Ctrl-C (``KeyboardInterrupt``) saves the state at the start of the current rollout
    (after the last completed update) to sb3_state.pt and policy.pt, then raises
    :class:`~training.resume.Interrupted`."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    from agents.policy.checkpoint import make_checkpoint, save_checkpoint
    from agents.policy.net import PolicyNet, from_sb3_state_dict
    from training.vec_env import make_vec_env

    env = make_vec_env(cfg.game, cfg.num_games, cfg.options, cfg.opponents, cfg.seed,
                       cfg.reward_scale, cfg.max_snapshots)
    pool = env.driver.pool
    obs_size, num_actions = env.observation_space.shape[0], int(env.action_space.n)
    p = cfg.ppo
    elapsed_before = 0.0 if resume is None else resume.elapsed_s
    deadline = None

    def lr(remaining: float) -> float:  # linear decay to 0 at total_steps or max_minutes
        if not p.anneal_lr:
            return p.learning_rate
        if deadline is not None:
            remaining = min(remaining, (deadline - time.time()) / (60 * cfg.max_minutes))
        return p.learning_rate * max(remaining, 0.0)

    model_path, state_path = run_dir / "sb3_model.zip", resume_file(run_dir, "sb3")
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[p.activation]
    model = MaskablePPO(
        "MlpPolicy", env, learning_rate=lr, n_steps=p.n_steps,
        batch_size=p.minibatch_size, n_epochs=p.update_epochs, gamma=p.gamma,
        gae_lambda=p.gae_lambda, clip_range=p.clip_coef, ent_coef=p.ent_coef,
        vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, normalize_advantage=p.norm_adv,
        target_kl=p.target_kl, seed=cfg.seed, device="cpu", verbose=0,
        tensorboard_log=str(run_dir / "tb"),
        policy_kwargs={"net_arch": {"pi": list(p.hidden), "vf": list(p.hidden)},
                       "activation_fn": activation},
    )
    snapshots: list = []
    if resume is not None:
        with restoring(resume.path):
            model.set_parameters(resume.trainer["parameters"], exact_match=True, device="cpu")
            model.num_timesteps = resume.steps
            model._n_updates = int(resume.trainer["n_updates"])
            snapshots = list(resume.snapshots)
            for snap in snapshots:  # building a net draws from torch's generator
                pool.add_snapshot(frozen_act_fn(cfg, snap, obs_size, num_actions))
            pool.rng.bit_generator.state = resume.trainer["pool_rng"]
            torch.set_rng_state(resume.trainer["torch_rng"])
    if cfg.max_minutes is not None:  # training time already spent counts (resume)
        deadline = time.time() + 60 * cfg.max_minutes - elapsed_before

    def policy_net(sb3_state: dict | None = None) -> PolicyNet:
        net = PolicyNet(obs_size, num_actions, p.hidden, p.activation)
        net.load_state_dict(from_sb3_state_dict(sb3_state or model.policy.state_dict()))
        return net.eval()

    def self_act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
            return dist.get_actions(deterministic=False).numpy().astype(np.int64)

    pool.set_self(self_act)
    evaluator = Evaluator(cfg, run_dir)
    start_steps = model.num_timesteps
    marks = {"snapshot": cfg.snapshot_interval, "checkpoint": cfg.checkpoint_interval,
             "eval": cfg.eval.interval}
    nxt = {k: (start_steps // v + 1) * v if v else math.inf for k, v in marks.items()}
    t0 = time.time()

    def elapsed() -> float:
        return elapsed_before + time.time() - t0

    def save_policy(steps: int, net: PolicyNet | None = None) -> Path:
        checkpoint = make_checkpoint(net or policy_net(), cfg.game, cfg.options, steps,
                                     algo="sb3")
        return save_checkpoint(checkpoint, run_dir / "policy.pt")

    def capture() -> dict:
        """A copy of the whole training state (what the resume file holds)."""
        return {"steps": int(model.num_timesteps), "elapsed_s": elapsed(),
                "snapshots": list(snapshots),
                "trainer": {"parameters": copy.deepcopy(model.get_parameters()),
                            "n_updates": int(model._n_updates),
                            "pool_rng": pool.rng.bit_generator.state,
                            "torch_rng": torch.get_rng_state()}}

    committed = [capture()]  # the state after the last completed update

    def run_eval() -> None:
        row = evaluator.evaluate(save_policy(model.num_timesteps), model.num_timesteps,
                                 elapsed())
        for key in ("points", "opponent_points", "diff", "diff_low", "diff_high"):
            model.logger.record(f"eval/{key}", row[key])
        tqdm.write(eval_line(row))

    class Callback(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = BudgetBar(f"sb3 {cfg.game}", cfg.total_steps, cfg.max_minutes,
                                 model.num_timesteps, elapsed(), disable=not progress)
            self.last_t, self.last_n = time.time(), model.num_timesteps
            self.sps = 0.0

        def _on_rollout_start(self) -> None:
            committed[0] = capture()

        def _on_step(self) -> bool:
            n = model.num_timesteps
            self.bar.update(n, elapsed(), f"{self.sps:,.0f} steps/s")
            if n >= nxt["snapshot"]:
                nxt["snapshot"] += cfg.snapshot_interval
                state = {k: v.clone() for k, v in policy_net().state_dict().items()}
                snapshots[:] = (snapshots + [state])[-cfg.max_snapshots:]
                pool.add_snapshot(frozen_act_fn(cfg, state, obs_size, num_actions))
            if n >= nxt["checkpoint"]:
                nxt["checkpoint"] += cfg.checkpoint_interval
                save_resume(state_path, cfg, **committed[0])
            if n >= nxt["eval"]:
                nxt["eval"] += cfg.eval.interval
                run_eval()
            return deadline is None or time.time() < deadline

        def _on_rollout_end(self) -> None:
            now = time.time()
            self.sps = (model.num_timesteps - self.last_n) / max(now - self.last_t, 1e-9)
            self.logger.record("charts/SPS", self.sps)
            self.last_t, self.last_n = now, model.num_timesteps

        def _on_training_end(self) -> None:
            self.bar.close()

    callback = Callback()
    try:
        evaluator.baselines()
        remaining = max(cfg.total_steps - model.num_timesteps, 0)
        if remaining:
            model.learn(total_timesteps=remaining, callback=callback, tb_log_name="sb3",
                        reset_num_timesteps=resume is None)
    except KeyboardInterrupt:
        if hasattr(callback, "bar"):
            callback.bar.close()
        saved = committed[0]
        save_resume(state_path, cfg, **saved)
        with restoring(state_path):
            net = policy_net(saved["trainer"]["parameters"]["policy"])
        save_policy(saved["steps"], net)
        raise Interrupted(state_path, saved["steps"]) from None
    model.save(model_path)
    save_resume(state_path, cfg, **capture())
    if not evaluator.rows or evaluator.rows[-1]["steps"] != model.num_timesteps:
        run_eval()
    else:
        save_policy(model.num_timesteps)
    return {"steps": int(model.num_timesteps), "eval": evaluator.rows[-1],
            "seconds": time.time() - t0}
