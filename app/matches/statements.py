"""The statements of a move's transaction, and the two ways they run.

- ``CoreStatements`` (SQLite): SQLAlchemy Core on the transaction's connection.
- ``DriverStatements`` (PostgreSQL, on a worker thread): the same statements, compiled
  once, on psycopg's own cursor in the transaction SQLAlchemy began, its writes sent
  together in one pipeline. Each statement SQLAlchemy runs costs more CPU than
  psycopg's part of it, and each round trip to the server costs a wait and a wake-up:
  this way a move makes three round trips (begin and lock, count the repetitions, the
  writes with the commit), not seven (docs/benchmarks.md, issue 16).
- ``LoopStatements`` (PostgreSQL, on the event loop): ``DriverStatements``' statements
  awaited on an asynchronous psycopg connection, in the same three round trips.

Both hand back the locked rows as tuples with named fields (``row.ply``,
``row._asdict()``), so the move's checks are written once.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any, Protocol, cast

import psycopg
from psycopg import AsyncConnection
from psycopg.pq import TransactionStatus
from psycopg.rows import namedtuple_row
from sqlalchemy import Connection, Dialect, Table, bindparam, func, select, text

from app.models import Match, MoveRecord, Seat

# Tables, as declared (SQLAlchemy types ``__table__`` as any FROM clause).
MATCHES = cast(Table, Match.__table__)
SEATS = cast(Table, Seat.__table__)
MOVES = cast(Table, MoveRecord.__table__)

#: The match row (every column, so that new ones come along) and its seats, locked.
LOCK_FOR_MOVE = (
    select(
        MATCHES,
        SEATS.c.id.label("seat_id"),
        SEATS.c.side.label("seat_side"),
        SEATS.c.name.label("seat_name"),
        SEATS.c.token_hash.label("seat_token_hash"),
        SEATS.c.ai_level.label("seat_ai_level"),
    )
    .select_from(MATCHES.outerjoin(SEATS, SEATS.c.match_id == MATCHES.c.id))
    .where(MATCHES.c.id == bindparam("lock_id"))
    .with_for_update(of=MATCHES)
)
INSERT_MOVE = MOVES.insert()
#: Sets the columns named in its parameters.
UPDATE_MATCH = MATCHES.update().where(MATCHES.c.id == bindparam("match_key"))
COUNT_REPEATS = (
    select(func.count())
    .select_from(MOVES)
    .where(MOVES.c.match_id == bindparam("match_id"), MOVES.c.repetition == bindparam("code"))
)
# The cheap reads of one match (app.matches.read).
READ_FOR_LEGAL = select(MATCHES.c.game, MATCHES.c.status, MATCHES.c.position, MATCHES.c.ply).where(
    MATCHES.c.id == bindparam("match_id")
)
READ_VERSION = select(MATCHES.c.version, MATCHES.c.ply, MATCHES.c.status).where(
    MATCHES.c.id == bindparam("match_id")
)
#: One row per seat, or a single row of NULLs for a match without seats; none: no match.
READ_SEATS = (
    select(SEATS.c.id, SEATS.c.token_hash)
    .select_from(MATCHES.outerjoin(SEATS, SEATS.c.match_id == MATCHES.c.id))
    .where(MATCHES.c.id == bindparam("match_id"))
)

#: A NOTIFY inside the transaction (PostgreSQL only).
NOTIFY = text("SELECT pg_notify(:channel, :payload)")

#: A NOTIFY's (channel, payload), or None where nothing is sent.
Notice = tuple[str, str] | None


@dataclass(frozen=True, slots=True)
class Writes:
    """A move's writes: the move's row, the match row's changed columns, the NOTIFY."""

    move: dict[str, Any]
    match_key: str
    changes: dict[str, Any]
    notice: Notice


class MoveStatements(Protocol):
    def lock(self, conn: Connection, match_id: str) -> list[Any]:
        """The locked match row joined with each of its seats (one row per seat)."""

    def count_repeats(self, conn: Connection, match_id: str, code: str) -> int:
        """How many stored moves of the match reached the position with ``code``."""

    def write(self, conn: Connection, writes: Writes) -> None:
        """Insert the move, set the changes on the match row, send the notice."""

    def write_and_commit(self, conn: Connection, writes: Writes) -> None:
        """``write``, then commit where that saves a round trip (else the caller's
        transaction block commits)."""


class CoreStatements:
    def lock(self, conn: Connection, match_id: str) -> list[Any]:
        return list(conn.execute(LOCK_FOR_MOVE, {"lock_id": match_id}).all())

    def count_repeats(self, conn: Connection, match_id: str, code: str) -> int:
        return int(conn.execute(COUNT_REPEATS, {"match_id": match_id, "code": code}).scalar_one())

    def write(self, conn: Connection, writes: Writes) -> None:
        conn.execute(INSERT_MOVE, writes.move)
        conn.execute(UPDATE_MATCH, {"match_key": writes.match_key, **writes.changes})
        if writes.notice is not None:
            channel, payload = writes.notice
            conn.execute(NOTIFY, {"channel": channel, "payload": payload})

    write_and_commit = write


class DriverStatements:
    """PostgreSQL (psycopg) only: see the module's docstring.

    The statements are compiled once for the dialect (pyformat parameters, as psycopg
    takes them); the INSERT and the UPDATE once per set of columns they are given (a
    handful: a move, a move that ends the game, each with or without a clock). The
    columns of these tables need no conversion by SQLAlchemy on psycopg (text, integers,
    booleans, timestamps); the move tests, run on PostgreSQL too, read the rows back
    through the ORM.
    """

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.lock_sql = str(LOCK_FOR_MOVE.compile(dialect=dialect))
        self.count_sql = str(COUNT_REPEATS.compile(dialect=dialect))
        self.notify_sql = str(NOTIFY.compile(dialect=dialect))
        self._compiled: dict[tuple[bool, frozenset[str]], str] = {}

    def sql_for(self, insert: bool, columns: frozenset[str]) -> str:
        sql = self._compiled.get((insert, columns))
        if sql is None:
            # inline: no RETURNING of the new id, which nothing reads
            statement = INSERT_MOVE.inline() if insert else UPDATE_MATCH
            sql = str(statement.compile(dialect=self.dialect, column_keys=sorted(columns)))
            self._compiled[(insert, columns)] = sql
        return sql

    def lock(self, conn: Connection, match_id: str) -> list[Any]:
        driver = conn.connection.driver_connection
        assert driver is not None
        # The transaction's BEGIN and the locking read in one round trip: the rows are
        # fetched after the pipeline's end (inside it, a fetch would cost a sync of its own).
        with driver.cursor(row_factory=namedtuple_row) as cursor:
            with driver.pipeline():
                cursor.execute(self.lock_sql, {"lock_id": match_id})
            return cursor.fetchall()

    def count_repeats(self, conn: Connection, match_id: str, code: str) -> int:
        driver = conn.connection.driver_connection
        assert driver is not None
        with driver.cursor() as cursor:
            cursor.execute(self.count_sql, {"match_id": match_id, "code": code})
            row = cursor.fetchone()
        assert row is not None
        return int(row[0])

    def write(self, conn: Connection, writes: Writes) -> None:
        self._send(conn, writes, commit=False)

    def write_and_commit(self, conn: Connection, writes: Writes) -> None:
        # SQLAlchemy's commit at the end of the transaction block then finds psycopg's
        # transaction over and sends nothing.
        self._send(conn, writes, commit=True)

    def _send(self, conn: Connection, writes: Writes, commit: bool) -> None:
        driver = conn.connection.driver_connection
        assert driver is not None
        # Sent together; the pipeline's end waits for them all and raises the first error
        # (a failed statement fails the COMMIT after it: nothing is written).
        with driver.pipeline(), driver.cursor() as cursor:
            for sql, parameters in self.statements_of(writes):
                cursor.execute(sql, parameters)
            if commit:
                driver.commit()

    def statements_of(self, writes: Writes) -> list[tuple[str, dict[str, Any]]]:
        """The INSERT, the UPDATE and the NOTIFY (if any) of ``writes``, with their
        parameters, in the order they are sent."""
        changes = {"match_key": writes.match_key, **writes.changes}
        sent = [
            (self.sql_for(True, frozenset(writes.move)), writes.move),
            (self.sql_for(False, frozenset(writes.changes)), changes),
        ]
        if writes.notice is not None:
            channel, payload = writes.notice
            sent.append((self.notify_sql, {"channel": channel, "payload": payload}))
        return sent


class LoopStatements:
    """``DriverStatements``' statements awaited on the event loop, on an asynchronous
    psycopg connection in autocommit (``app.pg_loop.PgLoopPool``'s): the transaction's own
    ``BEGIN`` goes in the locking read's pipeline and its ``COMMIT`` in the writes'.
    Its caller rolls back (``rollback``) whatever it does not commit."""

    def __init__(self, driver: DriverStatements) -> None:
        self.driver = driver

    async def lock(self, conn: AsyncConnection[Any], match_id: str) -> list[Any]:
        async with conn.cursor(row_factory=namedtuple_row) as cursor:
            async with conn.pipeline():
                await conn.execute("BEGIN")
                await cursor.execute(self.driver.lock_sql, {"lock_id": match_id})
            return await cursor.fetchall()

    async def count_repeats(self, conn: AsyncConnection[Any], match_id: str, code: str) -> int:
        cursor = await conn.execute(self.driver.count_sql, {"match_id": match_id, "code": code})
        row = await cursor.fetchone()
        assert row is not None
        return int(row[0])

    async def write_and_commit(self, conn: AsyncConnection[Any], writes: Writes) -> None:
        """The writes and the COMMIT in one pipeline: all of them or, after an error
        (raised), none (the caller then rolls back)."""
        async with conn.pipeline(), conn.cursor() as cursor:
            for sql, parameters in self.driver.statements_of(writes):
                await cursor.execute(sql, parameters)
            await cursor.execute("COMMIT")

    async def write(self, conn: AsyncConnection[Any], writes: Writes) -> None:
        """The writes without the COMMIT (a move that ends a game: the finish hooks
        come between)."""
        async with conn.pipeline(), conn.cursor() as cursor:
            for sql, parameters in self.driver.statements_of(writes):
                await cursor.execute(sql, parameters)

    @staticmethod
    async def commit(conn: AsyncConnection[Any]) -> None:
        await conn.execute("COMMIT")

    @staticmethod
    async def rollback(conn: AsyncConnection[Any]) -> None:
        """Ends the transaction without a trace; a connection that cannot is left to the
        pool, which replaces a broken one on its return."""
        if conn.info.transaction_status != TransactionStatus.IDLE:
            with contextlib.suppress(psycopg.Error):
                await conn.execute("ROLLBACK")


def statements_for(dialect: Dialect) -> MoveStatements:
    return DriverStatements(dialect) if dialect.driver == "psycopg" else CoreStatements()
