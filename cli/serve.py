"""``cardrl serve``: the local web app — play against any agent, watch and replay games.

    cardrl serve                      # http://127.0.0.1:8000
    cardrl serve --port 8080 --checkpoints runs

It binds to 127.0.0.1 (this machine only) unless ``--host`` says otherwise. Needs the
``web`` extra (``pip install -e ".[web]"``): starlette and uvicorn.
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only; "
                             "0.0.0.0 opens it to the network)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--checkpoints", action="append", default=[], metavar="DIR",
                        help="a folder whose *.pt policies are offered as policy:PATH agents "
                             "(repeatable; the committed defaults are always offered)")


def run(args: argparse.Namespace) -> int:
    try:
        from web.app import serve
    except ImportError as err:
        print(f"cardrl serve needs the web extra ({err.name} is missing): "
              'pip install -e ".[web]"')
        return 1
    print(f"cardrl serve: open http://{args.host}:{args.port}/ (Ctrl-C stops it)")
    serve(args.host, args.port, args.checkpoints)
    return 0
