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

Safe by default (docs/security.md): every request passes :class:`web.guard.Guard` (its
Host names this server; the token, if any; a change of state comes from this server's
page with a JSON body), bodies are bounded in bytes, time and parsed size
(:mod:`web.bounded_json`), sessions in number and bytes (:mod:`web.sessions`), and
everything that takes time runs in bounded thread pools (:mod:`web.workers`), so the event
loop keeps answering.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from web.bounded_json import JSONLimitError, loads
from web.catalog import Catalog
from web.guard import Guard, HostPolicy
from web.insight import analyse
from web.play import MoveError, PlaySession
from web.records_io import ReplayMismatch
from web.replay import ReplaySession, play_out
from web.responses import HEADERS, error_response, json_response
from web.sessions import Full, SessionStore
from web.workers import Busy, InUse, Pool, default_pools, exclusive

STATIC = Path(__file__).resolve().parent / "static"
#: the largest JSON request body accepted
MAX_JSON_BYTES = 16 * 1024
#: the most values a JSON request body may hold
MAX_JSON_VALUES = 4096
#: the largest record file accepted by ``POST /api/replay``
MAX_UPLOAD_BYTES = 4 * 1024 * 1024
#: record files received at once (more are refused with 429 before they are read)
MAX_UPLOADS_AT_ONCE = 4
#: seconds a client has to send a request's body
BODY_SECONDS = 30.0
#: errors of agents and checkpoints that make a request's choice unplayable (4xx)
AGENT_ERRORS = (ValueError, TypeError, OSError, RuntimeError, MemoryError)


class ApiError(Exception):
    """A refused request: ``status`` (4xx), a one-line ``message`` and ``headers``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


async def _read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 beyond ``limit`` bytes (before reading it all)
    and with 408 if it takes more than :data:`BODY_SECONDS`."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.isdigit():
            raise ApiError(400, "bad Content-Length")
        if int(declared) > limit:
            raise ApiError(413, f"the request is larger than {limit} bytes")
    body = bytearray()
    try:
        async with asyncio.timeout(BODY_SECONDS):
            async for chunk in request.stream():
                body += chunk
                if len(body) > limit:
                    raise ApiError(413, f"the request is larger than {limit} bytes")
    except TimeoutError:
        raise ApiError(408, f"the body did not arrive within {BODY_SECONDS:g} s",
                       {"Connection": "close"}) from None
    except ClientDisconnect:
        raise ApiError(400, "the client went away before sending the whole body") from None
    return bytes(body)


async def _json_body(request: Request) -> dict:
    raw = await _read_body(request, MAX_JSON_BYTES)
    try:
        data = loads(raw or b"{}", MAX_JSON_VALUES)
    except JSONLimitError as err:
        raise ApiError(400, f"the body must be a JSON object: {err}") from None
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
    if len(text) > 18 or not text.lstrip("-").isdigit() or not text.isascii():
        raise ApiError(400, f"{what} must be an integer, got {text[:40]!r}")
    return int(text)


def create_app(checkpoint_dirs: list[str | Path] | None = None,
               store: SessionStore | None = None,
               max_upload_bytes: int = MAX_UPLOAD_BYTES,
               trust_pickle: bool = False, *, host: str = "127.0.0.1",
               port: int | None = None, allow_hosts: Iterable[str] = (),
               token: str | None = None, pools: dict[str, Pool] | None = None) -> Starlette:
    """The app. ``checkpoint_dirs``: folders whose ``*.pt`` files are offered as
    ``policy:PATH`` agents (besides the committed defaults); ``store``: the sessions
    (default :class:`SessionStore` with its default budgets); ``trust_pickle``: the offered
    policies may also load by unpickling (:data:`agents.policy.checkpoint.TRUST_PICKLE_HELP`).
    ``host``, ``port`` and ``allow_hosts``: the names it answers to
    (:class:`web.guard.HostPolicy`); ``token``: required of every request if given;
    ``pools``: where the work runs (default :func:`web.workers.default_pools`)."""
    catalog = Catalog(checkpoint_dirs, trust_pickle=trust_pickle)
    sessions = store if store is not None else SessionStore()
    pools = pools if pools is not None else default_pools()
    last_sweep = [time.monotonic()]
    uploading = [0]

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
        return FileResponse(STATIC / "index.html", headers=HEADERS)

    async def get_catalog(request: Request):
        return json_response(await pools["play"].run(catalog.describe))

    # -- play ---------------------------------------------------------------------------------
    def start_game(body: dict, svg: bool) -> tuple[PlaySession, dict]:
        try:
            game = body.get("game")
            if not isinstance(game, str) or game not in catalog.describe()["games"]:
                raise ValueError(f"unknown game {str(game)[:40]!r}")
            new = PlaySession(catalog, game, body.get("table") or {}, body.get("seat", 0),
                              body.get("agents"), body.get("seed"))
        except AGENT_ERRORS as err:
            raise ApiError(400, str(err)) from None
        return new, new.state("", svg)

    async def new_play(request: Request):
        body = await _json_body(request)
        new, state = await pools["play"].run(start_game, body, _flag(request, "svg", True))
        state["id"] = add(new)
        return json_response(state, 201)

    async def in_game(request: Request, change) -> Response:
        """Run ``change(game)`` (may be None) on the play session, then its state."""
        game = session(request, "play")
        key, svg = request.path_params["id"], _flag(request, "svg", True)

        def work():
            try:
                if change is not None:
                    change(game)
            except MoveError as err:
                raise ApiError(err.status, str(err)) from None
            return game.state(key, svg)

        return json_response(await pools["play"].run(exclusive, game.lock, work))

    async def get_play(request: Request):
        return await in_game(request, None)

    async def act(request: Request):
        body = await _json_body(request)
        return await in_game(request, lambda g: g.act(body.get("action"), body.get("version")))

    async def next_deal(request: Request):
        return await in_game(request, lambda g: g.next_deal())

    async def play_record(request: Request):
        game = session(request, "play")
        text = game.records_jsonl()
        if not text:
            raise ApiError(404, "no finished game to save yet")
        return Response(text, media_type="application/x-ndjson",
                        headers={**HEADERS, "Content-Disposition":
                                 'attachment; filename="cardrl-games.jsonl"'})

    async def delete_session(request: Request):
        if not sessions.remove(request.path_params["id"]):
            raise ApiError(404, "no such session")
        return json_response({"removed": True})

    # -- replay -------------------------------------------------------------------------------
    def read_upload(raw: bytes, name: str) -> ReplaySession:
        replay = ReplaySession.from_text(raw, name)
        if not len(replay):
            first = f": {replay.errors[0]}" if replay.errors else ""
            raise ApiError(400, "no game in this file" + first)
        return replay

    async def upload(request: Request):
        if uploading[0] >= MAX_UPLOADS_AT_ONCE:
            raise ApiError(429, f"{MAX_UPLOADS_AT_ONCE} files are being received; try again "
                                "in a few seconds")
        uploading[0] += 1
        try:
            raw = await _read_body(request, max_upload_bytes)
            name = request.query_params.get("name", "upload")[:200]
            replay = await pools["replay"].run(read_upload, raw, name)
        finally:
            uploading[0] -= 1
        key = add(replay)
        return json_response(replay.summary(key), 201)

    def watch_game(body: dict) -> ReplaySession:
        try:
            game = body.get("game")
            if not isinstance(game, str) or game not in catalog.describe()["games"]:
                raise ValueError(f"unknown game {str(game)[:40]!r}")
            record = play_out(catalog, game, body.get("table") or {}, body.get("agents"),
                              body.get("seed"))
        except AGENT_ERRORS as err:
            raise ApiError(400, str(err)) from None
        return ReplaySession([record], [], "agents")

    async def watch(request: Request):
        body = await _json_body(request)
        replay = await pools["search"].run(watch_game, body)
        key = add(replay)
        return json_response(replay.summary(key), 201)

    def _game_index(request: Request, replay: ReplaySession) -> int:
        index = _int(request.path_params["k"], "game")
        if not 0 <= index < len(replay):
            raise ApiError(404, f"no game {index}: the file holds {len(replay)}")
        return index

    async def in_replay(request: Request, pool: str, work) -> Response:
        """``work(replay, game index)`` in ``pool``; a game that does not replay is 422."""
        replay = session(request, "replay")
        index = _game_index(request, replay)

        def run():
            try:
                return work(replay, index)
            except ReplayMismatch as err:
                raise ApiError(422, f"game {index} does not replay: {err}") from None
            except IndexError as err:
                raise ApiError(404, str(err)) from None

        held = replay.nbytes
        answer = await pools[pool].run(run)
        if replay.nbytes != held:
            sessions.sweep()  # the game opened counts now
        return json_response(answer)

    async def replay_summary(request: Request):
        replay = session(request, "replay")
        return json_response(replay.summary(request.path_params["id"]))

    async def replay_game_info(request: Request):
        return await in_replay(request, "replay", lambda r, k: r.game_info(k))

    async def replay_position(request: Request):
        step = _int(request.path_params["step"], "step")
        seat = _int(request.query_params.get("seat"), "seat")
        face_up, svg = _flag(request, "face_up", False), _flag(request, "svg", True)
        return await in_replay(request, "replay", lambda r, k: r.position(
            catalog, k, step, seat, face_up, svg))

    async def replay_analyse(request: Request):
        step = _int(request.path_params["step"], "step")

        def work(replay: ReplaySession, index: int) -> dict:
            positions = replay.positions(index)
            if not 0 <= step <= positions.steps:
                raise ApiError(404, f"step must be 0..{positions.steps}")
            engine = positions.engine_at(step)
            seat = int(engine.current_player[0])
            if seat < 0:
                raise ApiError(409, "the game is over at this step: nothing to decide")
            rows = analyse(catalog, positions.game, positions.options, engine, seat)
            return {"step": step, "seat": seat, "agents": rows}

        return await in_replay(request, "search", work)

    # -- errors -------------------------------------------------------------------------------
    async def api_error(request: Request, exc: ApiError):
        return error_response(exc.status, exc.message, exc.headers)

    async def busy(request: Request, exc: Busy):
        return error_response(503, str(exc), {"Retry-After": "5"})

    async def in_use(request: Request, exc: InUse):
        return error_response(409, str(exc))

    async def not_found(request: Request, exc):
        status = getattr(exc, "status_code", 404)
        return error_response(status, getattr(exc, "detail", "not found"))

    async def internal(request: Request, exc: Exception):
        return error_response(500, f"internal error ({type(exc).__name__}); the server "
                                   "logged it")

    routes = [
        Route("/", index),
        Route("/api/catalog", get_catalog),
        Route("/api/play", new_play, methods=["POST"]),
        Route("/api/play/{id}", get_play),
        Route("/api/play/{id}", delete_session, methods=["DELETE"]),
        Route("/api/play/{id}/act", act, methods=["POST"]),
        Route("/api/play/{id}/next", next_deal, methods=["POST"]),
        Route("/api/play/{id}/record", play_record),
        Route("/api/replay", upload, methods=["POST"]),
        Route("/api/watch", watch, methods=["POST"]),
        Route("/api/replay/{id}", replay_summary),
        Route("/api/replay/{id}", delete_session, methods=["DELETE"]),
        Route("/api/replay/{id}/{k}", replay_game_info),
        Route("/api/replay/{id}/{k}/{step}", replay_position),
        Route("/api/replay/{id}/{k}/{step}/analyse", replay_analyse),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    hosts = HostPolicy(host, port, allow_hosts)
    app = Starlette(routes=routes,
                    middleware=[Middleware(Guard, hosts=hosts, token=token)],
                    exception_handlers={ApiError: api_error, Busy: busy, InUse: in_use,
                                        404: not_found, 405: not_found, Exception: internal})
    app.state.sessions = sessions
    app.state.catalog = catalog
    app.state.pools = pools
    app.state.hosts = hosts
    return app


def serve(host: str = "127.0.0.1", port: int = 8000,
          checkpoint_dirs: list[str | Path] | None = None, trust_pickle: bool = False,
          allow_hosts: Iterable[str] = (), token: str | None = None) -> None:
    """Run the app with uvicorn until interrupted (slow clients timed out:
    :mod:`web.connections`)."""
    import uvicorn

    from web.connections import uvicorn_options

    app = create_app(checkpoint_dirs, trust_pickle=trust_pickle, host=host, port=port,
                     allow_hosts=allow_hosts, token=token)
    uvicorn.run(app, host=host, port=port, log_level="info", **uvicorn_options())
