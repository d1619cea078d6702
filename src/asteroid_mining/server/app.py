"""`create_app(settings)`: the ASGI application — REST, WebSocket, the browser client — over a game store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.telemetry import TelemetryConfig
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import __version__
from ..storage import GameStore
from . import catalog, errors, hints, history, lessons, lobby, play, replay
from .config import Settings
from .direct import DirectSend
from .hub import GameHub
from .limits import BodyLimit
from .offload import BodyChecker
from .read_cache import GZIP_MINIMUM, FinishedAnswers, LobbyCache
from .replay_cache import ReadLimiter, ReplayCache
from .static import ClientFiles
from .stores import make_hub, make_store

log = logging.getLogger(__name__)

DESCRIPTION = """The Asteroid Mining game server.

Create a game with `POST /api/games`, then connect each seat's client to the WebSocket
`/api/games/{id}/ws?token=TOKEN` (without a token: a spectator). The protocol is described in `docs/server.md`.
"""

GZIPPED_PATHS = ("/api/", "/openapi.json", "/docs")
"""The paths whose answers `AnswerGZip` compresses for a client that asks: the server's own (the API's, its
documentation's). The client's files are compressed once, at build time (`static`), or sent as they are."""


class AnswerGZip(GZipMiddleware):
    """Starlette's GZip for the answers of `GZIPPED_PATHS` only: the client's files pass by. The few that the build
    does not compress (its source maps, up to a megabyte) were gzipped again for every request that asked: 19.6 ms
    of CPU a request for a 1 MB map, five times sending it as it is, where files are asked for at no rate."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Compress the answer of a path of `GZIPPED_PATHS` for a client that asks; pass any other by."""
        if scope["type"] == "http" and not scope["path"].startswith(GZIPPED_PATHS):
            await self.app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


class HeadOfApi:
    """ASGI middleware: a `HEAD` of an API path is answered as its `GET` is, headers and all, without the body (RFC
    9110, 9.3.2). The API's routes answer `GET` only, and a `HEAD` of one fell through to the client's files,
    which answered `404` (a monitor asking `HEAD /api/health` saw the server as broken)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a `HEAD` of `/api/…` on as a `GET` whose answer's body is left out; anything else as it is."""
        if scope["type"] != "http" or scope["method"] != "HEAD" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # (the body's parts are dropped; its end is sent, empty)
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        # a copy of the scope: the server's own still says HEAD (uvicorn then sends no body either)
        await self.app({**scope, "method": "GET"}, receive, headers_only)


def create_app(settings: Settings | None = None, store: GameStore | None = None) -> FastAPI:
    """The application. Games are kept in `store` (default: `settings.database`'s PostgreSQL, else SQLite in
    `settings.data_dir`); with `settings.redis` the server is a node of a cluster."""
    settings = settings or Settings()
    checker = BodyChecker(settings)  # its process starts with the first large body, and stops with the app

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        games = store or make_store(settings)
        await games.open()
        hub: GameHub = make_hub(settings, games)
        hub.charge_stored = app.state.create_limiter.charge  # (a game's commands stay in the store as its belt)
        app.state.hub = hub
        try:
            await hub.start()
            yield
        finally:
            await hub.close()
            await games.close()
            await asyncio.to_thread(checker.close)  # waits for its process to exit

    # FastAPI's OpenTelemetry hooks are off: the server sends nothing anywhere but to its clients
    quiet: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False, "operation_spans": False,
                              "auto_configure": False}
    app = FastAPI(title="Asteroid Mining", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                  telemetry=quiet)
    app.state.settings = settings
    app.state.body_checker = checker
    app.state.replays = ReplayCache(settings.replay_cache_bytes)
    app.state.history_limiter = ReadLimiter(settings.history_rate_per_second, settings.history_rate_burst)
    app.state.lobby_limiter = ReadLimiter(settings.lobby_rate_per_second, settings.lobby_rate_burst,
                                          what="lobby listings asked for")
    app.state.create_limiter = ReadLimiter(settings.create_bytes_per_second, settings.create_bytes_burst,
                                           what="new games' belts stored, in bytes")
    app.state.connect_limiter = ReadLimiter(settings.connect_rate_per_second, settings.connect_rate_burst,
                                            what="new WebSocket connections")
    app.state.lobby_cache = LobbyCache(settings.lobby_cache_seconds)
    app.state.finished = FinishedAnswers(settings.finished_cache_bytes)
    errors.install(app)
    app.include_router(lobby.router)
    app.include_router(catalog.router)
    app.include_router(play.router)
    app.include_router(replay.router)
    app.include_router(history.router)
    app.include_router(lessons.router)
    app.include_router(hints.router)
    app.add_middleware(BodyLimit, limit=settings.max_request_bytes, deadline=settings.body_timeout, checker=checker)
    # Answers of a kilobyte or more (the lobby, a game's view, log and replay) are gzipped for clients that ask:
    # an HTTP-only middleware (it passes WebSockets by untouched), for the API's paths only (the client's files
    # are precompressed at build time). Level 6: most of level 9's saving for a fraction of its time. Between
    # DirectSend (outermost) and BodyLimit, which reads the request.
    app.add_middleware(AnswerGZip, minimum_size=GZIP_MINIMUM, compresslevel=6)
    app.add_middleware(HeadOfApi)  # (outside the gzip: a HEAD's headers are its GET's)
    app.add_middleware(DirectSend)  # added last: outermost of the application's own
    app.mount("/", ClientFiles(settings.static_dir), name="client")
    return app
