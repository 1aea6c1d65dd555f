"""Database engine and sessions: SQLite by default, PostgreSQL by URL."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Dialect, Engine, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

T = TypeVar("T")

#: PostgreSQL connections each process's pool keeps at most (the event listener has one
#: more of its own).
POOL_SIZE = 12

#: A pooled PostgreSQL connection that sat unused this long is checked with a ping before
#: it is handed out (see ``_ping_if_idle``).
PING_IDLE_SECONDS = 1.0


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        # Requests run in a thread pool (40 threads); SQLite serialises writers itself.
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        kwargs.update(pool_size=20, max_overflow=20)
    elif parsed.get_backend_name() == "postgresql":
        # Per process: up to 12 connections for the request threads (plus PgLoopPool's 12
        # for the event loop and one for the event listener: 25), so three replicas stay
        # inside PostgreSQL's default 100. All 12 are kept once opened, none is an
        # overflow closed on its return: under load the pool was opening and closing
        # connections all the time (7 % of the server's CPU, docs/benchmarks.md). Last
        # in, first out: under light load the same few connections serve, and the rest
        # sit idle long enough to be pinged before they serve again.
        kwargs.update(pool_size=POOL_SIZE, max_overflow=0, pool_timeout=30, pool_use_lifo=True)
    engine = create_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin_immediate)
    else:
        event.listen(engine, "connect", _note_checkin)
        event.listen(engine, "checkin", _note_checkin)
        event.listen(engine, "checkout", _ping_if_idle(engine.dialect))
    return engine


def _note_checkin(_dbapi_connection: Any, record: Any) -> None:
    record.info["idle_since"] = time.monotonic()


def _ping_if_idle(dialect: Dialect) -> Callable[[Any, Any, Any], None]:
    """The checkout listener of a PostgreSQL pool.

    A server that restarted, failed over or dropped idle connections leaves dead ones in
    the pool: a connection idle for over ``PING_IDLE_SECONDS`` is pinged first, and if it
    is dead every connection pooled before now is replaced before anyone uses it
    (SQLAlchemy retries the checkout). One that served a moment ago is not pinged, as
    ``pool_pre_ping`` would on every checkout (a round trip per request); if the server
    died in that moment, that request fails with a 503 and its error invalidates the
    pool, so the next ones reconnect. SQLite (a local file) has nothing to lose and is
    never pinged.
    """

    def checkout(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if time.monotonic() - record.info.get("idle_since", 0.0) <= PING_IDLE_SECONDS:
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as exc:  # a terminated backend answers with an error
            if not dialect.is_disconnect(exc, dbapi_connection, None):
                raise
            alive = False
        if not alive:
            # The server most likely restarted: every connection pooled before now is dead.
            raise sa_exc.InvalidatePoolError("a pooled connection was dead")

    return checkout


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # pysqlite's own transaction handling would defer BEGIN; we issue it ourselves.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


#: Execution option of connections that only read: they need no write lock.
READ_ONLY = {"tablero_read_only": True}


def reading(engine: Engine) -> Connection:
    """A connection for a read of one statement.

    SQLite: a deferred ``BEGIN`` (``READ_ONLY``), which under WAL neither waits for the
    writer nor blocks it. PostgreSQL: autocommit, so no ``BEGIN`` before it and no
    ``ROLLBACK`` when it goes back to the pool (two round trips, about a quarter of a
    one-row read's CPU measured here); a single statement sees one snapshot either way.
    """
    if engine.dialect.name == "postgresql":
        return engine.connect().execution_options(isolation_level="AUTOCOMMIT")
    return engine.connect().execution_options(**READ_ONLY)


@contextlib.contextmanager
def read_session(sessions: sessionmaker[Session]) -> Iterator[Session]:
    """A session for reads only, on a ``reading`` connection: on SQLite a plain
    ``sessions()`` begins with ``BEGIN IMMEDIATE`` (below), the site's one writer lock, so
    every page view that only reads (the header's count, the lobby, a profile) queued
    behind the moves' writes and made them queue. Nothing written here is kept safely:
    on PostgreSQL each statement commits by itself."""
    with reading(sessions.kw["bind"]) as conn, sessions(bind=conn) as db:
        yield db


def _sqlite_begin_immediate(connection: Any) -> None:
    # Take the write lock at the start, so two moves on one match serialise instead of
    # both reading the same ply (SQLite's stand-in for SELECT … FOR UPDATE). Reads
    # (READ_ONLY) begin deferred: under WAL they neither wait for a writer nor block one.
    if connection.get_execution_options().get("tablero_read_only"):
        connection.exec_driver_sql("BEGIN")
    else:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


class Lanes:
    """The worker threads the hot JSON endpoints hand their one database call to.

    Plain executors: a hand-over through one costs a fraction of Starlette's
    ``run_in_threadpool`` (anyio's capacity limiter, cancel scope and context copy; about
    4x the CPU per call measured on this machine under concurrency). Bounded, so the
    event loop never waits: a call waits for a free thread instead.

    Moves on SQLite, which has one writer at a time, queue for a single thread and run in
    order, instead of a thread each waiting in SQLite's busy handler (it polls the lock
    with growing sleeps, so the lock sits free while they sleep, and every waiting
    thread competes for the interpreter). PostgreSQL locks rows: moves on different
    matches run side by side, on as many threads as the pool spares them; there, most
    moves and reads are awaited on the event loop instead (``PgLoopPool``), and these
    threads serve the rest.
    """

    def __init__(self, engine: Engine) -> None:
        # PostgreSQL: moves and reads together hold at most POOL_SIZE - 4 of the pool's
        # connections (make_engine), leaving 4 to the pages and the workers; on two cores
        # more moves side by side would only wait for each other's interpreter lock.
        sqlite = engine.dialect.name == "sqlite"
        readers = 8 if sqlite else (POOL_SIZE - 4) // 2
        writers = 1 if sqlite else POOL_SIZE - 4 - readers
        self._reads = ThreadPoolExecutor(readers, thread_name_prefix="db-reads")
        self._moves = ThreadPoolExecutor(writers, thread_name_prefix="db-moves")

    async def read(self, function: Callable[..., T], *args: Any) -> T:
        return await _in(self._reads, function, args)

    async def move(self, function: Callable[..., T], *args: Any) -> T:
        return await _in(self._moves, function, args)

    def close(self) -> None:
        self._reads.shutdown(wait=True)
        self._moves.shutdown(wait=True)


async def _in(executor: ThreadPoolExecutor, function: Callable[..., T], args: tuple[Any, ...]) -> T:
    return await asyncio.get_running_loop().run_in_executor(executor, functools.partial(function, *args))


class LoopReads:
    """SQLite only: one-statement reads on the calling thread (the event loop's), each
    thread with a connection of its own, without the hand-over to a worker thread.

    The hand-over and SQLAlchemy's execution cost about 20 times the read itself on this
    machine (docs/benchmarks.md, issue 16). A read in WAL mode, in autocommit, sees one
    snapshot and neither waits for the writer nor blocks it; should SQLite be busy all
    the same (a checkpoint, recovery after a crash), it gives up after ``BUSY_SECONDS``
    with ``sqlite3.Error`` and the caller reads through its worker thread instead, so
    the event loop never waits on the database.
    """

    BUSY_SECONDS = 0.05

    def __init__(self, path: str) -> None:
        self.path = path
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    @classmethod
    def of(cls, engine: Engine) -> LoopReads | None:
        """For an SQLite file database given by a plain path; else None (an in-memory
        database is another one on each connection)."""
        url = engine.url
        if url.get_backend_name() != "sqlite" or url.query or not url.database:
            return None
        if url.database == ":memory:" or url.database.startswith("file:"):
            return None
        return cls(url.database)

    def first(self, sql: str, parameters: tuple[Any, ...]) -> tuple[Any, ...] | None:
        """The row of ``sql`` (qmark parameters, at most one row), or None; ``sqlite3.Error``
        if busy."""
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            # Autocommit (isolation_level None): no BEGIN, no ROLLBACK, one statement.
            # Not checked per thread by sqlite3: ``close`` runs on another one at shutdown.
            connection = sqlite3.connect(
                self.path, timeout=self.BUSY_SECONDS, isolation_level=None, check_same_thread=False
            )
            with self._lock:
                self._opened.append(connection)
            self._local.connection = connection
        # Every row fetched, so the statement is done and its read snapshot ends now (one
        # left open would hold back SQLite's checkpoints): these reads return one row.
        rows: list[tuple[Any, ...]] = connection.execute(sql, parameters).fetchall()
        return rows[0] if rows else None

    def close(self) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
        for connection in opened:
            # Closing from another thread: only at shutdown, when no reads run.
            with contextlib.suppress(sqlite3.Error):
                connection.close()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


#: SQLSTATE classes of a PostgreSQL that cannot serve now: connection (08), out of
#: resources such as a full disk (53), operator intervention such as a shutdown (57),
#: and a read-only transaction (25006).
_UNAVAILABLE_SQLSTATES = ("08", "53", "57", "25006")


def unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` means the database cannot serve for now (answer 503, not 500)."""
    if isinstance(exc, sa_exc.OperationalError | sa_exc.TimeoutError | sa_exc.InterfaceError):
        return True
    if isinstance(exc, sa_exc.DBAPIError):
        if exc.connection_invalidated:
            return True
        state = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None) or ""
        return any(state.startswith(prefix) for prefix in _UNAVAILABLE_SQLSTATES)
    return False
