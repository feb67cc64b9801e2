"""Helpers for running the library recipes of ``examples/`` as tests.

Each recipe runs in its own Python process (the libraries start thread pools, Ray starts a
local cluster) from a scratch folder, with one thread per math library so two test workers
share two cores. A recipe whose library is missing is skipped with the extra to install.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
INSTALL = "pip install -e '.[integrations]'"
#: where the libraries that cannot share our environment are installed (in one of their own)
APART = "docs/integrations.md, 'Libraries that conflict'"


def requires(*modules: str, install: str = INSTALL) -> pytest.MarkDecorator:
    """Skip unless every top-level module in ``modules`` is importable (found, not imported:
    the test process stays free of the libraries); the reason names ``install``, how to get
    them."""
    missing = [m for m in modules if find_spec(m) is None]
    return pytest.mark.skipif(bool(missing),
                              reason=f"{', '.join(missing)} not installed ({install})")


def run_recipe(name: str, *args: str, cwd: Path, timeout: float = 300,
               env: dict[str, str] | None = None) -> str:
    """Run ``python examples/<name>.py *args`` in ``cwd``; its stdout (fails on a non-zero
    exit, with the recipe's stderr)."""
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", **(env or {})}
    proc = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py"), *args], cwd=cwd,
                          env=environ, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        pytest.fail(f"examples/{name}.py {' '.join(args)} exited {proc.returncode}:\n"
                    f"{proc.stderr[-4000:]}", pytrace=False)
    return proc.stdout

