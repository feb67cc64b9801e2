"""The documentation site (mkdocs.yml over docs/, the API reference from the docstrings)
builds with every warning an error, as ``make docs`` builds it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("mkdocstrings_handlers.python", reason="the dev extra's docs tools")


@pytest.mark.xdist_group("docs")
def test_site_builds_strict(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # no theme banner in the output
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict",
         "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = (built.stdout + built.stderr).splitlines()
    warnings = [line for line in output if not line.startswith("INFO")]
    assert built.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(warnings)
    assert (tmp_path / "site" / "reference" / "envs" / "index.html").is_file()
