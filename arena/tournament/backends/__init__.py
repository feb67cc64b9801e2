"""Where a tournament's chunks run: in this process or a process pool (``local``), or as
Ray tasks (``ray``). Every backend plays :func:`arena.tournament.chunk.play_chunk_job`, so
the results are the same on each; only where the chunks run changes."""

from __future__ import annotations

from collections.abc import Iterator

from arena.tournament.backends.local import run_chunks_local
from arena.tournament.backends.ray import run_chunks_ray
from arena.tournament.chunk import ChunkOutput
from arena.tournament.spec import TournamentSpec

BACKENDS = ("local", "ray")


def check_backend(backend: str) -> None:
    """Refuse a backend name that is not one of :data:`BACKENDS`, or ``ray`` where Ray is
    not installed (found without importing it)."""
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} is not allowed: expected one of {BACKENDS}")
    if backend == "ray":
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            raise ValueError("backend='ray' needs Ray, which is not installed: pip install "
                             "'cardgames-rl[ray]' (or pip install ray), or use --backend local")


def run_chunks(
    spec: TournamentSpec, chunks: list[int], workers: int, backend: str, record: bool
) -> Iterator[ChunkOutput]:
    """Play ``chunks`` of ``spec`` on ``backend``; yield each chunk's output as it finishes.

    ``workers`` is the local backend's process count (Ray uses the cluster's CPUs);
    ``record`` asks for every game's record (``--save-games``)."""
    check_backend(backend)
    if backend == "ray":
        return run_chunks_ray(spec.to_json(), chunks, record)
    return run_chunks_local(spec.to_json(), chunks, workers, record)
