"""The checks of a training config that read more than one field, run once every field is
well typed (:func:`training.config.config_from_dict`): the game's options (its config
class), the agents named (the game's, or ``policy:PATH``), the network's input transforms
(checked by their own modules against the game and its options: the feature sets and
symmetries each game registers, :mod:`agents.policy.features`), and what the training
algorithms need of each other's sections. Each problem is one string."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from training.config_load import did_you_mean, found

#: a training.config.TrainConfig, well typed; not imported: training.config imports this module
TrainConfig = Any


def check_combination(cfg: TrainConfig, problems: list[str]) -> None:
    """Append to ``problems`` what ``cfg`` (well typed) asks that cannot be."""
    from agents.policy.delegate import check_delegate
    from agents.policy.features import check_features, check_symmetry

    game_config = _check_options(cfg, problems)
    _check_opponents(cfg, problems)
    _check_agent(cfg.eval.opponent, cfg.game, "eval.opponent", problems)
    for i, name in enumerate(cfg.eval.baselines):
        _check_agent(name, cfg.game, f"eval.baselines[{i}]", problems)
    p = cfg.ppo
    for check, args in ((check_features, (p.features, cfg.game, game_config)),
                        (check_delegate, (cfg.game, p.delegate)),
                        (check_symmetry, (cfg.game, p.symmetry))):
        try:
            check(*args)
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
        _check_init(cfg, game_config, problems)
    if cfg.algo == "sb3":
        if p.delegate is not None:
            problems.append("ppo.delegate needs algo: batch_ppo (the sb3 path trains on every "
                            "decision)")
        for name in ("features", "symmetry"):  # input transforms the sb3 MlpPolicy lacks
            if getattr(p, name) != "none":
                problems.append(f"ppo.{name} needs algo: batch_ppo (the sb3 path feeds raw "
                                "observations to its MlpPolicy)")


def _check_options(cfg: TrainConfig, problems: list[str]):
    """The game's config built from ``options`` (its own class checks them), or None."""
    from envs.registry import get, make_config

    config_class = get(cfg.game).load("config")
    names = [f.name for f in dataclasses.fields(config_class)]
    unknown = [key for key in cfg.options if key not in names]
    for key in unknown:
        hint = did_you_mean(key, names) or f"; expected one of {', '.join(names)}"
        problems.append(f"options.{key}: unknown {config_class.__name__} field{hint}")
    if unknown:
        return None
    try:
        return make_config(cfg.game, **cfg.options)
    except (ValueError, TypeError) as error:
        problems.append(f"options: {error}")
        return None


def _check_agent(name, game: str, path: str, problems: list[str], others=()) -> None:
    """``name`` is an agent of ``game`` or one of ``others`` (with no others: or
    ``policy:PATH`` of a file)."""
    import agents

    if not others and isinstance(name, str) and name.startswith("policy:"):
        if not Path(name[len("policy:"):]).is_file():
            problems.append(f"{path}: {name!r} names no file; expected policy:PATH of a "
                            f"checkpoint")
        return
    choices = [*agents.available(game), *others]
    if not isinstance(name, str):
        problems.append(f"{path}: {found(name)}, expected an agent name")
    elif name not in choices:
        what = f"{' or '.join(others)}: one of" if others else "(or policy:PATH), one of"
        problems.append(f"{path}: {found(name)}, expected an agent of {game}"
                        f"{', ' if others else ' '}{what} {', '.join(choices)}"
                        f"{did_you_mean(name, choices)}")


def _check_opponents(cfg: TrainConfig, problems: list[str]) -> None:
    from training.config_load import within
    from training.opponents import SELF, SNAPSHOT

    entries, keys, total = cfg.opponents, ("name", "weight", "kwargs"), 0.0
    if not entries:
        problems.append("opponents: found [] (a list), expected a non-empty list of "
                        "{name, weight, kwargs} entries")
    for i, entry in enumerate(entries):
        where, before = f"opponents[{i}]", len(problems)
        entry = {"name": entry} if isinstance(entry, str) else entry
        if not isinstance(entry, Mapping):
            problems.append(f"{where}: {found(entry)}, expected an agent name or a mapping "
                            f"with keys name, weight, kwargs")
            continue
        for key in set(entry) - set(keys):
            problems.append(f"{where}.{key}: unknown key{did_you_mean(key, keys)}; "
                            f"expected name, weight, kwargs")
        if "name" not in entry:
            problems.append(f"{where}: no name; expected an agent of {cfg.game}, self or "
                            f"snapshot")
        else:
            _check_agent(entry["name"], cfg.game, f"{where}.name", problems, (SELF, SNAPSHOT))
        weight = entry.get("weight", 1.0)
        if (isinstance(weight, bool) or not isinstance(weight, (int, float))
                or not within(weight, ">= 0") or weight == float("inf")):
            problems.append(f"{where}.weight: {found(weight)}, expected a number >= 0")
        elif len(problems) == before:
            total += weight
        kwargs = entry.get("kwargs")
        if kwargs is not None and not (isinstance(kwargs, Mapping)
                                       and all(isinstance(k, str) for k in kwargs)):
            problems.append(f"{where}.kwargs: {found(kwargs)}, expected a mapping of "
                            f"keyword arguments of the agent")
    if entries and total <= 0 and not problems:
        problems.append("opponents: every weight is 0, expected at least one weight > 0")


def _check_exit(cfg: TrainConfig, problems: list[str]) -> None:
    """algo: exit needs its exit section and a distill section; the exit section needs
    algo: exit."""
    if cfg.algo != "exit":
        problems.append(f"exit: the section of algo: exit, the config's algo is {cfg.algo}; "
                        "remove it or set algo: exit")
    elif cfg.exit is None or cfg.distill is None:
        missing = " and ".join(n for n in ("exit", "distill") if getattr(cfg, n) is None)
        problems.append(f"algo: exit needs {missing} section(s): exit sets the generations, "
                        "distill each generation's search and fit (training/exit.py)")
    elif cfg.distill.record is not None:
        problems.append("distill.record: algo: exit plays a new record each generation; "
                        "remove it")


def _check_distill(cfg: TrainConfig, problems: list[str]) -> None:
    """The teacher (built: it checks its arguments), the fallback, targets and record."""
    from agents.registry import make_from_spec

    d = cfg.distill
    if cfg.algo not in ("batch_ppo", "exit"):
        problems.append(f"distill needs algo: batch_ppo (the {cfg.algo} path cannot start "
                        f"from distilled weights); remove the distill section or use "
                        f"algo: batch_ppo")
        return
    if not all(isinstance(k, str) for k in d.teacher_kwargs):
        problems.append(f"distill.teacher_kwargs: {found(d.teacher_kwargs)}, expected a "
                        f"mapping of keyword arguments of the teacher")
        return
    if "seed" in d.teacher_kwargs:
        problems.append("distill.teacher_kwargs.seed: the teacher is seeded from the run's "
                        "seed; remove it")
        return
    before = len(problems)
    _check_agent(d.teacher, cfg.game, "distill.teacher", problems)
    if d.fallback is not None:
        _check_agent(d.fallback, cfg.game, "distill.fallback", problems)
    if len(problems) > before:
        return
    try:  # building the teacher checks its arguments (as training/distill.py makes it)
        teacher = make_from_spec(d.teacher, cfg.game, **d.teacher_kwargs)
    except (ValueError, TypeError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        problems.append(f"distill.teacher_kwargs: {d.teacher} refuses "
                        f"{dict(d.teacher_kwargs)!r} ({first})")
        return
    if d.fallback is not None and not teacher.reports_values:
        problems.append(f"distill.fallback needs a teacher that reports action values "
                        f"(pimc); {d.teacher!r} reports none: remove the fallback")
    if d.fallback is not None and getattr(make_from_spec(d.fallback, cfg.game),
                                          "needs_engine", False):
        problems.append(f"distill.fallback: {d.fallback!r} searches on the engine; expected "
                        "an agent that acts on observations, such as heuristic")
    if d.targets == "values" and d.fallback is not None:
        problems.append("distill.targets: values imitates the teacher's values, "
                        "distill.fallback relabels its choices: use one of them")
    if d.targets == "values" and not teacher.reports_values:
        problems.append(f"distill.targets: values needs a teacher that reports action values "
                        f"(pimc); {d.teacher!r} reports none: use targets: action")
    if d.record is not None and not Path(d.record).is_file():
        problems.append(f"distill.record: no file {d.record!r}; expected the teacher.npz "
                        "of an earlier run of this config, or no record (the teacher plays)")


def _check_init(cfg: TrainConfig, game_config, problems: list[str]) -> None:
    """init: a checkpoint of the config's network (training/init_net.py), batch_ppo, no
    distill section (but with algo: exit)."""
    from envs.registry import make_engine
    from training.init_net import MODEL_FIELDS, init_problems

    if cfg.algo not in ("batch_ppo", "exit"):
        problems.append(f"init needs algo: batch_ppo (the {cfg.algo} path starts from random "
                        "weights); remove init or use algo: batch_ppo")
    elif cfg.distill is not None and cfg.algo != "exit":
        problems.append("init and a distill section both set the starting network; keep one")
    elif game_config is not None:
        engine = make_engine(cfg.game, 1, **cfg.options)
        model = {name: getattr(cfg.ppo, name) for name in MODEL_FIELDS}
        problems += init_problems(cfg.game, dict(cfg.options), cfg.init, model,
                                  engine.observation_size, engine.num_actions)
