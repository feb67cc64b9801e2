"""``cardrl replay``: tell or check saved games (JSON lines from ``--save-games``).

    cardrl replay games.jsonl --game 3      # a readable account of the fourth game
    cardrl replay games.jsonl --check       # replay every action, confirm every result

Every line of the file is checked before any game is told
(:func:`records.format.read_games`); each bad line is one ``cardrl replay: error:`` line on
stderr naming the file, the line, the field, what was found and what was expected, and the
good games are still told or checked (a number too long to read, too, is one bad line).

Exit status: 0 every game read and replayed exactly; 1 every line is a readable game but
some game does not replay (an actor, an action illegal at its step, a deal or a result not
the stored one); 2 some line is not a readable game record. A file that holds no readable
game (empty, or every line bad), a file that cannot be read and a ``--game`` index out of
range raise ``ValueError`` (the ``cardrl`` command prints it and exits 2), and so does a
path that is not a regular file (a named pipe, a device: refused before anything is read).
"""

from __future__ import annotations

import argparse
import os
import sys

from records.describe import tell_game
from records.format import read_games
from records.replay import check_game

#: the start of every error line on stderr (as the ``cardrl`` command prints its errors)
ERROR = "cardrl replay: error: "
#: exit status: some game does not replay to its stored record
MISMATCH = 1
#: exit status: some line is not a readable game record
BAD_INPUT = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's flags."""
    parser.epilog = ("exit status: 0 every game read and replayed exactly; 1 some game does "
                     "not replay as stored; 2 some line is not a readable game record, or "
                     "the file holds no game or cannot be read (each bad line is reported "
                     "on stderr with its line and field; the other games are still handled)")
    parser.add_argument("file", help="a games file (JSON lines, e.g. from --save-games)")
    parser.add_argument("--game", type=int, default=None, metavar="K",
                        help="only the K-th readable game of the file (0 = the first)")
    parser.add_argument("--check", action="store_true",
                        help="replay the actions through the engine and confirm the stored "
                             "results (exit 1 if any game differs, 2 if any line is not a "
                             "readable game)")


def run(args: argparse.Namespace) -> int:
    """Tell or check the file's games (:func:`replay_command`); the exit status."""
    return replay_command(args.file, args.game, args.check)


def replay_command(path: str | os.PathLike, game: int | None = None, check: bool = False,
                   output=None) -> int:
    """Tell (or with ``check`` check) the games of ``path``; ``output`` takes both streams
    (default stdout and stderr). Bad lines are reported first, then the good games are
    handled. Returns the exit status (see the module docstring); raises ``ValueError`` for
    a file that cannot be read or holds no readable game, or a ``game`` index out of
    range."""
    out = output or sys.stdout
    err = output or sys.stderr
    games, errors = read_games(path)
    for error in errors:
        print(f"{ERROR}{error}", file=err)
    if not games:
        why = (f"all {len(errors)} of its line(s) are bad (see above)" if errors
               else "the file is empty")
        raise ValueError(f"{path}: found no game record ({why}), expected at least one game")
    selected = list(enumerate(games))
    if game is not None:
        if not 0 <= game < len(games):
            raise ValueError(f"--game {game}: {path} holds {len(games)} readable game(s), "
                             f"expected an index 0..{len(games) - 1}")
        selected = [selected[game]]
    differ: list[int] = []  # lines of the games that do not replay
    for k, record in selected:
        label = f"game {k} (line {record['_line']})"
        if check:
            problems = check_game(record)
            if problems:
                differ.append(record["_line"])
                print(f"{label}: DIFFERS", file=out)
                for p in problems:
                    print(f"  {p}", file=out)
            else:
                print(f"{label}: ok ({len(record['actions'])} actions, results match)",
                      file=out)
        else:
            text, problems = tell_game(record)
            print(f"=== {label} ===", file=out)
            print(text, file=out)
            print(file=out)
            if problems:
                differ.append(record["_line"])
                print(f"{ERROR}{path}, line {record['_line']}: game {k} does not replay as "
                      f"stored: {'; '.join(problems)}", file=err)
    if check and not errors and not differ:
        print(f"all {len(selected)} game(s) replay exactly", file=out)
    if differ:
        lines = ", ".join(map(str, differ))
        print(f"{len(differ)} game(s) of {path} do not replay as stored (line(s) {lines})",
              file=err)
    if errors:
        print(f"{len(errors)} bad line(s) of {path}; {len(games)} good game(s) read",
              file=err)
        return BAD_INPUT
    return MISMATCH if differ else 0
