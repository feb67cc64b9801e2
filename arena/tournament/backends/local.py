"""The local backend: chunks in this process, or in a pool of worker processes."""

from __future__ import annotations

from collections.abc import Iterator

from arena.tournament.chunk import ChunkOutput, play_chunk_job


def run_chunks_local(
    spec: dict, chunks: list[int], workers: int = 1, record: bool = False
) -> Iterator[ChunkOutput]:
    """Play ``chunks`` of the tournament ``spec`` (``TournamentSpec.to_json()``) in this
    process (``workers`` = 1) or a pool of ``workers`` processes; yield (chunk, rows, game
    records) as each finishes."""
    jobs = [(spec, chunk, record) for chunk in chunks]
    if workers <= 1 or len(chunks) <= 1:
        yield from map(play_chunk_job, jobs)
        return
    import multiprocessing

    # spawn: no fork of a process that may hold torch/ray threads
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(workers, len(chunks))) as pool:
        yield from pool.imap_unordered(play_chunk_job, jobs)
