"""Masked PPO over a whole batch engine, CleanRL-style in one file (``algo: batch_ppo``).

Why not SB3 alone: SB3 sees the batch as ``num_games`` one-seat envs and pays Python
overhead per env and step (info dicts, mask lists, buffer copies). Here one rollout is
**one episode in every game of the engine**, played to the end with one engine call per
step: at each step the games whose acting seat is played by the learner are gathered
into one policy forward pass, the other seats are played by the opponent pool
(vectorised per actor).

**Streams and credit.** Every (game, seat) the learner plays is a separate trajectory
("stream"). A decision's reward is the sum of that seat's column of ``engine.step``'s
rewards from the decision up to the stream's next decision or the episode's end —
whichever seat moved (end-of-deal rewards usually arrive on an opponent's move). Since
every episode ends inside the rollout, GAE needs no bootstrap: a stream's last decision
is terminal. ``train_self_seats`` makes the learner play, and learn from, every seat the
pool assigns to ``self`` — full self-play data from one engine.

**Seats.** Game ``g`` of rollout ``k`` gives the learner seat ``(g + k) mod P``; the other
seats draw actors from the pool by weight (``training/opponents.py``).

**Distillation first.** With a ``distill:`` section the network first imitates a teacher
(:func:`training.distill.distill`, e.g. the PIMC search) before the first PPO iteration:
that stage's time counts as training time, the teacher decisions trained on count as
steps (PPO continues from there), the imitation joins the pool as the first snapshot, and
an evaluation row is written at once (at the step count of the teacher decisions). A run
interrupted during it distils again on ``--resume``.

**Or a trained network.** With ``init`` (a checkpoint, :mod:`training.init_net`) the
network starts from its weights instead; as after a distillation, it joins the pool as the
first snapshot, ``ppo.anchor_coef`` anchors PPO to it, and an evaluation row is written at
step 0.

The loop follows ``cleanrl/ppo.py``: seeding, rollout, advantages, clipped-surrogate
update, namespaced TensorBoard scalars (``charts/``, ``losses/``, ``eval/``).

**Resumes repeat the run.** The state saved at the end of an iteration (the resume file,
:mod:`training.resume`) holds every generator the next iterations draw from: the
trainer's, the pool's, torch's, and those of the pool's agents and of the delegate (a
``random`` opponent's, a sampling policy's), with the evaluations done so far and whether
the one due at that step is done. An iteration cut by Ctrl-C is played again from that
state, so its games come out the same; a resumed run ends at the same steps with the same
weights and the same ``eval.csv`` as an uninterrupted one (``docs/training-resume.md``
says what a time limit changes).
"""

from __future__ import annotations

import copy
import math
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from agents.base import Agent
from agents.policy.checkpoint import VERSION as CHECKPOINT_VERSION
from agents.policy.checkpoint import check_checkpoint, make_checkpoint
from agents.policy.delegate import network_rows
from agents.policy.net import PolicyNet
from envs.core import BatchEngine
from envs.registry import make_engine
from training.actors import frozen_act_fn, make_delegate_agent, net_act_fn
from training.config import TrainConfig
from training.distill import distill
from training.evaluate import Evaluator, eval_line
from training.init_net import MODEL_FIELDS, load_init
from training.opponents import OpponentPool
from training.progress import BudgetBar
from training.resume import (
    Interrupted,
    Resume,
    generator_states,
    restoring,
    resume_file,
    run_inputs,
    save_resume,
    set_generator_states,
    write_file,
)
from training.seat_env import make_pool

LEARNER = -1  # actor id of seats played (and learned from) by the learner


class Rollout:
    """Growing flat buffers of the learner's decisions in one rollout."""

    def __init__(self, capacity: int, observation_size: int, num_actions: int):
        self.n = 0
        self.obs = np.zeros((capacity, observation_size), dtype=np.float32)
        self.masks = np.zeros((capacity, num_actions), dtype=bool)
        self.actions = np.zeros(capacity, dtype=np.int64)
        self.logprobs = np.zeros(capacity, dtype=np.float32)
        self.values = np.zeros(capacity, dtype=np.float32)
        self.rewards = np.zeros(capacity, dtype=np.float32)
        self.next = np.full(capacity, -1, dtype=np.int64)  # the stream's next decision
        self.steps: list[tuple[int, int]] = []  # [start, stop) of each engine step's rows

    def add(self, obs, masks, actions, logprobs, values) -> np.ndarray:
        k = len(actions)
        if self.n + k > len(self.actions):
            self._grow(max(2 * len(self.actions), self.n + k))
        rows = np.arange(self.n, self.n + k)
        self.obs[rows], self.masks[rows], self.actions[rows] = obs, masks, actions
        self.logprobs[rows], self.values[rows] = logprobs, values
        self.steps.append((self.n, self.n + k))
        self.n += k
        return rows

    def _grow(self, capacity: int) -> None:
        for name in ("obs", "masks", "actions", "logprobs", "values", "rewards", "next"):
            old = getattr(self, name)
            new = np.full((capacity,) + old.shape[1:], -1 if name == "next" else 0, old.dtype)
            new[: len(old)] = old
            setattr(self, name, new)

    def advantages(self, gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray]:
        """GAE per stream, walking the engine steps backwards (a stream's next decision
        is always in a later step)."""
        n = self.n
        values, nxt = self.values[:n], self.next[:n]
        next_values = np.where(nxt >= 0, values[np.maximum(nxt, 0)], 0.0)
        deltas = self.rewards[:n] + gamma * next_values - values
        adv = np.zeros(n, dtype=np.float32)
        for start, stop in reversed(self.steps):
            later = nxt[start:stop]
            carry = np.where(later >= 0, adv[np.maximum(later, 0)], 0.0)
            adv[start:stop] = deltas[start:stop] + gamma * gae_lambda * carry
        return adv, adv + values


def sample_actions(net: PolicyNet, obs: np.ndarray, masks: np.ndarray):
    """Sampled actions, their log-probabilities and the values (no gradient); ``obs`` is
    the network input and ``masks`` are in the network's action order (``net.encode``)."""
    with torch.no_grad():
        logits, values = net(torch.as_tensor(obs), torch.as_tensor(masks))
        logp_all = torch.log_softmax(logits, dim=1)
        gumbel = -torch.log(-torch.log(torch.rand_like(logits).clamp_(1e-12, 1.0)))
        actions = (logits + gumbel).argmax(dim=1)
        logp = logp_all.gather(1, actions[:, None]).squeeze(1)
    return actions.numpy(), logp.numpy(), values.numpy()


def collect(engine, pool, net: PolicyNet, rollout_index: int, seed: int,
            train_self_seats: bool, reward_scale: float,
            delegate=None) -> tuple[Rollout, dict]:
    """Play one episode in every game; the learner's decisions and rollout statistics.

    With a ``delegate`` agent the learner's seats make only the network's decisions
    (:func:`agents.policy.delegate.network_rows`); the delegate plays their other decisions, which
    are not trained on, and their rewards go to the seat's latest network decision."""
    B, P = engine.batch_size, engine.num_players
    engine_game = None if delegate is None else delegate.game
    games = np.arange(B)
    engine.reset(seed=seed)
    learner_seat = (games + rollout_index) % P
    actors = pool.sample((B, P))
    if train_self_seats:
        actors[actors == pool.self_id] = LEARNER
    actors[games, learner_seat] = LEARNER
    # the buffer holds network inputs (observation + features), computed once per decision
    buf = Rollout(B * 16 * P, net.input_size, engine.num_actions)
    last = np.full((B, P), -1, dtype=np.int64)  # each stream's latest decision
    earned = np.zeros((B, P))  # game reward of every seat this episode
    actions = np.zeros(B, dtype=np.int64)
    engine_steps = 0
    while not engine.game_over.all():
        current = engine.current_player.astype(np.int64)
        live = current >= 0
        seat_actor = actors[games, np.maximum(current, 0)]
        learn = live & (seat_actor == LEARNER)
        obs, masks = engine.observe(), engine.legal_action_mask()
        delegated = np.zeros(B, dtype=bool)
        if delegate is not None:
            delegated = learn & ~network_rows(engine_game, masks)
            learn &= ~delegated
        other = live & ~learn & ~delegated
        actions[:] = 0
        if delegated.any():
            g = np.flatnonzero(delegated)
            actions[g] = delegate.act_batch(obs[g], masks[g])
        if learn.any():
            g = np.flatnonzero(learn)
            x, net_masks, action_map = net.encode(obs[g], masks[g])
            act, logp, value = sample_actions(net, x, net_masks)
            rows = buf.add(x, net_masks, act, logp, value)  # in the network's action order
            prev = last[g, current[g]]
            buf.next[prev[prev >= 0]] = rows[prev >= 0]
            last[g, current[g]] = rows
            actions[g] = net.game_actions(act, action_map)
        if other.any():
            g = np.flatnonzero(other)
            actions[g] = pool.act(seat_actor[g], obs[g], masks[g])
        rewards = engine.step(actions, active=live)
        engine_steps += 1
        earned += rewards
        credited = last >= 0  # rewards before a stream's first decision have no owner
        buf.rewards[last[credited]] += reward_scale * rewards[credited]
    learner_points = earned[games, learner_seat]
    stats = {"engine_steps": engine_steps, "learner_return": float(learner_points.mean()),
             "seat_return": float(earned[actors == LEARNER].mean())}
    return buf, stats


def ppo_update(net: PolicyNet, optimizer, buf: Rollout, adv: np.ndarray, ret: np.ndarray,
               cfg: TrainConfig, rng: np.random.Generator,
               anchor: PolicyNet | None = None) -> dict:
    """Clipped-surrogate PPO epochs over the rollout (CleanRL's update). With an
    ``anchor`` (a frozen net: the imitation or the init, ``ppo.anchor_coef``) every
    minibatch's loss adds ``anchor_coef * KL(anchor || net)`` over its decisions."""
    p = cfg.ppo
    n = buf.n
    b_obs, b_masks = torch.as_tensor(buf.obs[:n]), torch.as_tensor(buf.masks[:n])
    b_actions, b_logp = torch.as_tensor(buf.actions[:n]), torch.as_tensor(buf.logprobs[:n])
    b_adv, b_ret = torch.as_tensor(adv), torch.as_tensor(ret)
    b_values = torch.as_tensor(buf.values[:n])
    clipfracs, approx_kl, anchor_kl = [], torch.tensor(0.0), torch.tensor(0.0)
    for _ in range(p.update_epochs):
        order = rng.permutation(n)
        for start in range(0, n, p.minibatch_size):
            mb = torch.as_tensor(order[start:start + p.minibatch_size])
            logits, value = net(b_obs[mb], b_masks[mb])
            logp_all = torch.log_softmax(logits, dim=1)
            newlogp = logp_all.gather(1, b_actions[mb, None]).squeeze(1)
            entropy = -(logp_all.exp() * logp_all).sum(dim=1)
            logratio = newlogp - b_logp[mb]
            ratio = logratio.exp()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - logratio).mean()
                clipfracs.append(((ratio - 1.0).abs() > p.clip_coef).float().mean().item())
            mb_adv = b_adv[mb]
            if p.norm_adv and len(mb) > 1:
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
            pg_loss = torch.max(-mb_adv * ratio,
                                -mb_adv * ratio.clamp(1 - p.clip_coef, 1 + p.clip_coef)).mean()
            if p.clip_vloss:
                clipped = b_values[mb] + (value - b_values[mb]).clamp(-p.clip_coef, p.clip_coef)
                v_loss = 0.5 * torch.max((value - b_ret[mb]) ** 2,
                                         (clipped - b_ret[mb]) ** 2).mean()
            else:
                v_loss = 0.5 * ((value - b_ret[mb]) ** 2).mean()
            entropy_loss = entropy.mean()
            loss = pg_loss - p.ent_coef * entropy_loss + p.vf_coef * v_loss
            if anchor is not None:
                with torch.no_grad():
                    anchor_logp = torch.log_softmax(anchor.logits(b_obs[mb], b_masks[mb]), 1)
                # illegal actions: probability exactly 0 under both, so they add 0
                anchor_kl = (anchor_logp.exp() * (anchor_logp - logp_all)).sum(dim=1).mean()
                loss = loss + p.anchor_coef * anchor_kl
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), p.max_grad_norm)
            optimizer.step()
        if p.target_kl is not None and approx_kl > p.target_kl:
            break
    y_pred, y_true = buf.values[:n], ret
    var_y = np.var(y_true)
    explained = math.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y
    return {"losses/value_loss": v_loss.item(), "losses/policy_loss": pg_loss.item(),
            "losses/entropy": entropy_loss.item(), "losses/approx_kl": approx_kl.item(),
            "losses/clipfrac": float(np.mean(clipfracs)),
            "losses/explained_variance": float(explained),
            **({} if anchor is None else {"losses/anchor_kl": anchor_kl.item()})}


def frozen_copy(net: PolicyNet, state_dict: dict) -> PolicyNet:
    """A frozen net of ``net``'s shape and inputs holding ``state_dict`` (copied): the
    anchor of ``ppo.anchor_coef``. Built with the torch generator untouched, so a run
    with an anchor draws the same numbers as one without."""
    anchor = copy.deepcopy(net)
    anchor.load_state_dict({k: v.detach().clone() for k, v in state_dict.items()})
    anchor.requires_grad_(False)
    return anchor.eval()


def log_distill(writer, info: dict, step: int) -> None:
    """TensorBoard scalars of the distillation stage (training/distill.py)."""
    for i, epoch in enumerate(info["epochs"]):
        for key, value in epoch.items():
            writer.add_scalar(f"distill/epoch_{key}", value, i + 1)
    for key in ("train_accuracy", "holdout_accuracy", "holdout_policy_loss",
                "holdout_value_loss", "best_epoch", "generate_seconds", "fit_seconds"):
        writer.add_scalar(f"distill/{key}", info[key], step)


def distill_line(info: dict) -> str:
    """One line on the distillation stage: data, time and the imitation's accuracy."""
    return (f"distilled {info['train_decisions']:,} teacher decisions of {info['deals']:,} "
            f"episodes ({info['generate_seconds']:.0f} s playing, {info['fit_seconds']:.0f} s "
            f"fitting, epoch {info['best_epoch']} kept): accuracy "
            f"{info['train_accuracy']:.3f} trained on, {info['holdout_accuracy']:.3f} held out "
            f"({info['holdout_decisions']:,})"
            + (f"; {info['relabelled']:,} labels the fallback's" if info.get("relabelled") else ""))


def ppo_optimizer(net: PolicyNet, ppo, **options) -> torch.optim.Adam:
    """The Adam optimizer PPO trains ``net`` with (``ppo``: the config's
    :class:`~training.config.PPOConfig`; CleanRL's ``eps=1e-5``); ``options`` go to
    ``torch.optim.Adam`` as well (``foreach``, ``fused``: bench/update_variants.py)."""
    return torch.optim.Adam(net.parameters(), lr=ppo.learning_rate, eps=1e-5, **options)


class Trainer(NamedTuple):
    """What a batch-PPO run trains with (:func:`build_trainer`)."""

    engine: BatchEngine
    pool: OpponentPool
    net: PolicyNet
    optimizer: torch.optim.Optimizer
    #: the agent the network delegates some decisions to (``ppo.delegate``), or None
    delegate: Agent | None


def build_network(cfg: TrainConfig, engine: BatchEngine) -> PolicyNet:
    """The run's network for ``engine``'s game: ``cfg.ppo``'s model, with the weights of
    ``cfg.init`` if set (loaded after the random ones are drawn, so torch's generator draws
    as it would without)."""
    p = cfg.ppo
    observation_size, init = engine.observation_size, None
    if cfg.init is not None:  # the network of a checkpoint (training/init_net.py)
        init = load_init(cfg.game, cfg.options, cfg.init,
                         {name: getattr(p, name) for name in MODEL_FIELDS},
                         engine.observation_size, engine.num_actions)
        observation_size = init["observation_size"]  # a former observation's: its columns
    net = PolicyNet(observation_size, engine.num_actions, p.hidden, p.activation,
                    p.features, p.delegate, p.symmetry)
    if init is not None:
        net.load_state_dict(init["state_dict"])
    return net


def build_trainer(cfg: TrainConfig, seed: int) -> Trainer:
    """The batch engine of ``cfg.num_games`` games, the opponent pool (seeded with
    ``seed``), the network (the weights of ``cfg.init`` if set), its Adam optimizer and
    the delegate, the network playing the pool's ``self`` seats: the set-up of
    :func:`train_batch_ppo` (and of the benchmark's PPO rows), in the order that draws
    torch's generator for the weights."""
    engine = make_engine(cfg.game, cfg.num_games, **cfg.options)
    pool = make_pool(cfg.game, cfg.opponents, seed, cfg.max_snapshots)
    net = build_network(cfg, engine)
    optimizer = ppo_optimizer(net, cfg.ppo)
    delegate = make_delegate_agent(cfg)
    pool.set_self(net_act_fn(net, sample=True, delegate=delegate))
    return Trainer(engine, pool, net, optimizer, delegate)


def trainer_agents(pool: OpponentPool, delegate: Agent | None) -> dict:
    """The agents a run draws from besides its network, by name (``opponents[i]``: the
    pool's entry ``i``, None for ``self`` and ``snapshot``; ``delegate``): whose generators
    the resume file holds."""
    return {**{f"opponents[{i}]": agent for i, agent in enumerate(pool.agents)},
            "delegate": delegate}


def train_batch_ppo(cfg: TrainConfig, run_dir: Path, resume: Resume | None = None,
                    progress: bool = True, inputs: list[dict] | None = None) -> dict:
    """Train ``cfg`` with batch PPO into ``run_dir`` (see training/train.py for the files),
    continuing from the checked resume file ``resume`` if given; ``inputs``: the files the
    run reads (:func:`training.resume.run_inputs`, found here if None), kept in the resume
    file. :func:`training.train.train` validates, seeds and prepares ``run_dir`` first.

    Ctrl-C (``KeyboardInterrupt``) saves the state at the end of the last completed
    iteration (weights, optimizer, generators, snapshots, evaluations) to the resume file
    and policy.pt, then raises :class:`~training.resume.Interrupted`; the resumed run plays
    the cut iteration again from that state (module docstring)."""
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    # -- set-up ------------------------------------------------------------------------------
    rng = np.random.default_rng(cfg.seed)
    engine, pool, net, optimizer, delegate = build_trainer(cfg, cfg.seed)
    D, A = net.config["observation_size"], engine.num_actions  # D: a former size with init
    p = cfg.ppo
    state = {"global_step": 0, "iteration": 0, "elapsed_s": 0.0, "snapshots": []}
    state_path = resume_file(run_dir, "batch_ppo")
    inputs = run_inputs(cfg) if inputs is None else inputs
    actors = trainer_agents(pool, delegate)
    anchor = None  # the network PPO is anchored to (ppo.anchor_coef): imitation or init
    if resume is not None:
        saved = resume.trainer
        with restoring(resume.path):
            net.load_state_dict(saved["net"])
            if "anchor" in saved:
                anchor = frozen_copy(net, saved["anchor"])
            optimizer.load_state_dict(saved["optimizer"])
            state = {"global_step": resume.steps, "iteration": int(saved["iteration"]),
                     "elapsed_s": resume.elapsed_s, "snapshots": list(resume.snapshots)}
            for snap in state["snapshots"]:  # building a net draws from torch's generator
                pool.add_snapshot(frozen_act_fn(cfg, snap, D, A, delegate))
            rng.bit_generator.state = saved["rng"]
            pool.rng.bit_generator.state = saved["pool_rng"]
            torch.set_rng_state(saved["torch_rng"])
            if "agent_rngs" in saved:  # (absent from the files of an earlier cardrl)
                set_generator_states(actors, saved["agent_rngs"])
    evaluator = Evaluator(cfg, run_dir)
    pending_eval = False  # an evaluation due at the saved step that was not done
    if resume is not None:
        if "evals" in resume.trainer:  # rows after the saved state are done again
            evaluator.keep(int(resume.trainer["evals"]))
        pending_eval = bool(resume.trainer.get("eval_pending", False))
    writer = SummaryWriter(str(run_dir / "tb"))

    def save_policy(steps: int) -> Path:
        """policy.pt (as agents.policy.checkpoint.save_checkpoint writes it), whole or not
        at all: through a Python file, so that a full disk is an OSError (write_file)."""
        path = run_dir / "policy.pt"
        checkpoint = check_checkpoint(
            make_checkpoint(net, cfg.game, cfg.options, steps, algo="batch_ppo"),
            f"checkpoint to save as {str(path)!r}", versions=(CHECKPOINT_VERSION,))

        def write(tmp: Path) -> None:
            with tmp.open("wb") as f:
                torch.save(checkpoint, f)

        return write_file(path, write)

    def capture(eval_pending: bool = False) -> dict:
        """A copy of the whole training state (what the resume file holds); with
        ``eval_pending``, the evaluation due at this step is still to be done."""
        return {"steps": state["global_step"], "elapsed_s": state["elapsed_s"],
                "snapshots": list(state["snapshots"]),
                "trainer": {"iteration": state["iteration"],
                            "net": {k: v.detach().clone() for k, v in net.state_dict().items()},
                            "optimizer": copy.deepcopy(optimizer.state_dict()),
                            "rng": rng.bit_generator.state,
                            "pool_rng": pool.rng.bit_generator.state,
                            "torch_rng": torch.get_rng_state(),
                            "agent_rngs": generator_states(actors),
                            "evals": len(evaluator.rows), "eval_pending": bool(eval_pending),
                            **({} if anchor is None else {"anchor": anchor.state_dict()})}}

    def save_state() -> None:
        save_resume(state_path, cfg, **committed, inputs=inputs)

    eval_seconds = [0.0]  # evaluation time of this session (not counted as training)

    def run_eval() -> None:
        t_eval = time.time()
        row = evaluator.evaluate(save_policy(state["global_step"]), state["global_step"],
                                 state["elapsed_s"])
        eval_seconds[0] += time.time() - t_eval
        for key in ("points", "opponent_points", "diff", "diff_low", "diff_high"):
            writer.add_scalar(f"eval/{key}", row[key], state["global_step"])
        tqdm.write(eval_line(row))

    def start_from_net() -> None:
        """PPO starts from the net's weights now (the imitation, or the init checkpoint's):
        they are the anchor of ppo.anchor_coef and the first past self of the pool."""
        nonlocal anchor
        weights = net.state_dict()
        if p.anchor_coef > 0:
            anchor = frozen_copy(net, weights)
        if cfg.snapshot_interval > 0:
            snap = {k: v.detach().clone() for k, v in weights.items()}
            state["snapshots"] = [snap]
            pool.add_snapshot(frozen_act_fn(cfg, snap, D, A, delegate))

    def due(interval: int, before: int) -> bool:
        return interval > 0 and state["global_step"] // interval > before // interval

    # -- the loop --------------------------------------------------------------------------
    committed = capture(pending_eval)  # the state at the end of the last completed iteration
    bar = None
    elapsed_before = state["elapsed_s"]
    deadline = None if cfg.max_minutes is None else 60 * cfg.max_minutes
    try:
        evaluator.baselines()
        start = time.time()
        if pending_eval:  # the evaluation the interrupted session had due at this step
            run_eval()
            committed = capture()
        if cfg.distill is not None and state["global_step"] == 0:
            info = distill(net, cfg, progress, save_to=run_dir / "teacher.npz")
            if cfg.distill.record is not None:  # the recorded play counts as training time
                elapsed_before += info["generate_seconds"]
            state["global_step"] = info["train_decisions"]
            state["elapsed_s"] = elapsed_before + time.time() - start - eval_seconds[0]
            log_distill(writer, info, state["global_step"])
            tqdm.write(distill_line(info))
            start_from_net()
            committed = capture(eval_pending=True)
            save_state()
            run_eval()
            committed = capture()
        elif cfg.init is not None and state["global_step"] == 0:
            start_from_net()  # the init checkpoint's weights (build_trainer)
            run_eval()
            committed = capture()
        bar = BudgetBar(f"batch_ppo {cfg.game}", cfg.total_steps, cfg.max_minutes,
                        state["global_step"], state["elapsed_s"], disable=not progress)
        while state["global_step"] < cfg.total_steps:
            if deadline is not None and state["elapsed_s"] >= deadline:
                break
            t_iter = time.time()
            if p.anneal_lr:  # linear decay to 0 at total_steps (or max_minutes, if sooner)
                done = state["global_step"] / cfg.total_steps
                if deadline is not None:
                    done = max(done, state["elapsed_s"] / deadline)
                optimizer.param_groups[0]["lr"] = (1.0 - min(done, 1.0)) * p.learning_rate
            seed = int(rng.integers(2**62))
            buf, info = collect(engine, pool, net, state["iteration"], seed,
                                cfg.train_self_seats, cfg.reward_scale, delegate)
            t_collect = time.time() - t_iter
            adv, ret = buf.advantages(p.gamma, p.gae_lambda)
            losses = ppo_update(net, optimizer, buf, adv, ret, cfg, rng, anchor)
            before = state["global_step"]
            state["global_step"] += buf.n
            state["iteration"] += 1
            state["elapsed_s"] = elapsed_before + time.time() - start - eval_seconds[0]
            # -- logging ----------------------------------------------------------------------
            step = state["global_step"]
            sps = buf.n / (time.time() - t_iter)
            writer.add_scalar("charts/SPS", sps, step)
            writer.add_scalar("charts/collect_fraction", t_collect / (time.time() - t_iter), step)
            writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], step)
            writer.add_scalar("charts/learner_return", info["learner_return"], step)
            writer.add_scalar("charts/episode_steps", info["engine_steps"], step)
            for key, value in losses.items():
                writer.add_scalar(key, value, step)
            bar.update(step, state["elapsed_s"],
                       f"{sps:,.0f} steps/s, return {info['learner_return']:.2f}")
            # -- snapshots, checkpoints, evaluation -------------------------------------------
            if due(cfg.snapshot_interval, before):
                snap = {k: v.detach().clone() for k, v in net.state_dict().items()}
                state["snapshots"] = (state["snapshots"] + [snap])[-cfg.max_snapshots:]
                pool.add_snapshot(frozen_act_fn(cfg, snap, D, A, delegate))
            evaluate = due(cfg.eval.interval, before)
            committed = capture(eval_pending=evaluate)
            if due(cfg.checkpoint_interval, before):
                save_state()
            if evaluate:
                run_eval()
                committed = capture()
        bar.close()
        final = not evaluator.rows or evaluator.rows[-1]["steps"] != state["global_step"]
        committed = capture(eval_pending=final)
        save_state()
        if final:
            run_eval()
            committed = capture()
            save_state()
        else:
            save_policy(state["global_step"])
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        save_state()
        with restoring(state_path):
            net.load_state_dict(committed["trainer"]["net"])
        save_policy(committed["steps"])
        writer.close()
        raise Interrupted(state_path, committed["steps"]) from None
    writer.close()
    return {"steps": state["global_step"], "eval": evaluator.rows[-1],
            "seconds": state["elapsed_s"] - elapsed_before}
