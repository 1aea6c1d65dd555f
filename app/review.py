"""The computer's review of a game: a queue in the database, worker processes that think.

Asking for a review stores a ``reviews`` row (status ``queued``) keyed by a hash
of the game, its start and its moves, so asking again, from the match or from
an imported copy, finds the same row and computes nothing twice. Every app
process runs one ``ReviewWorker``: it claims the oldest open review (``FOR
UPDATE SKIP LOCKED`` and a lease in ``claimed_until``, renewed while it works,
as the computer's turns are claimed), has a spawn-based process pool analyse
the positions not yet analysed (``games.ai.analysis.analyse``, CPU-bound, off
the event loop), and stores each result as it arrives: that is the progress
players see, and what a worker that takes over after a crash keeps.

Fair analysis (``app.review_queue``): quotas of open reviews per player and per
address, long lines sampled, several reviews worked on at once with their
positions handed to the pool round robin by address and player, and the
analysis board's best move in a pool of its own that no review can fill. The
review processes run at normal priority (a lowered one got no CPU at all on a
busy machine), and there are half as many as the computer's (at least one), so
reviews never take every core from the replies to players in a game.

Marks (``mark_plies``): a move that lowers its mover's winning chance (see
``games.ai.analysis``) by ``INACCURACY`` percentage points or more is an
inaccuracy, by ``BLUNDER`` or more a blunder; a move the search itself prefers
is never marked. The better move is the search's best move in the position
before.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import multiprocessing
import threading
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.fairness import NOBODY, RoundRobin, Waiting
from app.matches.model import now
from app.models import Review
from app.review_queue import (
    ACTIVE_REVIEWS,
    CANDIDATES,
    FairPool,
    check_review_quota,
    review_processes,
    review_worker_start,
    reviewed_positions,
)
from app.services.errors import Conflict
from app.services.records import Line
from app.texts import N_
from app.work_queue import JobWorker, claimable, lease_free
from games.base import GameError

log = logging.getLogger(__name__)

#: Percentage points of the mover's winning chance a move may lose before it is marked.
INACCURACY = 10.0
BLUNDER = 25.0
#: Seconds of search per position at most (the master level takes 2 s at most).
POSITION_SECONDS = 6.0
#: A review of any length should be done in about this long with the worker processes: a long
#: game's positions share it (the search then reports its last finished depth), never below
#: MIN_POSITION_SECONDS each. Bilsang's strongest level needs ~1 s a position, so a 100-ply
#: review took 62 s before the budget (docs/benchmarks.md).
REVIEW_SECONDS = 45.0
MIN_POSITION_SECONDS = 0.4


def position_seconds(positions: int, processes: int) -> float:
    """The search time of each position of a review of ``positions`` positions."""
    share = REVIEW_SECONDS * max(1, processes) / max(1, positions)
    return max(MIN_POSITION_SECONDS, min(POSITION_SECONDS, share))


MARK_LABELS = {"inaccuracy": N_("inaccuracy"), "blunder": N_("blunder")}


def review_key(game: str, initial: str, moves: tuple[str, ...]) -> str:
    return hashlib.sha256("\n".join((game, initial, *moves)).encode("utf-8")).hexdigest()


def analyse_position(
    game: str, position: str, history: tuple[str, ...], seconds: float = POSITION_SECONDS
) -> dict[str, Any]:
    """Runs in a worker process: the master level judges, within the position's time."""
    from games.ai.analysis import analyse
    from games.ai.levels import MASTER_SECONDS

    return analyse(game, position, history, time_limit=seconds, master_seconds=min(seconds, MASTER_SECONDS))


def mark_plies(
    game: str, line_moves: tuple[str, ...], results: list[dict[str, Any] | None]
) -> list[dict[str, Any]]:
    """Per position (0 = start): the review as the API shows it, with marks and better moves."""
    out: list[dict[str, Any]] = []
    for ply, result in enumerate(results):
        if result is None:
            continue
        entry = {
            "ply": ply,
            "score": None if result["score"] is None else round(result["score"] / 100, 2),
            "win_in": result["win_in"],
            "chance": result["chance"],
            "best": result["best"],
            "depth": result["depth"],
            "mark": None,
            "better": None,
        }
        before = results[ply - 1] if ply > 0 else None
        if before is not None:
            played = line_moves[ply - 1]
            # The chance is the first player's; the mover of ply k is whoever was to move before it.
            first_moved = before["first_to_move"]
            drop = before["chance"] - result["chance"] if first_moved else result["chance"] - before["chance"]
            if before["best"] is not None and before["best"] != played:
                if drop >= BLUNDER:
                    entry["mark"] = "blunder"
                elif drop >= INACCURACY:
                    entry["mark"] = "inaccuracy"
                if entry["mark"] is not None:
                    entry["better"] = before["best"]
        out.append(entry)
    return out


@dataclass(frozen=True)
class ReviewJob:
    key: str
    game: str
    positions: tuple[str, ...]
    missing: tuple[int, ...]
    #: who asked, from where: the round robin's keys
    who: Waiting = NOBODY


class ReviewService:
    """Ask for, and read, reviews. Never computes: the worker does."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        clock: Callable[[], datetime] = now,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.wake = wake

    def request(self, line: Line, who: Waiting | None = None) -> Review:
        """Queue a review of ``line`` unless one exists (a failed one is queued again);
        a new one counts against ``who``'s quotas (``app.review_queue``)."""
        if line.kind == "match" and not line.finished:
            raise Conflict(N_("a match is reviewed once it is over"))
        key = review_key(line.game, line.initial, line.moves)
        with self.sessions.begin() as db:
            review = db.get(Review, key, with_for_update=True)
            if review is None or review.status == "failed":
                check_review_quota(db, who)
            if review is None:
                count = len(line.moves) + 1
                total = len(reviewed_positions(count))
                review = Review(
                    key=key,
                    game=line.game,
                    initial_position=line.initial,
                    moves=json.dumps(list(line.moves)),
                    status="queued",
                    done=0,
                    total=total,
                    results=json.dumps([None] * count),
                    requested_at=self.clock(),
                )
                db.add(review)
            elif review.status == "failed":
                review.status = "queued"
                review.error = None
                review.claimed_until = None
            if who is not None and review.status == "queued" and review.requester is None:
                review.requester = who.owner or None
                review.client_key = who.address or None
        self.wake()
        found = self.find(line)
        assert found is not None
        return found

    def find(self, line: Line) -> Review | None:
        with self.sessions() as db:
            review = db.get(Review, review_key(line.game, line.initial, line.moves))
            if review is not None:
                db.expunge(review)
            return review


def review_public(review: Review | None, line: Line) -> dict[str, Any] | None:
    if review is None:
        return None
    results = json.loads(review.results)
    return {
        "status": review.status,
        "done": review.done,
        "total": review.total,
        "plies": mark_plies(review.game, line.moves, results),
        "error": review.error,
    }


class ReviewWorker(JobWorker[ReviewJob]):
    """``ACTIVE_REVIEWS`` tasks, each a review at a time; their positions share the pool
    round robin by requester (``FairPool``), and the analysis board has a pool of its own."""

    failure = "could not claim or work on a review"

    def __init__(
        self,
        sessions: sessionmaker[Session],
        processes: int = 2,
        lease: timedelta = timedelta(seconds=60),
        poll_seconds: float = 2.0,
        clock: Callable[[], datetime] = now,
        use_pool: bool = True,
    ) -> None:
        super().__init__(poll_seconds, concurrency=ACTIVE_REVIEWS)
        self.sessions = sessions
        self.processes = review_processes(processes)
        self.lease = lease
        self.clock = clock
        self.use_pool = use_pool
        self._pool: Executor | None = None
        self._best_pool: Executor | None = None
        #: The review positions' slots, and the analysis board's lane that reviews never use.
        self.lane = FairPool(self.processes, lambda: self._pool)
        self.best_lane = FairPool(1, self._best_executor)
        #: Which open review to take next: requester by requester, not oldest first.
        self.fair = RoundRobin()
        self._fair_lock = threading.Lock()
        self.computed = 0  # positions analysed by this worker (tests read it)

    async def start(self) -> None:
        if self.use_pool:
            self._pool = self._new_pool()
        await super().start()

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: forking a process that runs threads (the server) is not safe.
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(
            max_workers=self.processes, mp_context=context, initializer=review_worker_start
        )

    def _best_executor(self) -> Executor | None:
        # Started on first use: most processes never serve the analysis board.
        if self.use_pool and (self._best_pool is None or getattr(self._best_pool, "_broken", False)):
            context = multiprocessing.get_context("spawn")
            self._best_pool = ProcessPoolExecutor(
                max_workers=1, mp_context=context, initializer=review_worker_start
            )
        return self._best_pool

    async def stop(self) -> None:
        await super().stop()
        for pool in (self._pool, self._best_pool):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)

    async def best_move(
        self, game: str, position: str, history: tuple[str, ...] = (), who: Waiting | None = None
    ) -> dict[str, Any]:
        """The master level's view of one position (the analysis board), in its own
        lane: a review never delays it, other askers by at most the position in progress."""
        return await self.best_lane.run(who or NOBODY, analyse_position, game, position, history)

    async def work(self, job: ReviewJob) -> None:
        try:
            await self._analyse(job)
        except GameError as exc:  # the line itself cannot be analysed: retrying will not help
            log.exception("review %s failed", job.key)
            await asyncio.to_thread(self._fail, job.key, f"{type(exc).__name__}: {exc}")
        except Exception:
            # A database hiccup or a worker process that died: keep what is stored and
            # let the review be claimed again shortly, by us or by another process.
            log.exception("review %s interrupted; it will be retried", job.key)
            if isinstance(self._pool, ProcessPoolExecutor) and getattr(self._pool, "_broken", False):
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self._release, job.key)
            await asyncio.sleep(self.poll_seconds)
        finally:
            with self._fair_lock:
                self.fair.finished(job.who)

    def claim(self) -> ReviewJob | None:
        moment = self.clock()
        with self.sessions.begin() as db:
            stmt = claimable(
                Review,
                Review.status.in_(("queued", "running")),
                lease_free(Review.claimed_until, moment),
                order_by=Review.requested_at,
                limit=CANDIDATES,
            )
            candidates = list(db.scalars(stmt))
            waiting = [Waiting(r.key, r.requester or "", r.client_key or "") for r in candidates]
            with self._fair_lock:
                # One review per address at a time here: a flood cannot take every task.
                chosen = self.fair.choose([w for w in waiting if not self.fair.serving(w)])
                if chosen is None:
                    return None
                self.fair.started(chosen)
            review = next(r for r in candidates if r.key == chosen.match_id)
            review.status = "running"
            review.claimed_until = moment + self.lease
            results = json.loads(review.results)
            positions = positions_of(review.game, review.initial_position, tuple(json.loads(review.moves)))
            wanted = reviewed_positions(len(positions))
            missing = tuple(i for i in wanted if results[i] is None)
            return ReviewJob(review.key, review.game, positions, missing, chosen)

    async def _analyse(self, job: ReviewJob) -> None:
        seconds = position_seconds(len(job.missing), self.processes)

        async def one(index: int) -> tuple[int, dict[str, Any]]:
            position, history = job.positions[index], job.positions[:index]
            return index, await self.lane.run(job.who, analyse_position, job.game, position, history, seconds)

        # No more of this review's positions in the pool than it has slots: the round
        # robin then decides, position by position, whose work goes next.
        todo = list(job.missing)
        running: set[asyncio.Future[tuple[int, dict[str, Any]]]] = set()
        try:
            while todo or running:
                while todo and len(running) < self.lane.slots:
                    running.add(asyncio.ensure_future(one(todo.pop(0))))
                finished, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                batch = dict(f.result() for f in finished)
                self.computed += len(batch)
                await asyncio.to_thread(self._store, job, batch, not todo and not running)
        finally:
            for future in running:
                future.cancel()

    def _store(self, job: ReviewJob, batch: dict[int, dict[str, Any]], last: bool) -> None:
        with self.sessions.begin() as db:
            review = db.get(Review, job.key, with_for_update=True)
            if review is None:
                return
            results = json.loads(review.results)
            for index, result in batch.items():
                game_first = first_to_move(job.game, job.positions[index])
                results[index] = {**result, "first_to_move": game_first}
            review.results = json.dumps(results)
            review.done = sum(1 for r in results if r is not None)
            review.claimed_until = self.clock() + self.lease  # alive and working: keep the lease
            if last and review.done == review.total:
                review.status = "done"
                review.finished_at = self.clock()
                review.claimed_until = None

    def _release(self, key: str) -> None:
        with self.sessions.begin() as db:
            review = db.get(Review, key, with_for_update=True)
            if review is not None and review.status == "running":
                review.claimed_until = None

    def _fail(self, key: str, error: str) -> None:
        with self.sessions.begin() as db:
            review = db.get(Review, key, with_for_update=True)
            if review is not None:
                review.status = "failed"
                review.error = error[:500]
                review.claimed_until = None


def positions_of(game_name: str, initial: str, moves: tuple[str, ...]) -> tuple[str, ...]:
    import games

    game = games.get(game_name)
    state = game.parse_position(initial)
    out = [game.format_position(state)]
    for text in moves:
        state = game.play(state, text)
        out.append(game.format_position(state))
    return tuple(out)


def first_to_move(game_name: str, position: str) -> bool:
    import games

    game = games.get(game_name)
    return game.to_move(game.parse_position(position)) == game.sides[0]
