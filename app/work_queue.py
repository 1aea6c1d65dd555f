"""The loop and the claim query shared by the workers whose queue is a database table.

The computer's turns (app/computer.py), the reviews (app/review.py) and the deadlines
(app/deadlines.py) each keep their work in a table: a column says a row is due. Every
app process runs asyncio tasks that take due rows with ``SELECT … FOR UPDATE SKIP
LOCKED`` (on PostgreSQL two processes never take the same row, and neither waits for the
other; SQLite has one writer and ignores the clause), do the work, and sleep until this
process wakes them (a change made here) or a poll interval passes (a change made by
another process, which this one cannot hear). That skeleton is written once here, so
that a fix to it (a lost wake-up, an exception that ends a task) reaches all three;
what a worker claims and how it does the work stay in its own module.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any, Generic, TypeVar

from sqlalchemy import ColumnElement, Select, or_, select
from sqlalchemy.orm import InstrumentedAttribute

Row = TypeVar("Row")
Job = TypeVar("Job")


class QueueWorker(ABC):
    """``concurrency`` asyncio tasks that each run :meth:`round` again and again.

    A round returns how long to sleep before the next one (``None``: at once, more work
    may be waiting); :meth:`wake`, from any thread, cuts the sleep short. The wake-up is
    cleared before each round, so one that comes while a round is claiming is not lost.
    The first round runs as soon as the worker starts: work left over from before a
    restart is picked up. A round that raises is logged (with ``failure``, in the
    subclass's module's log) and the task sleeps ``poll_seconds`` before the next: a
    database that is away for a moment never ends a worker.
    """

    #: what the log says when a round raises
    failure = "a worker round failed"

    def __init__(self, poll_seconds: float, concurrency: int = 1) -> None:
        #: Work queued by another process is noticed within this time.
        self.poll_seconds = poll_seconds
        self.concurrency = concurrency
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False

    async def start(self) -> None:
        self._stopping = False
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._tasks = [asyncio.create_task(self._run()) for _ in range(self.concurrency)]

    async def stop(self) -> None:
        # Besides the cancellation: a round may swallow it (a library that turns
        # CancelledError into its own error, or Python 3.11's wait_for when the wake-up
        # lands at the same moment, CPython gh-86296), and the task would then sleep on
        # as if never stopped while stop() waits for it.
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []

    def wake(self) -> None:
        """Safe from any thread: work may be waiting (a no-op before :meth:`start`)."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    @abstractmethod
    async def round(self) -> float | None:
        """Claim and do some work; the seconds to sleep at most before the next round."""

    async def _run(self) -> None:
        assert self._wake is not None
        log = logging.getLogger(type(self).__module__)
        while not self._stopping:
            self._wake.clear()
            try:
                pause = await self.round()
            except Exception:
                log.exception(self.failure)
                pause = self.poll_seconds
            if pause is None or self._stopping:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=pause)


class JobWorker(QueueWorker, Generic[Job]):
    """A worker that claims one job at a time (in a thread: the claim is a transaction)
    and then works on it; no job: it sleeps the poll interval."""

    async def round(self) -> float | None:
        job = await asyncio.to_thread(self.claim)
        if job is None:
            return self.poll_seconds
        await self.work(job)
        return None  # another job may be waiting

    @abstractmethod
    def claim(self) -> Job | None:
        """Take a due job in one transaction (its lease set), or ``None``."""

    @abstractmethod
    async def work(self, job: Job) -> None:
        """Do the job; whatever it raises is logged and the job's lease runs out."""


def claimable(entity: type[Row], *due: ColumnElement[bool], order_by: Any, limit: int) -> Select[tuple[Row]]:
    """The first ``limit`` rows of ``entity`` that are ``due``, in ``order_by`` order,
    locked until the transaction ends; rows another transaction holds are skipped."""
    return select(entity).where(*due).order_by(order_by).limit(limit).with_for_update(skip_locked=True)


def lease_free(
    claimed_until: InstrumentedAttribute[datetime | None], moment: datetime
) -> ColumnElement[bool]:
    """Nobody holds the row: never claimed, or its claimer's lease ran out (it crashed or
    hung), so another worker may take it over."""
    return or_(claimed_until.is_(None), claimed_until < moment)
