"""The training config's validation: every field typed, ranged and documented; what YAML
reads ambiguously is refused with the field named and the fix."""

from __future__ import annotations

import ast
import dataclasses
import inspect

import pytest
import yaml

import training.config as config_module
from training.config import (
    LIMITS,
    DistillConfig,
    EvalConfig,
    ExitConfig,
    Interval,
    PPOConfig,
    TrainConfig,
    _yaml_number,
    check_config,
    config_from_dict,
)
from training.train import train


def field_docstrings(cls) -> dict[str, str]:
    """The docstring line(s) under each field of a dataclass, read from its source."""
    body = ast.parse(inspect.getsource(cls)).body[0].body
    docs = {}
    for node, after in zip(body, body[1:], strict=False):
        if (isinstance(node, ast.AnnAssign) and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def test_every_field_is_documented_with_its_range():
    sections = ((TrainConfig, ""), (PPOConfig, "ppo."), (EvalConfig, "eval."),
                (DistillConfig, "distill."), (ExitConfig, "exit."))
    for cls, prefix in sections:
        docs = field_docstrings(cls)
        for f in dataclasses.fields(cls):
            assert f.name in docs, f"{cls.__name__}.{f.name} has no docstring"
            limit = LIMITS.get(prefix + f.name)
            if limit is not None:
                assert str(limit) in docs[f.name], (prefix + f.name, str(limit), docs[f.name])
    assert str(LIMITS["opponents[].weight"]) in field_docstrings(TrainConfig)["opponents"]
    names = {prefix + f.name for c, prefix in sections for f in dataclasses.fields(c)}
    assert set(LIMITS) - names == {"opponents[].weight"}  # every range belongs to a field


def test_interval_text_and_membership():
    assert str(Interval(0, low_open=True)) == "> 0"
    assert str(Interval(0, 1, low_open=True)) == "in (0, 1]"
    assert str(Interval(1, 65_536)) == "in [1, 65_536]"
    assert 1 in Interval(0, 1, low_open=True) and 0 not in Interval(0, 1, low_open=True)
    assert float("nan") not in Interval(0)


@pytest.mark.parametrize("number", [1e6, 5e-4, 3e-4, 2.5e10, 1e-12, 0.5, 123.0])
def test_suggested_numbers_are_numbers_in_yaml(number):
    assert yaml.safe_load(f"x: {_yaml_number(number)}")["x"] == pytest.approx(number)


def test_what_yaml_reads_unambiguously_is_accepted():
    cfg = config_from_dict(yaml.safe_load(
        "total_steps: 2.0e+6\nmax_minutes: 30\nppo: {learning_rate: 5.0e-4, target_kl: null}"))
    assert cfg.total_steps == 2_000_000 and isinstance(cfg.total_steps, int)
    assert cfg.max_minutes == 30 and cfg.ppo.learning_rate == 5e-4
    assert config_from_dict(None) == TrainConfig()  # no data: the defaults


@pytest.mark.parametrize(("data", "expected"), [
    ({"total_steps": "1e6"}, "total_steps: found '1e6' (text), expected an integer in "
                             "[1, 1_000_000_000_000] (YAML reads 1e6 as text: write 1_000_000)"),
    ({"ppo": {"learning_rate": "5e-4"}}, "(YAML reads 5e-4 as text: write 5.0e-4)"),
    ({"total_steps": True}, "total_steps: found True (a boolean), expected an integer"),
    ({"ppo": {"norm_adv": 1}}, "ppo.norm_adv: found 1 (an integer), expected true or false"),
    ({"ppo": {"target_kl": float("inf")}}, "ppo.target_kl: found inf (a number), expected a "
                                           "number > 0 or null"),
    ({"anneal_lr": False}, "anneal_lr: unknown field; anneal_lr belongs in the ppo: section"),
    ({"ppo": {"deals": 3}}, "ppo.deals: unknown field; deals belongs in the eval: section"),
    ({"eval": {"baselines": "random"}}, "eval.baselines: found 'random' (text), expected a "
                                        "list of names"),
    ({"opponents": [{"name": "random", "wieght": 1}]},
     "opponents[0].wieght: unknown key; did you mean 'weight'?"),
    ({"eval": {"opponent": "policy:/no/such.pt"}}, "eval.opponent: 'policy:/no/such.pt' names "
                                                   "no file"),
    ({"game": "four_aces", "options": {"scoring": "free"}, "ppo": {"features": "four_aces"}},
     "ppo.features: 'four_aces' scores with the other K3 rule than options.scoring"),
])
def test_bad_fields_are_named_with_found_and_expected(data, expected):
    with pytest.raises(ValueError) as error:
        config_from_dict(data, "config file x.yaml")
    assert str(error.value).startswith("config file x.yaml: ")
    assert expected in str(error.value)
    assert "\n" not in str(error.value)


def test_a_changed_config_is_checked_before_a_run_folder_exists(tmp_path):
    cfg = TrainConfig()
    cfg.ppo.gamma = 1.5
    with pytest.raises(ValueError, match=r"ppo.gamma: found 1.5 \(a number\), expected a "
                                         r"number in \(0, 1\]"):
        check_config(cfg)
    with pytest.raises(ValueError, match="ppo.gamma"):
        train(cfg, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


def test_repeated_keys_are_refused(tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text("seed: 1\nppo:\n  gamma: 0.9\n  gamma: 0.99\n")
    with pytest.raises(ValueError, match=r"twice.yaml: line 4, column 3: not valid YAML "
                                         r"\(the key 'gamma' appears twice\)"):
        config_module.load_config(path)


# -- the distill section ------------------------------------------------------------------------
def test_no_distill_section_is_the_default_and_leaves_the_config_as_it_was():
    assert TrainConfig().distill is None
    assert "distill" not in TrainConfig().to_dict()  # run folders and resume files unchanged
    assert config_from_dict({"distill": None}).distill is None
    cfg = config_from_dict({"distill": {"teacher": "heuristic", "deals": 2.0e+3}})
    assert cfg.distill == DistillConfig(teacher="heuristic", deals=2000)
    assert cfg.to_dict()["distill"]["deals"] == 2000


@pytest.mark.parametrize(("data", "expected"), [
    ({"algo": "sb3", "distill": {}}, "distill needs algo: batch_ppo"),
    ({"distill": "pimc"}, "distill: found 'pimc' (text), expected a mapping of DistillConfig "
                          "fields or null"),
    ({"distill": {"deals": 0}}, "distill.deals: found 0 (an integer), expected an integer in "
                                "[1, 100_000_000]"),
    ({"distill": {"epochs": 1.5}}, "distill.epochs: found 1.5 (a number), expected an integer"),
    ({"distill": {"learning_rate": 0}}, "distill.learning_rate: found 0 (an integer), expected "
                                        "a number > 0"),
    ({"distill": {"holdout": 1.0}}, "distill.holdout: found 1.0 (a number), expected a number "
                                    "in [0, 1)"),
    ({"distill": {"worlds": 8}}, "distill.worlds: unknown field"),
    ({"distill": {"epochs": 3}, "ppo": {"deals": 3}}, "ppo.deals: unknown field; deals belongs "
                                                      "in the eval: section"),
    ({"distill": {"teacher": "pimcc"}}, "distill.teacher: found 'pimcc' (text), expected an "
                                        "agent of abracadabra (or policy:PATH)"),
    ({"distill": {"teacher": "policy:/no/such.pt"}}, "distill.teacher: 'policy:/no/such.pt' "
                                                     "names no file"),
    ({"distill": {"teacher_kwargs": {"worlds": 0}}}, "distill.teacher_kwargs: pimc refuses "
                                                     "{'worlds': 0} (worlds=0 is not allowed"),
    ({"distill": {"teacher_kwargs": {"depth": 3}}}, "distill.teacher_kwargs: pimc refuses "
                                                    "{'depth': 3}"),
    ({"distill": {"teacher_kwargs": [8]}}, "distill.teacher_kwargs: found [8] (a list), "
                                           "expected a mapping"),
    ({"distill": {"teacher_kwargs": {"seed": 3}}}, "distill.teacher_kwargs.seed: the teacher "
                                                   "is seeded from the run's seed"),
    ({"distill": {"margin": -1}}, "distill.margin: found -1 (an integer), expected a number "
                                  ">= 0"),
    ({"distill": {"teacher": "heuristic", "fallback": "control"}},
     "distill.fallback needs a teacher that reports action values (pimc); 'heuristic' "
     "reports none"),
    ({"distill": {"fallback": "pimc"}}, "distill.fallback: 'pimc' searches on the engine"),
    ({"distill": {"fallback": "heuristik"}}, "distill.fallback: found 'heuristik' (text), "
                                             "expected an agent of abracadabra"),
    ({"distill": {"fallback": 3}}, "distill.fallback: found 3 (an integer), expected text or "
                                   "null"),
    ({"distill": {"targets": "value"}}, "distill.targets: found 'value' (text), expected one "
                                        "of action, values"),
    ({"distill": {"targets": "values", "temperature": 0}},
     "distill.temperature: found 0 (an integer), expected a number > 0"),
    ({"distill": {"teacher": "heuristic", "targets": "values"}},
     "distill.targets: values needs a teacher that reports action values (pimc); "
     "'heuristic' reports none"),
    ({"distill": {"targets": "values", "fallback": "heuristic"}},
     "distill.targets: values imitates the teacher's values, distill.fallback relabels its "
     "choices: use one of them"),
    ({"distill": {"record": "runs/none/teacher.npz"}},
     "distill.record: no file 'runs/none/teacher.npz'; expected the teacher.npz of an "
     "earlier run of this config"),
    ({"ppo": {"anchor_coef": 1.0}}, "ppo.anchor_coef anchors PPO to the network it starts "
                                    "from: the imitation of a distill stage or the init "
                                    "checkpoint; the config has neither"),
    ({"ppo": {"anchor_coef": -1.0}, "distill": {}}, "ppo.anchor_coef: found -1.0"),
])
def test_bad_distill_sections_are_named(data, expected):
    with pytest.raises(ValueError) as error:
        config_from_dict(data, "config file x.yaml")
    assert str(error.value).startswith("config file x.yaml: ")
    assert expected in str(error.value)
    assert "\n" not in str(error.value)


def test_a_distill_field_belongs_in_its_section():
    with pytest.raises(ValueError, match=r"holdout: unknown field; holdout belongs in the "
                                         r"distill: section"):
        config_from_dict({"holdout": 0.1})


@pytest.mark.parametrize("setting, field, value", [
    ("ppo.learning_rate=1.0e-4", ("ppo", "learning_rate"), 1e-4),
    ("options.variant=three", ("options", "variant"), "three"),
    ("ppo.hidden=[64, 32]", ("ppo", "hidden"), [64, 32]),
    ("ppo.norm_adv=false", ("ppo", "norm_adv"), False),
    ("ppo.target_kl=null", ("ppo", "target_kl"), None),
    ("num_games=8", ("num_games",), 8),
])
def test_set_reaches_every_field_type(setting, field, value):
    """``cardrl train --set FIELD=VALUE``: any field, dotted for a section's, read as YAML."""
    from training.config import load_config, parse_setting

    name, parsed = parse_setting(setting)
    cfg = load_config("configs/abracadabra_four.yaml", settings={name: parsed})
    found = cfg
    for part in field:
        found = found[part] if isinstance(found, dict) else getattr(found, part)
    assert found == value


@pytest.mark.parametrize("setting, message", [
    ("ppo.learning_rate", "expected FIELD=VALUE"),
    ("ppo..gamma=1", "expected FIELD=VALUE"),
    ("ppo.hidden=[64", "not valid YAML"),
])
def test_a_malformed_set_is_one_line(setting, message):
    from training.config import parse_setting

    with pytest.raises(ValueError, match=message):
        parse_setting(setting)


@pytest.mark.parametrize("setting, message", [
    ("ppo.learning_rate=1e-4", "write 1.0e-4"),
    ("ppo.gama=0.9", "did you mean 'gamma'"),
    ("num_games=0", "num_games"),
])
def test_a_bad_set_value_is_refused_with_the_file(setting, message):
    from training.config import load_config, parse_setting

    with pytest.raises(ValueError, match=message) as error:
        load_config("configs/abracadabra_four.yaml", settings=dict([parse_setting(setting)]))
    assert "\n" not in str(error.value)
