"""``cardrl serve``: the local web app — play against any agent, watch and replay games.

    cardrl serve                      # http://127.0.0.1:8000
    cardrl serve --port 8080 --checkpoints runs

It binds to 127.0.0.1 (this machine only) unless ``--host`` says otherwise. Needs the
``web`` extra (``pip install -e ".[web]"``): starlette and uvicorn. The arguments (the
port, the host, the checkpoint folders) are checked and the address is tried before the
server starts; a problem is one ``cardrl serve: error:`` line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import errno
import socket
from pathlib import Path

from agents.policy.checkpoint import TRUST_PICKLE_HELP

#: the ports a server may bind
PORTS = range(1, 65536)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only; "
                             "0.0.0.0 opens it to the network)")
    parser.add_argument("--port", type=int, default=8000, help="port, 1..65535 (default 8000)")
    parser.add_argument("--checkpoints", action="append", default=[], metavar="DIR",
                        help="a folder whose *.pt policies are offered as policy:PATH agents "
                             "(repeatable; the committed defaults are always offered)")
    parser.add_argument("--trust-pickle", action="store_true",
                        help=f"the offered policies {TRUST_PICKLE_HELP}")


def check_arguments(host: str, port: int, checkpoint_dirs: list[str]) -> None:
    """ValueError naming the argument unless ``port`` is in :data:`PORTS`, every
    ``checkpoint_dirs`` entry is a folder, and ``host:port`` can be bound now."""
    if port not in PORTS:
        raise ValueError(f"--port {port} is not allowed: expected an integer "
                         f"{PORTS.start}..{PORTS.stop - 1}")
    for folder in checkpoint_dirs:
        if not Path(folder).is_dir():
            found = "a file" if Path(folder).exists() else "nothing"
            raise ValueError(f"--checkpoints {folder}: found {found}, expected a folder of "
                             "*.pt policy checkpoints")
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError) as err:
        raise ValueError(f"--host {host}: not an address of this machine ({err}); expected "
                         "e.g. 127.0.0.1 or 0.0.0.0") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as err:
            why = ("is in use; choose another --port" if err.errno == errno.EADDRINUSE
                   else f"cannot be bound ({err.strerror or err})")
            raise ValueError(f"--host {host} --port {port}: the address {why}") from None


def run(args: argparse.Namespace) -> int:
    """Check the arguments, then serve until interrupted; a bad argument is a ValueError
    with the whole message."""
    try:
        import uvicorn  # noqa: F401  (web.app.serve runs it)

        from web.app import serve
    except ImportError as err:
        raise ValueError(f"the web extra is not installed ({err.name} is missing): "
                         'pip install -e ".[web]"') from None
    check_arguments(args.host, args.port, args.checkpoints)
    print(f"cardrl serve: open http://{args.host}:{args.port}/ (Ctrl-C stops it)")
    serve(args.host, args.port, args.checkpoints, trust_pickle=args.trust_pickle)
    return 0
