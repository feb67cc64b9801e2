"""The training config: every field typed, ranged and documented once; ``--set`` reaches
every field type; each bad value is one line naming the field and what was expected;
``extends:``; every file in configs/ loads, and every removed config is one of them with
``--set`` settings, to the same values."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
from pathlib import Path

import pytest
import yaml

from training.config import (
    CONFIG_DIR,
    DistillConfig,
    EvalConfig,
    ExitConfig,
    PPOConfig,
    TrainConfig,
    check_config,
    config_from_dict,
    load_config,
    parse_setting,
)
from training.config_load import within, yaml_number
from training.train import train

CONFIGS = sorted(CONFIG_DIR.glob("*.yaml"))
CLASSES = (TrainConfig, PPOConfig, EvalConfig, DistillConfig, ExitConfig)


def load(path, *settings):
    return load_config(path, settings=dict(parse_setting(s) for s in settings))


# -- the schema -----------------------------------------------------------------------------
def test_every_field_has_one_line_of_doc_and_its_default_is_allowed():
    for cls in CLASSES:
        defaults = cls()
        for f in dataclasses.fields(cls):
            doc, limit = f.metadata["doc"], f.metadata["limit"]
            assert doc and "\n" not in doc and doc.endswith("."), (cls.__name__, f.name)
            value = getattr(defaults, f.name)
            for number in (value if isinstance(value, list) else [value]):
                assert limit is None or number is None or within(number, limit), f.name
    assert config_from_dict(TrainConfig().to_dict()) == TrainConfig()


@pytest.mark.parametrize(("limit", "inside", "outside"), [
    ("> 0", [1e-9, 5], [0, -1]), (">= 0", [0, 3], [-1e-9]),
    ("in (0, 1]", [1, 0.5], [0, 1.01]), ("in [0, 1)", [0, 0.99], [1]),
    ("in [1, 65_536]", [1, 65_536], [0, 65_537])])
def test_a_range_is_read_as_the_docs_write_it(limit, inside, outside):
    assert all(within(v, limit) for v in inside)
    assert not any(within(v, limit) for v in outside)


@pytest.mark.parametrize("number", [1e6, 5e-4, 3e-4, 2.5e10, 1e-12, 0.5, 123.0])
def test_suggested_numbers_are_numbers_in_yaml(number):
    assert yaml.safe_load(f"x: {yaml_number(number)}")["x"] == pytest.approx(number)


@pytest.mark.parametrize(("data", "expected"), [
    ({"total_steps": "1e6"}, "total_steps: found '1e6' (text), expected an integer in "
                             "[1, 1_000_000_000_000] (YAML reads 1e6 as text: write 1_000_000)"),
    ({"ppo": {"learning_rate": "5e-4"}}, "(YAML reads 5e-4 as text: write 5.0e-4)"),
])
def test_a_number_yaml_reads_as_text_in_a_file_is_refused_with_the_fix(data, expected):
    with pytest.raises(ValueError, match=re.escape(expected)):
        config_from_dict(data, "config file x.yaml")


def test_what_yaml_reads_unambiguously_is_accepted():
    cfg = config_from_dict(yaml.safe_load(
        "total_steps: 2.0e+6\nmax_minutes: 30\nppo: {learning_rate: 5.0e-4, target_kl: null}"))
    assert cfg.total_steps == 2_000_000 and isinstance(cfg.total_steps, int)
    assert cfg.max_minutes == 30 and cfg.ppo.learning_rate == 5e-4
    assert config_from_dict(None) == TrainConfig()  # no data: the defaults
    assert config_from_dict({"eval": None}) == TrainConfig()  # an empty section: its defaults


# -- --set: every field type ------------------------------------------------------------------
@pytest.mark.parametrize("setting, field, value", [
    ("num_games=8", "num_games", 8),                                      # int
    ("total_steps=2.0e+6", "total_steps", 2_000_000),                     # int, integral number
    ("total_steps=1e6", "total_steps", 1_000_000),                        # a YAML 1.2 number
    ("ppo.learning_rate=1e-4", "ppo.learning_rate", 1e-4),
    ("ppo.learning_rate=1.0e-4", "ppo.learning_rate", 1e-4),              # float
    ("max_minutes=null", "max_minutes", None),                            # float or null
    ("ppo.norm_adv=false", "ppo.norm_adv", False),                        # bool
    ("ppo.delegate=random", "ppo.delegate", "random"),                    # str or null
    ("ppo.activation=relu", "ppo.activation", "relu"),                    # choice
    ("ppo.hidden=[64, 32]", "ppo.hidden", [64, 32]),                      # list of int
    ("eval.baselines=[random]", "eval.baselines", ["random"]),            # list of names
    ("options.variant=three", "options.variant", "three"),                # dict, nested key
    ("options={variant: two, reward: chips}", "options", {"variant": "two", "reward": "chips"}),
    ("opponents=[{name: self}]", "opponents", [{"name": "self"}]),       # list of mappings
    ("distill={teacher: heuristic}", "distill.teacher", "heuristic"),     # optional section
    ("distill.teacher_kwargs.worlds=4", "distill.teacher_kwargs", {"worlds": 4}),  # depth 3
])
def test_set_reaches_every_field_type(setting, field, value):
    """``cardrl train --set FIELD=VALUE``: any field, dotted at any depth, read as YAML; the
    value set is the value loaded, and it survives to_dict -> config_from_dict."""
    cfg = load(CONFIG_DIR / "abracadabra_four_full.yaml", setting)
    found = cfg
    for part in field.split("."):
        found = found[part] if isinstance(found, dict) else getattr(found, part)
    assert found == value and type(found) is type(value)
    assert config_from_dict(cfg.to_dict()) == cfg


@pytest.mark.parametrize("setting, message", [
    ("ppo.learning_rate", "expected FIELD=VALUE"),
    ("ppo..gamma=1", "expected FIELD=VALUE"),
    ("ppo.hidden=[64", "not valid YAML"),
])
def test_a_malformed_set_is_one_line(setting, message):
    with pytest.raises(ValueError, match=message) as error:
        parse_setting(setting)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("setting, expected", [
    ("num_games=0", "num_games: found 0 (an integer), expected an integer in [1, 65_536]"),
    ("num_games=2.5", "num_games: found 2.5 (a number), expected an integer in [1, 65_536]"),
    ("total_steps=true", "total_steps: found True (a boolean), expected an integer"),
    ("ppo.gamma=1.5", "ppo.gamma: found 1.5 (a number), expected a number in (0, 1]"),
    ("ppo.target_kl=.inf", "ppo.target_kl: found inf (a number), expected a number > 0 or null"),
    ("max_minutes=-5", "max_minutes: found -5 (an integer), expected a number in "
                       "(0, 1_000_000] or null"),
    ("ppo.norm_adv=1", "ppo.norm_adv: found 1 (an integer), expected true or false"),
    ("ppo.anneal_lr='yes'", "ppo.anneal_lr: found 'yes' (text), expected true or false"),
    ("init=3", "init: found 3 (an integer), expected text or null"),
    ("ppo.activation=sigmoid", "ppo.activation: found 'sigmoid' (text), expected one of "
                               "tanh, relu"),
    ("algo=ppo", "algo: found 'ppo' (text), expected one of batch_ppo, sb3, exit"),
    ("game=chess", "game: found 'chess' (text), expected one of abracadabra, four_aces"),
    ("ppo.hidden=[]", "ppo.hidden: found [] (a list), expected a non-empty list of integers"),
    ("ppo.hidden=[64, 0]", "ppo.hidden[1]: found 0 (an integer), expected an integer in "
                           "[1, 65_536]"),
    ("eval.baselines=random", "eval.baselines: found 'random' (text), expected a list of names"),
    ("options=four", "options: found 'four' (text), expected a mapping"),
    ("options.variant=five", "options: variant='five'"),
    ("options.num_players=4", "options.num_players: unknown AbracadabraConfig field"),
    ("opponents={name: self}", "opponents: found {'name': 'self'} (a mapping), expected a list"),
    ("opponents=[{name: random, wieght: 1}]", "opponents[0].wieght: unknown key; did you mean "
                                              "'weight'?"),
    ("opponents=[{name: greddy}]", "opponents[0].name: found 'greddy' (text), expected an "
                                   "agent of abracadabra, self or snapshot: one of"),
    ("opponents=[{name: random, weight: 0}]", "opponents: every weight is 0, expected at least "
                                              "one weight > 0"),
    ("eval=5", "eval: found 5 (an integer), expected a mapping of EvalConfig fields"),
    ("eval.opponent=nobody", "eval.opponent: found 'nobody' (text), expected an agent of "
                             "abracadabra (or policy:PATH), one of"),
    ("eval.opponent=policy:/no/such.pt", "eval.opponent: 'policy:/no/such.pt' names no file"),
    ("distill=pimc", "distill: found 'pimc' (text), expected a mapping of DistillConfig fields "
                     "or null"),
    ("ppo.gama=0.9", "ppo.gama: unknown field; did you mean 'gamma'?"),
    ("anneal_lr=false", "anneal_lr: unknown field; anneal_lr belongs in the ppo: section"),
    ("ppo.deals=3", "ppo.deals: unknown field; deals belongs in the eval: section"),
    ("ppo.total_steps=3", "ppo.total_steps: unknown field; total_steps is a top-level field"),
    ("ppo.features=four_aces", "ppo.features: 'four_aces' does not fit game 'abracadabra'"),
    ("ppo.symmetry=suits", "ppo.symmetry='suits' does not fit game 'abracadabra'"),
    ("algo=sb3", "ppo.delegate needs algo: batch_ppo"),
])
def test_each_bad_value_is_one_line_naming_the_field_and_what_was_expected(setting, expected):
    path = CONFIG_DIR / "abracadabra_four.yaml"
    with pytest.raises(ValueError) as error:
        load(path, setting)
    text = str(error.value)
    assert text.startswith(f"config file {path} with ") and "\n" not in text
    assert expected in text, text


def test_two_problems_are_one_line():
    with pytest.raises(ValueError, match=r"x.yaml: 2 problems: seed: found -1 \(an integer\), "
                                         r".*; ppo.gamma: found 0 ") as error:
        config_from_dict({"seed": -1, "ppo": {"gamma": 0}}, "config file x.yaml")
    assert "\n" not in str(error.value)


def test_a_game_rule_is_checked_by_the_game():
    """Four Aces' features are computed for one K3 scoring: the feature module says which
    fits the game's options, not the training config."""
    data = {"game": "four_aces", "options": {"scoring": "free"}, "ppo": {"features": "four_aces"}}
    with pytest.raises(ValueError, match=r"ppo.features: 'four_aces' is computed for "
                                         r"\{'scoring': 'strict'\}, not the config's options: "
                                         r"use four_aces_free"):
        config_from_dict(data)
    data["ppo"]["features"] = "four_aces_free"
    assert config_from_dict(data).ppo.features == "four_aces_free"


def test_a_changed_config_is_checked_before_a_run_folder_exists(tmp_path):
    cfg = TrainConfig()
    cfg.ppo.gamma = 1.5
    with pytest.raises(ValueError, match=r"ppo.gamma: found 1.5 \(a number\), expected a "
                                         r"number in \(0, 1\]"):
        check_config(cfg)
    with pytest.raises(ValueError, match="ppo.gamma"):
        train(cfg, tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()
    cfg.ppo.gamma, cfg.total_steps = 0.9, 2.0e6
    assert check_config(cfg) is cfg and type(cfg.total_steps) is int  # normalised in place


def test_repeated_keys_are_refused(tmp_path):
    path = tmp_path / "twice.yaml"
    path.write_text("seed: 1\nppo:\n  gamma: 0.9\n  gamma: 0.99\n")
    with pytest.raises(ValueError, match=r"twice.yaml: line 4, column 3: not valid YAML "
                                         r"\(the key 'gamma' appears twice\)"):
        load_config(path)


def test_a_missing_file_or_a_folder_names_the_configs_there(tmp_path):
    (tmp_path / "recipe.yaml").write_text("seed: 2\n")
    for path, what in ((tmp_path / "recipes.yaml", "does not exist"), (tmp_path, "is a folder")):
        with pytest.raises(ValueError, match=f"config file {path} {what}.*: recipe.yaml"):
            load_config(path)


# -- the distill section ----------------------------------------------------------------------
def test_no_distill_section_is_the_default_and_leaves_the_config_as_it_was():
    assert TrainConfig().distill is None
    assert "distill" not in TrainConfig().to_dict()  # run folders and resume files unchanged
    assert config_from_dict({"distill": None}).distill is None
    cfg = config_from_dict({"distill": {"teacher": "heuristic", "deals": 2.0e+3}})
    assert cfg.distill == DistillConfig(teacher="heuristic", deals=2000)
    assert cfg.to_dict()["distill"]["deals"] == 2000


@pytest.mark.parametrize(("data", "expected"), [
    ({"algo": "sb3", "distill": {}}, "distill needs algo: batch_ppo"),
    ({"distill": {"deals": 0}}, "distill.deals: found 0 (an integer), expected an integer in "
                                "[1, 100_000_000]"),
    ({"distill": {"epochs": 1.5}}, "distill.epochs: found 1.5 (a number), expected an integer"),
    ({"distill": {"holdout": 1.0}}, "distill.holdout: found 1.0 (a number), expected a number "
                                    "in [0, 1)"),
    ({"distill": {"worlds": 8}}, "distill.worlds: unknown field"),
    ({"holdout": 0.1}, "holdout: unknown field; holdout belongs in the distill: section"),
    ({"distill": {"teacher": "pimcc"}}, "distill.teacher: found 'pimcc' (text), expected an "
                                        "agent of abracadabra (or policy:PATH)"),
    ({"distill": {"teacher_kwargs": {"worlds": 0}}}, "distill.teacher_kwargs: pimc refuses "
                                                     "{'worlds': 0} (worlds=0 is not allowed"),
    ({"distill": {"teacher_kwargs": [8]}}, "distill.teacher_kwargs: found [8] (a list), "
                                           "expected a mapping"),
    ({"distill": {"teacher_kwargs": {"seed": 3}}}, "distill.teacher_kwargs.seed: the teacher "
                                                   "is seeded from the run's seed"),
    ({"distill": {"teacher": "heuristic", "fallback": "control"}},
     "distill.fallback needs a teacher that reports action values (pimc); 'heuristic' "
     "reports none"),
    ({"distill": {"fallback": "pimc"}}, "distill.fallback: 'pimc' searches on the engine"),
    ({"distill": {"fallback": "heuristik"}}, "distill.fallback: found 'heuristik' (text), "
                                             "expected an agent of abracadabra"),
    ({"distill": {"targets": "value"}}, "distill.targets: found 'value' (text), expected one "
                                        "of action, values; did you mean 'values'?"),
    ({"distill": {"targets": "values", "temperature": 0}},
     "distill.temperature: found 0 (an integer), expected a number > 0"),
    ({"distill": {"teacher": "heuristic", "targets": "values"}},
     "distill.targets: values needs a teacher that reports action values (pimc)"),
    ({"distill": {"targets": "values", "fallback": "heuristic"}},
     "distill.targets: values imitates the teacher's values, distill.fallback relabels"),
    ({"distill": {"record": "runs/none/teacher.npz"}},
     "distill.record: no file 'runs/none/teacher.npz'; expected the teacher.npz"),
    ({"ppo": {"anchor_coef": 1.0}}, "ppo.anchor_coef anchors PPO to the network it starts "
                                    "from"),
    ({"exit": {}}, "exit: the section of algo: exit, the config's algo is batch_ppo"),
    ({"algo": "exit", "exit": {}}, "algo: exit needs distill section(s)"),
])
def test_bad_sections_and_combinations_are_named(data, expected):
    with pytest.raises(ValueError) as error:
        config_from_dict(data, "config file x.yaml")
    assert str(error.value).startswith("config file x.yaml: ")
    assert expected in str(error.value) and "\n" not in str(error.value)


# -- extends ----------------------------------------------------------------------------------
def test_extends_inherits_and_overrides(tmp_path):
    (tmp_path / "base.yaml").write_text(
        "game: four_aces\nseed: 3\noptions: {num_players: 3}\nppo: {gamma: 0.9, hidden: [8]}\n"
        "distill: {teacher: heuristic}\n")
    (tmp_path / "mid.yaml").write_text("extends: base.yaml\nppo: {hidden: [4, 4]}\n")
    (tmp_path / "top.yaml").write_text("extends: mid.yaml\nseed: 5\noptions: {reward: points}"
                                       "\ndistill: null\n")
    cfg = load_config(tmp_path / "top.yaml")
    assert (cfg.game, cfg.seed, cfg.options) == ("four_aces", 5, {"num_players": 3,
                                                                 "reward": "points"})
    assert (cfg.ppo.gamma, cfg.ppo.hidden, cfg.distill) == (0.9, [4, 4], None)
    assert load(tmp_path / "top.yaml", "ppo.gamma=0.5").ppo.gamma == 0.5  # --set comes last


@pytest.mark.parametrize(("files", "expected"), [
    ({"a.yaml": "extends: a.yaml\n"}, "a.yaml: extends: a.yaml makes a cycle (a.yaml -> a.yaml)"),
    ({"a.yaml": "extends: b.yaml\n", "b.yaml": "extends: a.yaml\nseed: 2\n"},
     "b.yaml: extends: a.yaml makes a cycle (a.yaml -> b.yaml -> a.yaml)"),
    ({"a.yaml": "extends: nosuch.yaml\n"}, "a.yaml: extends: found 'nosuch.yaml' (text), "
                                           "expected a config file beside it; the configs in"),
    ({"a.yaml": "extends: [b.yaml]\n"}, "a.yaml: extends: found ['b.yaml'] (a list), expected"),
    ({"a.yaml": "extends: b.yaml\n", "b.yaml": "seed: -1\n"}, "a.yaml: seed: found -1"),
])
def test_a_bad_extends_is_one_line(files, expected, tmp_path):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(ValueError) as error:
        load_config(tmp_path / "a.yaml")
    assert expected in str(error.value) and "\n" not in str(error.value), str(error.value)


# -- the files in configs/ ----------------------------------------------------------------------
@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_every_config_loads_and_documents_each_line(path):
    assert load_config(path).total_steps > 0
    for line in path.read_text().splitlines():  # every field carries its reason
        if line.strip() and not line.lstrip().startswith(("#", "-")):
            assert "#" in line, f"{path.name}: uncommented line {line!r}"


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.stem)
def test_configs_list_only_what_differs_from_what_they_extend(path):
    raw = yaml.safe_load(path.read_text())
    parent = raw.pop("extends", None)
    base = dataclasses.asdict(load_config(path.parent / parent) if parent else TrainConfig())
    for name, cls in (("distill", DistillConfig), ("exit", ExitConfig)):  # a section's defaults
        base[name] = base[name] or dataclasses.asdict(cls())
    for key, value in raw.items():
        if isinstance(value, dict) and key != "options":
            for name, field_value in value.items():
                assert field_value != base[key][name], f"{path.name}: {key}.{name}"
        elif key != "game" or parent:  # every config names its game
            assert value != base[key], f"{path.name}: {key} is what it extends"


def test_one_recipe_per_purpose():
    assert len(CONFIGS) <= 12


#: each former config file (27 of them) as it loaded before configs/ held one recipe per purpose
OLD = json.loads((Path(__file__).parent / "old_configs.json").read_text())
RUNS = CONFIG_DIR.parent / "results" / "training"


@pytest.mark.parametrize("old", sorted(OLD), ids=lambda name: name[:-5])
def test_every_former_config_is_a_command_that_loads_to_the_same_values(old):
    """Each former file is still in configs/ or is the command in the ``command`` file of
    its committed run (results/training/<name>/command): ``cardrl train`` parses it and
    loads the same fields, values and types."""
    from cli.main import build_parser

    if (CONFIG_DIR / old).exists():
        cfg = load_config(CONFIG_DIR / old)
    else:
        command = shlex.split((RUNS / old[:-5] / "command").read_text())
        assert command[:2] == ["cardrl", "train"] and "--out" in command
        args = build_parser().parse_args(command[1:])
        cfg = load(CONFIG_DIR.parent / args.config, *args.settings)
    assert json.dumps(dataclasses.asdict(cfg), sort_keys=True) == \
        json.dumps(OLD[old], sort_keys=True)
