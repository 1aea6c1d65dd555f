"""The deadline worker: finishes timed matches whose deadline has passed, unattended.

A timed match keeps its next deadline in ``matches.deadline`` (the side to move runs out,
its grace period ends, or a seek nobody joined expires): the database is the queue, as
for the computer's turns. Every app process runs one worker; each sweep locks the due
matches with ``FOR UPDATE SKIP LOCKED`` (on SQLite the whole database is one writer) and
finishes them in that same transaction, re-checking the deadline under the lock, so a
match is finished once, by whichever process got there first. No lease is needed: the
work is the transaction itself, and a process killed mid-sweep just rolls back.

Between sweeps the worker sleeps until the earliest deadline it knows of, at most
``poll_seconds``; a change in this process that sets an earlier one wakes it at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.db import reading
from app.matches.model import aware, now
from app.matches.service import MatchService
from app.models import Match
from app.work_queue import QueueWorker, claimable

log = logging.getLogger(__name__)


class DeadlineWorker(QueueWorker):
    failure = "could not sweep the deadlines"

    def __init__(
        self,
        sessions: sessionmaker[Session],
        matches: MatchService,
        clock: Callable[[], datetime] = now,
        poll_seconds: float = 0.5,
        batch: int = 20,
    ) -> None:
        # Deadlines set by another process are noticed within poll_seconds.
        super().__init__(poll_seconds)
        self.sessions = sessions
        self.matches = matches
        self.clock = clock
        self.batch = batch
        #: True while the site's heartbeat cannot be written (the database is away): a
        #: deadline seen then may have passed during an outage the heartbeat will give back.
        self.paused: Callable[[], bool] = lambda: False

    async def round(self) -> float | None:
        finished, upcoming = await asyncio.to_thread(self.sweep)
        if finished:
            return None  # more may be due
        if upcoming is None:
            return self.poll_seconds
        # A due match another process holds locked: look again very soon.
        return min(self.poll_seconds, max(0.02, (upcoming - self.clock()).total_seconds()))

    def sweep(self) -> tuple[int, datetime | None]:
        """Finish the due matches this process can lock now. Returns how many it finished
        and the earliest deadline it saw (``None``: no timed match is running)."""
        moment = self.clock()
        # The cheap look first, without the writer lock on SQLite; most sweeps end here.
        with reading(self.matches.engine) as conn:
            earliest = conn.execute(select(func.min(Match.deadline))).scalar()
        if earliest is None or aware(earliest) > moment or self.paused():
            return 0, aware(earliest) if earliest is not None else None
        done: list[tuple[str, int]] = []
        with self.sessions.begin() as db:
            due = (Match.deadline.is_not(None), Match.deadline <= moment)
            stmt = claimable(Match, *due, order_by=Match.deadline, limit=self.batch)
            for match in db.scalars(stmt):
                if self.matches.expire_locked(db, match, moment):
                    done.append((match.id, match.version))
        for match_id, version in done:
            log.info("match %s finished by its deadline", match_id)
            self.matches.publish(match_id, version)
        return len(done), aware(earliest)
