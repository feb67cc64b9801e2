"""No module outside a game's own places names a game in a string literal: what the project
needs to know about a game is declared once, by the game (``envs/<game>/game.py``, the
registry's :class:`~envs.registry.Game`), and read from there.

The allowed places: the game's packages ``envs/<game>/`` and ``agents/<game>/``, its
PettingZoo adapter ``envs/<game>_v<N>.py`` (the game's own module beside the engines), the
registries (``envs/registry.py``, ``agents/registry.py``), and outside the packages the
tests, docs and configs. Python modules are read with :mod:`ast` (docstrings and other bare
string statements are prose and do not count); ``web/static/*.js`` by a regex.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the packages scanned (tests, docs and configs are not)
PACKAGES = ("envs", "agents", "records", "training", "arena", "bench", "web", "cli")
#: the games of this repository (a literal list here: the test must not trust the code)
GAMES = ("abracadabra", "four_aces")


def allowed(path: str) -> bool:
    """Whether ``path`` (relative to the repository) may name a game."""
    parts = Path(path).parts
    if path in ("envs/registry.py", "agents/registry.py"):
        return True
    if len(parts) >= 3 and parts[0] in ("envs", "agents") and parts[1] in GAMES:
        return True
    adapter = re.fullmatch(r"(\w+)_v\d+\.py", parts[-1])  # envs/<game>_v<N>.py
    return len(parts) == 2 and parts[0] == "envs" and adapter is not None and (
        adapter.group(1) in GAMES)


def _prose(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are statements of their own (docstrings)."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)}


def names_in_python(path: Path) -> list[tuple[int, str]]:
    """(line, game) of every string literal of ``path`` that is a game's name."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    prose = _prose(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and node.value in GAMES and id(node) not in prose]


#: a game's name in quotes (any of JavaScript's three)
_JS_NAME = re.compile("[\"'`](" + "|".join(GAMES) + ")[\"'`]")


def names_in_js_text(text: str) -> list[str]:
    """Every quoted game name in a line of script."""
    return [match.group(1) for match in _JS_NAME.finditer(text)]


def names_in_js(path: Path) -> list[tuple[int, str]]:
    """(line, game) of every quoted game name in a script."""
    return [(number, game)
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            for game in names_in_js_text(line)]


def found() -> dict[str, list[tuple[int, str]]]:
    """path -> the game names it holds, for every scanned file outside the allowed places."""
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not allowed(rel) and (hits := names_in_python(path)):
                out[rel] = hits
    for path in sorted((ROOT / "web" / "static").glob("*.js")):
        if hits := names_in_js(path):
            out[path.relative_to(ROOT).as_posix()] = hits
    return out


FOUND = found()


def test_no_module_names_a_game_outside_its_places():
    wrong = [f"{path}:{line}: {game!r}" for path, hits in FOUND.items() for line, game in hits]
    assert not wrong, ("a game named outside envs/<game>/, agents/<game>/ and the registries "
                       "(declare it in the game's descriptor, envs/<game>/game.py, and read "
                       "it from envs.registry):\n" + "\n".join(wrong))


def test_the_scan_sees_what_it_is_meant_to():
    """The scan finds a literal, skips docstrings and knows the allowed places."""
    source = '"""four_aces in a docstring"""\nx = {"four_aces": 1}\n'
    tree = ast.parse(source)
    prose = _prose(tree)
    hits = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and n.value in GAMES and id(n) not in prose]
    assert hits == ["four_aces"]
    assert allowed("envs/four_aces/engine.py") and allowed("agents/abracadabra/registration.py")
    assert allowed("envs/abracadabra_v1.py") and allowed("envs/registry.py")
    assert not allowed("envs/table_view.py") and not allowed("web/catalog.py")
    assert names_in_js_text('x === "four_aces"') == ["four_aces"]
