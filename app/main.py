"""create_app(): settings, database, routes, static files and error pages, wired together."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.accounts import api as accounts_api
from app.accounts import pages as accounts_pages
from app.accounts.data import AccountData
from app.accounts.passkeys import PasskeyService
from app.accounts.service import AccountService
from app.challenges import api as challenges_api
from app.challenges import pages as challenges_pages
from app.chat import api as chat_api
from app.chat import moderation_pages
from app.chat import pages as chat_pages
from app.chat.moderation import Moderation
from app.chat.safety import Safety
from app.chat.service import ChatService
from app.compression import Compression
from app.computer import ComputerWorker
from app.config import ROOT, Settings
from app.db import make_engine, make_sessionmaker
from app.deadlines import DeadlineWorker
from app.draining import streams_end_on_exit
from app.errors import install_error_handlers, refusal, render_server_error
from app.events import Broker
from app.heartbeat import Heartbeat
from app.learn import api as learn_api
from app.learn import pages as learn_pages
from app.learn import wiring as learn_wiring
from app.mail import api as mail_api
from app.mail import pages as mail_pages
from app.mail import wiring as mail_wiring
from app.matches.events import Publisher
from app.matches.model import now
from app.matches.service import MatchService
from app.pg_events import PgBroker, listening
from app.presence import Presence, PresenceLayer
from app.process_limits import bound_logs, raise_descriptor_limit
from app.push import routes as push_routes
from app.push import wiring as push_wiring
from app.rate_limits import Limiter
from app.ratings import api as ratings_api
from app.ratings import pages as ratings_pages
from app.ratings import wiring as ratings_wiring
from app.review import ReviewService, ReviewWorker
from app.routes import (
    api,
    api_docs,
    events,
    ladder,
    match_pages,
    pages,
    premoves,
    record_pages,
    records,
    typed,
)
from app.routes.move_calls import LEGAL_PATH, MOVES_PATH, MoveCalls
from app.security import Hardening
from app.seeks import routes as seeks
from app.services.cleanup import Cleanup
from app.services.ladder import LadderService
from app.services.records import RecordService
from app.static_files import HashedStatic
from app.web import warm_up


def create_app(settings: Settings | None = None, clock: Callable[[], datetime] | None = None) -> FastAPI:
    """The application; ``clock`` replaces the time source (tests of think time)."""
    settings = settings or Settings.from_env()
    raise_descriptor_limit()
    bound_logs()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(warm_up)
        if matches.pg_loop_pool is not None:
            await matches.pg_loop_pool.open()
        async with listening(app.state.broker):
            # First: an outage's time is given back before any clock is judged.
            await app.state.heartbeat.start()
            await app.state.computer.start()
            await app.state.deadlines.start()
            await app.state.review_worker.start()
            await app.state.cleanup.start()
            await app.state.push_sender.start()
            await app.state.clock_warnings.start()
            for worker in mail_wiring.workers(app):
                await worker.start()
            try:
                with streams_end_on_exit(app.state.broker.close_streams):
                    yield
            finally:
                for worker in mail_wiring.workers(app):
                    await worker.stop()
                await app.state.clock_warnings.stop()
                await app.state.push_sender.stop()
                app.state.notifier.close()
                await app.state.cleanup.stop()
                await app.state.review_worker.stop()
                await app.state.deadlines.stop()
                await app.state.computer.stop()
                await app.state.heartbeat.stop()
        app.state.lanes.close()
        if matches.loop_reads is not None:
            matches.loop_reads.close()
        if matches.pg_loop_pool is not None:
            await matches.pg_loop_pool.close()
        app.state.engine.dispose()

    app = FastAPI(
        title="Tablero",
        summary="Play Bashni, Nine Men's Morris, Bobail and Bilsang with a friend.",
        version="0.1.0",
        lifespan=lifespan,
        # Our own /docs and /redoc (routes/api_docs.py) serve the viewers from this site.
        docs_url=None,
        redoc_url=None,
        # No OpenTelemetry provider is configured: FastAPI would ask the global ones
        # whether to trace on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    engine = make_engine(settings.database_url)
    sessions = make_sessionmaker(engine)
    # PostgreSQL: LISTEN/NOTIFY carries events between processes; else one process's memory.
    broker = PgBroker(engine) if engine.dialect.name == "postgresql" else Broker()
    app.state.settings = settings
    app.state.engine = engine
    app.state.sessions = sessions
    app.state.broker = broker
    deadlines: DeadlineWorker | None = None
    computer: ComputerWorker | None = None

    def publish(match_id: str, version: int) -> None:
        broker.publish(match_id, version)
        if deadlines is not None:
            deadlines.wake()  # the change may have set a deadline sooner than it knows

    # PostgreSQL: the other processes hear of a move from its own transaction's NOTIFY;
    # after it, only this one is told.
    tell = broker.local.publish if isinstance(broker, PgBroker) else broker.publish

    def publish_move(match_id: str, version: int, timed: bool) -> None:
        tell(match_id, version)
        if timed and deadlines is not None:
            deadlines.wake()  # an untimed move sets no deadline to sweep for

    def wake_computer() -> None:
        if computer is not None:
            computer.wake()

    events.shared(app)  # made now: the move threads fill it
    port = Publisher(
        changed=publish,
        moved=publish_move,
        notice=broker.notice if isinstance(broker, PgBroker) else None,
        playing=lambda match_id, version: events.reserve_move(app, match_id, version),
        wake_computer=wake_computer,
    )
    matches = MatchService(sessions, port, clock=clock or now)
    app.state.lanes = matches.lanes
    deadlines = DeadlineWorker(sessions, matches, clock=clock or now)
    computer = ComputerWorker(
        sessions,
        matches,
        thinker=settings.computer_thinker,
        processes=settings.computer_processes,
        clock=clock or now,
    )
    app.state.matches = matches
    app.state.computer = computer
    app.state.deadlines = deadlines
    app.state.ladder = LadderService(sessions, matches)
    ratings_wiring.wire(matches)
    app.state.records = RecordService(sessions)
    app.state.review_worker = ReviewWorker(
        sessions, processes=settings.computer_processes, clock=clock or now
    )
    app.state.reviews = ReviewService(sessions, clock=clock or now, wake=app.state.review_worker.wake)
    app.state.accounts = AccountService(sessions, clock=clock or now)
    app.state.passkeys = PasskeyService(sessions, app.state.accounts, clock=clock or now)
    app.state.account_data = AccountData(sessions, app.state.accounts, matches)
    # Chat lines go to the match's streams on the broker (NOTIFY between processes).
    app.state.chat = ChatService(sessions, clock or now, broker.publish)
    app.state.chat_safety = Safety(sessions, app.state.chat, clock or now)
    app.state.moderation = Moderation(sessions, clock or now)
    app.state.cleanup = Cleanup(matches, interval_seconds=settings.cleanup_seconds)
    app.state.presence = Presence(sessions, clock or now)
    app.state.heartbeat = Heartbeat(sessions, matches, clock=clock or now, flush=app.state.presence.flush)
    deadlines.paused = lambda: app.state.heartbeat.failing
    push_wiring.install(app, clock or now)
    mail_wiring.install(app, settings, clock or now)

    app.mount(api_docs.ASSETS_URL, StaticFiles(directory=str(api_docs.ASSETS)), name="api-docs-assets")
    app.mount("/static", HashedStatic(directory=str(ROOT / "static")), name="static")
    # The JSON API first: a request is matched against the routes in order, and its
    # paths (all under /api/) are the hot ones; no page's path starts with /api/.
    app.include_router(api.router)
    app.include_router(seeks.router)
    app.include_router(challenges_api.router)
    app.include_router(push_routes.router)
    app.include_router(accounts_api.router)
    app.include_router(mail_api.router)
    app.include_router(ratings_api.router)
    app.include_router(chat_api.router)
    app.include_router(ratings_pages.router)
    app.include_router(api_docs.router)
    app.include_router(pages.router)
    app.include_router(match_pages.router)
    app.include_router(typed.router)
    app.include_router(premoves.router)
    app.include_router(events.router)
    app.include_router(ladder.router)
    app.include_router(ladder.api_router)
    app.include_router(records.api_router)
    app.include_router(record_pages.router)
    app.include_router(learn_api.router)
    app.include_router(learn_pages.router)
    learn_wiring.install(app)
    app.include_router(accounts_pages.router)
    app.include_router(challenges_pages.router)
    app.include_router(chat_pages.router)
    app.include_router(moderation_pages.router)
    app.include_router(mail_pages.router)
    install_error_handlers(app)
    # Headers on everything (500s included), the cheap refusals before any work.
    app.state.limiter = (
        Limiter(sessions=sessions, secret=settings.secret_key) if settings.rate_limits else None
    )
    # Added first, so it runs inside Hardening: the move's two calls, without FastAPI's
    # per-request machinery (the same answers).
    app.add_middleware(MoveCalls, state=app.state, refusal=refusal)
    # Outside MoveCalls, so a move or a read of the legal moves is a sign of life too.
    app.add_middleware(PresenceLayer, presence=app.state.presence)
    app.add_middleware(
        Hardening,
        render=render_server_error,
        hsts=settings.secure_cookies,
        limiter=app.state.limiter,
        streams_per_client=settings.streams_per_client,
        hosts=settings.allowed_hosts,
    )
    if settings.compression:
        # Outermost: it sees the final headers, and Hardening's own answers (a 500 page) too.
        app.add_middleware(Compression, identity_paths=(LEGAL_PATH, MOVES_PATH))
    return app
