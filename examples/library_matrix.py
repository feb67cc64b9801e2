"""Every library's own PettingZoo recipe on every table: the integration matrix.

Runs each recipe of :data:`RECIPES` (one script of ``examples/`` per library recipe, each
its library's own recipe with our env swapped in) on each of the seven tables (Abracadabra
``--variant four|three|two_dummy|two``, Four Aces ``--num-players 3|4|5``), every run in a
subprocess of its own with tiny budgets (the plumbing is what is checked, not learning)
and a timeout. A progress line per run; then a table, library x table, of pass / fail /
timeout / skip, the seconds, and the error's last line:

- ``<out>/matrix.md`` and ``<out>/matrix.csv``, and each run's output in
  ``<out>/logs/<recipe>__<table>.log``.

``--out`` defaults to ``runs/library_matrix`` (ignored by git); the committed matrix is
written with ``--out results/integrations``. ``--update`` redoes the cells asked for and
keeps the others of the ``matrix.csv`` already there.

AgileRL and pufferlib-core pin versions that conflict with this project's environment
(docs/integrations.md): run them from a venv of their own with ``--python
agilerl=/path/to/venv/bin/python``. A library that the chosen Python cannot import is
skipped, with the reason in its cells.

Run: ``python examples/library_matrix.py --recipes supersuit cleanrl --tables four_aces-3``
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from envs.abracadabra.config import VARIANTS
from envs.four_aces.config import RANGES

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
DEFAULT_OUT = ROOT / "runs" / "library_matrix"


@dataclass(frozen=True)
class Recipe:
    """One library recipe as an example script and the tiny budget the matrix gives it."""

    key: str  #: the recipe's name on the command line and in the table
    library: str  #: the library (``--python LIBRARY=PATH`` chooses its interpreter)
    recipe: str  #: the library's own recipe that the script follows
    script: str  #: ``examples/<script>.py``
    args: tuple[str, ...]  #: its options besides the table (the tiny budget)
    modules: tuple[str, ...]  #: the modules it imports (a missing one: the run is skipped)
    packages: tuple[str, ...]  #: the distributions whose versions the table records


RECIPES: tuple[Recipe, ...] = (
    Recipe("pettingzoo", "pettingzoo", "PettingZoo's testing utilities, default arguments",
           "pettingzoo_utilities", (), ("pettingzoo",), ("pettingzoo",)),
    Recipe("supersuit", "supersuit", "SuperSuit wrappers + vector env",
           "supersuit_parallel", ("--episodes", "2", "--tables", "2", "--steps", "100"),
           ("supersuit",), ("supersuit", "pettingzoo")),
    Recipe("tianshou", "tianshou", "Tianshou's tic-tac-toe test (PettingZooEnv, DQN)",
           "tianshou_dqn",
           ("--episodes", "2", "--epochs", "1", "--epoch-steps", "100", "--envs", "2"),
           ("tianshou",), ("tianshou", "torch", "pettingzoo")),
    Recipe("torchrl-wrapper", "torchrl", "TorchRL's PettingZooWrapper example",
           "torchrl_rollout", ("--tables", "2", "--steps", "100"), ("torchrl", "tensordict"),
           ("torchrl", "tensordict", "torch", "pettingzoo")),
    Recipe("torchrl-mappo", "torchrl", "TorchRL's multi-agent PPO tutorial",
           "torchrl_marl_ppo", ("--frames-per-batch", "100", "--iterations", "1", "--epochs",
                                "1", "--minibatch-size", "50"), ("torchrl", "tensordict"),
           ("torchrl", "tensordict", "torch", "pettingzoo")),
    Recipe("rllib", "rllib", "RLlib's parameter-sharing example + action-masking module",
           "rllib_ppo", ("--iterations", "1", "--batch", "128"), ("ray", "tree", "torch"),
           ("ray", "torch", "pettingzoo")),
    Recipe("sb3", "sb3", "PettingZoo's SB3 action-mask tutorial (MaskablePPO)",
           "sb3_action_mask", ("--steps", "64", "--n-steps", "64", "--batch-size", "32",
                               "--eval-games", "2", "--watch-games", "1", "--model-dir",
                               "models"), ("sb3_contrib", "stable_baselines3"),
           ("sb3-contrib", "stable-baselines3", "torch", "gymnasium", "pettingzoo")),
    Recipe("agilerl", "agilerl", "AgileRL's DQN curriculum + self-play tutorial",
           "agilerl_dqn", ("--episodes", "2", "--eval-episodes", "1", "--warm-up", "32",
                           "--batch-size", "16"), ("agilerl",),
           ("agilerl", "tensordict", "torch", "pettingzoo")),
    Recipe("pufferlib", "pufferlib", "PufferLib (core) PettingZoo emulation + vector env",
           "pufferlib_emulation", ("--games", "2", "--tables", "2", "--steps", "60"),
           ("pufferlib",), ("pufferlib-core", "torch", "pettingzoo")),
    Recipe("cleanrl", "cleanrl", "PettingZoo's CleanRL PPO tutorial",
           "cleanrl_ppo", ("--updates", "1", "--episodes", "1", "--epochs", "1",
                           "--eval-episodes", "1"), ("torch",), ("torch", "pettingzoo")),
)

#: every table: its name in the matrix -> the options that choose it (the env's keywords)
TABLES: dict[str, tuple[str, ...]] = {
    **{f"abracadabra-{v}": ("--game", "abracadabra", "--variant", v)
       for v in VARIANTS},
    **{f"four_aces-{p}": ("--game", "four_aces", "--num-players", str(p))
       for p in range(RANGES["num_players"][0], RANGES["num_players"][1] + 1)},
}


@dataclass
class Cell:
    """One run's outcome."""

    recipe: str
    table: str
    status: str  #: "pass", "fail", "timeout" or "skip"
    seconds: float
    error: str  #: the error's one line ("" when it passed)
    python: str = ""  #: the interpreter it ran under
    versions: str = ""  #: its packages' versions there (:func:`probe`)


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` shows this docstring as written and each option's default."""


def parse_pythons(pairs: list[str]) -> dict[str, str]:
    """``LIBRARY=PATH`` pairs as a dict; a library that no recipe has is an error."""
    libraries = {r.library for r in RECIPES}
    pythons = {}
    for pair in pairs:
        library, sep, path = pair.partition("=")
        if not sep or library not in libraries:
            raise SystemExit(f"--python {pair!r}: expected LIBRARY=PATH, LIBRARY one of "
                             f"{sorted(libraries)}")
        pythons[library] = path
    return pythons


def probe(python: str, recipe: Recipe) -> tuple[list[str], str]:
    """(the modules of ``recipe`` that ``python`` cannot find -- found, not imported --,
    the versions of its packages there, as ``"name version, ..."``)."""
    code = ("import importlib.metadata as md, importlib.util as u, sys\n"
            "modules, packages = sys.argv[1].split(), sys.argv[2].split()\n"
            "print(' '.join(m for m in modules if u.find_spec(m) is None))\n"
            "def version(p):\n"
            "    try:\n"
            "        return md.version(p)\n"
            "    except md.PackageNotFoundError:\n"
            "        return 'missing'\n"
            "print(', '.join(f'{p} {version(p)}' for p in packages))\n")
    proc = subprocess.run([python, "-c", code, " ".join(recipe.modules),
                           " ".join(recipe.packages)], capture_output=True, text=True,
                          timeout=120)
    if proc.returncode != 0:
        return [f"(python failed: {error_line(proc.stderr)})"], ""
    missing, versions = (proc.stdout.splitlines() + ["", ""])[:2]
    return missing.split(), versions


def error_line(output: str) -> str:
    """The one line that says what went wrong: the last exception line, else the last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        head = line.split(":", 1)[0]
        if head.endswith(("Error", "Exception", "Exit", "Interrupt")) or head == "Killed":
            return line[:300]
    return lines[-1][:300] if lines else "(no output)"


def run_cell(recipe: Recipe, table: str, python: str, timeout: float, logs: Path) -> Cell:
    """Run one recipe on one table in a scratch folder; its output goes to ``logs``."""
    command = [python, str(EXAMPLES / f"{recipe.script}.py"), *TABLES[table], *recipe.args]
    with tempfile.TemporaryDirectory(prefix="library_matrix_") as scratch:
        environ = {**os.environ, "HOME": scratch,  # RLlib writes under ~/ray_results
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                               os.environ.get("PYTHONPATH")])),
                   "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        start = time.perf_counter()
        try:
            proc = subprocess.run(command, cwd=scratch, env=environ, capture_output=True,
                                  text=True, timeout=timeout)
            output, code = proc.stdout + proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as expired:
            output = "".join(x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
                             for x in (expired.stdout, expired.stderr))
            code = None
        seconds = time.perf_counter() - start
    (logs / f"{recipe.key}__{table}.log").write_text(
        f"$ {' '.join(command[:1] + [str(Path(command[1]).relative_to(ROOT))] + command[2:])}"
        f"\n{output}")
    if code is None:
        return Cell(recipe.key, table, "timeout", seconds, f"no result after {timeout:.0f} s")
    if code != 0:
        return Cell(recipe.key, table, "fail", seconds, f"exit {code}: {error_line(output)}")
    return Cell(recipe.key, table, "pass", seconds, "")


COLUMNS = ("recipe", "library", "table", "status", "seconds", "error", "python", "versions")


def read_cells(path: Path) -> list[Cell]:
    """The cells of an earlier ``matrix.csv`` (none if there is none)."""
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return [Cell(row["recipe"], row["table"], row["status"], float(row["seconds"]),
                     row["error"], row.get("python", ""), row.get("versions", ""))
                for row in csv.DictReader(f)]


def write_tables(cells: list[Cell], out: Path) -> None:
    """``matrix.csv`` (one row per run) and ``matrix.md`` (library x table, then the
    errors), both in the order of :data:`RECIPES` and :data:`TABLES`."""
    order = {r.key: i for i, r in enumerate(RECIPES)}
    table_order = {t: i for i, t in enumerate(TABLES)}
    cells = sorted(cells, key=lambda c: (order[c.recipe], table_order[c.table]))
    recipes = [r for r in RECIPES if any(c.recipe == r.key for c in cells)]
    tables = [t for t in TABLES if any(c.table == t for c in cells)]
    with open(out / "matrix.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        library = {r.key: r.library for r in RECIPES}
        for c in cells:
            writer.writerow([c.recipe, library[c.recipe], c.table, c.status,
                             f"{c.seconds:.1f}", c.error, c.python, c.versions])
    by = {(c.recipe, c.table): c for c in cells}
    first = {}
    for c in cells:
        first.setdefault(c.recipe, c)
    lines = ["# Library recipes x tables", "",
             "Each cell: one run of the library's own recipe (`examples/<script>.py`) on that "
             "table with a tiny budget, in a subprocess of its own: pass / fail / timeout / "
             "skip and its seconds. Written by `examples/library_matrix.py`.", "",
             "| recipe | library's own recipe | script | " + " | ".join(tables) + " |",
             "|---|---|---|" + "---|" * len(tables)]
    for r in recipes:
        row = [f"**{r.key}**", r.recipe, f"`{r.script}.py`"]
        for t in tables:
            c = by.get((r.key, t))
            row.append("" if c is None else f"{c.status} {c.seconds:.0f} s"
                       if c.status != "skip" else "skip")
        lines.append("| " + " | ".join(row) + " |")
    passed = sum(c.status == "pass" for c in cells)
    lines += ["", f"{passed} of {len(cells)} runs passed."]
    others = [c for c in cells if c.status != "pass"]
    if others:
        lines += ["", "| recipe | table | status | error |", "|---|---|---|---|"]
        lines += [f"| {c.recipe} | {c.table} | {c.status} | {c.error.replace('|', '/')} |"
                  for c in others]
    lines += ["", "| recipe | interpreter | versions |", "|---|---|---|"]
    lines += [f"| {r.key} | `{first[r.key].python}` | {first[r.key].versions} |"
              for r in recipes]
    lines += ["", "Budgets (besides the table's options): " + "; ".join(
        f"{r.key}: `{' '.join(r.args) or '(the defaults)'}`" for r in recipes) + "."]
    (out / "matrix.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    keys = [r.key for r in RECIPES]
    parser.add_argument("--recipes", nargs="+", choices=keys, default=keys,
                        metavar="RECIPE", help=f"which recipes, of {' '.join(keys)}")
    parser.add_argument("--tables", nargs="+", choices=list(TABLES), default=list(TABLES),
                        metavar="TABLE", help=f"which tables, of {' '.join(TABLES)}")
    parser.add_argument("--python", action="append", default=[], metavar="LIBRARY=PATH",
                        help="the interpreter for one library's recipes (its own venv); "
                             "repeatable; the others run under this Python")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="where matrix.md, matrix.csv and logs/ are written")
    parser.add_argument("--update", action="store_true",
                        help="keep the cells of the matrix.csv already in --out that this "
                             "run does not redo (to rerun some recipes or tables)")
    args = parser.parse_args(argv)
    pythons = parse_pythons(args.python)
    recipes = [r for r in RECIPES if r.key in args.recipes]
    logs = args.out / "logs"
    logs.mkdir(parents=True, exist_ok=True)

    redo = {(r.key, t) for r in recipes for t in args.tables}
    kept = [c for c in read_cells(args.out / "matrix.csv") if (c.recipe, c.table) not in redo
            ] if args.update else []
    for cell in kept:  # from a matrix.csv that did not record them: as they are now
        if not cell.python:
            recipe = next(r for r in RECIPES if r.key == cell.recipe)
            cell.python = pythons.get(recipe.library, sys.executable)
            cell.versions = probe(cell.python, recipe)[1]
    cells, total, n = [], len(recipes) * len(args.tables), 0
    for recipe in recipes:
        python = pythons.get(recipe.library, sys.executable)
        missing, versions = probe(python, recipe)
        for table in args.tables:
            n += 1
            if missing:
                cell = Cell(recipe.key, table, "skip", 0.0,
                            f"{', '.join(missing)} not importable by {python} "
                            f"(--python {recipe.library}=PATH)")
            else:
                print(f"[{n}/{total}] {recipe.key} {table} ...", end=" ", flush=True)
                cell = run_cell(recipe, table, python, args.timeout, logs)
            cell.python, cell.versions = python, versions
            cells.append(cell)
            if cell.status == "skip":
                print(f"[{n}/{total}] {recipe.key} {table}: skip ({cell.error})", flush=True)
            else:
                error = f": {cell.error}" if cell.error else ""
                print(f"{cell.status} ({cell.seconds:.1f} s){error}", flush=True)
            # rewritten after every run: an interrupted matrix keeps what it has
            write_tables(kept + cells, args.out)
    passed = sum(c.status == "pass" for c in cells)
    print(f"{passed} of {len(cells)} runs passed; table in {args.out / 'matrix.md'}"
          + (f" (with {len(kept)} earlier cells)" if kept else ""))
    return 0 if all(c.status in ("pass", "skip") for c in cells) else 1


if __name__ == "__main__":
    sys.exit(main())
