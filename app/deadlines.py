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
import contextlib
import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app.db import READ_ONLY
from app.models import Match
from app.services.matches import MatchService, aware, now

log = logging.getLogger(__name__)


class DeadlineWorker:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        matches: MatchService,
        clock: Callable[[], datetime] = now,
        poll_seconds: float = 0.5,
        batch: int = 20,
    ) -> None:
        self.sessions = sessions
        self.matches = matches
        self.clock = clock
        #: Deadlines set by another process are noticed within this time.
        self.poll_seconds = poll_seconds
        self.batch = batch
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    def wake(self) -> None:
        """Safe from any thread: a deadline may have moved closer."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            self._wake.clear()
            try:
                finished, upcoming = await asyncio.to_thread(self.sweep)
            except Exception:
                log.exception("could not sweep the deadlines")
                finished, upcoming = 0, None
            if finished:
                continue  # more may be due
            pause = self.poll_seconds
            if upcoming is not None:
                # A due match another process holds locked: look again very soon.
                pause = min(pause, max(0.02, (upcoming - self.clock()).total_seconds()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=pause)

    def sweep(self) -> tuple[int, datetime | None]:
        """Finish the due matches this process can lock now. Returns how many it finished
        and the earliest deadline it saw (``None``: no timed match is running)."""
        moment = self.clock()
        # The cheap look first, without the writer lock on SQLite; most sweeps end here.
        with self.matches.engine.connect().execution_options(**READ_ONLY) as conn:
            earliest = conn.execute(select(func.min(Match.deadline))).scalar()
        if earliest is None or aware(earliest) > moment:
            return 0, aware(earliest) if earliest is not None else None
        done: list[tuple[str, int]] = []
        with self.sessions.begin() as db:
            stmt = (
                select(Match)
                .where(Match.deadline.is_not(None), Match.deadline <= moment)
                .order_by(Match.deadline)
                .limit(self.batch)
                .with_for_update(skip_locked=True)
            )
            for match in db.scalars(stmt):
                if self.matches.expire_locked(db, match, moment):
                    done.append((match.id, match.version))
        for match_id, version in done:
            log.info("match %s finished by its deadline", match_id)
            self.matches.publish(match_id, version)
        return len(done), aware(earliest)
