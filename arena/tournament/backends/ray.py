"""The Ray backend: chunks of deals as Ray tasks (optional extra ``[ray]``).

A chunk is a pure function of the tournament's arguments and its index
(:func:`arena.tournament.chunk.play_chunk`), so the Ray backend gives exactly the results
of the local backend for the same seed; only where the chunks run changes.

**On one machine**: ``cardrl tournament ... --backend ray`` starts a local Ray with every
CPU (or uses the Ray already initialised in this process).

**On a cluster**:

1. On every node, install the project and its extra the same way, e.g.
   ``pip install -e ".[ray]"`` in the same checkout (the tasks import ``envs``, ``agents``
   and ``arena``, plus numpy and pandas).
2. Head node: ``ray start --head --port=6379``; every other node:
   ``ray start --address=HEAD_IP:6379``.
3. From any node (or through Ray Client, ``ray://HEAD_IP:10001``)::

       RAY_ADDRESS=HEAD_IP:6379 cardrl tournament --game abracadabra \\
           --agents a,b,c,d --deals 100000 --seed 1 --out results/t1 --backend ray

   ``ray.init(address=os.environ.get("RAY_ADDRESS"))`` connects to the cluster; chunks
   (``--chunk-size`` deals each, default 512) are spread over its CPUs and appended to
   ``games.csv`` on the driver as they finish, so an interrupted run resumes as usual.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from arena.tournament.chunk import ChunkOutput, play_chunk_job


def _ray():
    try:
        import ray
    except ImportError as error:  # the optional extra is missing
        raise RuntimeError(
            "--backend ray needs Ray: pip install 'cardgames-rl[ray]' (or pip install ray)"
        ) from error
    return ray


def _play_chunk(spec: dict, chunk: int, record: bool) -> ChunkOutput:
    return play_chunk_job((spec, chunk, record))


def run_chunks_ray(spec: dict, chunks: list[int], record: bool = False) -> Iterator[ChunkOutput]:
    """Play ``chunks`` of the tournament ``spec`` (``TournamentSpec.to_json()``) as Ray
    tasks; yield (chunk, rows, game records) as each finishes."""
    ray = _ray()
    if not chunks:
        return
    if not ray.is_initialized():
        ray.init(address=os.environ.get("RAY_ADDRESS"), log_to_driver=False)
    task = ray.remote(num_cpus=1)(_play_chunk)
    spec_ref = ray.put(spec)
    pending = [task.remote(spec_ref, chunk, record) for chunk in chunks]
    while pending:
        finished, pending = ray.wait(pending, num_returns=1)
        yield ray.get(finished[0])
