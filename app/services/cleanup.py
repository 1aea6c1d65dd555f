"""Housekeeping that keeps the database from filling with games nobody will finish.

Every app process runs ``Cleanup`` every few minutes. Each change re-checks its row
under the row lock (through MatchService.end_by_server), and deletions are idempotent,
so several processes running it at once do the same work at most twice, never harm.

What it does (docs/ARCHITECTURE.md, "Threats and limits", says the same):
- a match nobody joined expires after ``waiting_lifetime`` (24 h): finished, winner none,
  reason "expired"; the lobby no longer lists it;
- a game against the computer nobody has moved in for ``ABANDONED_AFTER`` (24 h) is
  ended: "aborted" (no result) before both sides have moved, otherwise lost by the
  player whose turn it is, reason "abandoned" (a resignation the server makes); a ladder
  game is never aborted (the ladder's rule: a loss ends the run). A computer's turn left
  unplayed for 24 h (its search failing on the position, no worker running) is the
  site's failure, not the player's: that game ends "aborted", with no result;
- expired matches are deleted after ``EXPIRED_KEPT`` (7 days), other finished matches
  outside the ladder after ``FINISHED_KEPT`` (365 days); ladder runs and their games are
  kept, the leaderboard needs them;
- a shared rate limit's bucket untouched for ``BUCKETS_KEPT`` is deleted: it has long
  been full again (the slowest refills in 100 s), which is what no row means.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, and_, delete, or_, select

import games
from app.matches.model import computer_seat
from app.matches.service import MatchService
from app.models import Match, MoveRecord, RateBucket, Seat
from app.services.clocks import BOTH_MOVED
from app.services.errors import ServiceError

log = logging.getLogger(__name__)

ABANDONED_AFTER = timedelta(hours=24)
EXPIRED_KEPT = timedelta(days=7)
FINISHED_KEPT = timedelta(days=365)
BUCKETS_KEPT = timedelta(hours=1)
#: Seconds after start before the first sweep: the start-up's own work goes first.
FIRST_SWEEP_SECONDS = 5.0
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
    aborted: int = 0
    deleted: int = 0
    buckets: int = 0


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
        # A first sweep at start: a process restarted more often than the interval (a
        # deploy, a developer's `make run`) would otherwise never sweep at all.
        await asyncio.sleep(FIRST_SWEEP_SECONDS)
        while True:
            try:
                await asyncio.to_thread(self.run_once)
            except Exception:
                log.exception("cleanup failed; trying again next time")
            await asyncio.sleep(self.interval)

    def run_once(self) -> Swept:
        now = self.clock()
        swept = Swept()
        swept.expired = self._expire_waiting(now)
        swept.abandoned, swept.aborted = self._end_idle_computer_games(now)
        swept.deleted = self._delete_old(now)
        swept.buckets = self._forget_full_buckets()
        return swept

    def _forget_full_buckets(self) -> int:
        # The buckets count wall time (app/rate_limits.py, SharedBuckets), so this does too.
        cutoff = time.time() - BUCKETS_KEPT.total_seconds()
        with self.sessions.begin() as db:
            gone = db.execute(delete(RateBucket).where(RateBucket.updated < cutoff))
            return cast(CursorResult[Any], gone).rowcount

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

    def _end_idle_computer_games(self, now: datetime) -> tuple[int, int]:
        """(abandoned, aborted): the games against the computer idle for 24 h, ended.

        Whoever is to move: until this change only the player's turn was looked at, so a
        game whose computer turn was never played stayed "playing" for ever (and counted
        against the player's limit). Each match is judged on its own, so one that cannot be
        ended is logged and skipped instead of stopping the sweep for all the others.
        """
        cutoff = now - ABANDONED_AFTER
        with self.sessions() as db:
            computer = select(Seat.match_id).where(Seat.ai_level.is_not(None))
            ids = db.scalars(
                select(Match.id)
                .where(Match.status == "playing", Match.turn_started_at < cutoff, Match.id.in_(computer))
                .order_by(Match.turn_started_at)
                .limit(BATCH)
            ).all()
        abandoned = aborted = 0
        for match_id in ids:
            try:
                reason = self._end_idle(match_id, cutoff)
            except ServiceError:
                continue  # it moved or ended meanwhile
            except Exception:
                log.exception("could not end the idle computer game %s", match_id)
                continue
            abandoned += reason == "abandoned"
            aborted += reason == "aborted"
        return abandoned, aborted

    def _end_idle(self, match_id: str, cutoff: datetime) -> str | None:
        match = self.matches.get(match_id)  # judges a deadline that passed first
        if match.status != "playing":
            return None
        game = games.get(match.game)
        to_move = game.to_move(game.parse_position(match.position))
        ply = match.ply

        def still_idle(locked: Match) -> bool:
            started = _aware(locked.turn_started_at)
            return (
                locked.status == "playing" and locked.ply == ply and started is not None and started < cutoff
            )

        if computer_seat(match, to_move) is not None:
            winner, reason = None, "aborted"  # the computer never answered: nobody's loss
        elif ply < BOTH_MOVED and match.ladder_run_id is None:
            winner, reason = None, "aborted"
        else:
            winner = next((s.side for s in match.seats if s.side != to_move), None)
            reason = "abandoned"
        self.matches.end_by_server(match_id, winner, reason, still_idle)
        return reason

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
