"""Distillation: a policy network learns to imitate a teacher agent, e.g. the PIMC search.

The first step of expert iteration (ExIt, AlphaZero-style training): a strong but slow
agent — the search of :mod:`agents.search.pimc` — plays, and a network is fitted to its
decisions by supervised learning, so that PPO self-play (:mod:`training.ppo_batch`) then
starts from a player that already plays every decision well instead of from random
weights. Three pieces:

- :func:`generate` plays ``deals`` episodes of a game with the teacher in every seat, in
  one batch engine at a time (searching agents get the engine, through
  :func:`agents.base.act_grouped`), and records every decision: the acting seat's
  observation, its legal-action mask, the teacher's action, and the reward that decision
  leads to (:class:`TeacherData`).
- :func:`fit` trains a :class:`~agents.policy.net.PolicyNet` on that record: masked
  cross-entropy on the teacher's action (the actor) plus the squared error of the value
  head against the decision's return, scaled and discounted as PPO's returns are
  (``reward_scale``, ``gamma``), so the critic starts calibrated too. Decisions of some
  deals are held out to measure the accuracy of the imitation.
- :func:`distill` is what the trainer calls before its first PPO iteration when a config
  has a ``distill:`` section (:class:`training.config.DistillConfig`).

Sizes, from measurements on Abracadabra ``four``: the network needs hundreds of
thousands of decisions (a few thousand deals) to imitate even the deterministic heuristic
well, and a few epochs over a small record over-fit it, hence the early stopping in
:func:`fit`.

The record holds the raw observations; the network's input (``ppo.features``, a suit
symmetry) is computed from them when fitting (:meth:`PolicyNet.encode`), so one record
serves networks of any input.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from envs.core import random_keys
from envs.registry import make_engine
from training.config import TrainConfig


def save_npz(path: str | Path, arrays: dict[str, np.ndarray]) -> Path:
    """Write ``arrays`` to the ``.npz`` file ``path`` (``np.load`` reads it) through a
    ``.tmp`` file replaced at the end, so a kill leaves either the old file or the new one.
    Unlike ``np.savez`` the zip entries carry a fixed date, so the same arrays give the
    same bytes (records compared across runs and backends); they are deflated (a
    teacher's record of int8 observations shrinks about 20 times)."""
    import zipfile

    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
            for name, array in arrays.items():
                entry = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                entry.compress_type = zipfile.ZIP_DEFLATED  # a ZipInfo's own default: stored
                with archive.open(entry, "w", force_zip64=True) as out:
                    np.lib.format.write_array(out, np.asanyarray(array), allow_pickle=False)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


@dataclass
class TeacherData:
    """The teacher's decisions of :func:`generate`, one row each, grouped by engine step
    (a decision's seat's next decision is always in a later row)."""

    observations: np.ndarray
    """[N, D]: the acting seat's observation (seat-relative); int8 where the engine has an
    integer observation (times ``scale`` it is the float32 one), else float32."""
    scale: np.ndarray | None
    """float32 [D]: the scale of the int8 ``observations`` (None: they are float32)."""
    masks: np.ndarray
    """bool [N, A]: the legal actions at the decision (the engine's mask)."""
    actions: np.ndarray
    """int64 [N]: the teacher's action (a legal one)."""
    seats: np.ndarray
    """int64 [N]: the acting seat."""
    deals: np.ndarray
    """int64 [N]: the episode (0 .. num_deals - 1) the decision belongs to."""
    rewards: np.ndarray
    """float32 [N]: the game reward (the configured ``reward``) the seat earned from this
    decision up to its next decision, or to the episode's end for its last one (how PPO
    credits a decision, :mod:`training.ppo_batch`)."""
    next: np.ndarray
    """int64 [N]: the row of the same seat's next decision in the episode (-1: none)."""
    keys: np.ndarray
    """uint64 [num_deals]: the key each episode was dealt from (``engine.reset(game_seeds=
    ...)`` deals it again)."""
    num_deals: int
    """Episodes played."""
    seconds: float
    """Wall time the generation took."""
    values: np.ndarray | None = None
    """float32 [N, A]: the teacher's value of every action at the decision (NaN:
    illegal), for a teacher that reports them (a search: :meth:`PIMCAgent.search
    <agents.search.pimc.PIMCAgent.search>`); None: it reports none."""

    def __len__(self) -> int:
        return len(self.actions)

    def float_observations(self, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """float32 [n, D]: the observations of ``rows`` as the engine's float32 ones."""
        obs = self.observations[rows]
        if self.scale is None:
            return np.asarray(obs, dtype=np.float32)
        return obs.astype(np.float32) * self.scale

    def returns(self, gamma: float = 1.0, reward_scale: float = 1.0) -> np.ndarray:
        """float32 [N]: each decision's return, ``reward_scale`` times the discounted sum
        of its seat's rewards from it to the episode's end, discounted by ``gamma`` per
        later decision of that seat: the targets of PPO's value head (gamma 1 and the
        ``points`` reward: the seat's points of the deal, scaled)."""
        out = self.rewards.astype(np.float64) * reward_scale
        later = np.flatnonzero(self.next >= 0)
        # rows are in play order and next[i] > i: one backward pass adds each discounted tail
        for i in later[::-1]:
            out[i] += gamma * out[self.next[i]]
        return out.astype(np.float32)

    def save(self, path: str | Path) -> None:
        """Write the record to ``path`` (a deflated ``.npz``; :meth:`load` reads it),
        atomically and byte for byte the same for the same record (:func:`save_npz`)."""
        arrays = {f.name: getattr(self, f.name) for f in fields(self)}
        save_npz(path, {k: np.asarray(v) for k, v in arrays.items() if v is not None})

    @classmethod
    def load(cls, path: str | Path) -> TeacherData:
        """The record :meth:`save` wrote to ``path``."""
        with np.load(path) as stored:
            found = {k: stored[k] for k in stored.files}
        for name in ("num_deals", "seconds"):
            found[name] = found[name].item()
        return cls(**{"scale": None, "values": None, **found})

    def choice_rows(self) -> np.ndarray:
        """bool [N]: the decisions with more than one legal action (the others teach
        nothing to the actor)."""
        return self.masks.sum(axis=1) > 1


def make_teacher(game: str, teacher: str, kwargs: dict | None = None, seed: int | None = None):
    """The teacher agent: a registered agent of ``game`` or ``policy:PATH``, built with
    ``kwargs`` (e.g. ``{"worlds": 8}`` for ``pimc``) and ``seed``."""
    from agents.registry import make_from_spec

    return make_from_spec(teacher, game, **{"seed": seed, **(kwargs or {})})


def generate(game: str, options: dict, deals: int, teacher: str = "pimc",
             teacher_kwargs: dict | None = None, num_games: int = 256, seed: int = 0,
             workers: int = 1, progress: bool = True, backend: str = "local",
             parts_dir: str | Path | None = None) -> TeacherData:
    """Play ``deals`` episodes of ``game`` (config ``options``) with the teacher in every
    seat and record each decision (:class:`TeacherData`).

    The episodes are played in batches of ``num_games``, each in one batch engine; at each
    engine step every live game's decision is made by one teacher call (``act_engine`` over
    the whole batch for a searching agent). Episode ``i`` is dealt from the ``i``-th key
    drawn from ``seed`` and batch ``k``'s teacher is seeded from ``(seed, k)``, so the same
    arguments give the same record whatever ``workers`` (processes playing batches side by
    side, or Ray tasks). ``progress`` shows a bar over the episodes.

    ``backend``: ``"local"`` (``workers`` processes) or ``"ray"`` (each batch a Ray task
    on the cluster of ``RAY_ADDRESS``, or a local Ray; :mod:`arena.tournament.backends.ray`
    says how to set one up): the same record either way. ``parts_dir``: each finished
    batch is saved there (``part_00000.npz`` ...) and batches already there are read
    instead of played, so a generation killed midway resumes where it stopped and ends
    with the same record."""
    from tqdm import tqdm

    for name, value in (("deals", deals), ("num_games", num_games), ("workers", workers)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name}={value!r}: expected an integer >= 1")
    deals, num_games, workers = int(deals), int(num_games), int(workers)
    make_teacher(game, teacher, teacher_kwargs)  # a bad teacher fails here, not in a worker
    keys = random_keys(np.random.default_rng([seed, 0]), deals)
    firsts = list(range(0, deals, num_games))
    jobs = [(game, dict(options), keys[first:first + num_games], first, teacher,
             dict(teacher_kwargs or {}), _batch_seed(seed, k)) for k, first in enumerate(firsts)]
    t0 = time.time()
    bar = tqdm(total=deals, desc=f"teacher {teacher} plays {game}", unit="deal",
               disable=not progress)
    decisions = [0]

    def advance(finished: int, rows: int) -> None:
        decisions[0] += rows
        bar.update(finished)
        bar.set_postfix_str(f"{decisions[0]:,} decisions, "
                            f"{decisions[0] / max(time.time() - t0, 1e-9):.0f}/s", refresh=False)

    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r}: expected one of {BACKENDS}")
    parts: list[TeacherData | None] = [None] * len(jobs)
    store = None if parts_dir is None else Path(parts_dir)
    if store is not None:
        store.mkdir(parents=True, exist_ok=True)
        for k, job in enumerate(jobs):
            parts[k] = _read_part(store, k, job)
            if parts[k] is not None:
                bar.update(len(job[2]))
    todo = [k for k in range(len(jobs)) if parts[k] is None]
    in_process = backend == "local" and (workers == 1 or len(todo) <= 1)

    def finished(k: int, part: TeacherData) -> None:
        parts[k] = part
        if store is not None:
            part.save(store / f"part_{k:05d}.npz")
        if not in_process:  # an in-process batch advances the bar step by step
            advance(len(jobs[k][2]), len(part))

    if backend == "ray":
        for k, part in _play_batches_ray(jobs, todo):
            finished(k, part)
    elif in_process:
        for k in todo:
            finished(k, _play_batch(*jobs[k], advance=advance))
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        # spawn: a forked child of a process that runs torch can hang in its thread pools
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(min(workers, len(todo)), mp_context=context,
                                 initializer=_one_thread) as pool:
            futures = {pool.submit(_play_batch, *jobs[k]): k for k in todo}
            for future in as_completed(futures):
                finished(futures[future], future.result())
    bar.close()
    return concatenate_records(parts, deals, time.time() - t0)


def _one_thread() -> None:
    """A worker process's set-up: one torch thread (the workers share the cores; a
    network teacher or rollout would otherwise start a thread per core in each)."""
    import torch

    torch.set_num_threads(1)


#: where :func:`generate` plays the teacher's batches
BACKENDS = ("local", "ray")


def _read_part(store: Path, k: int, job: tuple) -> TeacherData | None:
    """The saved batch ``k`` of a generation (None: not there yet). A part that does not
    hold the job's episodes (another seed or size) is a ``ValueError``: the folder
    belongs to another generation."""
    path = store / f"part_{k:05d}.npz"
    if not path.exists():
        return None
    try:
        part = TeacherData.load(path)
    except (OSError, ValueError, KeyError) as error:
        raise ValueError(f"{path} cannot be read ({error}); delete it to play that batch "
                         "again") from None
    if not np.array_equal(part.keys, job[2]):
        raise ValueError(f"{path} holds other episodes than batch {k} of this generation; "
                         f"expected the parts of the same seed and deals: empty {store}")
    return part


def _play_batches_ray(jobs: list[tuple], todo: list[int]):
    """Yield ``(k, record)`` as each batch ``k`` of ``todo`` finishes as a Ray task."""
    import os

    from arena.tournament.backends.ray import _ray

    ray = _ray()
    if not todo:
        return
    if not ray.is_initialized():
        ray.init(address=os.environ.get("RAY_ADDRESS"), log_to_driver=False)
    task = ray.remote(num_cpus=1)(_play_batch)
    pending = {task.remote(*jobs[k]): k for k in todo}
    while pending:
        done, _ = ray.wait(list(pending), num_returns=1)
        yield pending.pop(done[0]), ray.get(done[0])


def _batch_seed(seed: int, batch: int) -> int:
    """The teacher's seed for batch ``batch`` of a generation seeded with ``seed``."""
    return int(np.random.SeedSequence([int(seed), int(batch)]).generate_state(1)[0])


def _play_batch(game: str, options: dict, keys: np.ndarray, first: int, teacher: str,
                teacher_kwargs: dict, teacher_seed: int, advance=None) -> TeacherData:
    """One batch of :func:`generate`: the episodes dealt from ``keys`` (episode numbers
    from ``first``) played by a teacher seeded with ``teacher_seed``; ``next`` counts rows
    of this batch. ``advance(finished episodes, new rows)`` is called after each step."""
    from agents.base import act_grouped

    t0 = time.time()
    agent = make_teacher(game, teacher, teacher_kwargs, teacher_seed)
    count = len(keys)
    engine = make_engine(game, count, **options)
    engine.reset(game_seeds=keys)
    scale = _int8_scale(engine)
    parts: dict[str, list] = {name: [] for name in ("obs", "masks", "actions", "seats",
                                                    "deals", "values")}
    reports_values = agent.reports_values  # a search: its action values are recorded
    reward_rows, reward_values = [], []  # rewards credited to earlier rows, added at the end
    next_from, next_to = [], []  # (row, the same seat's next row) pairs
    last = np.full((count, engine.num_players), -1, dtype=np.int64)  # each seat's latest row
    who = np.zeros(count, dtype=np.int64)  # the teacher plays every seat
    n = 0
    while not engine.game_over.all():
        current = engine.current_player.astype(np.int64)
        live = current >= 0
        stored = engine.observe() if scale is None else engine.observe(dtype=np.int8)
        masks = engine.legal_action_mask()
        g = np.flatnonzero(live)
        if reports_values:  # the teacher plays every seat: one search over the live games
            actions = np.zeros(count, dtype=np.int64)
            actions[g], values = agent.search(engine, g)
            parts["values"].append(values)
        else:
            obs = stored if scale is None else stored.astype(np.float32) * scale
            actions = act_grouped([agent], who, obs, masks, active=live, engine=engine)
        legal = masks[g, actions[g]]
        if not legal.all():
            bad = g[~legal][0]
            raise ValueError(f"teacher {teacher!r} chose the illegal action "
                             f"{int(actions[bad])} in episode {first + int(bad)}")
        rows = n + np.arange(len(g))
        parts["obs"].append(stored[g])
        parts["masks"].append(masks[g])
        parts["actions"].append(actions[g])
        parts["seats"].append(current[g])
        parts["deals"].append(first + g)
        previous = last[g, current[g]]
        next_from.append(previous[previous >= 0])
        next_to.append(rows[previous >= 0])
        last[g, current[g]] = rows
        n += len(g)
        rewards = engine.step(actions, active=live)
        credited = (last >= 0) & (rewards != 0)  # no owner before a seat's first decision
        reward_rows.append(last[credited])
        reward_values.append(rewards[credited])
        if advance is not None:
            advance(int((engine.game_over & live).sum()), len(g))
    rewards = np.zeros(n, dtype=np.float64)
    np.add.at(rewards, np.concatenate(reward_rows), np.concatenate(reward_values))
    nxt = np.full(n, -1, dtype=np.int64)
    nxt[np.concatenate(next_from)] = np.concatenate(next_to)
    return TeacherData(
        observations=np.concatenate(parts["obs"]), scale=scale,
        masks=np.concatenate(parts["masks"]).astype(bool),
        actions=np.concatenate(parts["actions"]).astype(np.int64),
        seats=np.concatenate(parts["seats"]).astype(np.int64),
        deals=np.concatenate(parts["deals"]).astype(np.int64),
        rewards=rewards.astype(np.float32), next=nxt, keys=np.asarray(keys, np.uint64),
        num_deals=count, seconds=time.time() - t0,
        values=np.concatenate(parts["values"]) if reports_values else None)


def concatenate_records(parts: list[TeacherData], num_deals: int, seconds: float) -> TeacherData:
    """The batches of :func:`generate` as one record (``next`` rows offset)."""
    offsets = np.cumsum([0] + [len(p) for p in parts[:-1]])
    nxt = np.concatenate([np.where(p.next >= 0, p.next + offset, -1)
                          for p, offset in zip(parts, offsets, strict=True)])
    return TeacherData(
        observations=np.concatenate([p.observations for p in parts]), scale=parts[0].scale,
        masks=np.concatenate([p.masks for p in parts]),
        actions=np.concatenate([p.actions for p in parts]),
        seats=np.concatenate([p.seats for p in parts]),
        deals=np.concatenate([p.deals for p in parts]),
        rewards=np.concatenate([p.rewards for p in parts]), next=nxt,
        keys=np.concatenate([p.keys for p in parts]), num_deals=num_deals, seconds=seconds,
        values=None if parts[0].values is None else np.concatenate([p.values for p in parts]))


def relabel(data: TeacherData, fallback: np.ndarray, margin: float) -> np.ndarray:
    """int64 [N]: the teacher's action where its value beats the value of ``fallback``
    (another agent's choices at the same decisions, :func:`fallback_actions`) by more than
    ``margin``, else the fallback's: the network learns the fallback's play and only the
    departures the search is sure of. A search's choice differs from a good heuristic's in
    many positions where their values are within the noise of a few sampled worlds;
    imitating those departures costs more than they gain (docs/training.md, the PIMC
    imitation runs)."""
    if data.values is None:
        raise ValueError("the teacher reported no action values (only a search does, e.g. "
                         "pimc): a fallback with a margin needs them")
    if not (isinstance(margin, (int, float)) and margin >= 0):
        raise ValueError(f"margin={margin!r}: expected a number >= 0 (in the teacher's "
                         "value units: points)")
    fallback = np.asarray(fallback, dtype=np.int64)
    rows = np.arange(len(data))
    if not data.masks[rows, fallback].all():
        raise ValueError("a fallback action is not legal in its recorded mask")
    gain = data.values[rows, data.actions] - data.values[rows, fallback]
    return np.where(gain > margin, data.actions, fallback)


def value_targets(data: TeacherData, temperature: float) -> np.ndarray:
    """float32 [N, A]: at each decision a distribution over its legal actions from the
    teacher's action values, ``softmax(values / temperature)`` (0 for the illegal ones;
    a decision with one legal action puts all on it). What the network imitates with
    ``distill.targets: values``: where a search's values of two options are within its
    noise, the network learns that they are near-equal instead of the one the sampled
    worlds happened to favour. ``temperature`` is in the values' units (points)."""
    if data.values is None:
        raise ValueError("the teacher reported no action values (only a search does, e.g. "
                         "pimc): distill.targets: values needs them")
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
            or not temperature > 0:
        raise ValueError(f"temperature={temperature!r}: expected a number > 0 (in the "
                         "teacher's value units: points)")
    values = np.where(data.masks, data.values, -np.inf).astype(np.float64)
    if np.isnan(values).any():
        raise ValueError("a legal action has no teacher value (NaN) in the record")
    z = (values - values.max(axis=1, keepdims=True)) / temperature
    weights = np.exp(z)  # 0 where illegal
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def fallback_actions(game: str, fallback: str, data: TeacherData,
                     chunk: int = 65_536) -> np.ndarray:
    """int64 [N]: the choice of agent ``fallback`` (one that acts on observations) at
    every decision of ``data``, in chunks of ``chunk`` decisions."""
    agent = make_teacher(game, fallback, seed=0)
    out = np.empty(len(data), dtype=np.int64)
    for start in range(0, len(data), chunk):
        part = slice(start, start + chunk)
        out[part] = agent.act_batch(data.float_observations(part), data.masks[part])
    return out


def _int8_scale(engine) -> np.ndarray | None:
    """The engine's int8 observation scale, or None where it has no int8 observation."""
    try:
        engine.observe(dtype=np.int8)
    except ValueError:
        return None
    return np.asarray(engine.observation_scale, dtype=np.float32)


# -- fitting -------------------------------------------------------------------------------
def fit(net, data: TeacherData, epochs: int = 10, learning_rate: float = 1e-3,
        minibatch_size: int = 512, vf_coef: float = 0.5, gamma: float = 1.0,
        reward_scale: float = 0.05, holdout: float = 0.1, rows: np.ndarray | None = None,
        seed: int = 0, progress: bool = False, soft_targets: np.ndarray | None = None
        ) -> dict:
    """Fit ``net`` (a :class:`~agents.policy.net.PolicyNet`, in place) to the teacher's
    decisions in ``data``: ``epochs`` passes of Adam (``learning_rate``) over minibatches of
    ``minibatch_size`` decisions, minimising the masked cross-entropy of the teacher's
    action plus ``vf_coef`` times half the squared error of the value head against
    :meth:`TeacherData.returns` (``gamma``, ``reward_scale``: PPO's value targets).

    ``rows`` (bool [N] or indices; None: all) selects the decisions to learn from (a
    network with a delegate: only its own). ``soft_targets`` (float32 [N, A], rows summing
    to 1 over legal actions, e.g. :func:`value_targets`): the cross-entropy is taken
    against them instead of the teacher's action (the accuracy still counts the teacher's
    action). The decisions of a ``holdout`` fraction of the
    episodes (drawn from ``seed``; at least one episode is kept for training) are not
    trained on but measured after each epoch, and the net keeps the weights of the epoch
    where they were imitated best (early stopping: a noisy teacher's few decisions are
    over-fitted within a few epochs); without held-out decisions, those of the last epoch.
    Returns ``{"decisions", "train_decisions", "holdout_decisions", "epochs":
    [{"policy_loss", "value_loss", "holdout_accuracy"}, ...], "best_epoch" (1-based),
    "train_accuracy", "holdout_accuracy", "holdout_policy_loss", "holdout_value_loss"}``
    (the last four of the weights kept): accuracies are the share of decisions with a
    choice (more than one legal action) where the network's most likely action is the
    teacher's (NaN without such decisions); losses are means per decision."""
    import torch
    from tqdm import tqdm

    for name, value in (("epochs", epochs), ("minibatch_size", minibatch_size)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name}={value!r}: expected an integer >= 1")
    if not 0 <= holdout < 1:
        raise ValueError(f"holdout={holdout!r}: expected a fraction in [0, 1)")
    if rows is None:
        rows = np.arange(len(data))
    rows = np.asarray(rows)
    if rows.dtype == bool:
        rows = np.flatnonzero(rows)
    if len(rows) == 0:
        raise ValueError("no decision to fit: the data (or its rows) is empty")
    rng = np.random.default_rng(seed)
    returns = data.returns(gamma, reward_scale)[rows]
    episodes = np.unique(data.deals[rows])
    held_out = rng.choice(episodes, min(int(holdout * len(episodes)), len(episodes) - 1),
                          replace=False)
    test = np.isin(data.deals[rows], held_out)
    x, masks, targets, soft = _network_examples(net, data, rows, soft_targets)
    choice = masks.sum(axis=1) > 1
    tensors = [torch.as_tensor(a) for a in (x, masks, targets, returns)]
    # what the cross-entropy of training is taken against: the actions, or soft targets
    learned = tensors[2] if soft is None else torch.as_tensor(soft)
    train_rows, test_rows = np.flatnonzero(~test), np.flatnonzero(test)
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate)
    history = []
    best = (-1.0, 0, None)  # (held-out accuracy, epoch, weights) of the best epoch so far
    bar = tqdm(total=int(epochs), desc="distill: fitting", unit="epoch", disable=not progress)
    for _ in range(int(epochs)):
        order = rng.permutation(train_rows)
        policy_sum = value_sum = 0.0
        for start in range(0, len(order), int(minibatch_size)):
            mb = torch.as_tensor(order[start:start + int(minibatch_size)])
            logits, value = net(tensors[0][mb], tensors[1][mb])
            policy_loss = torch.nn.functional.cross_entropy(logits, learned[mb])
            value_loss = 0.5 * ((value - tensors[3][mb]) ** 2).mean()
            loss = policy_loss + vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            policy_sum += policy_loss.item() * len(mb)
            value_sum += value_loss.item() * len(mb)
        measured = _measure(net, tensors, test_rows, choice)
        history.append({"policy_loss": policy_sum / len(order),
                        "value_loss": value_sum / len(order),
                        "holdout_accuracy": measured["accuracy"]})
        if measured["accuracy"] > best[0]:  # NaN (nothing held out) never is
            best = (measured["accuracy"], len(history),
                    {k: v.detach().clone() for k, v in net.state_dict().items()})
        bar.update(1)
        bar.set_postfix_str(f"loss {history[-1]['policy_loss']:.3f}, held-out accuracy "
                            f"{measured['accuracy']:.3f}", refresh=False)
    bar.close()
    if best[2] is not None:
        net.load_state_dict(best[2])
    train = _measure(net, tensors, train_rows, choice)
    test_measure = _measure(net, tensors, test_rows, choice)
    return {"decisions": len(rows), "train_decisions": len(train_rows),
            "holdout_decisions": len(test_rows), "epochs": history,
            "best_epoch": best[1] if best[2] is not None else len(history),
            "train_accuracy": train["accuracy"], "holdout_accuracy": test_measure["accuracy"],
            "holdout_policy_loss": test_measure["policy_loss"],
            "holdout_value_loss": test_measure["value_loss"]}


def _network_examples(net, data: TeacherData, rows: np.ndarray,
                      soft_targets: np.ndarray | None = None):
    """(network input float32 [n, input_size], masks bool [n, A], the teacher's actions
    int64 [n] and ``soft_targets`` of ``rows`` (float32 [n, A], None without), all in the
    network's action order) of the decisions ``rows``."""
    x, masks, action_map = net.encode(data.float_observations(rows), data.masks[rows])
    actions = data.actions[rows]
    soft = None if soft_targets is None else np.asarray(soft_targets, np.float32)[rows]
    if action_map is not None:  # a suit symmetry: the network's action naming the game's
        actions = (action_map == actions[:, None]).argmax(axis=1)
        if soft is not None:
            soft = np.take_along_axis(soft, action_map, axis=1)
    if not masks[np.arange(len(actions)), actions].all():
        raise ValueError("a teacher action is not legal in its recorded mask")
    if soft is not None and (soft[~masks] != 0).any():
        raise ValueError("soft targets put weight on an action illegal in its mask")
    return np.ascontiguousarray(x, dtype=np.float32), masks, actions.astype(np.int64), soft


def _measure(net, tensors, rows: np.ndarray, choice: np.ndarray,
             chunk: int = 65_536) -> dict:
    """The mean losses on ``rows`` and the accuracy on those with a ``choice``."""
    import torch

    nan = float("nan")
    if len(rows) == 0:
        return {"accuracy": nan, "policy_loss": nan, "value_loss": nan}
    policy = value = 0.0
    hits = choices = 0
    with torch.no_grad():
        for start in range(0, len(rows), chunk):
            part = rows[start:start + chunk]
            index = torch.as_tensor(part)
            logits, values = net(tensors[0][index], tensors[1][index])
            targets = tensors[2][index]
            policy += torch.nn.functional.cross_entropy(logits, targets,
                                                        reduction="sum").item()
            value += (0.5 * (values - tensors[3][index]) ** 2).sum().item()
            has_choice = torch.as_tensor(choice[part])
            hits += ((logits.argmax(dim=1) == targets) & has_choice).sum().item()
            choices += int(has_choice.sum())
    return {"accuracy": hits / choices if choices else nan, "policy_loss": policy / len(rows),
            "value_loss": value / len(rows)}


# -- the trainer's distillation stage ------------------------------------------------------
def load_record(cfg: TrainConfig, path: str | Path) -> TeacherData:
    """The teacher record at ``path`` (:meth:`TeacherData.save`), checked against ``cfg``:
    the episodes of ``distill.deals`` dealt from ``cfg.seed`` (the keys :func:`generate`
    draws), and the observation and action sizes of the config's game (a record of
    another environment version has other observations). ``ValueError`` naming the
    difference otherwise. The teacher and its arguments are not in the record: a record
    of another teacher of the same episodes passes."""
    d = cfg.distill
    data = TeacherData.load(path)
    engine = make_engine(cfg.game, 1, **cfg.options)
    problem = None
    if data.num_deals != d.deals:
        problem = f"{data.num_deals} episodes, the config's distill.deals is {d.deals}"
    elif not np.array_equal(data.keys, random_keys(np.random.default_rng([cfg.seed, 0]),
                                                   d.deals)):
        problem = f"its episodes were not dealt from the config's seed {cfg.seed}"
    elif data.observations.shape[1] != engine.observation_size:
        problem = (f"observations of {data.observations.shape[1]} columns, the game's have "
                   f"{engine.observation_size} (another environment version?)")
    elif data.masks.shape[1] != engine.num_actions:
        problem = f"{data.masks.shape[1]} actions, the game has {engine.num_actions}"
    if problem is not None:
        raise ValueError(f"distill.record {str(path)!r} does not hold this config's teacher "
                         f"episodes: {problem}; remove distill.record to play them again")
    return data


def distill(net, cfg: TrainConfig, progress: bool = True,
            save_to: str | Path | None = None) -> dict:
    """The ``distill:`` stage of a training run (:class:`training.config.DistillConfig`):
    the teacher plays ``distill.deals`` episodes of the config's game (:func:`generate`,
    seeded with ``cfg.seed``; or ``distill.record`` holds them, :func:`load_record`) and
    ``net`` is fitted to its decisions (:func:`fit`, with PPO's ``vf_coef``, ``gamma``
    and ``reward_scale``), only to the decisions the network makes where it has a
    delegate (:mod:`agents.policy.delegate`). With a ``fallback`` the labels are
    :func:`relabel`'s; with ``targets: values`` the network imitates
    :func:`value_targets` instead of the teacher's choices. ``save_to``: where the
    teacher's record is written (:meth:`TeacherData.save`; not with None or a
    ``record``). Returns :func:`fit`'s measures with ``generate_seconds`` (a
    ``record``'s own), ``fit_seconds``, ``deals`` and ``relabelled`` (decisions whose
    label is the fallback's instead of the teacher's)."""
    from agents.policy.delegate import network_rows

    d = cfg.distill
    if d is None:
        raise ValueError("the config has no distill section: nothing to distil")
    if d.record is not None:
        data = load_record(cfg, d.record)
    else:
        data = generate(cfg.game, cfg.options, d.deals, d.teacher, d.teacher_kwargs,
                        d.num_games, seed=cfg.seed, workers=d.workers, progress=progress)
        if save_to is not None:
            data.save(save_to)
    changed = 0
    soft = None if d.targets == "action" else value_targets(data, d.temperature)
    if d.fallback is not None:
        labels = relabel(data, fallback_actions(cfg.game, d.fallback, data), d.margin)
        changed = int((labels != data.actions).sum())
        data = replace(data, actions=labels)
    rows = None if cfg.ppo.delegate is None else network_rows(cfg.game, data.masks)
    t0 = time.time()
    result = fit(net, data, d.epochs, d.learning_rate, d.minibatch_size, cfg.ppo.vf_coef,
                 cfg.ppo.gamma, cfg.reward_scale, d.holdout, rows, seed=cfg.seed,
                 progress=progress, soft_targets=soft)
    return {**result, "deals": data.num_deals, "generate_seconds": data.seconds,
            "fit_seconds": time.time() - t0, "relabelled": changed}
