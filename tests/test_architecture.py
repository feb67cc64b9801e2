"""The project's import graph: no cycles, and every import points down the layers.

The graph is read from the source with :mod:`ast` (nothing is imported): every
``import``/``from ... import`` anywhere in a module (at module level, inside functions,
under ``if TYPE_CHECKING``), ``importlib.import_module("...")`` calls, and string
literals that name a project module (``"envs.four_aces.engine:FourAcesEngine"``, the
lazy references of the registries and the CLI's command table; these count for the layers
but not for cycles). An edge ``a -> b`` means
module ``a`` may import module ``b``; ``from pkg import name`` points at ``pkg.name`` when
that is a module, else at ``pkg``.

The layers and who may import whom are the table in ``docs/architecture.md``:

    envs (0)  <-  agents, records (1)  <-  arena, training (2)  <-  bench (3)  <-  cli (4)

Within layer 2 the one direction allowed is training -> arena: training's periodic
evaluation plays the arena's duplicate-deal tournament; arena never imports training.

The rules engines stay framework-free: only the PettingZoo adapters
(``envs/<game>_v<N>.py``, ``envs/pettingzoo_base.py``) import pettingzoo or gymnasium.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the project's top-level packages, lowest layer first
PACKAGES = ("envs", "agents", "records", "training", "arena", "bench", "web", "cli")

#: package -> its layer; a package imports only packages of its layer or below
LAYER = {
    "envs": 0, "agents": 1, "records": 1, "arena": 2, "training": 2, "bench": 3, "web": 3,
    "cli": 4,
}

#: package -> the packages its modules may import (itself included)
ALLOWED: dict[str, frozenset[str]] = {
    "envs": frozenset({"envs"}),
    "agents": frozenset({"envs", "agents"}),
    "records": frozenset({"envs", "records"}),
    "training": frozenset({"envs", "agents", "records", "arena", "training"}),
    "arena": frozenset({"envs", "agents", "records", "arena"}),
    "bench": frozenset({"envs", "agents", "records", "training", "arena", "bench"}),
    "web": frozenset({"envs", "agents", "records", "arena", "web"}),
    "cli": frozenset(PACKAGES),
}

#: third-party frameworks the rules engines must not import
FRAMEWORKS = ("pettingzoo", "gymnasium", "gym")


def is_adapter(module: str) -> bool:
    """True for the modules that may import pettingzoo/gymnasium inside ``envs``."""
    return module == "envs.pettingzoo_base" or (
        module.count(".") == 1 and re.search(r"_v\d+$", module) is not None
    )


@dataclass(frozen=True)
class Import:
    """One import found in the source."""

    source: str  #: the importing module
    target: str  #: the imported name, resolved to an absolute dotted path
    line: int  #: line number in the importing file
    how: str  #: "import", "from", "import_module" or "string"

    def where(self) -> str:
        """``path:line: the import``, for failure messages."""
        text = {
            "import": f"import {self.target}",
            "from": f"from-import of {self.target}",
            "import_module": f"import_module({self.target!r}...)",
            "string": f"string {self.target!r}, imported on demand",
        }[self.how]
        return f"{module_path(self.source)}:{self.line}: {text}"


def module_name(path: Path) -> str:
    """``envs/abracadabra/engine.py`` -> ``envs.abracadabra.engine``; a package's
    ``__init__.py`` -> the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files() -> dict[str, Path]:
    """Module name -> file, for every ``.py`` file of the project's packages."""
    files: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            files[module_name(path)] = path
    return files


MODULES = project_files()


def module_path(module: str) -> str:
    """The file of ``module``, relative to the repository."""
    return str(MODULES[module].relative_to(ROOT))


def _resolve_relative(source: str, level: int, name: str | None) -> str:
    """Absolute dotted path of ``from <level dots><name> import ...`` in ``source``."""
    package = source.split(".")
    if MODULES[source].name != "__init__.py":
        package = package[:-1]  # a plain module's package is its parent
    if level > 1:
        package = package[: len(package) - (level - 1)]
    return ".".join(package + ([name] if name else []))


def _static_prefix(node: ast.expr) -> str | None:
    """The text of a string literal, or the literal start of an f-string
    (``f"envs.{game}_v0"`` -> ``"envs."``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value
    return None


def _names_module(text: str) -> bool:
    """True when a string literal is a reference to a project module: a dotted path
    (optionally ``:attribute``) whose first part is a project package and that names an
    existing module. Single words ("agents", "records") are prose, not references."""
    path = text.partition(":")[0]
    if "." not in path or path.split(".")[0] not in PACKAGES:
        return False
    return all(part.isidentifier() for part in path.split(".")) and path in MODULES


def imports_of(source: str) -> list[Import]:
    """Every import of ``source`` (see the module docstring for what counts)."""
    tree = ast.parse(MODULES[source].read_text(encoding="utf-8"), str(MODULES[source]))
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append(Import(source, alias.name, node.lineno, "import"))
        elif isinstance(node, ast.ImportFrom):
            base = (_resolve_relative(source, node.level, node.module) if node.level
                    else node.module or "")
            for alias in node.names:
                child = f"{base}.{alias.name}"
                target = child if child in MODULES else base
                found.append(Import(source, target, node.lineno, "from"))
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "find_spec", "__import__") and node.args:
                text = _static_prefix(node.args[0])
                if text is not None:
                    target = text if text in MODULES else text.rpartition(".")[0] or text
                    found.append(Import(source, target, node.lineno, "import_module"))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
              and _names_module(node.value)):
            found.append(Import(source, node.value.partition(":")[0], node.lineno, "string"))
    return found


def project_target(name: str) -> str | None:
    """The project module an imported name loads (its longest existing prefix), or None
    for a third-party / standard-library name."""
    parts = name.split(".")
    if parts[0] not in PACKAGES:
        return None
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def import_graph(with_strings: bool = True) -> dict[str, dict[str, Import]]:
    """module -> {imported project module -> the first import that makes the edge}.
    ``with_strings=False`` leaves out the lazy string references."""
    graph: dict[str, dict[str, Import]] = {module: {} for module in MODULES}
    for source in MODULES:
        for imp in imports_of(source):
            if imp.how == "string" and not with_strings:
                continue
            target = project_target(imp.target)
            if target is not None and target != source:
                graph[source].setdefault(target, imp)
    return graph


#: every edge, lazy string references included: what the layer check reads
GRAPH = import_graph()
#: the edges that import a module when their code runs: what the cycle check reads. A
#: registry's string names a module that is imported only when asked for, by then fully
#: initialised, so it cannot close a cycle; it still must not point up the layers.
IMPORT_GRAPH = import_graph(with_strings=False)


def strongly_connected(graph: dict[str, dict[str, Import]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for succ in sorted(graph[node]):
            if succ not in index:
                visit(succ)
                low[node] = min(low[node], low[succ])
            elif succ in on_stack:
                low[node] = min(low[node], index[succ])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def shortest_cycle(graph: dict[str, dict[str, Import]], component: list[str]) -> list[str]:
    """A shortest cycle through the first module of a component (breadth-first)."""
    members = set(component)
    start = component[0]
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        next_frontier = []
        for node in frontier:
            for succ in sorted(graph[node]):
                if succ not in members:
                    continue
                if succ == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if succ not in parent:
                    parent[succ] = node
                    next_frontier.append(succ)
        frontier = next_frontier
    return component


def describe_cycle(graph: dict[str, dict[str, Import]], cycle: list[str]) -> str:
    """``a -> b -> a`` with the import that makes each step."""
    steps = [f"    {graph[a][b].where()}" for a, b in pairwise(cycle)]
    return " -> ".join(cycle) + "\n" + "\n".join(steps)


def test_the_graph_sees_every_package() -> None:
    """The scan finds the packages and the kinds of import it is meant to see."""
    assert {module.split(".")[0] for module in MODULES} == set(PACKAGES)
    hows = {imp.how for edges in GRAPH.values() for imp in edges.values()}
    assert {"import", "from", "string"} <= hows, hows
    assert any(edges for edges in GRAPH.values())


def test_no_import_cycles() -> None:
    """No two project modules import each other, directly or through others, not even
    through an import inside a function."""
    components = strongly_connected(IMPORT_GRAPH)
    lines = []
    for component in components:
        cycle = shortest_cycle(IMPORT_GRAPH, component)
        lines.append(f"import cycle: {describe_cycle(IMPORT_GRAPH, cycle)}")
        if len(component) > len(cycle) - 1:
            lines.append(f"    (the modules that reach each other: {', '.join(component)})")
    message = "\n".join(lines)
    assert not components, f"{len(components)} import cycle(s) between project modules:\n{message}"


def test_imports_point_down_the_layers() -> None:
    """Each package imports only the packages the layer table allows."""
    wrong = [
        f"{edge.where()}: {source.split('.')[0]} may import only "
        f"{', '.join(sorted(ALLOWED[source.split('.')[0]]))}"
        for source, edges in GRAPH.items()
        for target, edge in edges.items()
        if target.split(".")[0] not in ALLOWED[source.split(".")[0]]
    ]
    assert not wrong, "imports pointing up the layers:\n" + "\n".join(wrong)


@pytest.mark.parametrize("package", PACKAGES)
def test_layer_table_is_complete(package: str) -> None:
    """Every package has a row, and a row names only packages of lower or equal layer."""
    assert package in ALLOWED[package]
    assert all(LAYER[other] <= LAYER[package] for other in ALLOWED[package])
    assert all(package not in ALLOWED[other] for other in ALLOWED[package] - {package}), (
        "two packages may not import each other")


def test_rules_engines_import_no_rl_framework() -> None:
    """Only ``envs/<game>_v<N>.py`` and ``envs/pettingzoo_base.py`` import pettingzoo or
    gymnasium; the engines, cards, core and registry do not, anywhere in their code."""
    wrong = [
        imp.where()
        for module in MODULES
        if module.startswith("envs") and not is_adapter(module)
        for imp in imports_of(module)
        if imp.target.split(".")[0] in FRAMEWORKS
    ]
    assert not wrong, "RL framework imported by a rules module:\n" + "\n".join(wrong)


def test_loading_a_rules_engine_loads_no_adapter() -> None:
    """The module-level imports of the rules modules never reach an adapter, so importing
    an engine does not import pettingzoo (imports inside functions, such as the
    registry's ``make_env``, load adapters on demand)."""

    def top_level_targets(module: str) -> set[str]:
        tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
        names: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = (_resolve_relative(module, node.level, node.module) if node.level
                        else node.module or "")
                names.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES
                             else base for alias in node.names)
        return {t for t in map(project_target, names) if t is not None}

    wrong = []
    for module in MODULES:
        if not module.startswith("envs") or is_adapter(module):
            continue
        seen, todo = {module}, [module]
        while todo:
            current = todo.pop()
            parents = {".".join(current.split(".")[:i]) for i in range(1, current.count(".") + 1)}
            for target in top_level_targets(current) | parents:
                if target not in seen:
                    seen.add(target)
                    todo.append(target)
        wrong += [f"{module} loads {adapter}" for adapter in sorted(seen) if is_adapter(adapter)]
    assert not wrong, "\n".join(wrong)
