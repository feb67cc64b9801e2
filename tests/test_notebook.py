"""The quickstart notebook runs top to bottom, so it never goes stale, and it is committed
with its outputs, so that it shows something when browsed.

The kernel is this interpreter (the project's venv): a kernelspec pointing at
``sys.executable`` is written to a temporary Jupyter path, so the test needs no kernel
registered on the machine and never picks up another Python's ``python3`` kernel.
``python tests/test_notebook.py`` executes the notebook the same way and saves it with
its outputs (no timing metadata; the generic ``python3`` kernelspec is kept).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "quickstart.ipynb"
KERNEL = "cardrl-test-python"
#: what a saved output must not contain: a path of this machine, a timing, an error
UNSTABLE = re.compile(r"/(?:work|home|tmp|root|Users)/|\d+(?:\.\d+)? ?(?:s|ms)\b|Traceback")


def write_kernel(folder: Path) -> str:
    """A kernelspec for this interpreter under ``folder`` (a Jupyter path); its name."""
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "cardrl test kernel",
        "language": "python",
    }))
    return KERNEL


def execute(notebook, kernel_name: str):
    """Run every cell of ``notebook`` (in place) from the repository root."""
    import nbclient

    client = nbclient.NotebookClient(
        notebook,
        kernel_name=kernel_name,
        timeout=120,
        record_timing=False,
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()
    return notebook


def _texts(notebook) -> list[str]:
    """The text of each code cell's outputs (streams and plain-text results), joined per
    cell: how the kernel cuts a cell's printing into stream messages depends on timing (a
    compile on first use can split it), what it prints does not."""
    return ["".join(out.get("text", "") or out.get("data", {}).get("text/plain", "")
                    for out in cell.outputs)
            for cell in notebook.cells if cell.cell_type == "code"]


@pytest.fixture
def kernel_name(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return write_kernel(tmp_path / "jupyter")


def test_committed_notebook_has_its_outputs():
    nbformat = pytest.importorskip("nbformat")
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), (
        "run the whole notebook before committing: python tests/test_notebook.py")
    shown = [cell for cell in code if cell.outputs]
    assert len(shown) >= len(code) - 2, "most cells show something"
    for cell in code:
        assert "execution" not in cell.metadata, "timing metadata is machine-specific"
        for out in cell.outputs:
            assert out.output_type != "error", cell.source
            text = out.get("text", "") or out.get("data", {}).get("text/plain", "")
            assert not UNSTABLE.search(text), f"machine-specific output: {text[:200]!r}"
    assert notebook.metadata.kernelspec.name == "python3"


@pytest.mark.slow
def test_quickstart_notebook_runs(kernel_name):
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = execute(nbformat.read(NOTEBOOK, as_version=4), kernel_name)
    text = "\n".join(_texts(notebook))
    assert "result:" in text
    assert "replays exactly: [True, True]" in text
    assert "Trick 1:" in text
    assert re.search(r"player_0: .*\(([+-]\d+)\)|player_0: loose", text)  # K2 split
    images = [out for cell in notebook.cells if cell.cell_type == "code"
              for out in cell.outputs if "image/png" in out.get("data", {})]
    assert images, "the tournament plot was not drawn"
    committed = nbformat.read(NOTEBOOK, as_version=4)
    assert _texts(notebook) == _texts(committed), (
        "the committed outputs are stale: python tests/test_notebook.py")


def main() -> int:
    """Execute the notebook with this interpreter and save it with its outputs."""
    import os

    import nbformat

    with tempfile.TemporaryDirectory() as folder:
        os.environ["JUPYTER_PATH"] = folder
        notebook = execute(nbformat.read(NOTEBOOK, as_version=4), write_kernel(Path(folder)))
    notebook.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                       "name": "python3"}
    notebook.metadata["language_info"] = {"name": "python"}
    nbformat.write(notebook, NOTEBOOK)
    print(f"wrote {NOTEBOOK.relative_to(ROOT)} with its outputs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
