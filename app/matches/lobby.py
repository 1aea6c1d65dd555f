"""The lists of matches: the public lobby, and a browser's own games ("My games")."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import joinedload

from app.db import read_session
from app.matches.core import Core
from app.matches.view import my_row, your_move
from app.models import Match, Seat
from app.texts import UNPLAYED_REASONS


class Lists(Core):
    def lobby(self, limit: int = 20) -> dict[str, list[Match]]:
        """The public matches: open to join, being played, recently finished.

        Only matches their creator chose to list; a match that ended without being
        played (nobody joined in time) is left out.
        """
        with read_session(self.sessions) as db:
            moment = self.clock()

            def query(status: str) -> list[Match]:
                stmt = select(Match).where(Match.status == status, Match.public.is_(True))
                if status == "waiting":
                    # A seek past its expiry leaves the lobby even before the worker ends it.
                    stmt = stmt.where(or_(Match.deadline.is_(None), Match.deadline > moment))
                if status == "finished":
                    stmt = stmt.where(or_(Match.reason.is_(None), Match.reason.not_in(UNPLAYED_REASONS)))
                stmt = stmt.order_by(Match.updated_at.desc()).limit(limit)
                found = list(db.scalars(stmt))
                for match in found:
                    _ = match.seats
                return found

            return {"open": query("waiting"), "playing": query("playing"), "finished": query("finished")}

    def mine(self, token_hash: str | None, finished_limit: int = 50) -> list[dict[str, Any]]:
        """The matches this browser holds a seat in: its move first (soonest deadline
        first), then the others being played or waiting, then the finished (newest first)."""
        if not token_hash:
            return []
        moment = self.clock()
        with read_session(self.sessions) as db:
            base = (
                select(Match)
                .join(Seat, Seat.match_id == Match.id)
                .where(Seat.token_hash == token_hash)
                .options(joinedload(Match.seats))
            )
            active = list(db.scalars(base.where(Match.status != "finished")).unique())
            finished = list(
                db.scalars(
                    base.where(Match.status == "finished")
                    .order_by(Match.finished_at.desc())
                    .limit(finished_limit)
                ).unique()
            )
        rows = [my_row(m, token_hash, moment) for m in active + finished]
        far = datetime.max.replace(tzinfo=UTC)

        def order(row: dict[str, Any]) -> tuple[Any, ...]:
            if row["your_move"]:
                return (0, row["_deadline"] or far, "")
            if row["status"] != "finished":
                return (1, -row["_updated"].timestamp(), "")
            return (2, -row["_updated"].timestamp(), "")

        return sorted(rows, key=order)

    def my_move_count(self, token_hash: str | None) -> int:
        """How many of this browser's matches wait for its move (the header's count)."""
        if not token_hash:
            return 0
        with read_session(self.sessions) as db:
            stmt = (
                select(Match)
                .join(Seat, Seat.match_id == Match.id)
                .where(Seat.token_hash == token_hash, Match.status == "playing")
                .options(joinedload(Match.seats))
            )
            found = list(db.scalars(stmt).unique())
        return sum(1 for m in found if your_move(m, token_hash))
