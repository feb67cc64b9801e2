"""The ASGI app of ``cardrl serve`` (Starlette) and :func:`serve` (uvicorn).

HTTP API (JSON in and out; every error is ``{"error": message}`` with a 4xx status and
changes nothing):

==========================================  ===============================================
``GET  /api/catalog``                       games, table options, agents, checkpoints
``POST /api/play``                          new game: ``{game, table, seat, agents, seed?}``
``GET  /api/play/{id}``                     the table as the human sees it
``POST /api/play/{id}/act``                 a move: ``{action: "play:QS", version?}``
``POST /api/play/{id}/next``                the next deal (or a new game after the last)
``GET  /api/play/{id}/record``              the finished games as a record file
``DELETE /api/play/{id}``                   leave
``POST /api/replay``                        a record file (its text, the request body)
``POST /api/watch``                         agents play a game: ``{game, table, agents}``
``GET  /api/replay/{id}``                   the games of the file
``GET  /api/replay/{id}/{k}``               game k: steps, marks to jump to, players
``GET  /api/replay/{id}/{k}/{step}``        the table after ``step`` actions
                                            (``?face_up=1``, ``?seat=N``, ``?svg=0``)
``GET  /api/replay/{id}/{k}/{step}/analyse``  what every agent would do there
==========================================  ===============================================

Add ``?svg=0`` to the play endpoints to leave the picture out.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from web.catalog import Catalog
from web.insight import analyse
from web.play import MoveError, PlaySession
from web.records_io import ReplayMismatch, parse_records, records_text
from web.replay import ReplaySession, play_out
from web.sessions import Full, SessionStore

STATIC = Path(__file__).resolve().parent / "static"
#: the largest JSON request body accepted
MAX_JSON_BYTES = 16 * 1024
#: the largest record file accepted by ``POST /api/replay``
MAX_UPLOAD_BYTES = 4 * 1024 * 1024

_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                               "style-src 'self' 'unsafe-inline'; object-src 'none'; "
                               "frame-ancestors 'none'",
}


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


def _json(data, status: int = 200) -> JSONResponse:
    return JSONResponse(data, status_code=status, headers=_HEADERS)


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 beyond ``limit`` bytes (before reading it all)."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(400, "bad Content-Length")
        if int(declared) > limit:
            raise ApiError(413, f"the request is larger than {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise ApiError(413, f"the request is larger than {limit} bytes")
    return bytes(body)


async def _json_body(request: Request) -> dict:
    raw = await _read_body(request, MAX_JSON_BYTES)
    try:
        data = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise ApiError(400, "the body must be a JSON object") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the body must be a JSON object")
    return data


def _flag(request: Request, name: str, default: bool) -> bool:
    value = request.query_params.get(name)
    if value is None:
        return default
    if value not in ("0", "1", "true", "false"):
        raise ApiError(400, f"{name} must be 0 or 1")
    return value in ("1", "true")


def _int(text: str | None, what: str) -> int | None:
    if text is None or text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise ApiError(400, f"{what} must be an integer, got {text!r}") from None


def create_app(checkpoint_dirs: list[str | Path] | None = None,
               store: SessionStore | None = None,
               max_upload_bytes: int = MAX_UPLOAD_BYTES,
               trust_pickle: bool = False) -> Starlette:
    """The app. ``checkpoint_dirs``: folders whose ``*.pt`` files are offered as
    ``policy:PATH`` agents (besides the committed defaults); ``store``: the sessions
    (default :class:`SessionStore` with its default limits); ``trust_pickle``: the offered
    policies may also load by unpickling (:data:`agents.policy.checkpoint.TRUST_PICKLE_HELP`)."""
    catalog = Catalog(checkpoint_dirs, trust_pickle=trust_pickle)
    sessions = store if store is not None else SessionStore()
    last_sweep = [time.monotonic()]

    def session(request: Request, kind: str):
        now = time.monotonic()
        if now - last_sweep[0] > 5:
            last_sweep[0] = now
            sessions.sweep()
        found = sessions.get(request.path_params["id"], kind)
        if found is None:
            raise ApiError(404, f"no such {kind} session (finished and idle sessions are "
                                "removed after a while)")
        return found

    def add(new) -> str:
        try:
            return sessions.add(new)
        except Full as err:
            raise ApiError(503, str(err)) from None

    # -- pages and catalogue ---------------------------------------------------------------
    async def index(request: Request):
        return FileResponse(STATIC / "index.html", headers=_HEADERS)

    async def get_catalog(request: Request):
        return _json(catalog.describe())

    # -- play ---------------------------------------------------------------------------------
    async def new_play(request: Request):
        body = await _json_body(request)
        try:
            game = body.get("game")
            if game not in catalog.describe()["games"]:
                raise ValueError(f"unknown game {game!r}")
            new = PlaySession(catalog, game, body.get("table") or {}, body.get("seat", 0),
                              body.get("agents"), body.get("seed"))
        except (ValueError, TypeError) as err:
            raise ApiError(400, str(err)) from None
        key = add(new)
        return _json(new.state(key, _flag(request, "svg", True)), 201)

    async def get_play(request: Request):
        game = session(request, "play")
        return _json(game.state(request.path_params["id"], _flag(request, "svg", True)))

    async def act(request: Request):
        game = session(request, "play")
        body = await _json_body(request)
        try:
            game.act(body.get("action"), body.get("version"))
        except MoveError as err:
            raise ApiError(err.status, str(err)) from None
        return _json(game.state(request.path_params["id"], _flag(request, "svg", True)))

    async def next_deal(request: Request):
        game = session(request, "play")
        try:
            game.next_deal()
        except MoveError as err:
            raise ApiError(err.status, str(err)) from None
        return _json(game.state(request.path_params["id"], _flag(request, "svg", True)))

    async def play_record(request: Request):
        game = session(request, "play")
        if not game.records:
            raise ApiError(404, "no finished game to save yet")
        return Response(records_text(game.records), media_type="application/x-ndjson",
                        headers={**_HEADERS, "Content-Disposition":
                                 'attachment; filename="cardrl-games.jsonl"'})

    async def delete_play(request: Request):
        if not sessions.remove(request.path_params["id"]):
            raise ApiError(404, "no such session")
        return _json({"removed": True})

    # -- replay -------------------------------------------------------------------------------
    async def upload(request: Request):
        raw = await _read_body(request, max_upload_bytes)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ApiError(400, "the file is not UTF-8 text (a JSON-lines record file)") from None
        games, errors = parse_records(text)
        if not games:
            raise ApiError(400, "no game in this file" + (f": {errors[0]}" if errors else ""))
        key = add(ReplaySession(games, errors, request.query_params.get("name", "upload")))
        return _json(sessions.get(key, "replay").summary(key), 201)

    async def watch(request: Request):
        body = await _json_body(request)
        try:
            record = play_out(catalog, body.get("game"), body.get("table") or {},
                              body.get("agents"), body.get("seed"))
        except (ValueError, TypeError) as err:
            raise ApiError(400, str(err)) from None
        key = add(ReplaySession([record], [], "agents"))
        return _json(sessions.get(key, "replay").summary(key), 201)

    def _game_index(request: Request, replay: ReplaySession) -> int:
        index = _int(request.path_params["k"], "game")
        if not 0 <= index < len(replay.records):
            raise ApiError(404, f"no game {index}: the file holds {len(replay.records)}")
        return index

    async def replay_summary(request: Request):
        replay = session(request, "replay")
        return _json(replay.summary(request.path_params["id"]))

    async def replay_game_info(request: Request):
        replay = session(request, "replay")
        index = _game_index(request, replay)
        try:
            return _json(replay.game_info(index))
        except ReplayMismatch as err:
            raise ApiError(422, f"game {index} does not replay: {err}") from None

    async def replay_position(request: Request):
        replay = session(request, "replay")
        index = _game_index(request, replay)
        step = _int(request.path_params["step"], "step")
        seat = _int(request.query_params.get("seat"), "seat")
        try:
            return _json(replay.position(catalog, index, step, seat,
                                         _flag(request, "face_up", False),
                                         _flag(request, "svg", True)))
        except ReplayMismatch as err:
            raise ApiError(422, f"game {index} does not replay: {err}") from None
        except IndexError as err:
            raise ApiError(404, str(err)) from None

    async def replay_analyse(request: Request):
        replay = session(request, "replay")
        index = _game_index(request, replay)
        step = _int(request.path_params["step"], "step")
        try:
            positions = replay.positions(index)
        except ReplayMismatch as err:
            raise ApiError(422, f"game {index} does not replay: {err}") from None
        if not 0 <= step <= positions.steps:
            raise ApiError(404, f"step must be 0..{positions.steps}")
        engine = positions.engine_at(step)
        seat = int(engine.current_player[0])
        if seat < 0:
            raise ApiError(409, "the game is over at this step: nothing to decide")
        rows = analyse(catalog, positions.game, positions.options, engine, seat)
        return _json({"step": step, "seat": seat, "agents": rows})

    async def delete_replay(request: Request):
        if not sessions.remove(request.path_params["id"]):
            raise ApiError(404, "no such session")
        return _json({"removed": True})

    async def api_error(request: Request, exc: ApiError):
        return _json({"error": exc.message}, exc.status)

    async def not_found(request: Request, exc):
        status = getattr(exc, "status_code", 404)
        return _json({"error": getattr(exc, "detail", "not found")}, status)

    routes = [
        Route("/", index),
        Route("/api/catalog", get_catalog),
        Route("/api/play", new_play, methods=["POST"]),
        Route("/api/play/{id}", get_play),
        Route("/api/play/{id}", delete_play, methods=["DELETE"]),
        Route("/api/play/{id}/act", act, methods=["POST"]),
        Route("/api/play/{id}/next", next_deal, methods=["POST"]),
        Route("/api/play/{id}/record", play_record),
        Route("/api/replay", upload, methods=["POST"]),
        Route("/api/watch", watch, methods=["POST"]),
        Route("/api/replay/{id}", replay_summary),
        Route("/api/replay/{id}", delete_replay, methods=["DELETE"]),
        Route("/api/replay/{id}/{k}", replay_game_info),
        Route("/api/replay/{id}/{k}/{step}", replay_position),
        Route("/api/replay/{id}/{k}/{step}/analyse", replay_analyse),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={ApiError: api_error,
                                                       404: not_found, 405: not_found})
    app.state.sessions = sessions
    app.state.catalog = catalog
    return app


def serve(host: str = "127.0.0.1", port: int = 8000,
          checkpoint_dirs: list[str | Path] | None = None, trust_pickle: bool = False) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(checkpoint_dirs, trust_pickle=trust_pickle), host=host, port=port,
                log_level="info")
