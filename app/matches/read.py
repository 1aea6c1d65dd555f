"""The cheap reads of one match that the hot paths make: its version (event streams), its
legal moves (``GET /legal``, three ways: a worker thread, SQLite on the event loop,
PostgreSQL awaited on the loop), and whether a browser holds a seat in it."""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import selectinload

import games
from app.db import read_session, reading
from app.matches.clock import away_side, time_control_of
from app.matches.core import Core
from app.matches.judge import legal_in
from app.matches.statements import READ_FOR_LEGAL, READ_SEATS, READ_VERSION
from app.models import Match
from app.pg_loop import ReadElsewhere
from app.services.errors import NotFound
from app.services.tokens import same


class Reads(Core):
    def version_of(self, match_id: str) -> tuple[int, int, str]:
        """(version, ply, status): all an event stream needs, in one cheap read."""
        with reading(self.engine) as conn:
            row = conn.execute(READ_VERSION, {"match_id": match_id}).first()
        if row is None:
            raise NotFound(f"there is no match {match_id!r}")
        return row.version, row.ply, row.status

    def legal(self, match_id: str) -> dict[str, Any]:
        """``{"ply", "moves"}``: the legal moves in notation (none unless playing), one row read."""
        with reading(self.engine) as conn:
            row = conn.execute(READ_FOR_LEGAL, {"match_id": match_id}).first()
        return legal_in(match_id, row)

    def legal_here(self, match_id: str) -> dict[str, Any] | None:
        """``legal`` read on this thread, the event loop's, on SQLite (``LoopReads``);
        None where that cannot be done (PostgreSQL, or SQLite busy): then call ``legal``
        on a worker thread."""
        if self.loop_reads is None:
            return None
        try:
            row = self.loop_reads.first(self._legal_sql, (match_id,))
        except sqlite3.Error:
            return None
        return legal_in(match_id, row)

    async def legal_on_loop(self, match_id: str) -> dict[str, Any] | None:
        """``legal`` read without leaving the event loop where the database allows it:
        SQLite's ``legal_here``, or awaited on PostgreSQL (``PgLoopPool``); None where that
        cannot be done now: then call ``legal`` on a worker thread."""
        if self.pg_loop_pool is None:
            return self.legal_here(match_id)
        try:
            row = await self.pg_loop_pool.first(self._legal_sql, {"match_id": match_id})
        except ReadElsewhere:
            return None
        return legal_in(match_id, row)

    def claim_for(self, match_id: str, seat_id: int) -> dict[str, Any] | None:
        """What ``partials/claims.html`` needs to show seat ``seat_id`` its abandonment
        claim now (``timing.away``: the side away, if any), for a player's event stream,
        which tells its page when the claim comes or goes, since absence changes no
        version. None when no claim can ever arise here: not a real-time match, a
        finished one, no such seat."""
        with read_session(self.sessions) as db:
            match = db.scalars(
                select(Match).where(Match.id == match_id).options(selectinload(Match.seats))
            ).first()
            if match is None or match.status == "finished":
                return None
            control = time_control_of(match)
            seat = next((s for s in match.seats if s.id == seat_id), None)
            if control is None or not control.realtime or seat is None:
                return None
            away = None
            if match.status == "playing":
                game = games.get(match.game)
                away = away_side(match, game.to_move(game.parse_position(match.position)), self.clock())
            return {
                "match": {"id": match.id, "status": match.status, "ply": match.ply},
                "seat": {"side": seat.side},
                "timing": {"away": away},
            }

    def seat_id_of(self, match_id: str, token_hash: str | None) -> int | None:
        """The id of the seat the browser holding ``token_hash`` has, if any (404 if no match)."""
        with reading(self.engine) as conn:
            rows = conn.execute(READ_SEATS, {"match_id": match_id}).all()
        if not rows:
            raise NotFound(f"there is no match {match_id!r}")
        found = None
        for row in rows:  # every seat compared, in constant time
            if row.token_hash is not None and same(row.token_hash, token_hash):
                found = row.id
        return found
