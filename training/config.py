"""The training config: one dataclass per section, each field declared once (:func:`opt`)
with its type, default, allowed values and one-line doc; loading and validation.

A YAML file in ``configs/`` is a :class:`TrainConfig` written as a mapping that lists only
the fields it changes; ``extends: other.yaml`` starts from another file (mappings merge key
by key, anything else replaces). :func:`load_config` reads the file, merges the
command-line settings (``--set ppo.learning_rate=1.0e-4``: dotted at any depth, the value
read as YAML) and validates the whole config once, before anything is created: every
problem is one ``ValueError`` line naming the file, the field, what was found and what was
expected (:mod:`training.config_load`: the generic reader and checker;
:mod:`training.config_checks`: the checks that read several fields, where the game's own
config class checks ``options``). A file is read unambiguously: an integer field takes an
integer (or an integral number, ``1.0e+6``), a number field an integer or a number, text is
never a number (PyYAML reads ``1e6`` as text: write ``1_000_000``, ``5.0e-4``; on the command
line a bare number is a number), a boolean is ``true`` or ``false``, and a mapping may not
repeat a key.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from envs import registry
from training.config_checks import check_combination
from training.config_load import (
    AGENT,
    build,
    found,
    merge_overrides,
    message,
    parse_setting,
    read_yaml,
)

__all__ = ["ALGOS", "CONFIG_DIR", "DistillConfig", "EvalConfig", "ExitConfig", "PPOConfig",
           "TrainConfig", "check_config", "config_from_dict", "load_config", "merge_overrides",
           "opt", "parse_setting", "read_config_file"]

#: the training algorithms (``algo``)
ALGOS = ("batch_ppo", "sb3", "exit")
#: the repository's config folder (listed when a config file does not exist)
CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"


def opt(default, doc: str, limit: str | None = None, choices=None):
    """A config field: ``default``, its one-line ``doc`` and its allowed values: a range as
    the docs write it (``> 0``, ``>= 0``, ``in (0, 1]``; a list's is its items') or
    ``choices`` (a tuple, a function returning one, or ``AGENT``: an agent of the game)."""
    meta = {"doc": doc, "limit": limit, "choices": choices}
    if isinstance(default, (list, dict)) or dataclasses.is_dataclass(default):
        return dataclasses.field(default_factory=lambda: copy.deepcopy(default), metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


STEPS, SEED, COUNT = "in [0, 1_000_000_000_000]", "in [0, 4_294_967_295]", "in [1, 65_536]"
PROCESSES, POSITIVE, NONNEGATIVE = "in [1, 1_024]", "> 0", ">= 0"


def documented(cls):
    """The dataclass ``cls`` with its fields listed in its docstring, for ``help()`` and the
    API reference: name, type, default, allowed values and doc, from each :func:`opt`."""
    cls, lines = dataclass(cls), []
    for f in dataclasses.fields(cls):
        default = f.default_factory() if callable(f.default_factory) else f.default
        choices = f.metadata["choices"]
        allowed = f.metadata["limit"] or (
            "one of " + ", ".join(choices) if isinstance(choices, tuple)
            else "an agent of the game" if choices == AGENT else "")
        shown = f"{type(default).__name__}()" if dataclasses.is_dataclass(default) \
            else repr(default)
        lines.append(f"- ``{f.name}`` ({f.type}; default ``{shown}``"
                     f"{'; ' + allowed if allowed else ''}): {f.metadata['doc']}")
    cls.__doc__ = f"{cls.__doc__}\n\nFields:\n\n" + "\n".join(lines)
    return cls


def _features() -> tuple[str, ...]:
    from agents.policy.features import FEATURES

    return tuple(FEATURES)


def _games() -> tuple[str, ...]:
    return registry.GAMES  # read when checked: a game registered later is a choice too


@documented
class PPOConfig:
    """PPO hyperparameters (names as in CleanRL's ppo.py)."""

    learning_rate: float = opt(5e-4, "Adam step size.", POSITIVE)
    anneal_lr: bool = opt(True, "Decay the step size linearly to 0 by the end of the run.")
    n_steps: int = opt(32, "sb3: vector steps per env in a rollout.", "in [1, 1_000_000]")
    update_epochs: int = opt(4, "Passes over each rollout.", "in [1, 1_000]")
    minibatch_size: int = opt(1024, "Learner decisions per gradient step.", "in [2, 100_000_000]")
    gamma: float = opt(1.0, "Discount per learner decision (an episode is a deal).", "in (0, 1]")
    gae_lambda: float = opt(0.95, "GAE lambda.", "in [0, 1]")
    clip_coef: float = opt(0.2, "PPO ratio clip.", POSITIVE)
    clip_vloss: bool = opt(False, "batch_ppo: clip the value loss as well.")
    ent_coef: float = opt(0.01, "Entropy bonus.", NONNEGATIVE)
    vf_coef: float = opt(0.5, "Value-loss weight.", NONNEGATIVE)
    max_grad_norm: float = opt(0.5, "Gradient-norm clip.", POSITIVE)
    norm_adv: bool = opt(True, "Normalise advantages per minibatch.")
    target_kl: float | None = opt(None, "Stop an update's epochs past this KL (null: never).",
                                  POSITIVE)
    anchor_coef: float = opt(0.0, "Weight of KL(start || policy) in the loss, start the "
                             "distilled or init network (0: no anchor).", NONNEGATIVE)
    hidden: list[int] = opt([256, 256], "MLP widths of actor and critic (non-empty).", COUNT)
    activation: str = opt("tanh", "Hidden-layer activation.", choices=("tanh", "relu"))
    features: str = opt("none", "Inputs appended to the observation (agents/policy/features.py)"
                        "; batch_ppo.", choices=_features)
    delegate: str | None = opt(None, "Agent making the decisions the net does not "
                               "(agents/policy/delegate.py); batch_ppo.")
    symmetry: str = opt("none", "A symmetry the game registers, e.g. suits: canonical suit "
                        "order (agents/policy/features.py); batch_ppo.")


@documented
class EvalConfig:
    """The periodic duplicate-deal evaluation (training/evaluate.py)."""

    interval: int = opt(500_000, "Learner decisions between evaluations (0: at the end).", STEPS)
    deals: int = opt(400, "Dealt keys per evaluation, each in every seat rotation.",
                     "in [1, 1_000_000]")
    opponent: str = opt("heuristic", "The agent in every other seat: the one to beat.",
                        choices=AGENT)
    baselines: list[str] = opt(["heuristic", "random"], "Agents scored once in the policy's "
                               "place (the curve's horizontal lines).", choices=AGENT)
    seed: int = opt(20_240_601, "Tournament seed: the same deals at every evaluation.", SEED)
    workers: int = opt(1, "Tournament processes.", PROCESSES)


@documented
class DistillConfig:
    """Imitation of a teacher before PPO (training/distill.py; batch_ppo, or each generation
    of algo: exit); its time counts as training time and its decisions as steps."""

    teacher: str = opt("pimc", "The agent imitated (a search is handed the engine).",
                       choices=AGENT)
    teacher_kwargs: dict = opt({}, "Keyword arguments of the teacher (pimc: worlds, rollout, "
                               "objective).")
    deals: int = opt(1_000, "Episodes the teacher plays.", "in [1, 100_000_000]")
    num_games: int = opt(64, "Episodes played at once in one batch engine.", COUNT)
    workers: int = opt(1, "Processes playing batches side by side (same record).", PROCESSES)
    epochs: int = opt(10, "Passes over the teacher's decisions.", "in [1, 10_000]")
    learning_rate: float = opt(1e-3, "Adam step size of the fit.", POSITIVE)
    minibatch_size: int = opt(512, "Decisions per gradient step.", "in [1, 100_000_000]")
    holdout: float = opt(0.05, "Fraction of episodes held out to measure accuracy.", "in [0, 1)")
    fallback: str | None = opt(None, "Agent acting on observations whose choice is learned "
                               "unless the teacher's beats it by margin.", choices=AGENT)
    margin: float = opt(0.0, "With a fallback: the teacher's value lead needed, in points.",
                        NONNEGATIVE)
    targets: str = opt("action", "action: the teacher's choice; values: softmax(its action "
                       "values / temperature).", choices=("action", "values"))
    temperature: float = opt(0.1, "With targets: values, the softmax temperature (points).",
                             POSITIVE)
    record: str | None = opt(None, "An earlier run's teacher.npz to fit instead of playing "
                             "(null: the teacher plays).")


@documented
class ExitConfig:
    """Expert iteration (algo: exit, training/exit.py): each generation the distill teacher
    plays new episodes and the network is fitted to the last ``window`` generations."""

    generations: int = opt(4, "Generations to run (max_minutes may end sooner).",
                           "in [1, 10_000]")
    window: int = opt(2, "Generations of records each fit reads.", "in [1, 10_000]")
    search_eval_deals: int = opt(100, "Keys of each generation's evaluation of the search "
                                 "(0: none).", "in [0, 1_000_000]")
    backend: str = opt("local", "local (distill.workers processes) | ray (Ray tasks): the same "
                       "records.", choices=("local", "ray"))


@documented
class TrainConfig:
    """A training run (one YAML file in configs/)."""

    game: str = opt(registry.GAMES[0], "A game of envs.registry.GAMES (the first registered).",
                    choices=_games)
    options: dict = opt({}, "The game's config fields (variant, num_players, reward, ...).")
    algo: str = opt("batch_ppo", "batch_ppo | sb3 | exit; --algo overrides.", choices=ALGOS)
    seed: int = opt(1, "Seeds deals, pool, torch and seat rotation; --seed overrides.", SEED)
    total_steps: int = opt(1_000_000, "Learner decisions to train on.", "in [1, 1_000_000_000_000]")
    max_minutes: float | None = opt(None, "Training time limit (null: none).",
                                    "in (0, 1_000_000]")
    num_games: int = opt(256, "Games in the batch engine (sb3: n_envs).", COUNT)
    reward_scale: float = opt(0.05, "Multiplies the game reward before learning.", POSITIVE)
    opponents: list = opt([{"name": "random", "weight": 1.0}], "Pool entries {name, weight "
                          ">= 0, kwargs}: an agent, self or snapshot (training/opponents.py).")
    train_self_seats: bool = opt(True, "batch_ppo: also learn from the pool's self seats.")
    snapshot_interval: int = opt(250_000, "Decisions between snapshots joining the pool.", STEPS)
    max_snapshots: int = opt(8, "Snapshots kept in the pool.", "in [1, 1_000]")
    checkpoint_interval: int = opt(250_000, "Decisions between resumable checkpoints.", STEPS)
    torch_threads: int = opt(1, "torch.set_num_threads.", PROCESSES)
    ppo: PPOConfig = opt(PPOConfig(), "PPO hyperparameters.")
    eval: EvalConfig = opt(EvalConfig(), "The periodic evaluation.")
    distill: DistillConfig | None = opt(None, "Imitate a teacher first (null: no imitation).")
    exit: ExitConfig | None = opt(None, "algo: exit only: the generations.")
    init: str | None = opt(None, "batch_ppo: start from this checkpoint (a policy.pt, or policy:"
                           " the table's committed one) instead of random weights.")

    def to_dict(self) -> dict:
        """The config as plain data (a run folder's config.yaml); distill, exit and init
        only when set."""
        data = dataclasses.asdict(self)
        return {k: v for k, v in data.items() if v is not None or k not in OMITTED}


#: fields a run folder's config.yaml leaves out when None
OMITTED = ("distill", "init", "exit")
FIELDS = [f.name for f in dataclasses.fields(TrainConfig)]


def config_from_dict(data: Mapping | None, source: str = "training config") -> TrainConfig:
    """A validated :class:`TrainConfig` from a parsed YAML mapping (None: all defaults);
    one ``ValueError`` naming ``source`` and every problem."""
    if not isinstance(data, (Mapping, type(None))):
        raise ValueError(f"{source}: {found(data)}, expected a mapping of config fields "
                         f"({', '.join(FIELDS)})")
    problems: list[str] = []
    cfg = build(TrainConfig, data or {}, "", problems)
    if not problems:
        check_combination(cfg, problems)
    if problems:
        raise ValueError(message(source, problems))
    return cfg


def check_config(cfg: TrainConfig, source: str = "training config") -> TrainConfig:
    """``cfg`` (built or changed by a program) checked as :func:`config_from_dict` checks a
    mapping and normalised in place; one ``ValueError`` naming ``source`` and every problem."""
    data = {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)}
    data = {k: dataclasses.asdict(v) if dataclasses.is_dataclass(v) else copy.deepcopy(v)
            for k, v in data.items()}
    checked = config_from_dict(data, source)
    for name in FIELDS:
        setattr(cfg, name, getattr(checked, name))
    return cfg


def read_config_file(path: str | Path) -> dict:
    """The mapping of a YAML config file, ``extends:`` resolved (:func:`~training.config_load.
    read_yaml`); ``ValueError`` naming the file for any problem reading it."""
    return read_yaml(path, FIELDS, CONFIG_DIR)


def load_config(path: str | Path, overrides: Mapping[str, Any] | None = None,
                settings: Mapping[str, Any] | None = None) -> TrainConfig:
    """The validated :class:`TrainConfig` of a YAML file with ``overrides`` (field -> value;
    None: not given) and then ``settings`` (``--set``; None sets the field to null) merged
    in; one ``ValueError`` names the file, the settings given and every problem."""
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    given.update(settings or {})
    source = f"config file {path}"
    if given:
        source += " with " + ", ".join(f"{k}={v!r}" for k, v in given.items())
    return config_from_dict(merge_overrides(read_config_file(path), given, keep_none=True),
                            source)
