"""What a tournament's results depend on besides its arguments, recorded by content.

The arguments (:class:`arena.tournament.spec.TournamentSpec`) name the entrants; an entrant
that loads a file (``policy:PATH``, ``policy`` with ``path=...``, or the default ``policy``,
which loads the committed ``agents/checkpoints/<game>_*.pt``) plays whatever that file
holds. The inputs record is therefore::

    {"project_version": "0.1.0",
     "files": [{"agent": LABEL, "path": PATH, "sha256": HEX}, ...]}

one entry per file each entrant loaded (in the entrant's order, then the agent's), stored
in ``tournament.json`` beside the arguments (:mod:`arena.tournament.storage`). A resume
compares the record of the folder with the current one by content: a replaced checkpoint
or another project version refuses the resume, a moved but identical file does not.

An agent names the files it loaded in its ``sources`` attribute (a list of paths;
:class:`agents.policy.agent.PolicyAgent` has one); entries that are not files (``"the
checkpoint dict"``) are skipped.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from collections.abc import Sequence
from pathlib import Path

#: the distribution whose version is recorded
PROJECT = "cardgames-rl"
#: hex digits of a SHA-256 shown in messages
SHOWN_DIGITS = 12


def project_version() -> str:
    """The installed version of the project (``"unknown"`` when it is not installed)."""
    try:
        return importlib.metadata.version(PROJECT)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def sha256(path: str | Path) -> str:
    """The SHA-256 of the file ``path``, as 64 hex digits."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def entrant_files(entrant) -> list[Path]:
    """The files ``entrant`` loaded: the entries of its ``sources`` that are files."""
    return [Path(s) for s in getattr(entrant, "sources", None) or () if Path(s).is_file()]


def shown_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies under it (a committed
    checkpoint reads ``agents/checkpoints/...``), else as it is."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def collect_inputs(labels: Sequence[str], entrants: Sequence) -> dict:
    """The inputs record (module docstring) of entrants built for a tournament, one per
    label; paths as :func:`shown_path` writes them (informative only: the resume compares
    the hashes)."""
    files = [
        {"agent": label, "path": shown_path(path), "sha256": sha256(path)}
        for label, entrant in zip(labels, entrants, strict=True)
        for path in entrant_files(entrant)
    ]
    return {"project_version": project_version(), "files": files}


def differences(stored: dict, current: dict) -> list[str]:
    """How the inputs record ``current`` differs from ``stored``, one phrase per difference
    (empty when the content is the same; a moved file with the same hash is the same)."""
    found = []
    if stored["project_version"] != current["project_version"]:
        found.append(f"the project version is {PROJECT} {current['project_version']}, the "
                     f"games there were played by {stored['project_version']}")  # fmt: skip
    agents = list(dict.fromkeys(f["agent"] for f in [*stored["files"], *current["files"]]))
    for agent in agents:
        old = [f for f in stored["files"] if f["agent"] == agent]
        new = [f for f in current["files"] if f["agent"] == agent]
        if [f["sha256"] for f in old] == [f["sha256"] for f in new]:
            continue
        if len(old) != len(new):
            found.append(
                f"agent {agent!r} loads {len(new)} file(s) {[f['path'] for f in new]}, it "
                f"loaded {len(old)} {[f['path'] for f in old]} for the games there"
            )
            continue
        for was, now in zip(old, new, strict=True):
            if was["sha256"] != now["sha256"]:
                moved = "" if was["path"] == now["path"] else f" (then {was['path']!r})"
                found.append(
                    f"agent {agent!r} loads {now['path']!r}, whose SHA-256 is now "
                    f"{now['sha256'][:SHOWN_DIGITS]}…, but was "
                    f"{was['sha256'][:SHOWN_DIGITS]}…{moved} for the games there"
                )
    return found


def describe(inputs: dict) -> list[str]:
    """The inputs record as lines for a report: the project version, then every file with
    its agent and SHA-256."""
    lines = [f"{PROJECT} {inputs['project_version']}"]
    lines += [f"{f['agent']}: {f['path']} (SHA-256 {f['sha256']})" for f in inputs["files"]]
    return lines
