"""The app's JSON answers: every one with the same safety headers, every error
``{"error": one line}``.

The JSON is written ASCII-only (a lone surrogate from a request's ``\\ud800`` escape is
written back as an escape, not refused by the UTF-8 encoder) and without ``NaN``
(:mod:`web.bounded_json` refuses it on the way in).
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import JSONResponse

#: the headers of every answer
HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self' 'unsafe-inline'; object-src 'none'; "
                               "frame-ancestors 'none'",
}


class SafeJSONResponse(JSONResponse):
    """JSON in ASCII (see the module docstring)."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, allow_nan=False,
                          separators=(",", ":")).encode("ascii")


def json_response(data: Any, status: int = 200,
                  headers: dict[str, str] | None = None) -> SafeJSONResponse:
    """``data`` as JSON with :data:`HEADERS` (and ``headers``)."""
    return SafeJSONResponse(data, status_code=status, headers={**HEADERS, **(headers or {})})


def error_response(status: int, message: str,
                   headers: dict[str, str] | None = None) -> SafeJSONResponse:
    """``{"error": message}`` with ``status``; the message kept to one line."""
    line = " ".join(str(message).split())
    return json_response({"error": line[:2000]}, status, headers)
