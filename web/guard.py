"""What every request must pass before the app sees it (:class:`Guard`, ASGI middleware).

1. **Its Host names this server** (:class:`HostPolicy`): ``127.0.0.1``, ``localhost``,
   ``[::1]``, the ``--host`` it listens on and any ``--allow-host`` name, with no port or
   the server's port. A page of another site that rebinds its own name to this machine
   (DNS rebinding) sends its own name and gets 421. A server listening on every address
   (``0.0.0.0``, ``::``) also answers requests addressed to an IP address (no name can
   be rebound there).
2. **The token, if the server has one**: ``Authorization: Bearer TOKEN``, or the cookie
   the page gets by opening ``/?token=TOKEN`` once (HttpOnly, SameSite=Strict); else 401.
3. **A change of state comes from this server's page**: a POST, PUT, PATCH or DELETE
   whose ``Origin`` is present and is not this server is refused (403), and a body must
   be JSON (``Content-Type: application/json``, or ``application/x-ndjson`` for a record
   file; else 415). Another site's page can send neither without the browser asking this
   server first (a CORS preflight, which it never allows).

Every refusal is a JSON 4xx ``{"error": one line}`` (:func:`web.responses.error_response`).
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Iterable
from urllib.parse import parse_qsl, urlencode, urlsplit

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from web.responses import HEADERS, error_response

#: the names of this machine every server answers to
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
#: addresses that mean "every address of this machine"
WILDCARDS = ("0.0.0.0", "::", "")
#: the methods that change state
CHANGES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: the bodies accepted (none of them a type another site's page may send unasked)
BODY_TYPES = ("application/json", "application/x-ndjson")
#: the cookie that carries the token
COOKIE = "cardrl_token"
#: the characters a token may hold (they go into a cookie and a URL unescaped)
TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
#: the shortest token accepted
MIN_TOKEN = 16


def check_token(token: str) -> str:
    """``token`` if it is usable (:data:`MIN_TOKEN` characters or more of
    :data:`TOKEN_CHARS`), else ValueError saying why."""
    if len(token) < MIN_TOKEN or not set(token) <= TOKEN_CHARS:
        raise ValueError(f"the token must be at least {MIN_TOKEN} characters of A-Z a-z 0-9 "
                         "- . _ ~ (e.g. python -c 'import secrets; print(secrets."
                         "token_urlsafe())')")
    return token


def normalize(name: str) -> str:
    """A host name or address as compared: lower case, IPv6 without brackets."""
    name = name.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    return name


def is_ip(name: str) -> bool:
    """Whether ``name`` (normalized) is an IP address literal."""
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` keeps the server on this machine."""
    name = normalize(host)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def split_host(value: str) -> tuple[str, int | None] | None:
    """``(name, port)`` of a Host header (``name``, ``name:port``, ``[v6]``,
    ``[v6]:port``), the name normalized; None if malformed."""
    value = value.strip()
    if not value or any(c in value for c in "/\\@?#% \t"):
        return None
    if value.startswith("["):
        close = value.find("]")
        if close < 0:
            return None
        name, rest = value[1:close], value[close + 1:]
        if not is_ip(name.lower()):
            return None
        if rest and not rest.startswith(":"):
            return None
        port_text = rest[1:] if rest else None
    else:
        name, sep, port_text = value.partition(":")
        if ":" in port_text:
            return None
        port_text = port_text if sep else None
    if port_text is not None:
        if not port_text.isdigit() or len(port_text) > 5 or not 0 < int(port_text) < 65536:
            return None
        return normalize(name), int(port_text)
    return normalize(name), None


class HostPolicy:
    """The host names a server answers to (see the module docstring).

    ``bind``: the address it listens on; ``port``: its port (None: any port);
    ``names``: more names (``--allow-host``; a reverse proxy's public name)."""

    def __init__(self, bind: str = "127.0.0.1", port: int | None = None,
                 names: Iterable[str] = ()):
        self.bind = normalize(bind)
        self.port = port
        self.any_ip = self.bind in WILDCARDS
        self.names = frozenset([*LOOPBACK_NAMES, *(normalize(n) for n in names)]
                               + ([] if self.any_ip else [self.bind]))

    def allows(self, name: str, port: int | None) -> bool:
        """Whether a request addressed to ``name:port`` is for this server."""
        if self.port is not None and port is not None and port != self.port:
            return False
        return name in self.names or (self.any_ip and is_ip(name))

    def describe(self) -> str:
        """The names answered, for messages."""
        shown = sorted(f"[{n}]" if ":" in n else n for n in self.names)
        return ", ".join(shown) + (" or an IP address" if self.any_ip else "")


def _effective_port(port: int | None, scheme: str) -> int:
    return port if port is not None else (443 if scheme == "https" else 80)


class Guard:
    """ASGI middleware: the checks of the module docstring, before ``app``."""

    def __init__(self, app: ASGIApp, hosts: HostPolicy | None = None,
                 token: str | None = None):
        self.app = app
        self.hosts = hosts or HostPolicy()
        self.token = check_token(token) if token is not None else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":  # the app has none
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
        else:
            await refusal(scope, receive, send)

    def refusal(self, scope: Scope):
        """The answer refusing this request, or None to let it through."""
        headers = Headers(scope=scope)
        host = split_host(headers.get("host", ""))
        if host is None:
            return error_response(400, "the request has no valid Host header")
        if not self.hosts.allows(*host):
            return error_response(421, f"this server answers only requests addressed to "
                                       f"{self.hosts.describe()}; see docs/security.md")
        if self.token is not None:
            denied = self._token_refusal(scope, headers)
            if denied is not None:
                return denied
        if scope["method"] in CHANGES:
            return self._change_refusal(headers, scope)
        return None

    def _token_refusal(self, scope: Scope, headers: Headers):
        expected = self.token.encode("ascii")

        def same(given: str) -> bool:
            return secrets.compare_digest(given.encode("latin-1", "replace"), expected)

        auth = headers.get("authorization", "")
        if auth[:7].lower() == "bearer " and same(auth[7:].strip()):
            return None
        if same(cookie_parser(headers.get("cookie", "")).get(COOKIE, "")):
            return None
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"),
                          keep_blank_values=True)
        given = [v for k, v in query if k == "token"]
        if scope["method"] == "GET" and given and same(given[0]):
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            answer = RedirectResponse(scope["path"] + (f"?{rest}" if rest else ""), 303,
                                      headers=HEADERS)
            answer.set_cookie(COOKIE, self.token, httponly=True, samesite="strict",
                              path="/")
            return answer
        return error_response(401, "this server needs its token: open the address cardrl "
                                   "serve printed (…/?token=…) or send 'Authorization: "
                                   "Bearer TOKEN'",
                              {"WWW-Authenticate": "Bearer"})

    def _change_refusal(self, headers: Headers, scope: Scope):
        origin = headers.get("origin")
        if origin is not None and not self._same_origin(origin, headers.get("host", "")):
            return error_response(403, f"a change from another site's page ({origin[:100]}) "
                                       "is refused: use this server's own page")
        length = headers.get("content-length")
        if length is not None and not length.isdigit():
            return error_response(400, "bad Content-Length")
        if (length is not None and int(length) > 0) or "transfer-encoding" in headers:
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind not in BODY_TYPES:
                return error_response(415, f"the body must be JSON (Content-Type: "
                                           f"{BODY_TYPES[0]}), got {kind or 'no type'!r}")
        return None

    def _same_origin(self, origin: str, host_header: str) -> bool:
        """Whether ``origin`` is this server as the request addressed it, or another of
        its names at the same port."""
        try:
            parts = urlsplit(origin)
            port = parts.port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        if parts.netloc.lower() == host_header.strip().lower():
            return True
        host = split_host(host_header)
        if host is None:
            return False
        name = normalize(parts.hostname)
        return (self.hosts.allows(name, port)
                and _effective_port(port, parts.scheme) == _effective_port(host[1], "http"))
