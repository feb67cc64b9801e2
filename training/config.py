"""The training config: one dataclass per section, its loading and its validation.

A YAML file in ``configs/`` is a :class:`TrainConfig` written as a mapping; every field is
optional and documented here, once, by the docstring line under it, with its allowed
values (a numeric field's range is also in :data:`LIMITS`). A YAML file lists only the
fields it changes. :func:`load_config` reads the file, merges command-line overrides into
the parsed mapping and validates the whole config once (:func:`check_config`) before
anything is created: every problem is reported in one ``ValueError`` line naming the
file, the field, what was found and what was expected.

What is accepted is what YAML reads unambiguously: an integer field takes an integer (or
a number with an integral value, ``1.0e+6``); a number field takes an integer or a number;
text is never read as a number (PyYAML reads ``1e6`` and ``5e-4`` as text: write
``1_000_000`` and ``5.0e-4``); a boolean is ``true`` or ``false``; a mapping may not repeat
a key.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

#: the training algorithms (``algo``)
ALGOS = ("batch_ppo", "sb3", "exit")
#: the network activations (``ppo.activation``; agents/policy/net.py)
ACTIVATIONS = ("tanh", "relu")
#: the repository's config folder (listed when a config file does not exist)
CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"


@dataclass(frozen=True)
class Interval:
    """The allowed values of a numeric field: from ``low`` to ``high``, each end included
    unless ``*_open``. ``str`` writes it as in the field docstrings: ``> 0``, ``>= 0``,
    ``in (0, 1]``, ``in [1, 65_536]``."""

    low: float
    high: float = math.inf
    low_open: bool = False
    high_open: bool = False

    def __contains__(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return bool(above and below)

    def __str__(self) -> str:
        if self.high == math.inf:
            return f"{'>' if self.low_open else '>='} {_number(self.low)}"
        return (f"in {'(' if self.low_open else '['}{_number(self.low)}, "
                f"{_number(self.high)}{')' if self.high_open else ']'}")


def _number(value: float) -> str:
    """A bound as YAML would write it: ``1_000_000``, ``0.5``."""
    if float(value).is_integer():
        return f"{int(value):_}"
    return repr(value)


STEPS = Interval(0, 10**12)
#: what distill's network imitates (DistillConfig.targets)
TARGETS = ("action", "values")
#: the range of every numeric field (dotted names; ``ppo.hidden`` bounds each layer width,
#: ``opponents[].weight`` each pool weight); each field's docstring states the same range
LIMITS: dict[str, Interval] = {
    "seed": Interval(0, 2**32 - 1),
    "total_steps": Interval(1, 10**12),
    "max_minutes": Interval(0, 1_000_000, low_open=True),
    "num_games": Interval(1, 65_536),
    "reward_scale": Interval(0, low_open=True),
    "snapshot_interval": STEPS,
    "max_snapshots": Interval(1, 1_000),
    "checkpoint_interval": STEPS,
    "torch_threads": Interval(1, 1_024),
    "opponents[].weight": Interval(0),
    "ppo.learning_rate": Interval(0, low_open=True),
    "ppo.n_steps": Interval(1, 1_000_000),
    "ppo.update_epochs": Interval(1, 1_000),
    "ppo.minibatch_size": Interval(2, 10**8),
    "ppo.gamma": Interval(0, 1, low_open=True),
    "ppo.gae_lambda": Interval(0, 1),
    "ppo.clip_coef": Interval(0, low_open=True),
    "ppo.ent_coef": Interval(0),
    "ppo.vf_coef": Interval(0),
    "ppo.max_grad_norm": Interval(0, low_open=True),
    "ppo.target_kl": Interval(0, low_open=True),
    "ppo.anchor_coef": Interval(0),
    "ppo.hidden": Interval(1, 65_536),
    "eval.interval": STEPS,
    "eval.deals": Interval(1, 1_000_000),
    "eval.seed": Interval(0, 2**32 - 1),
    "eval.workers": Interval(1, 1_024),
    "distill.deals": Interval(1, 100_000_000),
    "distill.num_games": Interval(1, 65_536),
    "distill.workers": Interval(1, 1_024),
    "distill.epochs": Interval(1, 10_000),
    "distill.learning_rate": Interval(0, low_open=True),
    "distill.minibatch_size": Interval(1, 10**8),
    "distill.holdout": Interval(0, 1, high_open=True),
    "distill.margin": Interval(0),
    "distill.temperature": Interval(0, low_open=True),
    "exit.generations": Interval(1, 10_000),
    "exit.window": Interval(1, 10_000),
    "exit.search_eval_deals": Interval(0, 1_000_000),
}
#: where expert iteration plays its search (ExitConfig.backend; training/distill.py)
BACKENDS = ("local", "ray")


@dataclass
class PPOConfig:
    """PPO hyperparameters (names as in CleanRL's ppo.py)."""

    learning_rate: float = 5e-4
    """Adam step size; > 0."""
    anneal_lr: bool = True
    """Decay the step size linearly to 0 at total_steps (or at max_minutes, if sooner)."""
    n_steps: int = 32
    """sb3 only: vector steps per env in a rollout (a rollout is n_steps * num_games);
    in [1, 1_000_000]."""
    update_epochs: int = 4
    """Passes over each rollout; in [1, 1_000]."""
    minibatch_size: int = 1024
    """Learner decisions per gradient step; in [2, 100_000_000]."""
    gamma: float = 1.0
    """Discount per learner decision (an episode is one short deal); in (0, 1]."""
    gae_lambda: float = 0.95
    """GAE lambda; in [0, 1]."""
    clip_coef: float = 0.2
    """PPO ratio clip; > 0."""
    clip_vloss: bool = False
    """batch_ppo: clip the value loss as well."""
    ent_coef: float = 0.01
    """Entropy bonus; >= 0."""
    vf_coef: float = 0.5
    """Value-loss weight; >= 0."""
    max_grad_norm: float = 0.5
    """Gradient-norm clip; > 0."""
    norm_adv: bool = True
    """Normalise advantages per minibatch."""
    target_kl: float | None = None
    """Stop an update's epochs early past this approximate KL; > 0 (None: never)."""
    anchor_coef: float = 0.0
    """batch_ppo after a distill stage or from an init checkpoint: weight of
    KL(start || policy), the divergence of the policy from the one PPO started from (the
    imitation or the init), added to every minibatch's loss; >= 0 (0: no anchor). Keeps
    what the starting network knew while PPO changes it."""
    hidden: list[int] = field(default_factory=lambda: [256, 256])
    """MLP widths of the actor and of the critic: a non-empty list, each in [1, 65_536]."""
    activation: str = "tanh"
    """tanh | relu."""
    features: str = "none"
    """Inputs appended to the observation (agents/policy/features.py); in checkpoints; batch_ppo."""
    delegate: str | None = None
    """Agent making the decisions the net does not (agents/policy/delegate.py); batch_ppo."""
    symmetry: str = "none"
    """none | suits: canonical suit order (agents/four_aces/symmetry.py); batch_ppo."""


@dataclass
class EvalConfig:
    """The periodic duplicate-deal evaluation (training/evaluate.py)."""

    interval: int = 500_000
    """Learner decisions between evaluations (0: only at the end); in [0, 1_000_000_000_000]."""
    deals: int = 400
    """Dealt keys per evaluation, each played in every seat rotation; in [1, 1_000_000]."""
    opponent: str = "heuristic"
    """The agent in every seat but the policy's: the one to beat (an agent of the game, or
    policy:PATH)."""
    baselines: list[str] = field(default_factory=lambda: ["heuristic", "random"])
    """Agents scored once per run in the policy's place (the curve's horizontal lines)."""
    seed: int = 20_240_601
    """Tournament seed: the same deals at every evaluation; in [0, 4_294_967_295]."""
    workers: int = 1
    """Tournament processes; in [1, 1_024]."""


@dataclass
class DistillConfig:
    """Imitation of a teacher before PPO (training/distill.py): the teacher plays every seat
    of ``deals`` episodes, the network is fitted to its decisions (cross-entropy on its
    actions, PPO's value targets), then PPO starts from those weights. Its time counts as
    training time (max_minutes) and its decisions as steps; batch_ppo only."""

    teacher: str = "pimc"
    """The agent imitated: an agent of the game or policy:PATH (a searching agent such as
    pimc is handed the engine)."""
    teacher_kwargs: dict = field(default_factory=dict)
    """Keyword arguments of the teacher (pimc: worlds, rollout, objective)."""
    deals: int = 1_000
    """Episodes the teacher plays (one deal each with episode: deal); in
    [1, 100_000_000]."""
    num_games: int = 64
    """Episodes played at once in one batch engine (a search handles them in one call); in
    [1, 65_536]."""
    workers: int = 1
    """Processes playing batches side by side (the record does not depend on it); in
    [1, 1_024]."""
    epochs: int = 10
    """Passes over the teacher's decisions; in [1, 10_000]."""
    learning_rate: float = 1e-3
    """Adam step size of the fit; > 0."""
    minibatch_size: int = 512
    """Decisions per gradient step; in [1, 100_000_000]."""
    holdout: float = 0.05
    """Fraction of the episodes not trained on, to measure the imitation's accuracy; in
    [0, 1)."""
    fallback: str | None = None
    """An agent that acts on observations (e.g. heuristic); with it the network learns
    the teacher's choice only where the teacher's value of it beats the fallback's choice
    by more than ``margin``, else the fallback's (training/distill.py: relabel; needs a
    teacher that reports action values: pimc). None: always the teacher's choice."""
    margin: float = 0.0
    """With a fallback: the value (the teacher's units, points) by which the teacher's
    choice must beat the fallback's to be learned; >= 0."""
    targets: str = "action"
    """What the network imitates at each decision: ``action``, the teacher's choice (or
    the fallback's, see ``fallback``); ``values``, softmax(the teacher's action values /
    ``temperature``) over the legal actions (training/distill.py: value_targets; needs a
    teacher that reports action values: pimc; not with a fallback)."""
    temperature: float = 0.1
    """With ``targets: values``: the softmax temperature, in the teacher's value units
    (points); > 0."""
    record: str | None = None
    """A teacher record an earlier run of this config wrote (its ``teacher.npz``): the fit
    reads it instead of playing the teacher again (training/distill.py: load_record
    checks that it holds this config's episodes). Its play time counts as training time.
    None: the teacher plays."""


@dataclass
class ExitConfig:
    """Expert iteration (``algo: exit``, training/exit.py): generations of search with the
    current network, labels, fit. Each generation the ``distill`` section's teacher (a
    search: pimc) plays ``distill.deals`` new episodes, with the network of the last
    generation as its rollout policy when ``distill.teacher_kwargs.rollout`` is
    ``policy``; the network is fitted to the records of the last ``window`` generations."""

    generations: int = 4
    """Generations to run (max_minutes may end the run sooner, after a generation); in
    [1, 10_000]."""
    window: int = 2
    """Generations of teacher records each fit reads (the newest and those before it); in
    [1, 10_000]."""
    search_eval_deals: int = 100
    """Dealt keys of each generation's evaluation of the search itself against
    eval.opponent (every rotation; 0: the search is not evaluated); in [0, 1_000_000]."""
    backend: str = "local"
    """local (distill.workers processes) | ray (each batch a Ray task; RAY_ADDRESS names a
    cluster): the same records either way."""


@dataclass
class TrainConfig:
    """A training run (one YAML file in configs/)."""

    game: str = "abracadabra"
    """A game of envs.registry.GAMES."""
    options: dict = field(default_factory=dict)
    """The game's config fields (AbracadabraConfig / FourAcesConfig: variant, reward, ...)."""
    algo: str = "batch_ppo"
    """batch_ppo (training/ppo_batch.py) | sb3 (training/sb3_ppo.py); --algo overrides."""
    seed: int = 1
    """Seeds the deals, the opponent pool, torch and the seat rotation; in
    [0, 4_294_967_295]; --seed overrides."""
    total_steps: int = 1_000_000
    """Learner decisions to train on; in [1, 1_000_000_000_000]; --total-steps overrides."""
    max_minutes: float | None = None
    """Stop after this much training time (evaluation not counted); in (0, 1_000_000]
    (None: no time limit); --max-minutes overrides."""
    num_games: int = 256
    """Games in the batch engine (sb3: n_envs); in [1, 65_536]."""
    reward_scale: float = 0.05
    """Multiplies the game reward before learning; > 0."""
    opponents: list = field(default_factory=lambda: [{"name": "random", "weight": 1.0}])
    """Pool entries {name, weight, kwargs}, drawn per seat and episode (training/opponents.py):
    name an agent of the game, self or snapshot; weight >= 0, one of them > 0."""
    train_self_seats: bool = True
    """batch_ppo: also learn from the seats the pool gives to "self"."""
    snapshot_interval: int = 250_000
    """Learner decisions between frozen snapshots of the learner added to the pool (0:
    none); in [0, 1_000_000_000_000]."""
    max_snapshots: int = 8
    """Snapshots kept in the pool (the oldest is dropped); in [1, 1_000]."""
    checkpoint_interval: int = 250_000
    """Learner decisions between resumable checkpoints (--resume; 0: only at the end and
    on Ctrl-C); in [0, 1_000_000_000_000]."""
    torch_threads: int = 1
    """torch.set_num_threads (1: OpenMP spinning hurts on busy cores); in [1, 1_024]."""
    ppo: PPOConfig = field(default_factory=PPOConfig)
    """PPO hyperparameters."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    """The periodic evaluation."""
    distill: DistillConfig | None = None
    """Imitate a teacher before PPO (DistillConfig; batch_ppo; the network then starts from
    the imitation); with algo: exit, each generation's search and fit. None: no
    distillation."""
    exit: ExitConfig | None = None
    """algo: exit only: the generations of expert iteration (ExitConfig)."""
    init: str | None = None
    """batch_ppo: start from the weights of this policy checkpoint (a run's policy.pt, or
    ``policy``: the committed checkpoint of the table) instead of random ones; its model
    must be ppo's (hidden, activation, features, delegate, symmetry; training/init_net.py).
    Step 0 is evaluated, the network joins the pool as the first snapshot, and
    ppo.anchor_coef anchors PPO to it. Not with a distill section. None: random weights."""

    def to_dict(self) -> dict:
        """The config as plain data (what a run folder's config.yaml holds); ``distill``
        and ``init`` only when set, so a run without them writes what it always did."""
        data = dataclasses.asdict(self)
        for name in ("distill", "init", "exit"):
            if data[name] is None:
                del data[name]
        return data


#: the sections every config has; each a mapping in YAML
SECTIONS = {"ppo": PPOConfig, "eval": EvalConfig}
#: the sections a config may leave out (null or absent: None)
OPTIONAL_SECTIONS = {"distill": DistillConfig, "exit": ExitConfig}


# -- messages -------------------------------------------------------------------------------
def _kind(value) -> str:
    """What YAML made of ``value``, in words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return f"a {type(value).__name__}"


def _found(value) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"found {text} ({_kind(value)})"


def _did_you_mean(name: str, choices) -> str:
    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _message(source: str, problems: list[str]) -> str:
    if len(problems) == 1:
        return f"{source}: {problems[0]}"
    return f"{source}: {len(problems)} problems: " + "; ".join(problems)


def _yaml_number(number: float) -> str:
    """``number`` written so that YAML reads it as a number."""
    if number.is_integer() and abs(number) < 1e15:
        return f"{int(number):_}"
    mantissa, exponent = f"{number:e}".split("e")
    mantissa = mantissa.rstrip("0")
    return f"{mantissa}{'0' if mantissa.endswith('.') else ''}e{int(exponent):+d}"


def _text_hint(value: str) -> str:
    """Why a number written as ``value`` came out as text, and how to write it."""
    try:
        number = float(value.replace("_", ""))
    except ValueError:
        return ""
    if not math.isfinite(number):
        return ""
    return f" (YAML reads {value} as text: write {_yaml_number(number)})"


# -- one field --------------------------------------------------------------------------------
def _check_scalar(value, hint, path: str, problems: list[str]):
    """``value`` checked against the type ``hint`` (bool, int, float, str, list[int],
    list[str], with ``| None``) and :data:`LIMITS`; normalised (an integral number for an
    int field becomes an int). Problems are appended to ``problems``."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        if value is None:
            return None
        (hint,) = [a for a in typing.get_args(hint) if a is not type(None)]
        nullable = " or null"
    else:
        nullable = ""
    limit = LIMITS.get(path)
    if typing.get_origin(hint) is list:
        (item,) = typing.get_args(hint)
        noun = "a non-empty list of integers" if item is int else "a list of names"
        if not isinstance(value, list) or (item is int and not value):
            problems.append(f"{path}: {_found(value)}, expected {noun}")
            return value
        return [_check_scalar(v, item, f"{path}[{i}]", problems) if item is not int
                else _check_number(v, True, limit, f"{path}[{i}]", "", problems)
                for i, v in enumerate(value)]
    if hint is bool:
        if not isinstance(value, bool):
            problems.append(f"{path}: {_found(value)}, expected true or false{nullable}")
        return value
    if hint is str:
        if not isinstance(value, str):
            problems.append(f"{path}: {_found(value)}, expected text{nullable}")
        return value
    return _check_number(value, hint is int, limit, path, nullable, problems)


def _check_number(value, integer: bool, limit: Interval | None, path: str, nullable: str,
                  problems: list[str]):
    noun = "an integer" if integer else "a number"
    expected = f"{noun}{f' {limit}' if limit else ''}{nullable}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        hint = _text_hint(value) if isinstance(value, str) else ""
        problems.append(f"{path}: {_found(value)}, expected {expected}{hint}")
        return value
    if not math.isfinite(value) or (integer and not float(value).is_integer()):
        problems.append(f"{path}: {_found(value)}, expected {expected}")
        return value
    if integer:
        value = int(value)
    if limit is not None and value not in limit:
        problems.append(f"{path}: {_found(value)}, expected {expected}")
    return value


def _check_section(obj, prefix: str, problems: list[str]) -> None:
    """Check (and normalise in place) every plain field of the dataclass ``obj``."""
    hints = typing.get_type_hints(type(obj))
    for f in dataclasses.fields(obj):
        hint = hints[f.name]
        if hint in (dict, list) or f.name in SECTIONS or f.name in OPTIONAL_SECTIONS:
            continue  # options, opponents, kwargs and the sections have their own checks
        value = getattr(obj, f.name)
        setattr(obj, f.name, _check_scalar(value, hint, prefix + f.name, problems))


def _known_fields(cls, data: Mapping, prefix: str, problems: list[str]) -> dict:
    """The entries of ``data`` that are fields of ``cls``; each other key is a problem."""
    names = [f.name for f in dataclasses.fields(cls)]
    known = {}
    for key, value in data.items():
        if key in names:
            known[key] = value
            continue
        hint = _other_section(key, prefix) or _did_you_mean(key, names) \
            or f"; expected one of {', '.join(names)}"
        problems.append(f"{prefix}{key}: unknown field{hint}")
    return known


def _other_section(key, prefix: str) -> str:
    """Where ``key`` belongs when it is a field of another section."""
    for section, cls in {"": TrainConfig, **SECTIONS, **OPTIONAL_SECTIONS}.items():
        if section + "." != prefix and key in {f.name for f in dataclasses.fields(cls)}:
            return (f"; {key} belongs in the {section}: section" if section
                    else f"; {key} is a top-level field, not one of {prefix[:-1]}:")
    return ""


def _choice(value, choices, path: str, problems: list[str], what: str = "") -> bool:
    if value in choices:
        return True
    problems.append(f"{path}: {_found(value)}, expected {what or 'one of'} "
                    f"{', '.join(map(str, choices))}{_did_you_mean(value, choices)}")
    return False


# -- fields that depend on the game ------------------------------------------------------------
def _check_options(game: str, options, problems: list[str]) -> None:
    from envs.registry import get, make_config

    config_class = get(game).load("config")
    if not isinstance(options, Mapping):
        problems.append(f"options: {_found(options)}, expected a mapping of "
                        f"{config_class.__name__} fields")
        return
    names = [f.name for f in dataclasses.fields(config_class)]
    unknown = [key for key in options if key not in names]
    for key in unknown:
        hint = _did_you_mean(key, names) or f"; expected one of {', '.join(names)}"
        problems.append(f"options.{key}: unknown {config_class.__name__} field{hint}")
    if unknown:
        return
    try:
        make_config(game, **options)
    except (ValueError, TypeError) as error:
        problems.append(f"options: {error}")


def _agent_names(game: str) -> list[str]:
    import agents

    return list(agents.available(game))


def _check_agent(name, game: str, path: str, problems: list[str]) -> None:
    """``name`` is an agent of ``game`` or ``policy:PATH`` of an existing file."""
    if isinstance(name, str) and name.startswith("policy:"):
        if not Path(name[len("policy:"):]).is_file():
            problems.append(f"{path}: {name!r} names no file; expected policy:PATH of a "
                            f"checkpoint")
        return
    if not isinstance(name, str):
        problems.append(f"{path}: {_found(name)}, expected an agent name")
        return
    _choice(name, _agent_names(game), path, problems,
            f"an agent of {game} (or policy:PATH), one of")


def _check_opponents(game: str, entries, problems: list[str]) -> None:
    from training.opponents import SELF, SNAPSHOT

    if not isinstance(entries, list) or not entries:
        problems.append(f"opponents: {_found(entries)}, expected a non-empty list of "
                        f"{{name, weight, kwargs}} entries")
        return
    names = [*_agent_names(game), SELF, SNAPSHOT]
    keys = ("name", "weight", "kwargs")
    total = 0.0
    for i, entry in enumerate(entries):
        where = f"opponents[{i}]"
        if isinstance(entry, str):
            entry = {"name": entry}
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: {_found(entry)}, expected an agent name or a mapping "
                            f"with keys name, weight, kwargs")
            continue
        for key in entry:
            if key not in keys:
                problems.append(f"{where}.{key}: unknown key{_did_you_mean(key, keys)}; "
                                f"expected name, weight, kwargs")
        if "name" not in entry:
            problems.append(f"{where}: no name; expected an agent of {game}, self or snapshot")
        elif isinstance(entry["name"], str):
            _choice(entry["name"], names, f"{where}.name", problems,
                    f"an agent of {game}, self or snapshot: one of")
        else:
            problems.append(f"{where}.name: {_found(entry['name'])}, expected an agent name")
        before = len(problems)
        weight = _check_number(entry.get("weight", 1.0), False, LIMITS["opponents[].weight"],
                               f"{where}.weight", "", problems)
        if len(problems) == before:
            total += weight
        kwargs = entry.get("kwargs")
        if kwargs is not None and not (isinstance(kwargs, Mapping)
                                       and all(isinstance(k, str) for k in kwargs)):
            problems.append(f"{where}.kwargs: {_found(kwargs)}, expected a mapping of "
                            f"keyword arguments of the agent")
    if total <= 0 and not problems:
        problems.append("opponents: every weight is 0, expected at least one weight > 0")


def _check_combination(cfg: TrainConfig, problems: list[str]) -> None:
    """The checks that read more than one field (the fields are well typed)."""
    from agents.four_aces.symmetry import check_symmetry
    from agents.policy.delegate import check_delegate
    from agents.policy.features import FEATURES

    game, p = cfg.game, cfg.ppo
    _check_options(game, cfg.options, problems)
    _check_opponents(game, cfg.opponents, problems)
    _check_agent(cfg.eval.opponent, game, "eval.opponent", problems)
    for i, name in enumerate(cfg.eval.baselines):
        _check_agent(name, game, f"eval.baselines[{i}]", problems)
    _choice(p.activation, ACTIVATIONS, "ppo.activation", problems)
    if _choice(p.features, tuple(FEATURES), "ppo.features", problems):
        if p.features != "none" and not p.features.startswith(game):
            problems.append(f"ppo.features: {p.features!r} does not fit game {game!r}")
        elif p.features.startswith("four_aces") and isinstance(cfg.options, Mapping):
            free = cfg.options.get("scoring") == "free"
            if (p.features == "four_aces_free") != free:
                want = ("four_aces_free" if free else "one of " + ", ".join(
                    name for name in FEATURES
                    if name.startswith("four_aces") and name != "four_aces_free"))
                problems.append(f"ppo.features: {p.features!r} scores with the other K3 rule "
                                f"than options.scoring: use {want}")
    for name, check in (("delegate", check_delegate), ("symmetry", check_symmetry)):
        try:
            check(game, getattr(p, name))
        except ValueError as error:
            problems.append(f"ppo.{error}")
    if cfg.algo == "exit" or cfg.exit is not None:
        _check_exit(cfg, problems)
    if cfg.distill is not None:
        _check_distill(cfg, problems)
    elif p.anchor_coef > 0 and cfg.init is None:
        problems.append("ppo.anchor_coef anchors PPO to the network it starts from: the "
                        "imitation of a distill stage or the init checkpoint; the config has "
                        "neither: add one or set it to 0")
    if cfg.init is not None:
        _check_init(cfg, problems)
    if cfg.algo == "sb3":
        if p.delegate is not None:
            problems.append("ppo.delegate needs algo: batch_ppo (the sb3 path trains on every "
                            "decision)")
        for name in ("features", "symmetry"):  # input transforms the sb3 MlpPolicy lacks
            if getattr(p, name) != "none":
                problems.append(f"ppo.{name} needs algo: batch_ppo (the sb3 path feeds raw "
                                "observations to its MlpPolicy)")


def _check_init(cfg: TrainConfig, problems: list[str]) -> None:
    """init: a checkpoint of the config's network (training/init_net.py), batch_ppo, no
    distill section."""
    if cfg.algo not in ("batch_ppo", "exit"):
        problems.append(f"init needs algo: batch_ppo (the {cfg.algo} path starts from random "
                        "weights); remove init or use algo: batch_ppo")
        return
    if cfg.distill is not None and cfg.algo != "exit":
        problems.append("init and a distill section both set the starting network; keep one")
        return
    if not isinstance(cfg.options, Mapping) or any(p.startswith("options") for p in problems):
        return
    from envs.registry import make_engine
    from training.init_net import MODEL_FIELDS, init_problems

    engine = make_engine(cfg.game, 1, **cfg.options)
    model = {name: getattr(cfg.ppo, name) for name in MODEL_FIELDS}
    problems += init_problems(cfg.game, dict(cfg.options), cfg.init, model,
                              engine.observation_size, engine.num_actions)


def _check_distill(cfg: TrainConfig, problems: list[str]) -> None:
    """The distill section against the rest of the config (its fields are well typed)."""
    d = cfg.distill
    if cfg.algo not in ("batch_ppo", "exit"):
        problems.append(f"distill needs algo: batch_ppo (the {cfg.algo} path cannot start "
                        f"from distilled weights); remove the distill section or use "
                        f"algo: batch_ppo")
        return
    kwargs = d.teacher_kwargs
    if not (isinstance(kwargs, Mapping) and all(isinstance(k, str) for k in kwargs)):
        problems.append(f"distill.teacher_kwargs: {_found(kwargs)}, expected a mapping of "
                        f"keyword arguments of the teacher")
        return
    if "seed" in kwargs:
        problems.append("distill.teacher_kwargs.seed: the teacher is seeded from the run's "
                        "seed; remove it")
        return
    before = len(problems)
    _check_agent(d.teacher, cfg.game, "distill.teacher", problems)
    if len(problems) > before:
        return
    from agents.registry import make_from_spec

    try:  # building the teacher checks its arguments (it is how training/distill.py makes it)
        teacher = make_from_spec(d.teacher, cfg.game, **kwargs)
    except (ValueError, TypeError) as error:
        problems.append(f"distill.teacher_kwargs: {d.teacher} refuses {dict(kwargs)!r} "
                        f"({str(error).splitlines()[0] if str(error) else type(error).__name__})")
        return
    if d.fallback is not None:
        _check_fallback(cfg, teacher, problems)
    if _choice(d.targets, TARGETS, "distill.targets", problems) and d.targets == "values":
        if d.fallback is not None:
            problems.append("distill.targets: values imitates the teacher's values, "
                            "distill.fallback relabels its choices: use one of them")
        if not teacher.reports_values:
            problems.append(f"distill.targets: values needs a teacher that reports action "
                            f"values (pimc); {d.teacher!r} reports none: use targets: action")
    if d.record is not None and not Path(d.record).is_file():
        problems.append(f"distill.record: no file {d.record!r}; expected the teacher.npz "
                        "of an earlier run of this config, or no record (the teacher plays)")


def _check_exit(cfg: TrainConfig, problems: list[str]) -> None:
    """algo: exit needs its exit section and a distill section whose teacher is a search
    that reports action values; the exit section needs algo: exit."""
    if cfg.algo != "exit":
        problems.append(f"exit: the section of algo: exit, the config's algo is {cfg.algo}; "
                        "remove it or set algo: exit")
        return
    if cfg.exit is None or cfg.distill is None:
        missing = " and ".join(name for name in ("exit", "distill")
                               if getattr(cfg, name) is None)
        problems.append(f"algo: exit needs {missing} section(s): exit sets the generations, "
                        "distill each generation's search and fit (training/exit.py)")
        return
    _choice(cfg.exit.backend, BACKENDS, "exit.backend", problems)
    if cfg.distill.record is not None:
        problems.append("distill.record: algo: exit plays a new record each generation; "
                        "remove it")


def _check_fallback(cfg: TrainConfig, teacher, problems: list[str]) -> None:
    """distill.fallback: an agent of the game that acts on observations, and a ``teacher``
    (the built agent) that reports action values (training/distill.py: relabel)."""
    d = cfg.distill
    before = len(problems)
    _check_agent(d.fallback, cfg.game, "distill.fallback", problems)
    if len(problems) > before:
        return
    from agents.registry import make_from_spec

    if not teacher.reports_values:
        problems.append(f"distill.fallback needs a teacher that reports action values "
                        f"(pimc); {d.teacher!r} reports none: remove the fallback")
    if getattr(make_from_spec(d.fallback, cfg.game), "needs_engine", False):
        problems.append(f"distill.fallback: {d.fallback!r} searches on the engine; expected "
                        "an agent that acts on observations, such as heuristic")


def config_problems(cfg: TrainConfig) -> list[str]:
    """Every problem of ``cfg``, one string each (``field: found ..., expected ...``);
    normalises the fields it accepts (an integral number for an int field becomes an int)."""
    from envs.registry import GAMES

    problems: list[str] = []
    for name, cls in SECTIONS.items():
        section = getattr(cfg, name)
        if not isinstance(section, cls):
            problems.append(f"{name}: {_found(section)}, expected a {cls.__name__}")
            return problems
    for name, cls in OPTIONAL_SECTIONS.items():
        section = getattr(cfg, name)
        if section is not None and not isinstance(section, cls):
            problems.append(f"{name}: {_found(section)}, expected a {cls.__name__} or None")
            return problems
    _check_section(cfg, "", problems)
    _check_section(cfg.ppo, "ppo.", problems)
    _check_section(cfg.eval, "eval.", problems)
    for name in OPTIONAL_SECTIONS:
        if getattr(cfg, name) is not None:
            _check_section(getattr(cfg, name), f"{name}.", problems)
    game_ok = _choice(cfg.game, GAMES, "game", problems)
    _choice(cfg.algo, ALGOS, "algo", problems)
    if game_ok and not problems:
        _check_combination(cfg, problems)
    return problems


def check_config(cfg: TrainConfig, source: str = "training config") -> TrainConfig:
    """``cfg`` after checking every field (names, types, ranges, choices, combinations);
    one ``ValueError`` naming ``source`` and each field that is not allowed. Normalises what
    it accepts (an integral number for an int field becomes an int). A program that builds
    or changes a TrainConfig itself calls this; :func:`training.train.train` does too."""
    problems = config_problems(cfg)
    if problems:
        raise ValueError(_message(source, problems))
    return cfg


# -- building and loading -----------------------------------------------------------------------
def merge_overrides(data: Mapping | None, overrides: Mapping[str, Any] | None,
                    keep_none: bool = False) -> dict:
    """A copy of the parsed mapping ``data`` with ``overrides`` set in it.

    ``overrides`` maps field names to values; a ``None`` value is skipped (an option not
    given; with ``keep_none`` it sets the field to None, ``--set field=null``) and a
    dotted name (``ppo.learning_rate``, ``distill.teacher_kwargs.worlds``) sets a field of
    a section, at any depth.
    """
    merged = dict(data or {})
    for name, value in (overrides or {}).items():
        if value is None and not keep_none:
            continue
        *sections, key = name.split(".")
        target = merged
        for section in sections:  # copy each mapping on the way: data is left unchanged
            current = target.get(section)
            target[section] = dict(current) if isinstance(current, Mapping) else {}
            target = target[section]
        target[key] = value
    return merged


def parse_setting(setting: str) -> tuple[str, Any]:
    """``("ppo.learning_rate", 1.0e-4)`` from the command line's ``--set
    ppo.learning_rate=1.0e-4``: a dotted field name, ``=``, and a value read as YAML reads
    it (``1.0e-4`` a number, ``[64, 64]`` a list, ``null`` None, ``three`` text).
    ``ValueError`` naming the setting when it has no ``=`` or a value YAML cannot read."""
    name, sep, text = setting.partition("=")
    name = name.strip()
    if not sep or not name or any(not part for part in name.split(".")):
        raise ValueError(f"--set {setting!r}: expected FIELD=VALUE with a dotted field name, "
                         "e.g. --set ppo.learning_rate=1.0e-4 or --set options.variant=three")
    try:
        value = yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ValueError(f"--set {setting!r}: the value is not valid YAML ({problem})") from None
    return name, value


def config_from_dict(data: Mapping | None, source: str = "training config") -> TrainConfig:
    """A validated :class:`TrainConfig` from a parsed YAML mapping (``None``: all defaults);
    ``source`` names it in the ``ValueError`` listing every problem."""
    if data is None:
        data = {}
    if not isinstance(data, Mapping):
        names = ", ".join(f.name for f in dataclasses.fields(TrainConfig))
        raise ValueError(f"{source}: {_found(data)}, expected a mapping of config fields "
                         f"({names})")
    data = dict(data)
    problems: list[str] = []
    sections = {}
    for name, cls in SECTIONS.items():
        raw = data.pop(name, None)
        if raw is None:
            raw = {}
        elif not isinstance(raw, Mapping):
            problems.append(f"{name}: {_found(raw)}, expected a mapping of {cls.__name__} "
                            f"fields")
            raw = {}
        sections[name] = cls(**_known_fields(cls, raw, f"{name}.", problems))
    for name, cls in OPTIONAL_SECTIONS.items():
        raw = data.pop(name, None)
        if raw is not None and not isinstance(raw, Mapping):
            problems.append(f"{name}: {_found(raw)}, expected a mapping of {cls.__name__} "
                            f"fields or null")
            raw = None
        sections[name] = None if raw is None else cls(**_known_fields(cls, raw, f"{name}.",
                                                                       problems))
    cfg = TrainConfig(**_known_fields(TrainConfig, data, "", problems), **sections)
    problems += config_problems(cfg)
    if problems:
        raise ValueError(_message(source, problems))
    return cfg


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping repeating a key (YAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                repeated = key in seen
                seen.add(key)
            except TypeError:  # an unhashable key: SafeLoader reports it
                continue
            if repeated:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} appears twice", key_node.start_mark)
        return super().construct_mapping(node, deep)


def _existing_configs(path: Path) -> str:
    """The configs there are, for the message on a missing config file."""
    folder = path.parent if path.parent.is_dir() and any(path.parent.glob("*.yaml")) \
        else CONFIG_DIR
    names = sorted(p.name for p in folder.glob("*.yaml"))
    if not names:
        return f"{folder} holds no .yaml config"
    shown = path.parent if folder == path.parent else folder
    hint = _did_you_mean(path.name, names)
    return f"the configs in {shown}/ are: {', '.join(names)}{hint}"


def read_config_file(path: str | Path) -> dict:
    """The mapping of a YAML config file; ``ValueError`` naming the file for a missing,
    unreadable, empty or invalid file, a repeated key, a document nested too deeply to be
    read or one that is not a mapping."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"config file {path} does not exist; {_existing_configs(path)}")
    if not path.is_file():
        raise ValueError(f"config file {path} is not a file; expected a YAML file such as "
                         f"configs/abracadabra_four.yaml")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"config file {path} is not UTF-8 text (byte {error.start}); "
                         f"expected a YAML file") from None
    except OSError as error:
        raise ValueError(f"config file {path} cannot be read ({error.strerror})") from None
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ValueError(f"config file {path}: {where}not valid YAML ({problem})") from None
    except RecursionError:
        raise ValueError(f"config file {path}: lists or mappings nested too deeply to be read "
                         f"(beyond Python's recursion limit); expected config fields a few "
                         f"levels deep") from None
    if data is None:
        raise ValueError(f"config file {path} is empty; expected a mapping of config fields "
                         f"such as game, options, total_steps (training/config.py)")
    if not isinstance(data, Mapping):
        names = ", ".join(f.name for f in dataclasses.fields(TrainConfig))
        raise ValueError(f"config file {path}: {_found(data)}, expected a mapping of config "
                         f"fields ({names})")
    return dict(data)


def load_config(path: str | Path, overrides: Mapping[str, Any] | None = None,
                settings: Mapping[str, Any] | None = None) -> TrainConfig:
    """The validated :class:`TrainConfig` of a YAML file, with ``overrides`` (field name ->
    value, see :func:`merge_overrides`; None: not given) and then ``settings`` (the same,
    None setting the field to None: ``--set``) merged in before validation. One ``ValueError``
    names the file (and the overrides given) and every problem; nothing is created."""
    data = read_config_file(path)
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    given.update(settings or {})
    source = f"config file {path}"
    if given:
        source += " with " + ", ".join(f"{k}={v!r}" for k, v in given.items())
    return config_from_dict(merge_overrides(data, given, keep_none=True), source)
