"""The app served by uvicorn in a background thread, for tests and screenshots.

>>> with BackgroundServer() as server:          # doctest: +SKIP
...     httpx.get(server.url + "/api/catalog")
"""

from __future__ import annotations

import socket
import threading
import time


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class BackgroundServer:
    """uvicorn serving ``app`` (default :func:`web.app.create_app` for this host and port)
    on 127.0.0.1 in a daemon thread while the ``with`` block runs, with the settings of
    ``cardrl serve`` (:func:`web.connections.uvicorn_options`); ``url`` is its address."""

    def __init__(self, app=None, host: str = "127.0.0.1", port: int | None = None):
        import uvicorn

        from web.connections import uvicorn_options

        self.host, self.port = host, port or free_port(host)
        if app is None:
            from web.app import create_app

            app = create_app(host=host, port=self.port)
        self.app = app
        self.url = f"http://{host}:{self.port}"
        config = uvicorn.Config(app, host=host, port=self.port, log_level="warning",
                                access_log=False, backlog=1024, **uvicorn_options())
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> BackgroundServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError(f"the server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
