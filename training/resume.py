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
    inputs      the files the run reads (run_inputs): [{field, path, sha256}, ...]
                (absent from the files of an earlier cardrl: such a resume is not checked)
    steps       learner decisions trained on
    elapsed_s   training seconds spent, all sessions together
    snapshots   the pool's frozen learners: PolicyNet state dicts, oldest first
    trainer     the algorithm's own state:
                batch_ppo  {iteration, net, optimizer, rng, pool_rng, torch_rng[, anchor],
                           agent_rngs, evals, eval_pending} (the last three are absent
                           from the files of an earlier cardrl)
                sb3        {parameters (SB3 get_parameters(): the policy's and its
                           optimizer's state dicts), n_updates, pool_rng, torch_rng}

A resume continues only the run the file belongs to: the config given must equal the
stored one in every field but the budget and the parallelism (:data:`FREE_FIELDS`), and
every file the run reads (the ``init`` checkpoint, the policy files of ``eval.opponent``,
``eval.baselines`` and ``opponents``, the ``distill.record``) must hold what it held when
the run began, compared by SHA-256 (a moved file with the same content passes); otherwise
:func:`load_resume` refuses with a ``ValueError`` naming the file and each field that
differs, before any work. :class:`Interrupted` is what a trainer raises after saving its
resume file on Ctrl-C.

Everything a run writes goes through :func:`write_file` (a ``NAME.tmp`` replaced at the
end): a full disk leaves the earlier file whole and no ``.tmp`` behind, and is one
``ValueError`` line. What a resumed batch_ppo run repeats exactly is in
``docs/training-resume.md``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from training.config import TrainConfig

FORMAT = "cardrl-train-state"
VERSION = 1
#: algo -> the resume file in the run folder
RESUME_FILES = {"batch_ppo": "train_state.pt", "sb3": "sb3_state.pt"}
#: config fields a resume may change: the budget and the parallelism
FREE_FIELDS = ("total_steps", "max_minutes", "torch_threads", "eval.workers")
#: hex digits of a SHA-256 shown in messages
SHOWN_DIGITS = 12
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
    #: the files the run read when it began (:func:`run_inputs`; empty in an earlier file)
    inputs: list = dataclasses.field(default_factory=list)

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


def write_file(path: str | Path, write: Callable[[Path], object]) -> Path:
    """Write the file ``path`` whole or not at all: ``write(tmp)`` writes ``PATH.tmp``, which
    then replaces ``path``. When the write fails the ``.tmp`` is removed and the earlier
    file stays as it was; an ``OSError`` (a full disk, a folder that cannot be written)
    becomes one ``ValueError`` line naming the file. The path."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if not isinstance(error, OSError):
            raise
        reason = error.strerror or str(error) or type(error).__name__
        raise ValueError(f"could not write {path}: {reason}; the earlier {path.name} (if any) "
                         f"is kept and {tmp.name} was removed: expected room on the disk and "
                         f"a folder you may write to (free some space, then run the same "
                         f"command with --resume to continue from the last checkpoint)"
                         ) from None
    return path


def save_resume(path: str | Path, cfg: TrainConfig, steps: int, elapsed_s: float,
                snapshots: list, trainer: dict, inputs: list[dict] | None = None) -> Path:
    """Write a resume file (atomically, :func:`write_file`) for a run of ``cfg`` that read
    the files ``inputs`` (:func:`run_inputs`; None: found now); the path."""
    import torch

    path = Path(path)
    data = {"format": FORMAT, "version": VERSION, "algo": cfg.algo, "config": cfg.to_dict(),
            "inputs": run_inputs(cfg) if inputs is None else list(inputs),
            "steps": int(steps), "elapsed_s": float(elapsed_s), "snapshots": list(snapshots),
            "trainer": trainer}

    def write(tmp: Path) -> None:
        with tmp.open("wb") as f:  # a Python file: a full disk is an OSError with its errno
            torch.save(data, f)

    return write_file(path, write)


# -- the files a run reads ------------------------------------------------------------------
def agent_parts(agent, name: str, depth: int = 0,
                seen: set | None = None) -> Iterator[tuple[str, object]]:
    """``(name, part)`` for ``agent`` and every object of the ``agents`` package it holds in
    its attributes (also in lists and tuples), depth first in attribute order: a PIMC
    search's rollout policy, a policy's delegates. Networks (torch modules) are not
    entered."""
    seen = set() if seen is None else seen
    seen.add(id(agent))
    yield name, agent
    if depth >= 4:
        return
    for key, value in sorted(vars(agent).items()):
        items = list(enumerate(value)) if isinstance(value, (list, tuple)) else [(None, value)]
        for i, item in items:
            if id(item) in seen or not _agent_part(item):
                continue
            where = f"{name}.{key}" + ("" if i is None else f"[{i}]")
            yield from agent_parts(item, where, depth + 1, seen)


def _agent_part(value) -> bool:
    """Whether ``value`` is an object of the ``agents`` package with attributes of its own
    (not a torch module)."""
    module = type(value).__module__ or ""
    if not (module == "agents" or module.startswith("agents.")) or not hasattr(value, "__dict__"):
        return False
    return not any(c.__module__.startswith("torch.") for c in type(value).__mro__)


def agent_files(agent) -> list[Path]:
    """The files ``agent`` loaded (the ``sources`` of it and of its parts,
    :func:`agent_parts`, that are files), each once."""
    found: dict[Path, None] = {}
    for _, part in agent_parts(agent, "agent"):
        for source in getattr(part, "sources", None) or ():
            if isinstance(source, (str, Path)) and Path(source).is_file():
                found[Path(source)] = None
    return list(found)


def agent_generators(agents: dict) -> dict:
    """``{"NAME.ATTRIBUTE": generator}``: every numpy generator the agents (name -> agent
    or None) and their parts hold (:func:`agent_parts`), in a fixed order."""
    found = {}
    for label, agent in agents.items():
        if agent is None:
            continue
        for name, part in agent_parts(agent, label):
            for key, value in sorted(vars(part).items()):
                if isinstance(value, np.random.Generator):
                    found[f"{name}.{key}"] = value
    return found


def generator_states(agents: dict) -> dict:
    """``{"NAME.ATTRIBUTE": state}``: the state of every numpy generator the agents (name ->
    agent or None) and their parts hold (:func:`agent_parts`), plain data."""
    return {key: generator.bit_generator.state
            for key, generator in agent_generators(agents).items()}


def set_generator_states(agents: dict, states: dict) -> None:
    """Put :func:`generator_states`' ``states`` back into the agents' generators;
    ``ValueError`` when the agents hold other generators than those saved."""
    found = agent_generators(agents)
    if set(found) != set(states):
        raise ValueError(f"the agents' generators are {sorted(found)}, the file holds "
                         f"{sorted(states)}")
    for key, generator in found.items():
        generator.bit_generator.state = states[key]


def run_inputs(cfg: TrainConfig) -> list[dict]:
    """The files a run of ``cfg`` reads, ``{"field", "path", "sha256"}`` each, in the order
    of the fields: the ``init`` checkpoint, each ``opponents`` entry's files, those of
    ``eval.opponent`` and of each ``eval.baselines`` agent (a ``policy:PATH``, the
    committed checkpoints of ``policy``, ...: what the built agent loaded), the
    ``distill.record``. The agents are built to learn their files (nothing is played)."""
    import agents
    from agents.registry import make_from_spec
    from arena.tournament.inputs import sha256
    from training.init_net import init_path
    from training.opponents import SELF, SNAPSHOT, parse_pool

    files: list[tuple[str, Path]] = []
    if cfg.init is not None:
        files.append(("init", init_path(cfg.game, cfg.options, cfg.init)))
    for i, spec in enumerate(parse_pool(cfg.opponents)):
        if spec.name not in (SELF, SNAPSHOT):
            agent = agents.make(spec.name, cfg.game, **spec.kwargs)
            files += [(f"opponents[{i}]", path) for path in agent_files(agent)]
    e = cfg.eval
    for field, spec in [("eval.opponent", e.opponent),
                        *((f"eval.baselines[{i}]", b) for i, b in enumerate(e.baselines))]:
        files += [(field, path) for path in agent_files(make_from_spec(spec, cfg.game))]
    if cfg.distill is not None and cfg.distill.record is not None:
        files.append(("distill.record", Path(cfg.distill.record)))
    return [{"field": field, "path": str(path), "sha256": sha256(path)}
            for field, path in files]


def input_differences(saved: list, current: list[dict]) -> list[str]:
    """How the files a run reads now (``current``, :func:`run_inputs`) differ from those it
    read when it began (``saved``), one phrase per difference; compared by content, so a
    moved file with the same SHA-256 is the same."""
    differences = []
    fields = list(dict.fromkeys(str(e.get("field")) for e in [*saved, *current]))
    for field in fields:
        old = [e for e in saved if str(e.get("field")) == field]
        new = [e for e in current if e["field"] == field]
        if [e.get("sha256") for e in old] == [e["sha256"] for e in new]:
            continue
        if len(old) != len(new):
            differences.append(f"{field} reads {len(new)} file(s) {[e['path'] for e in new]}, "
                               f"the run began with {len(old)} "
                               f"{[str(e.get('path')) for e in old]}")
            continue
        for was, now in zip(old, new, strict=True):
            if was.get("sha256") != now["sha256"]:
                moved = "" if was.get("path") == now["path"] else f" (then {was.get('path')!r})"
                differences.append(
                    f"{field} reads {now['path']!r}, whose SHA-256 is now "
                    f"{now['sha256'][:SHOWN_DIGITS]}…, but was "
                    f"{str(was.get('sha256'))[:SHOWN_DIGITS]}…{moved} when the run began")
    return differences


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
    inputs = data.get("inputs", [])
    if not isinstance(inputs, list) or not all(
            isinstance(e, dict) and isinstance(e.get("sha256"), str) for e in inputs):
        problems.append("inputs is not a list of {field, path, sha256}")
    trainer = data.get("trainer")
    if not isinstance(trainer, dict):
        problems.append("trainer is not a mapping")
    else:
        missing = [k for k in TRAINER_FIELDS[algo] if k not in trainer]
        if missing:
            problems.append(f"trainer lacks {missing}")
    if problems:
        raise ValueError(f"resume file {path} is damaged: {'; '.join(problems)}")


def load_resume(run_dir: str | Path, cfg: TrainConfig,
                inputs: list[dict] | None = None) -> Resume:
    """The checked resume file of the ``cfg.algo`` run in ``run_dir``. ``ValueError`` when
    there is nothing to resume, when the file is unreadable, not plain data or damaged,
    when it was trained with a config that differs from ``cfg`` (outside
    :data:`FREE_FIELDS`), or when a file the run reads changed since it began (``inputs``:
    :func:`run_inputs` now, found here if None), naming the file and the fields."""
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
    if "inputs" in data:  # files of an earlier cardrl do not record them
        changed = input_differences(data["inputs"], run_inputs(cfg) if inputs is None
                                    else inputs)
        if changed:
            raise ValueError(f"cannot resume from {path}: a file the run reads changed since "
                             f"it began ({'; '.join(changed[:4])}); expected the same "
                             f"content: put the run's file back, or train into a new --out")
    return Resume(path, data["steps"], float(data["elapsed_s"]), data["snapshots"],
                  data["trainer"], list(data.get("inputs", [])))


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
