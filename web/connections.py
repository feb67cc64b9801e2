"""Slow clients are not waited for: uvicorn's settings for ``cardrl serve`` and the
background server.

uvicorn closes an idle kept-alive connection, but waits without end for the head of a
request that is sent a byte at a time, or never. :class:`TimedH11Protocol` gives every
request head :data:`HEAD_SECONDS` from the connection (or the previous answer) to arrive,
then answers 408 and closes; the body has :data:`web.app.BODY_SECONDS` (the app reads it).
A request head is at most :data:`MAX_HEAD_BYTES`, and at most :data:`MAX_CONNECTIONS`
connections are served at once.
"""

from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: seconds a client has to send a request's head (the line and the headers)
HEAD_SECONDS = 10.0
#: seconds a kept-alive connection may stay idle between requests
KEEP_ALIVE_SECONDS = 5
#: the largest request head accepted (bytes)
MAX_HEAD_BYTES = 16 * 1024
#: connections served at once; uvicorn answers more with a plain-text 503
MAX_CONNECTIONS = 1000


def _raw_408() -> bytes:
    body = json.dumps({"error": f"the request's head did not arrive within {HEAD_SECONDS:g} "
                                "s"}).encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n"
            + body)


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on every request head (module docstring)."""

    head_seconds = HEAD_SECONDS

    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_timeout)

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
            return  # a request is being read or answered: the app bounds its body
        if self.cycle is not None and not self.cycle.response_complete:
            return
        if self.conn.trailing_data[0]:  # part of a head arrived
            self.transport.write(_raw_408())
        self.transport.close()


def uvicorn_options() -> dict:
    """The keyword arguments ``cardrl serve`` gives uvicorn besides the app, host and
    port."""
    return {"http": TimedH11Protocol, "timeout_keep_alive": KEEP_ALIVE_SECONDS,
            "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
            "limit_concurrency": MAX_CONNECTIONS}
