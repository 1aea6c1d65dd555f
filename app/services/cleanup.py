"""Housekeeping that keeps the database from filling with games nobody will finish.

Every app process runs ``Cleanup`` every few minutes. Each change re-checks its row
under the row lock (through MatchService.end_by_server), and deletions are idempotent,
so several processes running it at once do the same work at most twice, never harm.

What it does (docs/ARCHITECTURE.md, "Threats and limits", says the same):
- a match nobody joined expires after ``waiting_lifetime`` (24 h): finished, winner none,
  reason "expired"; the lobby no longer lists it;
- a game against the computer whose player has not moved for ``ABANDONED_AFTER`` (24 h)
  is lost by the player, reason "abandoned"; a ladder run ends with it, by the ladder's
  own rule (a loss ends the run);
- expired matches are deleted after ``EXPIRED_KEPT`` (7 days), other finished matches
  outside the ladder after ``FINISHED_KEPT`` (365 days); ladder runs and their games are
  kept, the leaderboard needs them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, delete, or_, select

import games
from app.matches.model import computer_seat
from app.matches.service import MatchService
from app.models import Match, MoveRecord, Seat
from app.services.errors import ServiceError

log = logging.getLogger(__name__)

ABANDONED_AFTER = timedelta(hours=24)
EXPIRED_KEPT = timedelta(days=7)
FINISHED_KEPT = timedelta(days=365)
#: Rows handled per kind and run: a backlog is worked off over several runs.
BATCH = 500


def waiting_lifetime(match: Match) -> timedelta:
    """How long a match may wait for its second player. One place to extend (issue 15's
    correspondence matches are to get 7 days)."""
    return timedelta(hours=24)


SHORTEST_WAIT = timedelta(hours=24)  # the least waiting_lifetime gives: the query's bound


def _aware(moment: datetime | None) -> datetime | None:
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)  # SQLite hands back naive datetimes
    return moment


@dataclass
class Swept:
    expired: int = 0
    abandoned: int = 0
    deleted: int = 0


class Cleanup:
    def __init__(
        self,
        matches: MatchService,
        interval_seconds: float = 600.0,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.matches = matches
        self.sessions = matches.sessions
        self.interval = interval_seconds
        self.clock = clock or matches.clock
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            try:
                await asyncio.to_thread(self.run_once)
            except Exception:
                log.exception("cleanup failed; trying again next time")

    def run_once(self) -> Swept:
        now = self.clock()
        swept = Swept()
        swept.expired = self._expire_waiting(now)
        swept.abandoned = self._abandon_computer_games(now)
        swept.deleted = self._delete_old(now)
        return swept

    def _expire_waiting(self, now: datetime) -> int:
        with self.sessions() as db:
            old = db.scalars(
                select(Match)
                .where(Match.status == "waiting", Match.created_at < now - SHORTEST_WAIT)
                .order_by(Match.created_at)
                .limit(BATCH)
            ).all()
            due = [m.id for m in old if _aware(m.created_at) < now - waiting_lifetime(m)]  # type: ignore[operator]
        count = 0
        for match_id in due:
            with contextlib.suppress(ServiceError):
                self.matches.end_by_server(match_id, None, "expired", lambda m: m.status == "waiting")
                count += 1
        return count

    def _abandon_computer_games(self, now: datetime) -> int:
        cutoff = now - ABANDONED_AFTER
        with self.sessions() as db:
            computer = select(Seat.match_id).where(Seat.ai_level.is_not(None))
            ids = db.scalars(
                select(Match.id)
                .where(
                    Match.status == "playing",
                    Match.ai_turn_at.is_(None),  # the player's turn, not the computer's
                    Match.turn_started_at < cutoff,
                    Match.id.in_(computer),
                )
                .limit(BATCH)
            ).all()
        count = 0
        for match_id in ids:

            def still_left(match: Match) -> bool:
                started = _aware(match.turn_started_at)
                return (
                    match.status == "playing"
                    and match.ai_turn_at is None
                    and started is not None
                    and started < cutoff
                )

            match = self.matches.get(match_id)
            game = games.get(match.game)
            to_move = game.to_move(game.parse_position(match.position))
            winner = next((s.side for s in match.seats if s.side != to_move), None)
            if computer_seat(match, to_move) is not None or winner is None:
                continue
            with contextlib.suppress(ServiceError):
                self.matches.end_by_server(match_id, winner, "abandoned", still_left)
                count += 1
        return count

    def _delete_old(self, now: datetime) -> int:
        with self.sessions.begin() as db:
            ids = db.scalars(
                select(Match.id)
                .where(
                    Match.status == "finished",
                    or_(
                        and_(Match.reason == "expired", Match.finished_at < now - EXPIRED_KEPT),
                        and_(Match.ladder_run_id.is_(None), Match.finished_at < now - FINISHED_KEPT),
                    ),
                )
                .limit(BATCH)
            ).all()
            if ids:
                db.execute(delete(MoveRecord).where(MoveRecord.match_id.in_(ids)))
                db.execute(delete(Seat).where(Seat.match_id.in_(ids)))
                db.execute(delete(Match).where(Match.id.in_(ids)))
            return len(ids)
