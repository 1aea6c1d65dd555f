"""Fair analysis: who may queue reviews, which positions of a long game are reviewed,
and the round robin that shares the analysis processes between those who ask.

- **Quotas** (counted in the database, so every process sees them): a player may have
  ``MAX_OPEN_REVIEWS`` reviews queued or running at once, an address
  ``MAX_OPEN_REVIEWS_PER_ADDRESS`` (several players may share one). Asking for a review
  that already exists (the same game, asked by someone else) is free.
- **A cap on positions**: a line of more than ``MAX_REVIEW_POSITIONS`` positions is
  reviewed by sampling: evenly spread moves, each with the position before and after it,
  so the sampled moves are still marked.
- **Round robin** (``FairPool``): the analysis processes are slots handed out address by
  address, then player by player (``app.fairness.RoundRobin``), one position at a time;
  a review never has more positions in the pool than there are slots, so one client's
  long review delays another's by at most a position per slot.
- **A lane for the interactive best move** (the analysis board, ``/best``): its own
  pool, which no review can fill, served round robin too.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from fastapi import Request
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.fairness import RoundRobin, Waiting
from app.models import Review
from app.services.errors import Conflict
from app.texts import N_

#: Reviews queued or running at once, per player and per address.
MAX_OPEN_REVIEWS = 2
MAX_OPEN_REVIEWS_PER_ADDRESS = 4
#: Positions a review analyses at most; a longer line is sampled.
MAX_REVIEW_POSITIONS = 300
OPEN = ("queued", "running")
#: Reviews one process works on at once (their positions share its pool round robin).
ACTIVE_REVIEWS = 4
#: Open reviews a claim chooses among (oldest first, then round robin by requester).
CANDIDATES = 50


def review_processes(computer_processes: int) -> int:
    """The review pool's size: half the computer's, at least one. Reviews run at normal
    priority, so this bound is what leaves the replies to players their cores."""
    return max(1, computer_processes // 2)


def review_worker_start() -> None:
    """Analysis process initialiser: ends with the server (a ``kill -9`` shuts no pool down).

    No lowered priority: at nice 10 a review got no CPU at all while a busy machine's
    other processes kept both cores (issue 27, item 10); the pool's size bounds it instead.
    """
    from app.computer import end_with_parent

    end_with_parent()


def asker(request: Request) -> Waiting:
    """Who asks (the player's token hash, if any) and from where (the hashed address)."""
    from app.rate_limits import request_client_hash
    from app.web import viewer_hash

    return Waiting("", viewer_hash(request) or "", request_client_hash(request.scope))


def check_review_quota(db: Session, who: Waiting | None) -> None:
    if who is None:
        return
    open_reviews = select(func.count()).select_from(Review).where(Review.status.in_(OPEN))
    if who.owner and (db.scalar(open_reviews.where(Review.requester == who.owner)) or 0) >= MAX_OPEN_REVIEWS:
        raise Conflict(N_("you already have two reviews waiting; ask again once one is done"))
    if who.address:
        from_here = db.scalar(open_reviews.where(Review.client_key == who.address)) or 0
        if from_here >= MAX_OPEN_REVIEWS_PER_ADDRESS:
            raise Conflict(N_("too many reviews from your network are waiting; ask again once one is done"))


def reviewed_positions(count: int) -> tuple[int, ...]:
    """The positions (0 = the start) a review of ``count`` positions analyses: all of
    them, or for a long line evenly spread plies with the position before each."""
    if count <= MAX_REVIEW_POSITIONS:
        return tuple(range(count))
    pairs = MAX_REVIEW_POSITIONS // 2
    chosen: set[int] = set()
    for step in range(pairs):
        ply = 1 + round(step * (count - 2) / (pairs - 1))
        chosen.update((ply - 1, ply))
    return tuple(sorted(chosen))


class FairPool:
    """``slots`` jobs at a time in an executor, handed out round robin by requester.

    Runs on the event loop (no lock needed). A job whose caller stopped waiting before
    its turn is dropped; one already running finishes and frees its slot. ``executor``
    is asked at each submission (a worker replaces a broken process pool); ``None`` runs
    the jobs in threads (tests without processes).
    """

    def __init__(self, slots: int, executor: Callable[[], Executor | None]) -> None:
        self.slots = max(1, slots)
        self.executor = executor
        self.fair = RoundRobin()
        self.busy = 0
        self._waiting: list[tuple[Waiting, Callable[..., Any], tuple[Any, ...], asyncio.Future[Any]]] = []
        self._count = 0

    @property
    def queued(self) -> int:
        return len(self._waiting)

    async def run(self, who: Waiting, fn: Callable[..., Any], *args: Any) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._count += 1
        self._waiting.append((Waiting(str(self._count), who.owner, who.address), fn, args, future))
        self._dispatch()
        return await future

    def _dispatch(self) -> None:
        loop = asyncio.get_running_loop()
        while self.busy < self.slots and self._waiting:
            chosen = self.fair.choose([item for item, *_ in self._waiting])
            index = next(i for i, (item, *_) in enumerate(self._waiting) if item is chosen)
            item, fn, args, future = self._waiting.pop(index)
            if future.done():  # its caller gave up waiting
                continue
            self.fair.started(item)
            self.busy += 1
            try:
                job = loop.run_in_executor(self.executor(), fn, *args)
            except Exception as exc:  # a broken pool refuses new work
                self._finish(item)
                future.set_exception(exc)
                continue
            job.add_done_callback(functools.partial(self._settle, item, future))

    def _finish(self, item: Waiting) -> None:
        self.busy -= 1
        self.fair.finished(item)

    def _settle(self, item: Waiting, future: asyncio.Future[Any], done: asyncio.Future[Any]) -> None:
        self._finish(item)
        if not future.done():
            if done.cancelled():
                future.cancel()
            elif done.exception() is not None:
                future.set_exception(done.exception())  # type: ignore[arg-type]
            else:
                future.set_result(done.result())
        self._dispatch()
