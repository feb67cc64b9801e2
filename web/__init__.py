"""The local web app of ``cardrl serve``: play against any agent, watch and replay games.

A Starlette (ASGI) app served by uvicorn on 127.0.0.1 unless told otherwise
(:func:`web.app.create_app`, :func:`web.app.serve`). The page is plain HTML, CSS and
JavaScript (``web/static``) showing the SVG tables of :mod:`envs.svg`; the game logic stays
on the server, in sessions (:mod:`web.sessions`) of play (:mod:`web.play`) and replay
(:mod:`web.replay`). Needs the ``web`` extra (starlette, uvicorn).

Safe by default (docs/security.md): every request passes :mod:`web.guard` (its Host,
a token if set, the Origin and JSON bodies of changes), JSON is measured before it is
parsed (:mod:`web.bounded_json`), sessions are counted in bytes (:mod:`web.sessions`), the
work runs in bounded thread pools (:mod:`web.workers`), slow clients are timed out
(:mod:`web.connections`) and every answer is JSON with safety headers
(:mod:`web.responses`).
"""
