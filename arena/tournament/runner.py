"""Running a tournament: validate its arguments, resume its folder, play the missing chunks
on a backend, store them as they finish, then compute the statistics and the report."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from arena import stats
from arena.tournament.backends import check_backend, run_chunks
from arena.tournament.chunk import check_agents
from arena.tournament.inputs import collect_inputs
from arena.tournament.report import write_outputs
from arena.tournament.result import TournamentResult, summary_table
from arena.tournament.spec import CHUNK_SIZE, TournamentSpec, make_spec
from arena.tournament.storage import (
    GAMES_FILE,
    append_games,
    prepare_dir,
    store_records,
    write_games,
)


def run_tournament(
    game: str,
    agent_names: list[str],
    deals: int,
    seed: int,
    options: dict | None = None,
    workers: int = 1,
    out_dir: str | os.PathLike | None = None,
    backend: str = "local",
    episode: str = "deal",
    progress: bool = True,
    agent_kwargs: dict | None = None,
    chunk_size: int = CHUNK_SIZE,
    command: str | None = None,
    on_chunk: Callable[[int], None] | None = None,
    save_games: str | os.PathLike | None = None,
    trust_pickle: bool = False,
    force: bool = False,
) -> TournamentResult:
    """Play a duplicate-deal tournament (:mod:`arena.tournament.schedule`) and compute its
    statistics.

    Args:
        game: a game of :data:`envs.registry.GAMES`.
        agent_names: entrants, each ``name`` or ``label=name`` (see
            :func:`arena.tournament.spec.parse_agents`).
        deals: number of dealt keys; each is played P times (P seat rotations).
        seed: the tournament seed; deal keys and agent seeds derive from it.
        options: the game config's fields (``variant``, ``num_players``, …), not episode.
        workers: processes for the local backend (results do not depend on it).
        out_dir: where to store/resume games.csv and write summary files
            (:mod:`arena.tournament.storage`; a resume whose arguments or input files
            differ is refused); None keeps everything in memory.
        backend: ``"local"`` or ``"ray"`` (:mod:`arena.tournament.backends`).
        episode: ``"deal"`` (one deal / round per game) or ``"match"``.
        progress: show a tqdm bar of deals.
        agent_kwargs: label or registry name -> extra kwargs for ``agents.make``.
        chunk_size: deals per chunk (part of the arguments: results depend on it).
        command: the command line to print at the top of summary.md.
        on_chunk: called with the chunk index after each chunk is stored (tests use it
            to interrupt a run).
        save_games: append every game played by this call to this JSON-lines file
            (:mod:`records.format`; ``cardrl replay FILE`` tells or checks them). With
            ``out_dir``, each game is there exactly once after any interruption and resume
            (:mod:`arena.tournament.storage`).
        trust_pickle: policy entrants also load checkpoints that load only by unpickling
            them (:data:`agents.policy.checkpoint.TRUST_PICKLE_HELP`); not part of the
            results, so a resume with or without it is the same tournament.
        force: write into an existing ``out_dir`` that holds other files and no tournament
            (refused otherwise, :func:`arena.tournament.storage.check_dir`).

    Every argument, every entrant (built once) and the output folder are checked before
    anything is written; a problem is a ``ValueError`` with the whole message, and so is a
    file that cannot be read or written (a full disk): the chunks stored so far are kept.
    """
    spec = make_spec(game, agent_names, deals, seed, options, episode, agent_kwargs, chunk_size,
                     trust_pickle)  # fmt: skip
    check_backend(backend)
    if not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers={workers!r} is not allowed: expected an integer >= 1")
    if save_games is not None:
        check_games_file(Path(save_games))
    # what the results depend on besides the arguments: the files the entrants load
    inputs = collect_inputs(spec.labels, build_entrants(spec))
    start = time.perf_counter()
    out = Path(out_dir) if out_dir is not None else None
    try:
        return _play(spec, out, inputs, force, workers, backend, progress, command, on_chunk,
                     None if save_games is None else Path(save_games), start)
    except OSError as error:  # a full disk, a folder that cannot be written: one line
        raise ValueError(_stored_failure(error, out)) from None


def _stored_failure(error: OSError, out: Path | None) -> str:
    """The message for ``error`` raised while a tournament read or wrote its files."""
    what = f"{error.filename}: " if error.filename else ""
    kept = (f"; the chunks stored in {out / GAMES_FILE} so far are kept: rerun the same "
            f"command to resume once that is fixed" if out is not None else "")
    return f"{what}{error.strerror or error}{kept}"


def _play(spec: TournamentSpec, out: Path | None, inputs: dict, force: bool, workers: int,
          backend: str, progress: bool, command: str | None,
          on_chunk: Callable[[int], None] | None, save_games: Path | None,
          start: float) -> TournamentResult:
    """Resume ``out``, play the missing chunks storing each as it finishes, then the
    statistics and the report (:func:`run_tournament`, its arguments checked)."""
    from tqdm import tqdm

    done = prepare_dir(spec, out, inputs, force) if out is not None else {}
    missing = [c for c in range(spec.num_chunks) if c not in done]
    bar = tqdm(
        total=spec.deals,
        initial=sum(len(spec.chunk_deals(c)) for c in done),
        unit="deal",
        desc=f"{spec.game} tournament",
        disable=not progress,
    )
    played = sum(len(spec.chunk_deals(c)) for c in missing)
    try:
        for chunk, frame, records in run_chunks(
            spec, missing, workers, backend, save_games is not None
        ):
            done[chunk] = frame
            if save_games is not None:  # before the rows: a resume trims them, if need be
                store_records(save_games, records, chunk, out)
            if out is not None:
                append_games(out / GAMES_FILE, frame)
            bar.update(len(spec.chunk_deals(chunk)))
            if on_chunk is not None:
                on_chunk(chunk)
    finally:
        bar.close()
    play_s = time.perf_counter() - start
    table = pd.concat([done[c] for c in sorted(done)], ignore_index=True)
    result = TournamentResult(
        spec=spec,
        games=table,
        summary=summary_table(table, list(spec.labels)),
        head_to_head=stats.head_to_head(table, list(spec.labels)),
        elapsed_s=time.perf_counter() - start,
        play_s=play_s,
        played_deals=played,
        out_dir=out,
        inputs=inputs,
    )
    if out is not None:
        write_games(out / GAMES_FILE, [table])
        result.files = write_outputs(result, out, command)
    return result


def build_entrants(spec: TournamentSpec) -> list:
    """The entrants of chunk 0 (:func:`arena.tournament.chunk.check_agents`), each checked
    to play the table of ``spec``: an agent with ``check_options`` (a policy) is asked
    about the table's options, then to act on the table's first decision (a network of
    another observation size fails there); ValueError for a keyword argument an agent does
    not take or a table it does not play. These entrants play no game: the chunks build
    their own."""
    try:
        entrants = check_agents(spec)
    except TypeError as err:
        if "unexpected keyword argument" not in str(err):
            raise
        given = {agent: sorted(kwargs) for agent, kwargs in spec.agent_kwargs.items()}
        raise ValueError(f"agent arguments {given}: {err}; expected the keyword arguments "
                         "of the agent's class (agents.make(NAME, GAME, **kwargs))") from None
    probe = None
    for label, entrant in zip(spec.labels, entrants, strict=True):
        check_options = getattr(entrant, "check_options", None)
        if check_options is None:
            continue
        try:
            check_options(spec.options)
            if not getattr(entrant, "needs_engine", False):
                # one decision of the table: what check_options cannot see (a network
                # reading observations of another size) fails here, before any folder
                probe = probe or _first_decision(spec)
                entrant.act_batch(*probe)
        except ValueError as err:
            raise ValueError(f"agent {label!r}: {err}") from None
        except RuntimeError as err:  # torch's shape errors: one line is enough
            first = str(err).strip().splitlines()[0] if str(err).strip() else ""
            raise ValueError(f"agent {label!r} cannot act at a {spec.game} table of "
                             f"{spec.options} ({first}); expected an agent for that "
                             f"table") from None
    return entrants


def _first_decision(spec: TournamentSpec) -> tuple[np.ndarray, np.ndarray]:
    """(observations [1, D], masks [1, A]) of the first decision of a game of ``spec``'s
    table: what an entrant sees first."""
    from envs import registry

    engine = registry.make_engine(spec.game, 1, **spec.options)
    engine.reset(seed=spec.seed)
    current = np.maximum(engine.current_player.astype(np.int64), 0)
    return engine.observe(current), engine.legal_action_mask()


def check_games_file(path: Path) -> None:
    """ValueError unless games can be appended to ``path`` (``save_games``): not a folder,
    in a folder that exists."""
    if path.is_dir():
        raise ValueError(f"save_games {str(path)!r} is a folder: expected a file to append "
                         "the games to (JSON lines)")
    if not path.parent.is_dir():
        raise ValueError(f"save_games {str(path)!r}: the folder {str(path.parent)!r} does not "
                         "exist; expected a file in an existing folder")
