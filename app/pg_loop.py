"""PostgreSQL on the event loop: psycopg's asynchronous pool for the reads and moves
awaited there, and the loan of a move's connection to SQLAlchemy for the finish hooks."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from contextvars import ContextVar
from typing import Any, TypeVar

import psycopg
from psycopg_pool import AsyncConnectionPool
from sqlalchemy import Connection, Engine
from sqlalchemy import exc as sa_exc
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.postgresql.psycopg import PGDialectAsync_psycopg
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

T = TypeVar("T")


class ReadElsewhere(Exception):
    """A read on the event loop could not be done now: do it through a worker thread."""


class PgLoopPool:
    """PostgreSQL: psycopg's own asynchronous pool of autocommit connections, for the
    work awaited on the event loop without the hand-over to a worker thread and without
    SQLAlchemy: ``GET /legal``'s one-row read (``first``) and every move
    (``app.matches.move``, which sends its own ``BEGIN`` and ``COMMIT``).

    The hand-over and SQLAlchemy's execution of a one-row read cost about 0.7 ms of CPU
    here against 0.2 ms through this pool (docs/benchmarks.md, issue 16). The pool is
    small (``SIZE``) and separate from SQLAlchemy's. A read that finds no connection free
    within ``WAIT_SECONDS``, or fails (the server restarting, say), raises
    ``ReadElsewhere`` and the caller reads through its worker thread; a move waits up to
    ``MOVE_WAIT_SECONDS``, as long as SQLAlchemy's pool makes the pages wait, and is
    otherwise answered 503 (``app.matches.move``).

    Its connections belong to the event loop that opened it (the app's, in its
    lifespan): a caller on any other loop is refused them (``opened`` is false there, a
    read raises ``ReadElsewhere``), since a psycopg connection awaited from two loops
    can wait forever on the other's I/O. Under uvicorn each process serves on one loop;
    a test client used outside ``with`` serves each request on a loop of its own.

    The finish hooks (the ratings', the ladder's) are ORM code that must run in the
    transaction of the move that ends a game: ``orm_on`` lends the move's connection,
    mid-transaction, to SQLAlchemy's asyncio bridge for them.
    """

    SIZE = 12
    WAIT_SECONDS = 0.5
    MOVE_WAIT_SECONDS = 30.0

    def __init__(self, conninfo: str) -> None:
        self.conninfo = conninfo
        self.pool = AsyncConnectionPool(
            conninfo, min_size=1, max_size=self.SIZE, open=False, kwargs={"autocommit": True}
        )
        self._orm = create_async_engine(
            "postgresql+tablero_lent://",
            async_creator=_lent_connection,
            poolclass=_Lending,
            # Never a ROLLBACK of its own when the bridge is closed: the move ends its
            # transaction itself, before that (and a failure inside rolls back anyway).
            pool_reset_on_return=None,
        )
        self._orm_ready = False
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def of(cls, engine: Engine) -> PgLoopPool | None:
        """For a PostgreSQL engine (its URL as libpq's); else None."""
        if engine.dialect.name != "postgresql":
            return None
        return cls(engine.url.set(drivername="postgresql").render_as_string(hide_password=False))

    async def open(self) -> None:
        """Opens the pool on the running loop, whose pool it is from now on; its
        connections are made in the background."""
        self._loop = asyncio.get_running_loop()
        await self.pool.open(wait=False)

    @property
    def opened(self) -> bool:
        """Open, and the caller runs on the loop that opened it (the app's lifespan's);
        see ``MatchService.play``."""
        if self.pool.closed:
            return False
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:  # no loop runs on this thread
            return False

    async def first(self, sql: str, parameters: dict[str, Any]) -> tuple[Any, ...] | None:
        """The row of ``sql`` (pyformat parameters, at most one row), or None."""
        try:
            async with self.connection() as connection:
                cursor = await connection.execute(sql, parameters)
                return await cursor.fetchone()
        except psycopg.Error as exc:  # the read failed: the worker thread reads anew
            raise ReadElsewhere(str(exc)) from exc

    def connection(self) -> contextlib.AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]:
        """A connection of the pool, in autocommit; ``ReadElsewhere`` if none is free now
        (or the pool is closed, or open on another loop). What goes wrong while it is
        held is the caller's; the pool checks it on its return (one left in a
        transaction is rolled back, a broken one replaced)."""
        return self._held(self.WAIT_SECONDS, lambda exc: ReadElsewhere(str(exc)))

    def move_connection(self) -> contextlib.AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]:
        """A connection for a move: waits up to ``MOVE_WAIT_SECONDS``, then raises
        SQLAlchemy's ``TimeoutError`` as its own pool does (answered 503)."""
        return self._held(
            self.MOVE_WAIT_SECONDS,
            lambda exc: sa_exc.TimeoutError(f"no database connection free for a move: {exc}"),
        )

    @contextlib.asynccontextmanager
    async def _held(
        self, timeout: float, refusal: Callable[[psycopg.Error], Exception]
    ) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        if not self.opened:
            raise refusal(psycopg.OperationalError("the pool is closed, or open on another event loop"))
        try:
            connection = await self.pool.getconn(timeout=timeout)
        except psycopg.Error as exc:  # PoolTimeout and PoolClosed among them
            raise refusal(exc) from exc
        try:
            yield connection
        finally:
            await self.pool.putconn(connection)

    async def drop_dead(self) -> None:
        """Checks the idle connections and replaces those the server dropped (after a
        restart, say): a round trip each, only after a connection was found dead."""
        await self.pool.check()

    @contextlib.asynccontextmanager
    async def orm_on(
        self, connection: psycopg.AsyncConnection[Any]
    ) -> AsyncIterator[Callable[[Callable[[Connection], T]], Awaitable[T]]]:
        """Lends ``connection``, in its transaction, to SQLAlchemy: yields ``run``, which
        calls a function with a SQLAlchemy ``Connection`` on it (in a transaction of
        its own, so that a ``Session`` bound to it joins that one and leaves its end to
        the caller). The caller ends the transaction inside the block; leaving the
        block with it still open rolls it back."""
        if not self._orm_ready:
            await self._ready_orm()
        lent = _LENT.set(connection)
        try:
            async with self._orm.connect() as bridge:

                async def run(function: Callable[[Connection], T]) -> T:
                    return await bridge.run_sync(_in_transaction, function)

                yield run
        finally:
            _LENT.reset(lent)

    async def _ready_orm(self) -> None:
        """SQLAlchemy sets its dialect up on the first connection it gets, and ends that
        with a ROLLBACK: it must not be a move's. Done once, on a connection of its own."""
        connection = await psycopg.AsyncConnection.connect(self.conninfo, autocommit=True)
        try:
            lent = _LENT.set(connection)
            try:
                async with self._orm.connect():
                    pass
            finally:
                _LENT.reset(lent)
        finally:
            await connection.close()
        self._orm_ready = True

    async def close(self) -> None:
        await self.pool.close()
        await self._orm.dispose()


#: The psycopg connection ``PgLoopPool.orm_on`` is lending SQLAlchemy in this task.
_LENT: ContextVar[psycopg.AsyncConnection[Any]] = ContextVar("lent")


def _in_transaction(connection: Connection, function: Callable[[Connection], T]) -> T:
    if not connection.in_transaction():
        connection.begin()  # SQLAlchemy's own mark only: the server's is the move's
    return function(connection)


async def _lent_connection() -> psycopg.AsyncConnection[Any]:
    return _LENT.get()


class _Lending(NullPool):
    """SQLAlchemy's pool for lent connections: each ``connect`` takes the one lent, and
    closing gives it back as it is; psycopg's pool owns it and closes it."""

    def _close_connection(self, connection: Any, *, terminate: bool = False) -> None:
        pass


class LentDialect(PGDialectAsync_psycopg):
    """SQLAlchemy's asyncio psycopg dialect, adding nothing to a lent connection: the
    base class adds a notice handler on every connect, which would pile up on a
    connection lent again and again."""

    supports_statement_cache = True

    @classmethod
    def get_async_dialect_cls(cls, url: Any) -> type[LentDialect]:
        return cls  # the base class would name SQLAlchemy's own asyncio dialect

    def on_connect(self) -> None:
        return None


registry.register("postgresql.tablero_lent", __name__, "LentDialect")
