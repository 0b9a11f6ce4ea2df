"""The HTTP app: the pages and the JSON API under them (docs/web.md lists every route).

Every request body is capped (413 past the cap, ``limits.py``) and validated (pydantic,
strict types; unknown fields refused; then the values against what the server offers):
malformed is 422, an illegal move 400 with the rules' message, a bad token 403, an
unknown game or record 404. Every refusal is ``{"detail": "one line"}`` quoting at most
a short excerpt of what it refuses, and the schema at ``/api/openapi.json`` states every
answer of every route (``schema.py``). Nothing is fetched from outside: the pages,
scripts and styles are served from the package (``choco_envs/web/static``), and
FastAPI's own docs pages (which load from a CDN) are switched off.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
)
from starlette.exceptions import HTTPException
from starlette.routing import Match

from choco_envs.core.errors import ChocoError
from choco_envs.registry import make_game
from choco_envs.web import schema as api
from choco_envs.web.analysis import analysis_router
from choco_envs.web.catalog import BotCatalog, catalog, check_env, check_options, json_int
from choco_envs.web.errors import Conflict, Invalid, NotFound, WebError, excerpt
from choco_envs.web.limits import BodyLimit
from choco_envs.web.sessions import GameManager, Settings
from choco_envs.web.store import MAX_UPLOAD_BYTES, frames

STATIC = Path(__file__).parent / "static"
#: an integer as JSON has it: 3 or 3.0, not "3" nor true
JsonInt = Annotated[StrictInt, BeforeValidator(json_int)]
OptionValue = StrictBool | StrictInt | StrictFloat | StrictStr | None
TOKEN_LENGTH = 200
#: the longest detail of a refusal, a net under the excerpts each message quotes
MAX_DETAIL = 600
#: the moves an action may name (every game has far fewer; the rules refuse the rest)
ACTION_BOUND = 2**31


class NewGame(BaseModel):
    """``POST /api/games``."""

    model_config = ConfigDict(extra="forbid")
    env_id: StrictStr
    options: dict[StrictStr, OptionValue] = Field(default_factory=dict)
    seats: list[StrictStr] = Field(min_length=1, max_length=8)
    seed: JsonInt | None = Field(default=None, ge=0, lt=2**63)


class Move(BaseModel):
    """``POST /api/games/{id}/actions``."""

    model_config = ConfigDict(extra="forbid")
    token: StrictStr = Field(min_length=1, max_length=TOKEN_LENGTH)
    action: JsonInt = Field(ge=-ACTION_BOUND, lt=ACTION_BOUND)


class BotQuery(BaseModel):
    """``POST /api/bots``."""

    model_config = ConfigDict(extra="forbid")
    env_id: StrictStr
    options: dict[StrictStr, OptionValue] = Field(default_factory=dict)


class SecurityHeaders:
    """No referrer (seat links carry tokens), no sniffing, no caching of the API; and the
    time the app took (``server-timing: app;dur=MS``), which the load test reads."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")
        started = time.perf_counter()

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                took = (time.perf_counter() - started) * 1000
                headers = list(message.get("headers", []))
                headers += [
                    (b"referrer-policy", b"no-referrer"),
                    (b"x-content-type-options", b"nosniff"),
                    (b"server-timing", f"app;dur={took:.2f}".encode()),
                ]
                if api:
                    headers.append((b"cache-control", b"no-store"))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app for one server; ``settings`` as ``choco serve`` sets them."""
    settings = settings or Settings()
    manager = GameManager(settings)
    bots = BotCatalog(settings.policies)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        manager.start()
        yield
        await manager.stop()

    app = FastAPI(
        title="choco_envs",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.manager = manager
    app.add_middleware(BodyLimit)
    app.add_middleware(SecurityHeaders)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(WebError)
    async def refused(request: Request, err: WebError) -> JSONResponse:
        return JSONResponse({"detail": _cut(err.message)}, status_code=err.status)

    @app.exception_handler(RequestValidationError)
    async def malformed(request: Request, err: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _one_line(err.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, err: HTTPException) -> JSONResponse:
        headers = {k: v for k, v in (err.headers or {}).items() if k.lower() != "allow"}
        if err.status_code == 405:  # every method served at this path, not one route's
            headers["allow"] = ", ".join(_methods_at(app, request.scope))
        return JSONResponse(
            {"detail": _cut(str(err.detail))}, status_code=err.status_code, headers=headers
        )

    async def blocking(fn: Any, *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(manager.work, fn, *args)

    # ------------------------------------------------------------------ pages
    @app.get("/", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/play/{game_id}", include_in_schema=False)
    async def play_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "play.html")

    @app.get("/replay/{record_id}", include_in_schema=False)
    async def replay_page(record_id: str) -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    # ------------------------------------------------------------------ lobby
    @app.get("/api/catalog", response_model=api.Catalog)
    async def get_catalog() -> JSONResponse:
        return JSONResponse(await blocking(catalog, settings.policies))

    @app.post("/api/bots", response_model=api.Bots, responses=api.refusals(413, 422))
    async def get_bots(query: BotQuery) -> JSONResponse:
        env_id = check_env(query.env_id)
        options = check_options(env_id, query.options)
        try:
            make_game(env_id, **options)
        except ChocoError as err:
            raise Invalid(str(err)) from None
        return JSONResponse({"env_id": env_id, "bots": await blocking(bots.bots, env_id, options)})

    # ------------------------------------------------------------------ games
    @app.post(
        "/api/games",
        status_code=201,
        response_model=api.NewGameAnswer,
        responses=api.refusals(413, 422, 503),
    )
    async def new_game(body: NewGame, request: Request) -> JSONResponse:
        game, tokens = await manager.create(body.env_id, dict(body.options), body.seats, body.seed)
        base = str(request.base_url).rstrip("/")
        urls = [None if t is None else f"{base}/play/{game.id}?token={t}" for t in tokens]
        return JSONResponse({"game_id": game.id, "seat_urls": urls}, status_code=201)

    @app.get(
        "/api/games/{game_id}",
        response_model=api.GameState,
        responses=api.refusals(403, 404, 422),
    )
    async def game_state(
        game_id: str,
        token: str | None = Query(None, min_length=1, max_length=TOKEN_LENGTH),
        since: int | None = Query(None, ge=-1),
        wait: float = Query(min(20.0, settings.max_wait), ge=0.0, le=settings.max_wait),
        log_from: int = Query(0, ge=0),
    ) -> JSONResponse:
        game = manager.get(game_id)
        seat = game.seat_of(token)
        game.touch()
        if since is not None:
            await game.wait_change(since, wait)
            if game.closed:
                raise NotFound(f"game {game_id!r} expired")
        return JSONResponse(game.snapshot(seat, log_from))

    @app.post(
        "/api/games/{game_id}/actions",
        response_model=api.GameState,
        responses=api.refusals(
            400, 403, 404, 409, 413, 422, s409="the game stopped (a bot failed)"
        ),
    )
    async def make_move(game_id: str, body: Move, log_from: int = Query(0, ge=0)) -> JSONResponse:
        game = manager.get(game_id)
        seat = game.seat_of(body.token)
        game.touch()
        manager.move(game, seat, body.action)
        return JSONResponse(game.snapshot(seat, log_from))

    @app.get(
        "/api/games/{game_id}/record",
        response_model=api.Record,
        responses=api.refusals(404, 409, s409="the game is still in play"),
    )
    async def game_record(game_id: str) -> JSONResponse:
        game = manager.get(game_id)
        if not game.env.game_over():
            raise Conflict("the record is given once the game is over")
        return _download(game.env.save(), f"{game.env_id}-{game.id}.json")

    # ------------------------------------------------------------------ records
    def store() -> Any:
        if manager.store is None:
            raise NotFound("this server keeps no records (started without a records folder)")
        return manager.store

    no_store = "no such record, or this server keeps no records"

    @app.get(
        "/api/records",
        response_model=api.RecordList,
        responses=api.refusals(404, 422, s404=no_store),
    )
    async def list_records(limit: int = Query(100, ge=1, le=1000)) -> JSONResponse:
        return JSONResponse({"records": await blocking(store().listing, limit)})

    @app.post(
        "/api/records",
        status_code=201,
        response_model=api.Uploaded,
        responses=api.refusals(400, 404, 413, 422, s400="not a record that replays", s404=no_store),
    )
    async def upload_record(request: Request) -> JSONResponse:
        body = await request.body()  # at most MAX_UPLOAD_BYTES: BodyLimit refused more
        record_id = await blocking(store().upload, body)
        return JSONResponse({"record_id": record_id}, status_code=201)

    @app.get(
        "/api/records/{record_id}",
        response_model=api.Record,
        responses=api.refusals(400, 404, s400="the stored file is not a record", s404=no_store),
    )
    async def get_record(record_id: str) -> JSONResponse:
        return _download(await blocking(store().load, record_id), f"{record_id}.json")

    @app.get(
        "/api/records/{record_id}/frames",
        response_model=api.Frames,
        responses=api.refusals(
            400, 404, 422, s400="the stored file is not a record that replays", s404=no_store
        ),
    )
    async def record_frames(
        record_id: str, seat: str | None = Query(None, max_length=12)
    ) -> JSONResponse:
        record = await blocking(store().load, record_id)
        players = store().players(record_id)
        body = await blocking(frames, record, seat, players)
        return JSONResponse({"record_id": record_id, **body})

    app.include_router(analysis_router(manager))

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, routes=app.routes)
            app.openapi_schema = api.finish(schema, settings.policies, MAX_UPLOAD_BYTES)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _cut(message: str) -> str:
    return message if len(message) <= MAX_DETAIL else f"{message[:MAX_DETAIL]}..."


def _one_line(errors: Any) -> str:
    """FastAPI's validation errors as one line: where and what, never the input."""
    parts = []
    for e in list(errors)[:3]:
        where = ".".join(
            excerpt(p, 40) if isinstance(p, str) and len(p) > 40 else str(p)
            for p in e.get("loc", ())
        )
        parts.append(f"{where}: {str(e.get('msg', 'invalid'))[:160]}")
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return "malformed request: " + "; ".join(parts) + more


def _methods_at(app: FastAPI, scope: Any) -> list[str]:
    """Every method some route serves at the path of ``scope``."""
    methods: set[str] = set()
    for route in app.router.routes:
        if getattr(route, "methods", None) and route.matches(scope)[0] != Match.NONE:
            methods |= set(route.methods)  # type: ignore[attr-defined]
    return sorted(methods)


def _download(record: dict[str, Any], filename: str) -> JSONResponse:
    return JSONResponse(
        record, headers={"content-disposition": f'attachment; filename="{filename}"'}
    )


__all__ = ["create_app"]
