"""Expert iteration (``algo: exit``): a search teaches the network, the network guides the
search, generation after generation (Anthony et al. 2017, "Thinking Fast and Slow").

One generation ``g`` of a run:

1. **Search.** The ``distill`` section's teacher (``pimc``) plays ``distill.deals`` new
   episodes in every seat and reports its value of every legal action
   (:func:`training.distill.generate`). With ``distill.teacher_kwargs.rollout: policy``
   its rollouts are played by the network of generation ``g - 1`` (generation 0: the
   ``init`` network, or the game's default rollout when the run starts from random
   weights), one forward pass over all worlds at each step.
2. **Labels and fit.** The network, continuing from generation ``g - 1``'s weights, is
   fitted to the records of the last ``exit.window`` generations
   (:func:`training.distill.fit`: the search's choices, its values by ``distill.targets:
   values``, or the fallback's choice where the search is not sure, ``distill.fallback``).
3. **Evaluation.** The network and the search (on ``exit.search_eval_deals`` deals) each
   play one seat against ``eval.opponent`` on the run's fixed duplicate deals
   (:func:`training.evaluate.score_candidate`).

The run folder::

    config.yaml            the resolved config
    policy.pt              the network of the last finished generation
    exit.csv               one row a generation: labels, their rate, the fit, both scores
                           with their 95% CIs, and the wall time of the run so far
    exit_curve.png         the network's and the search's score against wall time
    exit_state.json        the generations done and the time spent (for --resume)
    generations/gNNN/      teacher.npz (the generation's record; the same bytes for the
                           same seed, local or Ray) and policy.pt (its network)
    generations/gNNN/parts while a generation plays: its finished batches

A run killed at any point resumes (``--resume``) from the last finished batch of the
search, or from the last finished generation, and ends with the same records and the same
network as a run never stopped (same seed and ``torch_threads``): each generation's
episodes and search are seeded from ``(seed, g)``, the fit from the same, and a fit always
starts from the saved network of the generation before.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from training.config import TrainConfig

#: exit.csv's columns, in order
COLUMNS = ("generation", "labels", "label_seconds", "labels_per_second", "fit_seconds",
           "holdout_accuracy", "policy_points", "policy_diff", "policy_diff_low",
           "policy_diff_high", "search_diff", "search_diff_low", "search_diff_high",
           "search_eval_seconds", "wall_seconds")


def generation_seed(seed: int, generation: int) -> int:
    """The seed of generation ``generation``'s episodes, search and fit in a run seeded
    with ``seed``."""
    return int(np.random.SeedSequence([int(seed), 7_919, int(generation)]).generate_state(1)[0])


def generation_dir(run_dir: Path, generation: int) -> Path:
    """The folder of generation ``generation``'s record and network."""
    return Path(run_dir) / "generations" / f"g{generation:03d}"


def teacher_kwargs(cfg: TrainConfig, network: dict | None) -> dict:
    """The search's keyword arguments for a generation: the config's, with ``network``
    (a checkpoint dict) as the rollout policy when the config asks for ``rollout:
    policy``; without a network yet, the game's default rollout."""
    kwargs = dict(cfg.distill.teacher_kwargs)
    if kwargs.get("rollout") == "policy" and "path" not in kwargs:
        if network is None:
            del kwargs["rollout"]
        else:
            kwargs["checkpoint"] = network
    return kwargs


class ExitRun:
    """The state of an expert-iteration run in its folder: the network, the generations
    done, the rows of exit.csv (see the module doc)."""

    def __init__(self, cfg: TrainConfig, run_dir: Path):
        self.cfg = cfg
        self.run_dir = Path(run_dir)
        self.state_path = self.run_dir / "exit_state.json"
        self.csv = self.run_dir / "exit.csv"

    def load_state(self) -> dict:
        """``{"generations": done, "wall_seconds": time spent}`` (zeros for a new run)."""
        if not self.state_path.exists():
            return {"generations": 0, "wall_seconds": 0.0}
        try:
            state = json.loads(self.state_path.read_text())
            return {"generations": int(state["generations"]),
                    "wall_seconds": float(state["wall_seconds"])}
        except (ValueError, KeyError, TypeError, OSError) as error:
            raise ValueError(f"{self.state_path} cannot be read ({error}); expected the "
                             "exit_state.json of an earlier session of this run") from None

    def save_state(self, generations: int, wall_seconds: float) -> None:
        """Write exit_state.json atomically."""
        tmp = self.state_path.with_name(self.state_path.name + ".tmp")
        tmp.write_text(json.dumps({"generations": generations,
                                   "wall_seconds": round(wall_seconds, 3)}) + "\n")
        tmp.replace(self.state_path)

    def rows(self) -> list[dict]:
        """The rows of exit.csv so far."""
        if not self.csv.exists():
            return []
        import pandas as pd

        return pd.read_csv(self.csv).to_dict("records")

    def append(self, row: dict, generations_done: int) -> None:
        """Add ``row`` to exit.csv (rows of generations past ``generations_done`` — from a
        session killed after writing its row — are dropped first) and redraw the curve."""
        import pandas as pd

        rows = [r for r in self.rows() if int(r["generation"]) < generations_done] + [row]
        tmp = self.csv.with_name(self.csv.name + ".tmp")
        pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(tmp, index=False)
        tmp.replace(self.csv)
        plot_curve(rows, self.run_dir / "exit_curve.png", self.cfg)


def plot_curve(rows: list[dict], path: Path, cfg: TrainConfig) -> Path:
    """exit_curve.png: the network's and the search's points per deal over
    ``eval.opponent`` (95% CI bands) against the run's wall time, and the label rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    minutes = np.array([r["wall_seconds"] for r in rows], float) / 60
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4))
    for name, color in (("policy", "C0"), ("search", "C3")):
        diff = np.array([r[f"{name}_diff"] for r in rows], float)
        if np.isnan(diff).all():
            continue
        low = np.array([r[f"{name}_diff_low"] for r in rows], float)
        high = np.array([r[f"{name}_diff_high"] for r in rows], float)
        label = "network" if name == "policy" else f"search ({cfg.distill.teacher})"
        left.plot(minutes, diff, "o-", color=color, label=label)
        left.fill_between(minutes, low, high, color=color, alpha=0.2)
    left.axhline(0, ls="--", color="C1", label=f"{cfg.eval.opponent} (= 0)")
    left.set(xlabel="wall time of the run (minutes)",
             ylabel=f"points per episode over {cfg.eval.opponent}",
             title=f"expert iteration, {cfg.game}: one seat vs {cfg.eval.opponent}")
    left.legend(fontsize=8)
    right.plot([r["generation"] for r in rows], [r["labels_per_second"] for r in rows],
               "o-", color="C2")
    right.set(xlabel="generation", ylabel="labels per second", title="the search's labels")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def combined_record(run_dir: Path, generation: int, window: int):
    """The records of generations ``generation - window + 1 .. generation`` as one
    :class:`~training.distill.TeacherData` (episode numbers made distinct per generation,
    ``next`` rows offset, as :func:`training.distill.generate` joins its batches)."""
    from training.distill import TeacherData, concatenate_records

    records = []
    for g in range(max(0, generation - window + 1), generation + 1):
        data = TeacherData.load(generation_dir(run_dir, g) / "teacher.npz")
        records.append(replace(data, deals=data.deals + g * 1_000_000_000))
    return concatenate_records(records, sum(r.num_deals for r in records), 0.0)


def run_generation(cfg: TrainConfig, run_dir: Path, generation: int, net,
                   network: dict | None, progress: bool = True) -> dict:
    """Play, label, fit and evaluate generation ``generation`` (module doc); ``net`` is
    fitted in place and ``network`` is the checkpoint of the search's rollouts (None:
    none yet). Returns the exit.csv row without its wall time."""
    import torch

    from agents.policy.checkpoint import make_checkpoint, save_checkpoint
    from agents.policy.delegate import network_rows
    from training.distill import (
        fallback_actions,
        fit,
        generate,
        relabel,
        value_targets,
    )
    from training.evaluate import score_candidate

    d, x = cfg.distill, cfg.exit
    seed = generation_seed(cfg.seed, generation)
    folder = generation_dir(run_dir, generation)
    record_path = folder / "teacher.npz"
    kwargs = teacher_kwargs(cfg, network)
    t0 = time.time()
    if not record_path.exists():
        data = generate(cfg.game, cfg.options, d.deals, d.teacher, kwargs, d.num_games,
                        seed=seed, workers=d.workers, progress=progress, backend=x.backend,
                        parts_dir=folder / "parts")
        replace(data, seconds=0.0).save(record_path)  # timing lives in exit.csv
        shutil.rmtree(folder / "parts", ignore_errors=True)
    label_seconds = time.time() - t0
    labels = int(np.load(record_path)["actions"].shape[0])

    data = combined_record(run_dir, generation, x.window)
    soft = None if d.targets == "action" else value_targets(data, d.temperature)
    if d.fallback is not None:
        data = replace(data, actions=relabel(data, fallback_actions(cfg.game, d.fallback,
                                                                    data), d.margin))
    rows = None if cfg.ppo.delegate is None else network_rows(cfg.game, data.masks)
    t1 = time.time()
    torch.manual_seed(seed)
    measured = fit(net, data, d.epochs, d.learning_rate, d.minibatch_size, cfg.ppo.vf_coef,
                   cfg.ppo.gamma, cfg.reward_scale, d.holdout, rows, seed=seed,
                   progress=progress, soft_targets=soft)
    fit_seconds = time.time() - t1
    policy_path = save_checkpoint(make_checkpoint(net, cfg.game, cfg.options, labels,
                                                  algo="exit"), folder / "policy.pt")

    e = cfg.eval
    say(progress, f"generation {generation}: the network plays {e.deals} deals x every "
                  f"rotation against {e.opponent}")
    own = score_candidate(cfg.game, cfg.options, "policy", e.opponent, e.deals, e.seed,
                          e.workers, kwargs={"path": str(policy_path)})
    row = {"generation": generation, "labels": labels,
           "label_seconds": round(label_seconds, 1),
           "labels_per_second": round(labels / max(label_seconds, 1e-9), 1),
           "fit_seconds": round(fit_seconds, 1),
           "holdout_accuracy": measured["holdout_accuracy"],
           "policy_points": own["points"], "policy_diff": own["diff"],
           "policy_diff_low": own["diff_low"], "policy_diff_high": own["diff_high"],
           "search_diff": float("nan"), "search_diff_low": float("nan"),
           "search_diff_high": float("nan"), "search_eval_seconds": float("nan")}
    if x.search_eval_deals:
        search_kwargs = teacher_kwargs(cfg, None)
        if dict(cfg.distill.teacher_kwargs).get("rollout") == "policy":
            search_kwargs = {**dict(cfg.distill.teacher_kwargs), "path": str(policy_path)}
        say(progress, f"generation {generation}: the search plays {x.search_eval_deals} "
                      f"deals x every rotation against {e.opponent}")
        searched = score_candidate(cfg.game, cfg.options, d.teacher, e.opponent,
                                   x.search_eval_deals, e.seed, e.workers,
                                   kwargs=search_kwargs)
        row.update(search_diff=searched["diff"], search_diff_low=searched["diff_low"],
                   search_diff_high=searched["diff_high"],
                   search_eval_seconds=round(searched["seconds"], 1))
    return row


def check_exit_resume(cfg: TrainConfig, run_dir: Path) -> None:
    """``ValueError`` unless ``run_dir`` holds an expert-iteration run of ``cfg`` (its
    config.yaml equal to ``cfg`` but for the fields a resume may change)."""
    import yaml

    from training.resume import FREE_FIELDS, config_differences

    config_path = Path(run_dir) / "config.yaml"
    if not config_path.is_file():
        raise ValueError(f"cannot resume {run_dir}: it holds no run ({config_path} is "
                         "missing); start the run without --resume")
    try:
        saved = yaml.safe_load(config_path.read_text())
    except (yaml.YAMLError, OSError) as error:
        raise ValueError(f"cannot resume {run_dir}: {config_path} cannot be read "
                         f"({error})") from None
    saved, current = (_without_free_fields(c) for c in (saved, cfg.to_dict()))
    differences = config_differences(saved, current)
    if differences:
        free = ", ".join((*FREE_FIELDS, *(f"{s}.{f}" for s, f in EXIT_FREE_FIELDS)))
        raise ValueError(f"cannot resume {run_dir}: it was trained with another config "
                         f"({'; '.join(differences[:6])}); only {free} may change on a "
                         "resume")


#: (section, field) an expert-iteration resume may change besides training/resume.py's
#: FREE_FIELDS: how many generations, and where the search plays (not what it plays)
EXIT_FREE_FIELDS = (("exit", "generations"), ("exit", "backend"), ("distill", "workers"))


def _without_free_fields(config) -> dict:
    """A copy of a config mapping without :data:`EXIT_FREE_FIELDS` (not a mapping: {})."""
    if not isinstance(config, dict):
        return {}
    config = {k: dict(v) if isinstance(v, dict) else v for k, v in config.items()}
    for section, name in EXIT_FREE_FIELDS:
        if isinstance(config.get(section), dict):
            config[section].pop(name, None)
    return config


def say(progress: bool, line: str) -> None:
    """Print ``line`` above any progress bar, when progress is shown."""
    if progress:
        from tqdm import tqdm

        tqdm.write(line)


def train_exit(cfg: TrainConfig, run_dir: Path, resume: bool = False,
               progress: bool = True) -> dict:
    """Run (or, with ``resume``, continue) the expert iteration of ``cfg`` in ``run_dir``
    until ``exit.generations`` are done, ``total_steps`` labels are played or
    ``max_minutes`` have passed (checked after each generation). The caller has validated
    ``cfg`` and written ``run_dir/config.yaml``. Returns ``{"steps", "eval", "seconds"}``
    as the other trainers do (steps: labels; eval: the last generation's network score)."""
    import torch
    from tqdm import tqdm

    from agents.policy.checkpoint import load_checkpoint, make_checkpoint, save_checkpoint
    from envs.registry import make_engine
    from training.ppo_batch import build_network
    from training.resume import Interrupted

    run = ExitRun(cfg, run_dir)
    state = run.load_state() if resume else {"generations": 0, "wall_seconds": 0.0}
    if resume and state["generations"] == 0 and not (run_dir / "generations").exists():
        raise ValueError(f"{run_dir} holds no expert-iteration run to resume: start it "
                         "without --resume")
    done, spent = state["generations"], state["wall_seconds"]
    net = build_network(cfg, make_engine(cfg.game, 1, **cfg.options))
    network = None
    if done > 0:
        saved = load_checkpoint(generation_dir(run_dir, done - 1) / "policy.pt")
        net.load_state_dict(saved["state_dict"])
        network = saved
    elif cfg.init is not None:
        network = make_checkpoint(net, cfg.game, cfg.options, algo="exit")
    labels = sum(int(r["labels"]) for r in run.rows() if int(r["generation"]) < done)
    start = time.time()
    row: dict = {}
    x = cfg.exit
    budget = None if cfg.max_minutes is None else cfg.max_minutes * 60
    try:
        for generation in range(done, x.generations):
            if (budget is not None and spent + time.time() - start >= budget) or \
                    labels >= cfg.total_steps:
                break
            torch.set_num_threads(max(1, cfg.torch_threads))
            row = run_generation(cfg, run_dir, generation, net, network, progress)
            labels += row["labels"]
            row["wall_seconds"] = round(spent + time.time() - start, 1)
            network = make_checkpoint(net, cfg.game, cfg.options, labels, algo="exit")
            save_checkpoint(network, run_dir / "policy.pt")
            run.append(row, generation)
            run.save_state(generation + 1, spent + time.time() - start)
            tqdm.write(generation_line(row))
    except KeyboardInterrupt:
        now = run.load_state()
        run.save_state(now["generations"], spent + time.time() - start)
        raise Interrupted(run.state_path, labels) from None
    if not row:
        rows = run.rows()
        row = rows[-1] if rows else {}
    return {"steps": labels, "eval": {**_eval_view(row), "steps": labels},
            "seconds": time.time() - start}


def generation_line(row: dict) -> str:
    """One line on a finished generation."""
    search = ("" if np.isnan(row["search_diff"]) else
              f"; search {row['search_diff']:+.2f} [{row['search_diff_low']:+.2f}, "
              f"{row['search_diff_high']:+.2f}]")
    return (f"generation {row['generation']}: {row['labels']:,} labels at "
            f"{row['labels_per_second']:.0f}/s, fit {row['fit_seconds']:.0f} s; network "
            f"{row['policy_diff']:+.2f} [{row['policy_diff_low']:+.2f}, "
            f"{row['policy_diff_high']:+.2f}]{search} (wall {row['wall_seconds'] / 60:.1f} min)")


def _eval_view(row: dict) -> dict:
    """An exit.csv row as the evaluation row :func:`training.evaluate.eval_line` prints."""
    if not row:
        nan = float("nan")
        return {"steps": 0, "points": nan, "opponent_points": nan, "diff": nan,
                "diff_low": nan, "diff_high": nan}
    return {"steps": int(row["labels"]), "points": row["policy_points"],
            "opponent_points": row["policy_points"] - row["policy_diff"],
            "diff": row["policy_diff"], "diff_low": row["policy_diff_low"],
            "diff_high": row["policy_diff_high"]}
