"""Downtime is nobody's time: the site's heartbeat, and the clocks moved past an outage.

Every app process writes the moment it is up into one row (``site_heartbeat``) every
``BEAT_SECONDS``; with several processes on one PostgreSQL they share the row, so it
holds the last moment *any* process was up. A process that starts (or whose beats
failed because the database was away) first catches up, in one transaction that holds
the row's lock: if the row is older than ``OUTAGE_AFTER`` the site was down since then,
and every running clock's turn start and deadline, every seek's expiry, every turn's
start (think times, the computer games' 24 h abandonment) and every player's "last
seen" move forward by that much. The side to move has, after the restart, the time it
had when the site went down (give or take the last beat interval, which is given
back), and an absence is counted only on time the site was up. The next process to
start finds the row fresh and moves nothing: the catch-up happens once per outage.

Past ``ABORT_STARTS_AFTER`` the players of a real-time game are surely gone: the games
still in their first moves (abortable, nothing to lose) are aborted instead, and the
log says how many and why. Games further on keep their moved clocks (their result
matters; an absent player can be claimed against a minute after the restart).

The catch-up runs before the process serves anything or starts its workers (the
lifespan awaits ``start``), so no read, move or deadline sweep judges a clock first.
A fake clock that jumps (the tests' ``create_app(clock=…)``) is not an outage: only a
start or a recovery from failed beats looks at the gap.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.matches.model import aware, now
from app.matches.service import MatchService
from app.models import Match, Seat, SiteHeartbeat
from app.services import clocks as timing
from app.services.errors import ServiceError
from app.work_queue import QueueWorker

log = logging.getLogger(__name__)

#: How often each process writes the heartbeat (at most this much of an outage is given back).
BEAT_SECONDS = 1.0
#: A silence longer than this is an outage (beats come every second; a busy machine
#: delays one by well under this). Shorter gaps are charged to the clocks as before.
OUTAGE_AFTER = timedelta(seconds=3)
#: Past this, real-time games still in their first moves are aborted, not moved on.
ABORT_STARTS_AFTER = timedelta(minutes=10)
ROW = 1


@dataclass
class Outage:
    """What one catch-up found and did."""

    down: timedelta
    #: (match id, version) of every running match whose clocks moved: published after commit
    moved: list[tuple[str, int]] = field(default_factory=list)
    seats: int = 0
    #: real-time matches in their first moves, aborted after a long outage
    aborted: list[str] = field(default_factory=list)


def shift_by(db: Session, last: datetime, moment: datetime) -> Outage:
    """In the heartbeat row's transaction: every unfinished match's clocks and deadline,
    and its seats' last sight, moved past the outage from ``last`` (the last beat) to
    ``moment`` (the restart). Done row by row in Python, because adding an interval to a
    timestamp is written differently in SQLite and PostgreSQL; an outage is rare and the
    rows are the unfinished matches only.

    A moment before the last beat moves by the whole outage. One inside the outage (a
    turn that began after the last beat, before the kill) moves to the restart, not
    past it: moved by the whole outage it would lie in the future, and the turn's think
    time and clock would count from a moment that has not come yet. A clock's deadline
    moves as far as its turn's start, so the side to move keeps exactly what it had."""
    down = moment - last

    def past(at: datetime) -> datetime:
        return at + down if at <= last else max(at, moment)

    outage = Outage(down)
    found = db.scalars(
        select(Match)
        .where(
            Match.status.in_(("playing", "waiting")),
            or_(
                Match.deadline.is_not(None),
                Match.clock_since.is_not(None),
                Match.turn_started_at.is_not(None),
            ),
        )
        .order_by(Match.id)
        .with_for_update()
    ).all()
    playing: list[str] = []
    for match in found:
        if match.status != "playing" or match.clock_since is None:
            if match.deadline is not None:
                match.deadline = aware(match.deadline) + down
        else:
            since = aware(match.clock_since)
            match.clock_since = past(since)
            if match.deadline is not None:
                match.deadline = aware(match.deadline) + (match.clock_since - since)
        if match.status != "playing":
            continue
        if match.turn_started_at is not None:
            match.turn_started_at = past(aware(match.turn_started_at))
        # Pages re-read the match (their clocks ran on during the outage).
        match.version += 1
        playing.append(match.id)
        outage.moved.append((match.id, match.version))
        control = timing.loads(match.time_control)
        if (
            down >= ABORT_STARTS_AFTER
            and control is not None
            and control.realtime
            and match.ply < timing.BOTH_MOVED
            and match.ladder_run_id is None
        ):
            outage.aborted.append(match.id)
    for start in range(0, len(playing), 500):
        chunk = playing[start : start + 500]
        seats = db.scalars(select(Seat).where(Seat.match_id.in_(chunk), Seat.last_seen_at.is_not(None))).all()
        for seat in seats:
            assert seat.last_seen_at is not None
            seat.last_seen_at = past(aware(seat.last_seen_at))
        outage.seats += len(seats)
    return outage


class Heartbeat(QueueWorker):
    """Writes the heartbeat every second, catches up after an outage, and flushes the
    presence this process noted (``app.presence``) on the same beat."""

    failure = "could not write the heartbeat"

    def __init__(
        self,
        sessions: sessionmaker[Session],
        matches: MatchService,
        clock: Callable[[], datetime] = now,
        flush: Callable[[datetime], None] | None = None,
    ) -> None:
        super().__init__(BEAT_SECONDS)
        self.sessions = sessions
        self.matches = matches
        self.clock = clock
        self.flush = flush
        #: True from a failed beat until a catch-up succeeds: the database was away.
        self.failing = True

    async def start(self) -> None:
        # Before anything judges a clock: the lifespan awaits this first. A database that
        # is away now does not stop the start: the beats retry, and until one catches up
        # the deadline worker finishes nothing.
        try:
            await asyncio.to_thread(self.beat)
        except Exception:
            log.exception("could not catch up with the heartbeat at start; retrying every beat")
        await super().start()

    async def stop(self) -> None:
        await super().stop()
        # A clean stop knows its last moment exactly (a kill -9 leaves the last beat).
        with contextlib.suppress(Exception):
            await asyncio.to_thread(self.beat)

    async def round(self) -> float | None:
        await asyncio.to_thread(self.beat)
        if self.flush is not None:
            await asyncio.to_thread(self.flush, self.clock())
        return BEAT_SECONDS

    def beat(self) -> Outage | None:
        try:
            if self.failing:
                outage = self.catch_up(self.clock())
                self.failing = False
                return outage
            moment = self.clock()
            with self.sessions.begin() as db:
                fresher = or_(SiteHeartbeat.beat_at.is_(None), SiteHeartbeat.beat_at < moment)
                stmt = update(SiteHeartbeat).where(SiteHeartbeat.id == ROW, fresher)
                db.execute(stmt.values(beat_at=moment))
            return None
        except Exception:
            self.failing = True
            raise

    def catch_up(self, moment: datetime) -> Outage | None:
        """If the site has been down since the last beat, move every clock on by that long."""
        try:
            outage = self._catch_up(moment)
        except IntegrityError:  # two processes created the missing row at once
            outage = self._catch_up(moment)
        if outage is None:
            return None
        log.warning(
            "the site was down for %.1f s: the clocks of %d matches and %d players' last sight moved on",
            outage.down.total_seconds(),
            len(outage.moved),
            outage.seats,
        )
        for match_id, version in outage.moved:
            self.matches.publish(match_id, version)
        for match_id in outage.aborted:
            with contextlib.suppress(ServiceError):
                self.matches.end_by_server(match_id, None, "aborted", _still_starting)
        if outage.aborted:
            log.warning(
                "the site was down for over %d minutes: %d real-time games in their first moves were aborted",
                ABORT_STARTS_AFTER // timedelta(minutes=1),
                len(outage.aborted),
            )
        return outage

    def _catch_up(self, moment: datetime) -> Outage | None:
        with self.sessions.begin() as db:
            row = db.get(SiteHeartbeat, ROW, with_for_update=True)
            if row is None:  # a schema made without the migration's row
                db.add(SiteHeartbeat(id=ROW, beat_at=moment))
                return None
            last = aware(row.beat_at) if row.beat_at is not None else None
            if last is None or last < moment:
                row.beat_at = moment
            if last is None or moment - last < OUTAGE_AFTER:
                return None
            return shift_by(db, last, moment)


def _still_starting(match: Match) -> bool:
    return match.status == "playing" and match.ply < timing.BOTH_MOVED
