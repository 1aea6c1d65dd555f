"""A move: the hot path of the site. It runs as plain statements on one connection
(``app.matches.statements``), with no ORM objects, and its answer is built from the
locked row (nothing is read twice). The checks are ``app.matches.judge``'s.

Every move the site plays, a player's (the JSON API's, the page's) and the computer's,
enters through ``play`` or ``play_computer``, and each database has one executor,
chosen when the service is made:

- SQLite: SQLAlchemy Core on the one move thread (``app.db.Lanes``; one writer at a
  time), ``move`` and ``computer_move``;
- PostgreSQL: psycopg awaited on the event loop (``app.pg_loop.PgLoopPool``), with no
  hand-over to a thread and no SQLAlchemy, which cost more CPU than the move's own work
  (docs/benchmarks.md, issue 16). The move that ends a game runs the finish hooks (ORM
  code) in its own transaction, on its own connection lent to SQLAlchemy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

import psycopg
from psycopg import AsyncConnection
from sqlalchemy import Connection
from sqlalchemy import exc as sa_exc

import games
from app.matches.core import Core
from app.matches.judge import accept_move, check_move, require_playing
from app.matches.model import Checked, Locked, Played, SeatRow, TimeUp, locked_from, players_seat
from app.matches.statements import LoopStatements
from app.models import Match
from app.pg_loop import PgLoopPool
from app.ratings.service import changes_of
from app.services.errors import Conflict
from app.texts import N_

#: Which seat plays, given the locked match (raises when none may).
SeatFor = Callable[[Locked], SeatRow]


class Moves(Core):
    async def play(self, match_id: str, token_hash: str | None, text: str, ply: int) -> Played:
        """Play ``text`` for the browser holding ``token_hash``, if the match is at ``ply``."""
        if not self._on_the_loop():
            return await self.lanes.move(self.move, match_id, token_hash, text, ply)
        return await self._on_loop(match_id, lambda locked: players_seat(locked, token_hash), text, ply)

    async def play_computer(self, match_id: str, text: str, ply: int) -> Played:
        """Play the computer's reply, if it is still the computer's turn at ``ply``."""
        if not self._on_the_loop():
            return await self.lanes.move(self.computer_move, match_id, text, ply)
        return await self._on_loop(match_id, _computers_seat, text, ply)

    def _on_the_loop(self) -> bool:
        """PostgreSQL's executor, once the app's start opened its pool on the app's event
        loop. Only an app driven without being started (tests that keep its workers
        still) has none: its moves run on the move thread, as on SQLite."""
        return self.pg_loop_pool is not None and self.pg_loop_pool.opened

    # ------------------------------------------------------------- SQLite

    def move(self, match_id: str, token_hash: str | None, text: str, ply: int) -> Played:
        """``play``'s work on SQLite, on the calling thread (and on PostgreSQL for a
        caller without the app's event loop: a script, a test)."""
        return self._commit_move(match_id, lambda locked: players_seat(locked, token_hash), text, ply)

    def computer_move(self, match_id: str, text: str, ply: int) -> Played:
        """``play_computer``'s work on SQLite, on the calling thread."""
        return self._commit_move(match_id, _computers_seat, text, ply)

    def _commit_move(self, match_id: str, seat_for: SeatFor, text: str, ply: int) -> Played:
        """One move's transaction on the locked match row, then its publishing."""
        settle: Callable[[Played | None], None] | None = None
        try:
            with self._judging_time(match_id), self.engine.begin() as conn:
                locked = self._lock_row(conn, match_id)
                played = self._play(conn, locked, seat_for(locked), text, ply)
                settle = self.port.playing(match_id, played.version)
                if played.pending is not None:
                    self.statements.write_and_commit(conn, played.pending)
                    played = replace(played, pending=None)
        except BaseException:
            if settle is not None:
                settle(None)  # the commit failed
            raise
        assert settle is not None
        settle(played)
        self._played(match_id, played)
        return played

    def _lock_row(self, conn: Connection, match_id: str) -> Locked:
        return locked_from(match_id, self.statements.lock(conn, match_id))

    def _play(self, conn: Connection, locked: Locked, seat: SeatRow, text: str, ply: int) -> Played:
        """Check and record one move; raises and changes nothing when it is refused.

        A bounded amount of work whatever the ply: the locked row, one count of equal
        positions (games with a repetition rule), one insert, one update.
        """
        checked = self._check(locked, seat, text, ply)
        code = checked.code_to_count
        earlier = None if code is None else self.statements.count_repeats(conn, locked.match.id, code)
        played = self._accept(checked, earlier)
        if played.pending is not None and self._runs_hooks(played):
            # The finish hooks read the finished match: its writes go first.
            self.statements.write(conn, played.pending)
            self._run_hooks(conn, locked.match.id, played)
            played = replace(played, pending=None)
        return played

    # ------------------------------------------------------------- PostgreSQL

    async def _on_loop(self, match_id: str, seat_for: SeatFor, text: str, ply: int) -> Played:
        """The move on the event loop. A connection the server dropped (found on the
        first statement, before anything was written) is replaced and the move tried once
        more; other database errors are raised as SQLAlchemy raises them on the pages'
        path (a 503 while the database is away, else a 500)."""
        pool, statements = self.pg_loop_pool, self.loop_statements
        assert pool is not None and statements is not None, "PostgreSQL's executor"

        async def once() -> Played:
            async with pool.move_connection() as conn:
                return await self._move_on(conn, pool, statements, match_id, seat_for, text, ply)

        try:
            try:
                return await once()
            except _Dropped:
                await pool.drop_dead()  # the server dropped its connections (a restart, say)
                return await once()
        except _Dropped as dropped:
            raise _as_sqlalchemys(dropped.error) from dropped.error
        except psycopg.Error as exc:
            raise _as_sqlalchemys(exc) from exc
        except TimeUp:
            # As ``Core._judging_time``: the deadline's finish, then the refusal.
            await asyncio.to_thread(self.expire, match_id)
            raise Conflict(N_("the time ran out: the match is over")) from None

    async def _move_on(
        self,
        conn: AsyncConnection[Any],
        pool: PgLoopPool,
        statements: LoopStatements,
        match_id: str,
        seat_for: SeatFor,
        text: str,
        ply: int,
    ) -> Played:
        try:
            try:
                rows = await statements.lock(conn, match_id)
            except psycopg.Error as exc:
                if conn.broken:
                    raise _Dropped(exc) from exc
                raise
            locked = locked_from(match_id, rows)
            checked = self._check(locked, seat_for(locked), text, ply)
            code = checked.code_to_count
            earlier = None if code is None else await statements.count_repeats(conn, match_id, code)
            played = self._accept(checked, earlier)
            pending = played.pending
            assert pending is not None, "_accept leaves the writes to send"
            if self._runs_hooks(played):
                return await self._finish_on(conn, pool, statements, match_id, played)
            return await self._committed(match_id, played, lambda: statements.write_and_commit(conn, pending))
        except BaseException:
            await statements.rollback(conn)
            raise

    async def _finish_on(
        self,
        conn: AsyncConnection[Any],
        pool: PgLoopPool,
        statements: LoopStatements,
        match_id: str,
        played: Played,
    ) -> Played:
        """A move that ends the game: its writes, then the finish hooks on the same
        connection and transaction (they read the finished match), then the commit
        (inside the loan: leaving it with the transaction open rolls it back)."""
        assert played.pending is not None
        await statements.write(conn, played.pending)
        async with pool.orm_on(conn) as run:
            await run(lambda sync: self._run_hooks(sync, match_id, played))
            return await self._committed(match_id, played, lambda: statements.commit(conn))

    async def _committed(
        self, match_id: str, played: Played, commit: Callable[[], Awaitable[None]]
    ) -> Played:
        """Commits with the new version reserved in the event streams' cache (dropped if
        the commit fails), then tells every subscriber."""
        settle = self.port.playing(match_id, played.version)
        try:
            await commit()
        except BaseException:
            settle(None)
            raise
        played = replace(played, pending=None)
        settle(played)
        self._played(match_id, played)
        return played

    # ------------------------------------------------------------- both

    def _check(self, locked: Locked, seat: SeatRow, text: str, ply: int) -> Checked:
        return check_move(locked, seat, text, ply, self.clock())

    def _accept(self, checked: Checked, earlier: int | None) -> Played:
        return accept_move(checked, earlier, self.port.notice)

    def _runs_hooks(self, played: Played) -> bool:
        return played.state["status"] == "finished" and bool(self.finish_hooks)

    def _run_hooks(self, conn: Connection, match_id: str, played: Played) -> None:
        """The finish hooks, in the move's transaction after its writes."""
        with self.sessions(bind=conn) as db:
            match = db.get(Match, match_id)
            assert match is not None
            for hook in self.finish_hooks:
                hook(db, match)
            db.flush()
            if match.rated:  # the finishing move's answer shows what it did (issue 31)
                played.state["rating_changes"] = changes_of(db, match_id)

    def _played(self, match_id: str, played: Played) -> None:
        """After a move's commit: every subscriber and the computer."""
        self.port.move(match_id, played.version, played.timed)
        self._after(match_id, played.version, played.computer_to_move, publish=False)


def _computers_seat(locked: Locked) -> SeatRow:
    require_playing(locked.match.status)
    game = games.get(locked.match.game)
    side = game.to_move(game.parse_position(locked.match.position))
    seat = next((s for s in locked.seats if s.side == side and s.ai_level is not None), None)
    if seat is None:
        raise Conflict(N_("it is not the computer's turn"))
    return seat


class _Dropped(Exception):
    """The move's connection was found dropped before anything was written."""

    def __init__(self, error: psycopg.Error) -> None:
        super().__init__(str(error))
        self.error = error


def _as_sqlalchemys(exc: psycopg.Error) -> sa_exc.StatementError:
    """A psycopg error as SQLAlchemy raises it on the worker threads, which the app
    answers (a 503 while the database is away, else a 500)."""
    return sa_exc.DBAPIError.instance("(a move on the event loop)", None, exc, psycopg.Error)
