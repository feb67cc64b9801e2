"""The local web app of ``cardrl serve``: play against any agent, watch and replay games.

A Starlette (ASGI) app served by uvicorn on 127.0.0.1 unless told otherwise
(:func:`web.app.create_app`, :func:`web.app.serve`). The page is plain HTML, CSS and
JavaScript (``web/static``) showing the SVG tables of :mod:`envs.svg`; the game logic stays
on the server, in sessions (:mod:`web.sessions`) of play (:mod:`web.play`) and replay
(:mod:`web.replay`). Needs the ``web`` extra (starlette, uvicorn).
"""
