"""The ``cardrl`` command: one entry point, one sub-command per task.

Each sub-command lives in its own module exposing ``add_arguments(parser)`` and
``run(args) -> int``. Command modules keep heavy imports (torch, ray, open_spiel) inside
``run`` so that ``cardrl --help`` stays fast and a missing optional extra affects only
the command that needs it.

Errors: a command reports bad input (a missing or malformed file, a bad value, an unknown
name) by raising ``ValueError`` (or ``FileNotFoundError``) with a complete message; it
reaches the user as one line on stderr, ``cardrl COMMAND: error: ...``, with exit code 2
and no traceback. ``CARDRL_DEBUG=1`` shows the traceback instead.

What the machine refuses ends the same way, as a last resort (a command checks what it
can before it starts): an ``OSError`` (a full disk, a file that cannot be written) names
the file and the reason, a ``MemoryError`` what could not be allocated, a
``RecursionError`` an input nested too deeply to read.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

#: sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("cli.demo", "the main job: train both games briefly and evaluate them"),
    "bench": ("cli.bench", "throughput of the engines against OpenSpiel; writes runs/bench/"),
    "tournament": ("cli.tournament", "duplicate-deal tournament: ratings and CIs"),
    "bidbench": ("cli.bidbench", "Abracadabra bidding strategies compared on the same deals"),
    "ladder": ("cli.ladder", "strength ladder: every agent vs the strongest heuristic"),
    "agents": ("cli.agents", "list the agents of each game, one line each"),
    "train": ("cli.train", "self-play training of a masked PPO policy from a YAML config"),
    "exploit": ("cli.exploit", "train a best response to an agent: how much it gains"),
    "play": ("cli.play", "play a game in the terminal against the agents"),
    "replay": ("cli.replay", "tell or check saved games (JSON lines from --save-games)"),
    "record": ("cli.record", "play a game with named agents and write it as a GIF"),
    "serve": ("cli.serve", "local web app: play against the agents, watch and replay games"),
    "fuzz": ("cli.fuzz", "random play of every configuration, the rules checked every step"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cardrl",
        description="Abracadabra and Four Aces for reinforcement learning.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        command.set_defaults(_module=module_name)
        importlib.import_module(module_name).add_arguments(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(importlib.import_module(args._module).run(args) or 0)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return 0
    except (ValueError, OSError, MemoryError, RecursionError) as err:
        if os.environ.get("CARDRL_DEBUG"):
            raise
        message = " ".join(error_message(err).split()) or type(err).__name__
        print(f"cardrl {args.command}: error: {message}", file=sys.stderr)
        return 2


def error_message(err: BaseException) -> str:
    """The error line's text for ``err``: a ``ValueError``'s (or ``FileNotFoundError``'s)
    own message; for what the machine refuses (module doc) what failed and why."""
    if isinstance(err, ValueError | FileNotFoundError):
        return str(err)
    if isinstance(err, OSError):  # a full disk, a file that cannot be written …
        where = f"{err.filename}: " if err.filename is not None else ""
        return (f"{where}{err.strerror or err}; expected a file or folder that can be read "
                "or written, on a disk with room")
    if isinstance(err, MemoryError):
        return (f"out of memory ({err or 'MemoryError'}); expected smaller sizes (fewer "
                "games, deals or worlds)")
    return ("an input is nested too deeply to be read (Python's recursion limit); expected "
            "a flatter file")


if __name__ == "__main__":
    sys.exit(main())
