"""``cardrl train --config configs/NAME.yaml``: self-play training of a masked policy.

Two algorithms share the configs, the opponent pool and the evaluation:

- ``algo: batch_ppo`` — :mod:`training.ppo_batch`, a CleanRL-style masked PPO that acts
  on the whole batch engine at once (the fast path);
- ``algo: sb3`` — ``sb3_contrib.MaskablePPO`` on :class:`~training.vec_env.BatchSeatVecEnv`
  (this module).

A run folder (``--out``, default ``runs/<config>_s<seed>``) holds::

    config.yaml        the resolved config of the run
    policy.pt          the latest policy (agents.make("policy", game, path=...))
    policy_best.pt     the policy with the best evaluation so far
    train_state.pt     batch_ppo: everything --resume needs (sb3: sb3_model.zip + sb3_state.pt)
    eval.csv           one row per evaluation (steps, time, points, difference and its CI)
    baselines.json     the baseline agents' scores in the same evaluation (once per run)
    learning_curve.png evaluation score vs. steps, baselines as horizontal lines
    tb/                TensorBoard logs (charts/…, losses/…, eval/…)

**Evaluation.** Every ``eval.interval`` learner decisions the policy plays a duplicate
tournament (``arena.tournament.run_tournament``, every seat rotation) in one seat
against ``eval.opponent`` in every other seat. The score is the policy's mean points per
deal; the difference is its mean points minus the opponents' mean points on the same
deals, with a 95 % CI over deals. Each ``eval.baselines`` agent is scored the same way in
the policy's place once per run: the horizontal lines of the curve.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

ALGOS = ("batch_ppo", "sb3")


# -- config ---------------------------------------------------------------------------------
@dataclass
class PPOConfig:
    """PPO hyperparameters (names as in CleanRL's ppo.py)."""

    learning_rate: float = 5e-4  # Adam step size
    anneal_lr: bool = True  # decay the step size linearly to 0 at total_steps
    n_steps: int = 32  # sb3 only: vector steps per env in a rollout (rollout = n_steps * num_games)
    update_epochs: int = 4  # passes over each rollout
    minibatch_size: int = 1024  # decisions per gradient step
    gamma: float = 1.0  # discount per learner decision (episodes are one short deal)
    gae_lambda: float = 0.95  # GAE lambda
    clip_coef: float = 0.2  # PPO ratio clip
    clip_vloss: bool = False  # clip the value loss as well (batch_ppo)
    ent_coef: float = 0.01  # entropy bonus
    vf_coef: float = 0.5  # value-loss weight
    max_grad_norm: float = 0.5  # gradient-norm clip
    norm_adv: bool = True  # normalise advantages per minibatch
    target_kl: float | None = None  # stop an update's epochs early past this KL (None: never)
    hidden: list[int] = field(default_factory=lambda: [256, 256])  # MLP widths (actor, critic)
    activation: str = "tanh"  # tanh | relu
    # engineered input features appended to the observation (agents/policy/features.py FEATURES):
    # none | abracadabra (heuristic bidders' hand evaluation, bidding so far) | four_aces
    # (Four Aces combination scores: now and after each discard, strict
    # scoring) | four_aces_free | four_aces_refill (four_aces + the greedy discarder's
    # expected value of each discard after one refill) | four_aces_turns (four_aces + the
    # mover's turns left, one-hot); computed from the observation only, stored in checkpoints
    features: str = "none"
    # an agent that makes the decisions the network does not (agents/policy/delegate.py), or None:
    # Abracadabra `heuristic` -> the network only bids (C1); showing, card play and the call
    # are the heuristic's. Stored in checkpoints; batch_ppo only
    delegate: str | None = None
    # none | suits (Four Aces): the network sees every observation with its suits sorted
    # into one canonical order and its actions are mapped back (agents/four_aces/symmetry.py), so it
    # learns one answer for up to 24 suit renamings of a deal. Stored in checkpoints
    symmetry: str = "none"


@dataclass
class EvalConfig:
    """Periodic duplicate-deal evaluation against the heuristics."""

    interval: int = 500_000  # learner decisions between evaluations (0: only at the end)
    deals: int = 400  # dealt keys per evaluation (each played in every seat rotation)
    opponent: str = "heuristic"  # agent filling every other seat
    baselines: list[str] = field(default_factory=lambda: ["heuristic", "random"])
    seed: int = 20_240_601  # tournament seed: the same deals at every evaluation
    workers: int = 1  # tournament processes


@dataclass
class TrainConfig:
    """A training run (one YAML file in configs/; every field is commented there)."""

    game: str = "abracadabra"  # abracadabra | four_aces
    options: dict = field(default_factory=dict)  # the game's config fields (reward, variant…)
    algo: str = "batch_ppo"  # batch_ppo | sb3
    seed: int = 1  # seeds the engine, the pool, torch and the seat rotation
    total_steps: int = 1_000_000  # learner decisions to train on (--total-steps overrides)
    max_minutes: float | None = None  # stop earlier after this much training wall time
    num_games: int = 256  # games in the batch engine (SB3: n_envs)
    reward_scale: float = 0.05  # multiplies the game reward before learning
    opponents: list = field(default_factory=lambda: [{"name": "random", "weight": 1.0}])
    train_self_seats: bool = True  # batch_ppo: also learn from seats the pool gives to "self"
    snapshot_interval: int = 250_000  # decisions between frozen snapshots of the learner
    max_snapshots: int = 8  # snapshots kept in the pool (oldest dropped)
    checkpoint_interval: int = 250_000  # decisions between resumable checkpoints
    torch_threads: int = 1  # torch.set_num_threads (1: OpenMP spinning hurts on busy cores)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def _build(cls, data: dict, where: str):
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = set(data) - names
    if unknown:
        raise ValueError(f"unknown {where} field(s) {sorted(unknown)}: expected {sorted(names)}")
    return cls(**data)


def config_from_dict(data: dict) -> TrainConfig:
    """A validated :class:`TrainConfig` from a parsed YAML mapping."""
    data = dict(data or {})
    ppo = _build(PPOConfig, dict(data.pop("ppo", None) or {}), "ppo")
    evaluation = _build(EvalConfig, dict(data.pop("eval", None) or {}), "eval")
    cfg = _build(TrainConfig, data, "config")
    cfg.ppo, cfg.eval = ppo, evaluation
    if cfg.algo not in ALGOS:
        raise ValueError(f"algo={cfg.algo!r} is not allowed: expected one of {ALGOS}")
    for name in ("total_steps", "num_games"):
        if int(getattr(cfg, name)) < 1:
            raise ValueError(f"{name} must be >= 1")
    cfg.total_steps = int(cfg.total_steps)
    from envs.registry import make_config
    from training.opponents import parse_pool

    make_config(cfg.game, **cfg.options)  # validates game and options
    from agents.policy.features import check_features

    check_features(cfg.ppo.features)
    if cfg.ppo.features != "none" and not cfg.ppo.features.startswith(cfg.game):
        raise ValueError(f"ppo.features={cfg.ppo.features!r} does not fit game {cfg.game!r}")
    if cfg.ppo.features.startswith("four_aces"):
        free = cfg.options.get("scoring") == "free"
        if (cfg.ppo.features == "four_aces_free") != free:
            want = "four_aces_free" if free else "four_aces, four_aces_refill or four_aces_turns"
            raise ValueError(f"ppo.features={cfg.ppo.features!r} scores with the other K3 "
                             f"rule than options.scoring: use {want}")
    from agents.policy.delegate import check_delegate

    check_delegate(cfg.game, cfg.ppo.delegate)
    if cfg.ppo.delegate is not None and cfg.algo == "sb3":
        raise ValueError("ppo.delegate needs algo: batch_ppo (the sb3 path trains on every "
                         "decision)")
    from agents.four_aces.symmetry import check_symmetry

    check_symmetry(cfg.game, cfg.ppo.symmetry)
    for name in ("features", "symmetry"):  # input transforms the sb3 MlpPolicy lacks
        if getattr(cfg.ppo, name) != "none" and cfg.algo == "sb3":
            raise ValueError(f"ppo.{name} needs algo: batch_ppo (the sb3 path feeds raw "
                             "observations to its MlpPolicy)")
    parse_pool(cfg.opponents)
    return cfg


def load_config(path: str | Path) -> TrainConfig:
    with open(path) as f:
        return config_from_dict(yaml.safe_load(f))


# -- evaluation -----------------------------------------------------------------------------
def tournament_options(options: dict) -> dict:
    """The game options of a tournament: training-only fields removed."""
    return {k: v for k, v in options.items() if k not in ("episode", "reward")}


def score_candidate(game: str, options: dict, candidate: str, opponent: str, deals: int,
                    seed: int, workers: int = 1, kwargs: dict | None = None) -> dict:
    """``candidate`` in one seat, ``opponent`` in all others, every rotation, duplicate
    deals. Its mean points per deal, the opponents', and the paired difference + CI."""
    from arena.stats import mean_ci
    from arena.tournament import run_tournament
    from envs.registry import num_seats

    seats = num_seats(game, **options)
    lineup = [f"candidate={candidate}"] + [f"opponent{i}={opponent}" for i in range(1, seats)]
    result = run_tournament(game, lineup, deals, seed, tournament_options(options),
                            workers=workers, progress=False,
                            agent_kwargs={"candidate": kwargs} if kwargs else None)
    table = result.games
    mine = table["agent"] == "candidate"
    per_deal = table.groupby([mine, table["deal"]])["points"].mean()
    ours, theirs = per_deal.loc[True], per_deal.loc[False]
    diff, low, high = mean_ci((ours - theirs.reindex(ours.index)).to_numpy())
    return {"points": float(ours.mean()), "opponent_points": float(theirs.mean()),
            "diff": diff, "diff_low": low, "diff_high": high, "deals": deals,
            "seconds": result.elapsed_s}


class Evaluator:
    """Scores checkpoints on the same duplicate deals; keeps eval.csv, baselines.json and
    the learning curve of a run folder."""

    def __init__(self, cfg: TrainConfig, run_dir: Path):
        self.cfg = cfg
        self.run_dir = run_dir
        self.csv = run_dir / "eval.csv"
        self.rows: list[dict] = []
        if self.csv.exists():
            import pandas as pd

            self.rows = pd.read_csv(self.csv).to_dict("records")
        self.best = max((r["diff"] for r in self.rows), default=-math.inf)
        self._baselines: dict | None = None

    def baselines(self) -> dict:
        path = self.run_dir / "baselines.json"
        if self._baselines is None and path.exists():
            self._baselines = json.loads(path.read_text())
        if self._baselines is None:
            e = self.cfg.eval
            self._baselines = {
                name: score_candidate(self.cfg.game, self.cfg.options, name, e.opponent,
                                      e.deals, e.seed, e.workers)
                for name in e.baselines
            }
            path.write_text(json.dumps(self._baselines, indent=2) + "\n")
        return self._baselines

    def evaluate(self, policy_path: Path, steps: int, elapsed_s: float) -> dict:
        e = self.cfg.eval
        row = score_candidate(self.cfg.game, self.cfg.options, "policy", e.opponent, e.deals,
                              e.seed, e.workers, kwargs={"path": str(policy_path)})
        row = {"steps": int(steps), "train_seconds": round(elapsed_s, 1), **row}
        self.rows.append(row)
        import pandas as pd

        pd.DataFrame(self.rows).to_csv(self.csv, index=False)
        if row["diff"] > self.best:
            self.best = row["diff"]
            (self.run_dir / "policy_best.pt").write_bytes(policy_path.read_bytes())
        self.plot()
        return row

    def plot(self) -> Path:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        e = self.cfg.eval
        steps = np.array([r["steps"] for r in self.rows], dtype=float)
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
        ax1.plot(steps, [r["points"] for r in self.rows], "o-", color="C0", label="policy")
        colors = iter(["C1", "C2", "C3", "C4", "C5"])
        for name, base in self.baselines().items():
            ax1.axhline(base["points"], ls="--", color=next(colors), label=name)
        ax1.set(xlabel="learner decisions", ylabel="mean points per deal",
                title=f"{self.cfg.game} {_options_label(self.cfg.options)}: vs {e.opponent}")
        ax1.legend(fontsize=8)
        diff = np.array([r["diff"] for r in self.rows])
        low = np.array([r["diff_low"] for r in self.rows])
        high = np.array([r["diff_high"] for r in self.rows])
        ax2.plot(steps, diff, "o-", color="C0", label="policy - opponents")
        ax2.fill_between(steps, low, high, color="C0", alpha=0.2, label="95% CI")
        ax2.axhline(0.0, ls="--", color="C1", label=f"{e.opponent} (= 0)")
        ax2.set(xlabel="learner decisions", ylabel="points difference per deal",
                title=f"duplicate, {e.deals} deals x every rotation")
        ax2.legend(fontsize=8)
        fig.tight_layout()
        path = self.run_dir / "learning_curve.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return path


def _options_label(options: dict) -> str:
    keys = [k for k in ("variant", "num_players") if k in options]
    return " ".join(f"{k}={options[k]}" for k in keys)


def eval_line(row: dict) -> str:
    return (f"eval @ {row['steps']:,} steps: policy {row['points']:.2f} pts/deal vs opponents "
            f"{row['opponent_points']:.2f}; diff {row['diff']:+.2f} "
            f"[{row['diff_low']:+.2f}, {row['diff_high']:+.2f}]")


# -- shared run plumbing --------------------------------------------------------------------
def prepare_run_dir(cfg: TrainConfig, run_dir: Path, resume: bool) -> None:
    """Create the run folder; refuse to overwrite a run unless resuming it."""
    config_path = run_dir / "config.yaml"
    if config_path.exists() and not resume:
        raise SystemExit(f"{run_dir} already holds a run: pass --resume to continue it, or "
                         f"choose another --out")
    if resume and not config_path.exists():
        raise SystemExit(f"--resume: {run_dir} holds no run to resume")
    run_dir.mkdir(parents=True, exist_ok=True)
    config_path.write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))


def seed_everything(seed: int, threads: int) -> None:
    import random

    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.set_num_threads(max(1, int(threads)))


def net_act_fn(net, sample: bool = True, delegate=None):
    """``act(obs, masks) -> actions`` of a PolicyNet (sampled, or greedy); with a
    ``delegate`` agent, the rows the net does not decide are its (agents/policy/delegate.py)."""
    import torch

    def act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            x, net_masks, action_map = net.encode(obs, masks)
            logits = net.logits(torch.as_tensor(x), torch.as_tensor(net_masks))
            if sample:
                gumbel = -torch.log(-torch.log(torch.rand_like(logits).clamp_(1e-12, 1.0)))
                logits = logits + gumbel
            return net.game_actions(logits.argmax(dim=1).numpy(), action_map)

    if delegate is None:
        return act
    from agents.policy.delegate import delegated

    return delegated(delegate.game, act, delegate.act_batch)


def frozen_act_fn(cfg: TrainConfig, state_dict: dict, observation_size: int, num_actions: int,
                  delegate=None):
    """A sampling act function of a frozen copy of the learner (for snapshots)."""
    from agents.policy.net import PolicyNet

    net = PolicyNet(observation_size, num_actions, cfg.ppo.hidden, cfg.ppo.activation,
                    cfg.ppo.features, cfg.ppo.delegate, cfg.ppo.symmetry)
    net.load_state_dict(state_dict)
    return net_act_fn(net.eval(), sample=True, delegate=delegate)


def make_delegate_agent(cfg: TrainConfig):
    """The agent making the decisions the learner's network does not, or None."""
    from agents.policy.delegate import make_delegate

    return make_delegate(cfg.game, cfg.ppo.delegate, seed=cfg.seed + 777)


# -- SB3 MaskablePPO path -------------------------------------------------------------------
def train_sb3(cfg: TrainConfig, run_dir: Path, resume: bool = False,
              progress: bool = True) -> dict:
    """MaskablePPO on :class:`BatchSeatVecEnv`; the learner plays one seat per game, seats
    given to ``self`` are played by the current policy (not trained on)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    from agents.policy.agent import make_checkpoint, save_checkpoint
    from agents.policy.net import PolicyNet, from_sb3_state_dict
    from training.vec_env import make_vec_env

    if cfg.ppo.features != "none":
        raise ValueError("ppo.features needs algo: batch_ppo (the sb3 path feeds raw "
                         "observations to its MlpPolicy)")
    seed_everything(cfg.seed, cfg.torch_threads)
    env = make_vec_env(cfg.game, cfg.num_games, cfg.options, cfg.opponents, cfg.seed,
                       cfg.reward_scale, cfg.max_snapshots)
    pool = env.driver.pool
    obs_size, num_actions = env.observation_space.shape[0], int(env.action_space.n)
    p = cfg.ppo
    deadline = None if cfg.max_minutes is None else time.time() + 60 * cfg.max_minutes

    def lr(remaining: float) -> float:  # linear decay to 0 at total_steps or max_minutes
        if not p.anneal_lr:
            return p.learning_rate
        if deadline is not None:
            remaining = min(remaining, (deadline - time.time()) / (60 * cfg.max_minutes))
        return p.learning_rate * max(remaining, 0.0)

    model_path, state_path = run_dir / "sb3_model.zip", run_dir / "sb3_state.pt"
    extra = {"snapshots": [], "elapsed_s": 0.0}
    if resume and model_path.exists():
        model = MaskablePPO.load(model_path, env=env, device="cpu",
                                 custom_objects={"learning_rate": lr, "lr_schedule": lr})
        extra = torch.load(state_path, weights_only=False)
    else:
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
    if cfg.max_minutes is not None:  # training time already spent counts (resume)
        deadline = time.time() + 60 * cfg.max_minutes - extra.get("elapsed_s", 0.0)
    for snap in extra["snapshots"]:
        pool.add_snapshot(frozen_act_fn(cfg, snap, obs_size, num_actions))

    def policy_net() -> PolicyNet:
        net = PolicyNet(obs_size, num_actions, p.hidden, p.activation)
        net.load_state_dict(from_sb3_state_dict(model.policy.state_dict()))
        return net.eval()

    def self_act(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            dist = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks)
            return dist.get_actions(deterministic=False).numpy().astype(np.int64)

    pool.set_self(self_act)
    evaluator = Evaluator(cfg, run_dir)
    start_steps = model.num_timesteps if resume else 0
    marks = {"snapshot": cfg.snapshot_interval, "checkpoint": cfg.checkpoint_interval,
             "eval": cfg.eval.interval}
    nxt = {k: (start_steps // v + 1) * v if v else math.inf for k, v in marks.items()}
    t0 = time.time()

    def save_policy() -> Path:
        checkpoint = make_checkpoint(policy_net(), cfg.game, cfg.options, model.num_timesteps,
                                     algo="sb3")
        return save_checkpoint(checkpoint, run_dir / "policy.pt")

    elapsed_before = extra.get("elapsed_s", 0.0)

    def save_state() -> None:
        model.save(model_path)
        extra["elapsed_s"] = elapsed_before + (time.time() - t0)
        torch.save(extra, state_path)

    def run_eval() -> None:
        row = evaluator.evaluate(save_policy(), model.num_timesteps,
                                 elapsed_before + time.time() - t0)
        for key in ("points", "opponent_points", "diff", "diff_low", "diff_high"):
            model.logger.record(f"eval/{key}", row[key])
        tqdm.write(eval_line(row))

    class Callback(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = tqdm(total=cfg.total_steps, initial=model.num_timesteps, unit="step",
                            unit_scale=True, desc=f"sb3 {cfg.game}", disable=not progress)
            self.last_t, self.last_n = time.time(), model.num_timesteps

        def _on_step(self) -> bool:
            n = model.num_timesteps
            self.bar.update(n - self.bar.n)
            if n >= nxt["snapshot"]:
                nxt["snapshot"] += cfg.snapshot_interval
                state = {k: v.clone() for k, v in policy_net().state_dict().items()}
                extra["snapshots"] = (extra["snapshots"] + [state])[-cfg.max_snapshots:]
                pool.add_snapshot(frozen_act_fn(cfg, state, obs_size, num_actions))
            if n >= nxt["checkpoint"]:
                nxt["checkpoint"] += cfg.checkpoint_interval
                save_state()
            if n >= nxt["eval"]:
                nxt["eval"] += cfg.eval.interval
                run_eval()
            return deadline is None or time.time() < deadline

        def _on_rollout_end(self) -> None:
            now = time.time()
            sps = (model.num_timesteps - self.last_n) / max(now - self.last_t, 1e-9)
            self.logger.record("charts/SPS", sps)
            self.bar.set_postfix(sps=f"{sps:,.0f}")
            self.last_t, self.last_n = now, model.num_timesteps

        def _on_training_end(self) -> None:
            self.bar.close()

    evaluator.baselines()
    remaining = max(cfg.total_steps - model.num_timesteps, 0)
    if remaining:
        model.learn(total_timesteps=remaining, callback=Callback(), tb_log_name="sb3",
                    reset_num_timesteps=not resume)
    save_state()
    if not evaluator.rows or evaluator.rows[-1]["steps"] != model.num_timesteps:
        run_eval()
    else:
        save_policy()
    return {"steps": int(model.num_timesteps), "eval": evaluator.rows[-1],
            "seconds": time.time() - t0}


# -- the command ----------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="YAML config (configs/*.yaml)")
    parser.add_argument("--total-steps", type=int, default=None,
                        help="learner decisions to train on in all (overrides the config)")
    parser.add_argument("--max-minutes", type=float, default=None,
                        help="stop after this much training wall time (overrides the config)")
    parser.add_argument("--algo", choices=ALGOS, default=None, help="override the config's algo")
    parser.add_argument("--seed", type=int, default=None, help="override the config's seed")
    parser.add_argument("--out", default=None,
                        help="run folder (default runs/<config name>_s<seed>)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in --out from its last checkpoint")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def train(cfg: TrainConfig, run_dir: str | Path, resume: bool = False,
          progress: bool = True) -> dict:
    """Train ``cfg`` into ``run_dir`` (API of the command; tests call it directly)."""
    run_dir = Path(run_dir)
    prepare_run_dir(cfg, run_dir, resume)
    if cfg.algo == "sb3":
        return train_sb3(cfg, run_dir, resume, progress)
    from training.ppo_batch import train_batch_ppo

    return train_batch_ppo(cfg, run_dir, resume, progress)


def run(args: argparse.Namespace) -> int:
    cfg = load_config(args.config)
    for name in ("total_steps", "max_minutes", "algo", "seed"):
        if getattr(args, name) is not None:
            setattr(cfg, name, getattr(args, name))
    run_dir = Path(args.out or f"runs/{Path(args.config).stem}_s{cfg.seed}")
    summary = train(cfg, run_dir, resume=args.resume, progress=not args.no_progress)
    print(f"trained {summary['steps']:,} learner decisions in {summary['seconds']:.0f} s "
          f"({cfg.algo}); {eval_line(summary['eval'])}")
    print(f"run folder: {run_dir}  (policy.pt, eval.csv, learning_curve.png, tb/)")
    return 0
