"""``cardrl serve``: the local web app — play against any agent, watch and replay games.

    cardrl serve                      # http://127.0.0.1:8000
    cardrl serve --port 8080 --checkpoints runs
    CARDRL_SERVE_TOKEN=$(python -c 'import secrets; print(secrets.token_urlsafe())') \
        cardrl serve --host 0.0.0.0 --allow-host myhost.lan

It binds to 127.0.0.1 (this machine only) unless ``--host`` says otherwise, and answers
only requests addressed to its own names (``--allow-host`` adds one). Another ``--host``
prints on stderr what it exposes and how to protect it: a token (``--token`` or
``CARDRL_SERVE_TOKEN``, then required of every request) or a reverse proxy with
authentication (docs/security.md). Needs the ``web`` extra (``pip install -e ".[web]"``):
starlette and uvicorn. The arguments (the port, the host, the names, the token, the
checkpoint folders) are checked and the address is tried before the server starts; a
problem is one ``cardrl serve: error:`` line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import sys
from pathlib import Path

from agents.policy.checkpoint import TRUST_PICKLE_HELP

#: the ports a server may bind
PORTS = range(1, 65536)
#: the environment variable that holds the token (safer than --token: not shown by ps)
TOKEN_ENV = "CARDRL_SERVE_TOKEN"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only; "
                             "0.0.0.0 opens it to the network: see docs/security.md)")
    parser.add_argument("--port", type=int, default=8000, help="port, 1..65535 (default 8000)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="also answer requests addressed to this host name (repeatable; "
                             "e.g. this machine's name on the network, or a reverse proxy's)")
    parser.add_argument("--token", default=None,
                        help=f"require this token of every request (default: ${TOKEN_ENV} "
                             "if set; the page gets it from the address printed at start)")
    parser.add_argument("--checkpoints", action="append", default=[], metavar="DIR",
                        help="a folder whose *.pt policies are offered as policy:PATH agents "
                             "(repeatable; the committed defaults are always offered)")
    parser.add_argument("--trust-pickle", action="store_true",
                        help=f"the offered policies {TRUST_PICKLE_HELP}")


def url_of(host: str, port: int) -> str:
    """``http://HOST:PORT/``, an IPv6 address in brackets (``http://[::]:8000/``)."""
    name = host.strip("[]")
    return f"http://[{name}]:{port}/" if ":" in name else f"http://{name}:{port}/"


def exposure_warning(host: str, port: int, allow_hosts: list[str], token: str | None) -> str:
    """What a server on ``host`` (not loopback) exposes and how to protect it."""
    from web.guard import WILDCARDS, normalize

    anyone = ("every machine that can reach this one" if normalize(host) in WILDCARDS
              else f"every machine that can reach {host}")
    names = ", ".join(allow_hosts) if allow_hosts else "none: add --allow-host NAME"
    lines = [f"cardrl serve: warning: --host {host} opens the app on port {port} to {anyone}: "
             "there anyone can start games, upload record files, make the agents play (the "
             "search agents cost CPU) and read the catalog (the checkpoints' paths on this "
             f"machine). Requests must address it by an IP address or an allowed name "
             f"({names})."]
    if token:
        lines.append("cardrl serve: only requests with the token are answered; over plain "
                     "HTTP the network can read it: put a reverse proxy with TLS in front "
                     "(docs/security.md).")
    else:
        lines.append(f"cardrl serve: protect it with a token (${TOKEN_ENV} or --token) or a "
                     "reverse proxy with authentication (docs/security.md).")
    return "\n".join(lines)


def check_arguments(host: str, port: int, checkpoint_dirs: list[str],
                    allow_hosts: list[str] = (), token: str | None = None) -> None:
    """ValueError naming the argument unless ``port`` is in :data:`PORTS`, every
    ``checkpoint_dirs`` entry is a folder, every ``allow_hosts`` entry a host name, the
    ``token`` usable, and ``host:port`` can be bound now."""
    from web.guard import check_token, split_host

    if port not in PORTS:
        raise ValueError(f"--port {port} is not allowed: expected an integer "
                         f"{PORTS.start}..{PORTS.stop - 1}")
    for name in allow_hosts:
        parsed = split_host(name)
        if parsed is None or parsed[1] is not None or not parsed[0]:
            raise ValueError(f"--allow-host {name!r}: expected a host name or address "
                             "without a port, e.g. myhost.lan")
    if token is not None:
        try:
            check_token(token)
        except ValueError as err:
            raise ValueError(f"--token / ${TOKEN_ENV}: {err}") from None
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
        from web.guard import WILDCARDS, is_loopback, normalize
    except ImportError as err:
        raise ValueError(f"the web extra is not installed ({err.name} is missing): "
                         'pip install -e ".[web]"') from None
    token = args.token if args.token is not None else (os.environ.get(TOKEN_ENV) or None)
    check_arguments(args.host, args.port, args.checkpoints, args.allow_host, token)
    if not is_loopback(args.host):
        print(exposure_warning(args.host, args.port, args.allow_host, token), file=sys.stderr)
    secret = f"?token={token}" if token else ""
    here = f" (from this machine: {url_of('localhost', args.port)}{secret})" if (
        normalize(args.host) in WILDCARDS) else ""
    print(f"cardrl serve: open {url_of(args.host, args.port)}{secret}{here} (Ctrl-C stops "
          "it)")
    serve(args.host, args.port, args.checkpoints, trust_pickle=args.trust_pickle,
          allow_hosts=args.allow_host, token=token)
    return 0
