"""create_app(): settings, database, routes, static files and error pages, wired together."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.computer import ComputerWorker
from app.config import ROOT, Settings
from app.db import make_engine, make_sessionmaker
from app.events import Broker
from app.pg_events import PgBroker, listening
from app.routes import api, events, ladder, pages, typed
from app.security import BodyLimit, RateLimit, SameOrigin, SecurityHeaders
from app.services.errors import ServiceError
from app.services.ladder import LadderService
from app.services.matches import MatchService, now
from app.web import page_context, templates
from games.base import GameError


def create_app(settings: Settings | None = None, clock: Callable[[], datetime] | None = None) -> FastAPI:
    """The application; ``clock`` replaces the time source (tests of think time)."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with listening(app.state.broker):
            await app.state.computer.start()
            try:
                yield
            finally:
                await app.state.computer.stop()
        app.state.engine.dispose()

    app = FastAPI(
        title="Tablero",
        summary="Play Bashni, Nine Men's Morris, Bobail and Bilsang with a friend.",
        version="0.1.0",
        lifespan=lifespan,
    )
    engine = make_engine(settings.database_url)
    sessions = make_sessionmaker(engine)
    # PostgreSQL: LISTEN/NOTIFY carries events between processes; else one process's memory.
    broker = PgBroker(engine) if engine.dialect.name == "postgresql" else Broker()
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.broker = broker
    matches = MatchService(sessions, broker.publish, clock=clock or now)
    computer = ComputerWorker(
        sessions,
        matches,
        thinker=settings.computer_thinker,
        processes=settings.computer_processes,
        clock=clock or now,
    )
    matches.wake_computer = computer.wake
    app.state.matches = matches
    app.state.computer = computer
    app.state.ladder = LadderService(sessions, matches)

    app.mount("/static", StaticFiles(directory=str(ROOT / "static")), name="static")
    app.include_router(pages.router)
    app.include_router(typed.router)
    app.include_router(api.router)
    app.include_router(events.router)
    app.include_router(ladder.router)
    app.include_router(ladder.api_router)
    _install_error_handlers(app)
    # Outermost last: headers on everything, then the cheap refusals before any work.
    if settings.rate_limits:
        app.add_middleware(RateLimit)
    app.add_middleware(BodyLimit)
    app.add_middleware(SameOrigin)
    app.add_middleware(SecurityHeaders)
    return app


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "text/html" not in request.headers.get("accept", "")


def _error_response(request: Request, status: int, message: str) -> Response:
    if _wants_json(request):
        return JSONResponse({"detail": message}, status_code=status)
    context = page_context(request, status=status, message=message)
    return templates.TemplateResponse(request, "error.html", context, status_code=status)


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(request: Request, exc: ServiceError) -> Response:
        return _error_response(request, exc.status_code, str(exc))

    @app.exception_handler(GameError)
    async def game_error(request: Request, exc: GameError) -> Response:
        return _error_response(request, 422, str(exc))

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        parts = []
        for error in exc.errors():
            where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path"))
            message = str(error.get("msg", "invalid"))
            message = message.removeprefix("Value error, ")
            parts.append(f"{where}: {message}" if where else message)
        return _error_response(request, 422, "; ".join(parts) or "the request is not valid")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404 and message == "Not Found":
            message = "there is no such page"
        return _error_response(request, exc.status_code, message)
