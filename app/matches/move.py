"""A move: the hot path of the site. It runs as plain statements on one connection
(``app.matches.statements``), with no ORM objects, and its answer is built from the
locked row (nothing is read twice). The checks are ``app.matches.judge``'s.

Three executors run it: SQLAlchemy Core on SQLite and psycopg's cursor on a worker
thread (``move``), and on PostgreSQL psycopg awaited on the event loop (``move_on_loop``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import psycopg
from psycopg import AsyncConnection
from sqlalchemy import Connection
from sqlalchemy import exc as sa_exc

import games
from app.db import ReadElsewhere
from app.matches.core import Core
from app.matches.judge import accept_move, check_move, require_playing
from app.matches.model import Checked, Locked, Played, SeatRow, TimeUp, locked_from, players_seat
from app.matches.statements import LoopStatements
from app.models import Match
from app.ratings.service import changes_of
from app.services.errors import Conflict
from app.texts import N_


class Moves(Core):
    def move(self, match_id: str, token_hash: str | None, text: str, ply: int) -> Played:
        """Play ``text`` for the browser holding ``token_hash``, if the match is at ``ply``."""

        def play(conn: Connection, locked: Locked) -> Played:
            return self._play(conn, locked, players_seat(locked, token_hash), text, ply)

        return self._commit_move(match_id, play)

    async def move_on_loop(self, match_id: str, token_hash: str | None, text: str, ply: int) -> Played | None:
        """``move`` awaited on the event loop, on PostgreSQL (``PgLoopPool`` and
        ``LoopStatements``): no hand-over to a worker thread and no SQLAlchemy, which
        cost more CPU than the move's own work (docs/benchmarks.md, issue 16).

        None, having changed nothing, where ``move`` must play it on a worker thread
        instead: on SQLite; with no connection free now; after a database error before
        the commit was sent; and for the moves that path finishes, one that ends a game
        with finish hooks to run (the ladder) and one that finds the mover's time run
        out. Refusals are raised as ``move`` raises them.
        """
        pool, statements = self.pg_loop_pool, self.loop_statements
        if pool is None or statements is None:
            return None
        try:
            async with pool.connection() as conn:
                return await self._move_on(conn, statements, match_id, token_hash, text, ply)
        except ReadElsewhere:
            return None

    async def _move_on(
        self,
        conn: AsyncConnection[Any],
        statements: LoopStatements,
        match_id: str,
        token_hash: str | None,
        text: str,
        ply: int,
    ) -> Played | None:
        try:
            locked = locked_from(match_id, await statements.lock(conn, match_id))
            checked = self._check(locked, players_seat(locked, token_hash), text, ply)
            code = checked.code_to_count
            earlier = None if code is None else await statements.count_repeats(conn, match_id, code)
            played = self._accept(checked, earlier)
        except (TimeUp, psycopg.Error):
            # The worker thread's path plays it again and answers as it always does
            # (the match finished by its deadline; a 503 while the database is away).
            await statements.rollback(conn)
            return None
        except BaseException:
            await statements.rollback(conn)
            raise
        pending = played.pending
        assert pending is not None, "_accept leaves the writes to send"
        if self._runs_hooks(played):
            await statements.rollback(conn)
            return None
        settle = self.port.playing(match_id, played.version)
        try:
            await statements.write_and_commit(conn, pending)
        except BaseException as exc:
            settle(None)
            await statements.rollback(conn)
            if isinstance(exc, psycopg.Error):
                # As the worker thread's path raises it (through SQLAlchemy): the app
                # answers a 503 if the database is away, else a 500.
                raise sa_exc.DBAPIError.instance("COMMIT", None, exc, psycopg.Error) from exc
            raise
        played = replace(played, pending=None)
        settle(played)
        self._played(match_id, played)
        return played

    def computer_move(self, match_id: str, text: str, ply: int) -> Played:
        """Play the computer's reply, if it is still the computer's turn at ``ply``."""

        def play(conn: Connection, locked: Locked) -> Played:
            require_playing(locked.match.status)
            game = games.get(locked.match.game)
            side = game.to_move(game.parse_position(locked.match.position))
            seat = next((s for s in locked.seats if s.side == side and s.ai_level is not None), None)
            if seat is None:
                raise Conflict(N_("it is not the computer's turn"))
            return self._play(conn, locked, seat, text, ply)

        return self._commit_move(match_id, play)

    def _commit_move(self, match_id: str, play: Callable[[Connection, Locked], Played]) -> Played:
        """One move's transaction on the locked match row, then its publishing."""
        settle: Callable[[Played | None], None] | None = None
        try:
            with self._judging_time(match_id), self.engine.begin() as conn:
                played = play(conn, self._lock_row(conn, match_id))
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
            with self.sessions(bind=conn) as db:
                match = db.get(Match, locked.match.id)
                assert match is not None
                for hook in self.finish_hooks:
                    hook(db, match)
                db.flush()
                if match.rated:  # the finishing move's answer shows what it did (issue 31)
                    played.state["rating_changes"] = changes_of(db, match.id)
            played = replace(played, pending=None)
        return played

    def _check(self, locked: Locked, seat: SeatRow, text: str, ply: int) -> Checked:
        return check_move(locked, seat, text, ply, self.clock())

    def _accept(self, checked: Checked, earlier: int | None) -> Played:
        return accept_move(checked, earlier, self.port.notice)

    def _runs_hooks(self, played: Played) -> bool:
        return played.state["status"] == "finished" and bool(self.finish_hooks)

    def _played(self, match_id: str, played: Played) -> None:
        """After a move's commit: every subscriber and the computer."""
        self.port.move(match_id, played.version, played.timed)
        self._after(match_id, played.version, played.computer_to_move, publish=False)
