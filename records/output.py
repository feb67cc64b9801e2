"""Result files written safely: where they go is checked before any work, earlier results
are replaced only on request, and a file is written whole or not at all.

A command that writes a report calls :func:`check_output` before it plays anything (the
folder is a folder, or can be made one, and holds none of the files it would replace
unless ``--force`` was given), then writes its files through :func:`atomic_files`: each
into a temporary ``NAME.tmp`` beside it, all of them moved into place only once every one
is written; when one fails (a full disk, a folder that cannot be written) the temporary
files and the folders made for them are removed, the earlier files stay as they were, and
the failure is a ``ValueError`` with the whole message (one line from the ``cardrl``
command).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

#: the suffix of a file being written (``fuzz.md.tmp`` until it replaces ``fuzz.md``)
TMP_SUFFIX = ".tmp"


def check_output(out: str | os.PathLike, names: Sequence[str] = (), what: str = "results",
                 force: bool = False, flag: str = "--out") -> None:
    """``ValueError`` unless the files ``names`` can be written into the folder ``out``:
    ``out`` is a folder or can be made one (no file at it or above it, the nearest existing
    folder writable), none of ``names`` is a folder, and none exists unless ``force``
    (``what`` says what they hold, e.g. "a benchmark"). Creates nothing."""
    path = Path(out)
    existing = next(p for p in (path, *path.parents) if p.exists() or p == Path(p.anchor))
    if not existing.is_dir():
        where = "is a file" if existing == path else f"lies under the file {existing}"
        raise ValueError(f"{flag} {out} {where}: expected a folder for {what}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {out}: the folder {existing} cannot be written (permission "
                         "denied): expected a folder you may write to")
    for name in names:
        target = path / name
        if target.is_dir():
            raise ValueError(f"{flag} {out}: {target} is a folder: expected a file there "
                             f"(or nothing) for {what}")
    found = [path / name for name in names if (path / name).exists()]
    if found and not force:
        raise ValueError(f"{flag} {out} already holds {what} ({found[0]}): expected "
                         f"another {flag} (a folder without it), or --force to replace it")


@contextmanager
def atomic_files(paths: Sequence[str | os.PathLike]) -> Iterator[list[Path]]:
    """The temporary path of each of ``paths`` (``NAME.tmp`` beside it), to be written in
    the ``with`` block; when the block ends, each of ``paths`` is replaced by its temporary
    file. When the block raises, the temporary files and the folders made for them are
    removed and ``paths`` stay as they were; an ``OSError`` (a full disk …) becomes a
    ``ValueError`` naming the folder and the reason."""
    targets = [Path(p) for p in paths]
    tmps = [t.with_name(t.name + TMP_SUFFIX) for t in targets]
    made: list[Path] = []  # folders this call creates, outermost first
    for folder in dict.fromkeys(t.parent for t in targets):
        missing = [p for p in (folder, *folder.parents) if not p.exists()]
        made += [p for p in reversed(missing) if p not in made]
    try:
        for folder in made:
            folder.mkdir(exist_ok=True)
        yield tmps
        for tmp, target in zip(tmps, targets, strict=True):
            os.replace(tmp, target)
    except BaseException as error:
        for tmp in tmps:
            with suppress(OSError):
                tmp.unlink(missing_ok=True)
        for folder in reversed(made):  # removed only if empty: rmdir refuses otherwise
            with suppress(OSError):
                folder.rmdir()
        if not isinstance(error, OSError):
            raise
        folders = ", ".join(dict.fromkeys(str(t.parent) for t in targets))
        reason = error.strerror or str(error) or type(error).__name__
        raise ValueError(f"could not write {', '.join(t.name for t in targets)} into "
                         f"{folders}: {reason}; nothing was replaced and the .tmp files were "
                         "removed: expected room on the disk and a folder you may write "
                         "to (free some space, or choose another --out)") from error


def available_memory() -> int | None:
    """The bytes of memory this machine can still give (``MemAvailable`` of
    ``/proc/meminfo``, else the physical memory), or None when unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None
