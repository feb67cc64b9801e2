"""The quickstart notebook runs top to bottom, so it never goes stale.

The kernel is this interpreter (the project's venv): a kernelspec pointing at
``sys.executable`` is written to a temporary Jupyter path, so the test needs no kernel
registered on the machine and never picks up another Python's ``python3`` kernel.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"
KERNEL = "cardrl-test-python"


@pytest.fixture
def kernel_name(tmp_path, monkeypatch):
    spec = tmp_path / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "cardrl test kernel",
        "language": "python",
    }))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return KERNEL


def test_committed_notebook_has_no_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, (
                "clear the notebook's outputs before committing")


@pytest.mark.slow
def test_quickstart_notebook_runs(kernel_name):
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        kernel_name=kernel_name,
        timeout=120,
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()
    text = "\n".join(
        out.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
        for out in cell.outputs
    )
    assert "result:" in text
    assert "replays exactly: [True, True]" in text
    assert "Trick 1:" in text
    images = [out for cell in notebook.cells if cell.cell_type == "code"
              for out in cell.outputs if "image/png" in out.get("data", {})]
    assert images, "the tournament plot was not drawn"
