"""The generic half of the training config: reading YAML files (``extends:`` resolved),
``--set`` settings, and checking a mapping against config dataclasses whose fields declare
their type and, in their metadata, a ``limit`` (``> 0``, ``>= 0``, ``in (0, 1]``) or
``choices`` (:func:`training.config.opt`). Every problem is one string
``field: found ..., expected ...``; :func:`message` joins them into one line."""

from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import re
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

#: the ``choices`` of a field naming an agent, checked against the game's agents later
AGENT = "agent"


# -- messages -----------------------------------------------------------------------------
def found(value) -> str:
    """``found 1.5 (a number)``: a value and what YAML made of it."""
    kinds = ((type(None), "null"), (bool, "a boolean"), (int, "an integer"), (float, "a number"),
             (str, "text"), ((list, tuple), "a list"), (Mapping, "a mapping"))
    kind = next((k for t, k in kinds if isinstance(value, t)), f"a {type(value).__name__}")
    text = repr(value)
    return f"found {text[:57] + '...' if len(text) > 60 else text} ({kind})"


def did_you_mean(name, choices) -> str:
    close = difflib.get_close_matches(str(name), [str(c) for c in choices], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def message(source: str, problems: list[str]) -> str:
    """``source`` and its problems in one line."""
    if len(problems) == 1:
        return f"{source}: {problems[0]}"
    return f"{source}: {len(problems)} problems: " + "; ".join(problems)


def yaml_number(number: float) -> str:
    """``number`` written so that YAML reads it as a number: ``1_000_000``, ``5.0e-4``."""
    if number.is_integer() and abs(number) < 1e15:
        return f"{int(number):_}"
    mantissa, exponent = f"{number:e}".split("e")
    mantissa = mantissa.rstrip("0")
    return f"{mantissa}{'0' if mantissa.endswith('.') else ''}e{int(exponent):+d}"


def _text_hint(value) -> str:
    """Why a number written as ``value`` came out as text, and how to write it."""
    try:
        number = float(str(value).replace("_", ""))
    except ValueError:
        return ""
    return f" (YAML reads {value} as text: write {yaml_number(number)})" \
        if math.isfinite(number) else ""


# -- checking a mapping against the dataclasses -------------------------------------------
def base_type(hint) -> tuple[Any, bool]:
    """(the type in ``hint`` other than None, whether None is allowed)."""
    args = typing.get_args(hint)
    if type(None) in args:
        return next(a for a in args if a is not type(None)), True
    return hint, False


def within(value: float, limit: str) -> bool:
    """Whether ``value`` is in ``limit`` (``> 0``, ``>= 0``, ``in (0, 1]``, ``in [1, 8)``)."""
    if limit.startswith(">"):
        low = float(limit.lstrip(">= ").replace("_", ""))
        return value >= low if limit.startswith(">=") else value > low
    low, high = (float(x.replace("_", "")) for x in limit[4:-1].split(","))
    return ((low <= value if limit[3] == "[" else low < value)
            and (value <= high if limit[-1] == "]" else value < high))


def check_value(value, hint, meta: Mapping, path: str, problems: list[str], root):
    """``value`` checked against the type ``hint`` and the field's limit and choices;
    normalised (an integral number for an int field becomes an int, a mapping for a
    section its dataclass, null for a section that must be there its defaults)."""
    hint, nullable = base_type(hint)
    if value is None and (nullable or dataclasses.is_dataclass(hint)):
        return None if nullable else hint()
    expected, limit, choices = "", meta.get("limit"), meta.get("choices")
    if dataclasses.is_dataclass(hint):
        if isinstance(value, Mapping):
            return build(hint, value, path + ".", problems, root)
        expected = f"a mapping of {hint.__name__} fields"
    elif typing.get_origin(hint) is list:
        (item,) = typing.get_args(hint)
        if isinstance(value, list) and (value or item is not int):
            return [check_value(v, item, meta, f"{path}[{i}]", problems, root)
                    for i, v in enumerate(value)]
        expected = "a non-empty list of integers" if item is int else "a list of names"
    elif hint in (dict, list) and isinstance(value, hint):
        return value
    elif (hint is bool and isinstance(value, bool)) or (hint is str and isinstance(value, str)):
        choices = choices() if callable(choices) else choices
        if choices in (None, AGENT) or value in choices:
            return value
        problems.append(f"{path}: {found(value)}, expected one of {', '.join(choices)}"
                        f"{did_you_mean(value, choices)}")
        return value
    elif hint in (int, float):
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if (number and math.isfinite(value) and (hint is float or float(value).is_integer())
                and (limit is None or within(value, limit))):
            return int(value) if hint is int else value
        expected = f"{'an integer' if hint is int else 'a number'}{f' {limit}' if limit else ''}"
    else:
        expected = {bool: "true or false", str: "text", dict: "a mapping", list: "a list"}[hint]
    hint_text = _text_hint(value) if hint in (int, float) and isinstance(value, str) else ""
    problems.append(f"{path}: {found(value)}, expected {expected}{' or null' * nullable}"
                    f"{hint_text}")
    return value


def _home(cls, key: str, root) -> str:
    """Where ``key``, not a field of ``cls``, belongs: a section of ``root``, or its top."""
    hints = typing.get_type_hints(root)
    for f in dataclasses.fields(root):
        section = base_type(hints[f.name])[0]
        if (dataclasses.is_dataclass(section) and section is not cls
                and key in {g.name for g in dataclasses.fields(section)}):
            return f"; {key} belongs in the {f.name}: section"
    if cls is not root and key in {f.name for f in dataclasses.fields(root)}:
        return f"; {key} is a top-level field"
    return ""


def build(cls, data: Mapping, prefix: str, problems: list[str], root=None):
    """A ``cls`` from the mapping ``data``, every field checked (:func:`check_value`); an
    unknown key is a problem naming the section of ``root`` it belongs in or the closest
    field."""
    root = root or cls
    names = [f.name for f in dataclasses.fields(cls)]
    for key in data:
        if key not in names:
            hint = (_home(cls, key, root) or did_you_mean(key, names)
                    or f"; expected one of {', '.join(names)}")
            problems.append(f"{prefix}{key}: unknown field{hint}")
    hints = typing.get_type_hints(cls)
    return cls(**{f.name: check_value(data[f.name], hints[f.name], f.metadata, prefix + f.name,
                                      problems, root)
                  for f in dataclasses.fields(cls) if f.name in data})


# -- files and settings -------------------------------------------------------------------
def merge_overrides(data: Mapping | None, overrides: Mapping[str, Any] | None,
                    keep_none: bool = False) -> dict:
    """A copy of ``data`` with ``overrides`` (field -> value; a dotted name sets a section's
    field, at any depth) set in it; a None value is skipped unless ``keep_none``."""
    merged = copy.deepcopy(dict(data or {}))
    for name, value in (overrides or {}).items():
        if value is None and not keep_none:
            continue
        *sections, key = name.split(".")
        target = merged
        for section in sections:
            current = target.get(section)
            target[section] = dict(current) if isinstance(current, Mapping) else {}
            target = target[section]
        target[key] = value
    return merged


def merge(base: Mapping, changes: Mapping) -> dict:
    """``base`` with ``changes``: mappings merge key by key, anything else replaces."""
    merged = dict(base)
    for key, value in changes.items():
        both = isinstance(value, Mapping) and isinstance(merged.get(key), Mapping)
        merged[key] = merge(merged[key], value) if both else value
    return merged


#: a number as YAML 1.2 writes it that PyYAML (YAML 1.1) reads as text: ``1e-4``, ``1e6``
NUMBER = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")


def parse_setting(setting: str) -> tuple[str, Any]:
    """``("ppo.learning_rate", 1e-4)`` from ``--set ppo.learning_rate=1e-4``: a dotted field
    name, ``=``, a value read as YAML reads it (``[64, 64]`` a list, ``null`` None, ``three``
    text), a bare number always a number (:data:`NUMBER`); ``ValueError`` naming a malformed
    setting."""
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
    return name, float(value) if isinstance(value, str) and NUMBER.fullmatch(value) else value


class _UniqueKeyLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses a mapping repeating a key (YAML keeps the last)."""

    def construct_mapping(self, node, deep=False):
        keys = [self.construct_object(key_node, deep=deep) for key_node, _ in node.value]
        for i, key in enumerate(keys):
            if key in keys[:i]:
                raise yaml.constructor.ConstructorError(
                    None, None, f"the key {key!r} appears twice", node.value[i][0].start_mark)
        return super().construct_mapping(node, deep)


def _listing(path: Path, default_dir: Path) -> str:
    """The configs in or beside ``path`` (or in ``default_dir``), for a missing file's
    message."""
    folder = path if path.is_dir() else path.parent
    folder = folder if any(folder.glob("*.yaml")) else default_dir
    names = sorted(p.name for p in folder.glob("*.yaml"))
    return f"the configs in {folder}/ are: {', '.join(names)}{did_you_mean(path.name, names)}"


def read_yaml(path: str | Path, fields: list[str], default_dir: Path,
              _chain: tuple[Path, ...] = ()) -> dict:
    """The mapping of a YAML config file with ``extends: other.yaml`` (relative to its
    folder) resolved; ``ValueError`` naming the file when it is missing, unreadable, empty,
    invalid, repeats a key, is not a mapping (of ``fields``) or extends in a cycle."""
    path = Path(path)
    if not path.is_file():
        what = "is a folder, not a file" if path.is_dir() else "does not exist"
        raise ValueError(f"config file {path} {what}; {_listing(path, default_dir)}")
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # noqa: S506
    except (UnicodeDecodeError, OSError) as error:
        raise ValueError(f"config file {path} cannot be read as UTF-8 text ({error})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise ValueError(f"config file {path}: {where}not valid YAML ({problem})") from None
    except RecursionError:
        raise ValueError(f"config file {path}: lists or mappings nested too deeply to be read "
                         "(beyond Python's recursion limit); expected config fields a few "
                         "levels deep") from None
    if data is None:
        raise ValueError(f"config file {path} is empty; expected a mapping of config fields "
                         f"such as {', '.join(fields[:3])}")
    if not isinstance(data, Mapping):
        raise ValueError(f"config file {path}: {found(data)}, expected a mapping of config "
                         f"fields ({', '.join(fields)})")
    data = dict(data)
    parent = data.pop("extends", None)
    if parent is None:
        return data
    chain, other = (*_chain, path.resolve()), path.parent / str(parent)
    if not isinstance(parent, str) or not other.is_file():
        raise ValueError(f"config file {path}: extends: {found(parent)}, expected a config "
                         f"file beside it; {_listing(other, default_dir)}")
    if other.resolve() in chain:
        raise ValueError(f"config file {path}: extends: {parent} makes a cycle "
                         f"({' -> '.join(p.name for p in chain)} -> {other.name})")
    return merge(read_yaml(other, fields, default_dir, chain), data)
