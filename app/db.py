"""Database engine and sessions: SQLite by default, PostgreSQL by URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker


def make_engine(url: str) -> Engine:
    parsed = make_url(url)
    kwargs: dict[str, Any] = {"pool_pre_ping": True}
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        # Requests run in a thread pool (40 threads); SQLite serialises writers itself.
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        kwargs.update(pool_size=20, max_overflow=20)
    elif parsed.get_backend_name() == "postgresql":
        # Per process: up to 20 connections for the request threads (plus one for the
        # event listener), so three replicas stay well inside PostgreSQL's default 100.
        kwargs.update(pool_size=10, max_overflow=10, pool_timeout=30)
    engine = create_engine(url, **kwargs)
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "begin", _sqlite_begin_immediate)
    return engine


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


def _sqlite_begin_immediate(connection: Any) -> None:
    # Take the write lock at the start, so two moves on one match serialise instead of
    # both reading the same ply (SQLite's stand-in for SELECT … FOR UPDATE). Reads
    # (READ_ONLY) begin deferred: under WAL they neither wait for a writer nor block one.
    if connection.get_execution_options().get("tablero_read_only"):
        connection.exec_driver_sql("BEGIN")
    else:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


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
