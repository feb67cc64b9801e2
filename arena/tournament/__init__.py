"""Duplicate-deal tournaments on the batch engines, for every game of the registry.

>>> result = run_tournament("abracadabra", ["random", "random"], deals=100, seed=0,
...                         options={"variant": "two"}, progress=False)  # doctest: +SKIP
>>> result.summary[["agent", "mean_points", "ci_low", "ci_high", "rating"]]  # doctest: +SKIP

The modules, each with one purpose:

- :mod:`~arena.tournament.spec`: the arguments (entrants, validated spec, command line);
- :mod:`~arena.tournament.schedule`: deal keys, line-ups, seat rotations and agent seeds
  (the determinism contract);
- :mod:`~arena.tournament.chunk`: playing one chunk of deals on a batch engine;
- :mod:`~arena.tournament.backends`: where the chunks run (local processes or Ray);
- :mod:`~arena.tournament.inputs`: what the results depend on besides the arguments (the
  SHA-256 of every file an entrant loads, the project version);
- :mod:`~arena.tournament.storage`: tournament.json, games.csv and resumption;
- :mod:`~arena.tournament.reading`: both files read back, every field checked;
- :mod:`~arena.tournament.result` and :mod:`~arena.tournament.report`: the statistics
  table, summary.md and the plots;
- :mod:`~arena.tournament.runner`: :func:`run_tournament`, which ties them together.
"""

from arena.tournament.backends import BACKENDS
from arena.tournament.chunk import COLUMNS, play_chunk
from arena.tournament.report import summary_markdown, write_outputs
from arena.tournament.result import TournamentResult
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import agent_seed, deal_keys, lineup, seating
from arena.tournament.spec import (
    CHUNK_SIZE,
    TournamentSpec,
    command_line,
    make_spec,
    parse_agents,
)
from arena.tournament.storage import TournamentMismatch

__all__ = [
    "BACKENDS",
    "CHUNK_SIZE",
    "COLUMNS",
    "TournamentMismatch",
    "TournamentResult",
    "TournamentSpec",
    "agent_seed",
    "command_line",
    "deal_keys",
    "lineup",
    "make_spec",
    "parse_agents",
    "play_chunk",
    "run_tournament",
    "seating",
    "summary_markdown",
    "write_outputs",
]
