"""Resume files: what ``cardrl train --resume`` continues a run from, read without running code.

A run folder's resume file (:data:`RESUME_FILES`: ``train_state.pt`` for batch_ppo,
``sb3_state.pt`` for sb3) is one ``torch.save`` archive of tensors and plain values (str,
int, float, bool, None, lists, tuples, dicts), read with ``torch.load(weights_only=True)``:
a file whose pickle names any other object (a class, a function such as ``open``) is
refused before anything in it runs. It is written atomically (a temporary file, then a
rename). Fields::

    format      "cardrl-train-state" (FORMAT)
    version     1 (VERSION)
    algo        "batch_ppo" | "sb3"
    config      the run's TrainConfig as plain data (TrainConfig.to_dict())
    steps       learner decisions trained on
    elapsed_s   training seconds spent, all sessions together
    snapshots   the pool's frozen learners: PolicyNet state dicts, oldest first
    trainer     the algorithm's own state:
                batch_ppo  {iteration, net, optimizer, rng, pool_rng, torch_rng[, anchor]}
                sb3        {parameters (SB3 get_parameters(): the policy's and its
                           optimizer's state dicts), n_updates, pool_rng, torch_rng}

A resume continues only the run the file belongs to: the config given must equal the
stored one in every field but the budget and the parallelism (:data:`FREE_FIELDS`);
otherwise :func:`load_resume` refuses with a ``ValueError`` naming the file and each field
that differs. :class:`Interrupted` is what a trainer raises after saving its resume file
on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from pathlib import Path

from training.config import TrainConfig

FORMAT = "cardrl-train-state"
VERSION = 1
#: algo -> the resume file in the run folder
RESUME_FILES = {"batch_ppo": "train_state.pt", "sb3": "sb3_state.pt"}
#: config fields a resume may change: the budget and the parallelism
FREE_FIELDS = ("total_steps", "max_minutes", "torch_threads", "eval.workers")
#: what the ``trainer`` field holds for each algorithm
TRAINER_FIELDS = {
    "batch_ppo": ("iteration", "net", "optimizer", "rng", "pool_rng", "torch_rng"),
    "sb3": ("parameters", "n_updates", "pool_rng", "torch_rng"),
}


@dataclass
class Resume:
    """A checked resume file: where it is and what it holds (see the module docstring)."""

    path: Path
    steps: int
    elapsed_s: float
    snapshots: list
    trainer: dict

    def describe(self) -> str:
        """One line: the file, the learner decisions done and the training time spent."""
        return (f"{self.path}: {self.steps:,} learner decisions done in "
                f"{self.elapsed_s / 60:.1f} min of training")


class Interrupted(KeyboardInterrupt):
    """Training stopped by Ctrl-C after saving a resume file at ``path`` (``steps``
    learner decisions done)."""

    def __init__(self, path: Path, steps: int):
        super().__init__(f"interrupted after {steps:,} learner decisions; saved {path}")
        self.path = Path(path)
        self.steps = int(steps)


def resume_file(run_dir: str | Path, algo: str) -> Path:
    """The resume file of an ``algo`` run in ``run_dir``."""
    return Path(run_dir) / RESUME_FILES[algo]


def save_resume(path: str | Path, cfg: TrainConfig, steps: int, elapsed_s: float,
                snapshots: list, trainer: dict) -> Path:
    """Write a resume file (atomically) for a run of ``cfg``; the path."""
    import torch

    path = Path(path)
    data = {"format": FORMAT, "version": VERSION, "algo": cfg.algo, "config": cfg.to_dict(),
            "steps": int(steps), "elapsed_s": float(elapsed_s), "snapshots": list(snapshots),
            "trainer": trainer}
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)
    return path


def config_differences(saved: dict, current: dict, prefix: str = "") -> list[str]:
    """``field: A there, B now`` for each field (dotted name) whose value differs, the
    :data:`FREE_FIELDS` left out."""
    differences = []
    for key in sorted(set(saved) | set(current), key=str):
        name = f"{prefix}{key}"
        if name in FREE_FIELDS:
            continue
        there, now = saved.get(key, "<absent>"), current.get(key, "<absent>")
        if isinstance(there, dict) and isinstance(now, dict) and key in ("ppo", "eval"):
            differences += config_differences(there, now, f"{name}.")
        elif not _same(there, now):
            differences.append(f"{name}: {there!r} there, {now!r} now")
    return differences


def _same(a, b) -> bool:
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def _read(path: Path):
    """``torch.load(weights_only=True)`` of ``path``; ValueError naming it otherwise."""
    import pickle

    import torch

    from agents.policy.checkpoint import unreadable_file

    if path.stat().st_size == 0:
        raise ValueError(f"resume file {path} is empty (0 bytes); expected a file written by "
                         f"cardrl train")
    with path.open("rb") as f:
        head = f.read(4)
    if head != b"PK\x03\x04":
        raise ValueError(f"resume file {path} could not be read: it starts with {head!r}, "
                         f"expected the zip archive torch.save writes (written by cardrl "
                         f"train)")
    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise ValueError(f"resume file {path} refused without running it: its pickle names "
                         f"objects other than tensors and plain values, which a "
                         f"{FORMAT} file never holds") from None
    except Exception as error:  # noqa: BLE001 - any other failure is an unreadable file
        raise unreadable_file(error, f"resume file {path}", "cardrl train") from None


def _check(data, path: Path, algo: str) -> None:
    """The fields of a loaded resume file have the types the format gives them."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = (f"a dict with keys {sorted(map(str, data))[:8]}" if isinstance(data, dict)
                 else f"a {type(data).__name__}")
        raise ValueError(f"resume file {path} is not a {FORMAT} file (found {found}); it was "
                         f"written by another program or an older cardrl, whose resume files "
                         f"do not record their config: train into a new --out")
    if data.get("version") != VERSION:
        raise ValueError(f"resume file {path} has version {data.get('version')!r}; this "
                         f"cardrl reads version {VERSION}")
    if data.get("algo") != algo:
        raise ValueError(f"resume file {path} belongs to an algo={data.get('algo')!r} run, "
                         f"not algo={algo!r}")
    problems = []
    if not isinstance(data.get("config"), dict):
        problems.append("config is not a mapping")
    steps = data.get("steps")
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 0:
        problems.append(f"steps={steps!r} is not a count")
    elapsed = data.get("elapsed_s")
    if not isinstance(elapsed, (int, float)) or not math.isfinite(elapsed) or elapsed < 0:
        problems.append(f"elapsed_s={elapsed!r} is not a duration")
    if not isinstance(data.get("snapshots"), list) or not all(
            isinstance(s, dict) for s in data["snapshots"]):
        problems.append("snapshots is not a list of state dicts")
    trainer = data.get("trainer")
    if not isinstance(trainer, dict):
        problems.append("trainer is not a mapping")
    else:
        missing = [k for k in TRAINER_FIELDS[algo] if k not in trainer]
        if missing:
            problems.append(f"trainer lacks {missing}")
    if problems:
        raise ValueError(f"resume file {path} is damaged: {'; '.join(problems)}")


def load_resume(run_dir: str | Path, cfg: TrainConfig) -> Resume:
    """The checked resume file of the ``cfg.algo`` run in ``run_dir``. ``ValueError`` when
    there is nothing to resume, when the file is unreadable, not plain data or damaged, or
    when it was trained with a config that differs from ``cfg`` (outside
    :data:`FREE_FIELDS`), naming the file and the fields."""
    run_dir = Path(run_dir)
    path = resume_file(run_dir, cfg.algo)
    if not run_dir.is_dir():
        raise ValueError(f"cannot resume {run_dir}: it does not exist, so there is nothing to "
                         f"resume; start the run without --resume")
    if not path.is_file():
        others = [f"{name} ({algo})" for algo, name in RESUME_FILES.items()
                  if algo != cfg.algo and (run_dir / name).is_file()]
        if others:
            reason = (f"it holds {', '.join(others)}, not {path.name}: the run used another "
                      f"algo than algo={cfg.algo!r}")
        elif (run_dir / "config.yaml").exists():
            reason = (f"it holds a run that stopped before saving {path.name} (its first "
                      f"checkpoint); train again into another --out or delete {run_dir}")
        else:
            reason = f"it holds no run (no {path.name}); start the run without --resume"
        raise ValueError(f"cannot resume {run_dir}: {reason}")
    data = _read(path)
    _check(data, path, cfg.algo)
    differences = config_differences(data["config"], cfg.to_dict())
    if differences:
        shown = "; ".join(differences[:6])
        more = f"; and {len(differences) - 6} more" if len(differences) > 6 else ""
        raise ValueError(f"cannot resume from {path}: it was trained with another config "
                         f"({shown}{more}); only {', '.join(FREE_FIELDS)} may change on a "
                         f"resume. Resume with the run's own config ({run_dir / 'config.yaml'})"
                         f" or train into a new --out")
    return Resume(path, data["steps"], float(data["elapsed_s"]), data["snapshots"],
                  data["trainer"])


@contextlib.contextmanager
def restoring(path: Path):
    """Turn an error raised while putting a resume file's state into the trainer's objects
    (a weight of the wrong shape, a malformed generator state) into one ``ValueError``
    naming the file."""
    try:
        yield
    except (RuntimeError, ValueError, TypeError, KeyError, IndexError) as error:
        message = str(error).strip().splitlines()[0] if str(error).strip() else ""
        raise ValueError(f"resume file {path} is damaged: its state does not fit the run "
                         f"({type(error).__name__}: {message[:200]})") from None
