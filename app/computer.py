"""The computer opponent's worker: the database is the queue, a process pool thinks.

A match whose side to move is a computer seat has ``ai_turn_at`` set. Every app
process runs one worker that claims such a match for a while (a lease in
``ai_claimed_until``, so a crashed process's work is picked up again), has a
process pool compute the reply — the search is CPU-bound and must not block the
event loop — and plays it through ``MatchService.computer_move`` like any move.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, sessionmaker

import games
from app.models import Match
from app.services.errors import ServiceError
from app.services.matches import MatchService, computer_seat, now

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Job:
    match_id: str
    game: str
    position: str
    ply: int
    level: int
    seed: int
    #: the match's earlier positions, start first (repetition rules need them)
    history: tuple[str, ...] = ()


def seed_for(match_id: str, ply: int) -> int:
    """Deterministic per match and ply, so a replayed position gets the same reply."""
    return int.from_bytes(hashlib.sha256(f"{match_id}:{ply}".encode()).digest()[:4], "big")


#: A safety net, not a playing strength: searches at our levels finish far sooner.
THINK_SECONDS_LIMIT = 30.0


def think(game_name: str, position: str, level: int, seed: int, history: tuple[str, ...] = ()) -> str:
    """The move (in notation) the computer of ``level`` plays; runs in a worker process."""
    from games.ai.levels import choose_move

    move, _info = choose_move(game_name, position, level, seed, history, time_limit=THINK_SECONDS_LIMIT)
    return move


def first_legal(game_name: str, position: str, level: int, seed: int, history: tuple[str, ...] = ()) -> str:
    """A deliberately weak, predictable opponent for tests only (TABLERO_TEST_OPPONENT)."""
    game = games.get(game_name)
    return game.move_texts(game.parse_position(position))[0]


THINKERS: dict[str, Callable[[str, str, int, int, tuple[str, ...]], str]] = {
    "search": think,
    "first-legal": first_legal,
}


class ComputerWorker:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        matches: MatchService,
        thinker: str = "search",
        processes: int = 2,
        lease: timedelta = timedelta(seconds=20),
        poll_seconds: float = 1.0,
        clock: Callable[[], datetime] = now,
    ) -> None:
        self.sessions = sessions
        self.matches = matches
        self.thinker = THINKERS[thinker]
        self.processes = processes
        self.lease = lease
        self.poll_seconds = poll_seconds
        self.clock = clock
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._pool: Executor | None = None
        self._tasks: list[asyncio.Task[None]] = []

    # ----------------------------------------------------------- lifecycle

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        if self.thinker is think:
            # spawn: forking a process that runs threads (the server) is not safe.
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(max_workers=self.processes, mp_context=context)
        self._tasks = [asyncio.create_task(self._run()) for _ in range(self.processes)]
        self._wake.set()  # pick up turns left over from before a restart

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def wake(self) -> None:
        """Safe from any thread: a computer turn may be waiting."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    # --------------------------------------------------------------- work

    async def _run(self) -> None:
        assert self._wake is not None
        while True:
            try:
                job = await asyncio.to_thread(self.claim)
            except Exception:
                log.exception("could not claim a computer turn")
                job = None
            if job is None:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), timeout=self.poll_seconds)
                continue
            await self._play(job)

    async def _play(self, job: Job) -> None:
        # The lease is short so that a turn held by a crashed process is retried soon;
        # while we are alive and thinking, we keep renewing it.
        renewal = asyncio.create_task(self._renew(job.match_id))
        try:
            await self._think_and_play(job)
        finally:
            renewal.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await renewal

    async def _renew(self, match_id: str) -> None:
        while True:
            await asyncio.sleep(self.lease.total_seconds() / 3)
            try:
                await asyncio.to_thread(self.extend_claim, match_id)
            except Exception:  # a missed renewal only risks a second thinker
                log.exception("could not renew the claim on %s", match_id)

    def extend_claim(self, match_id: str) -> None:
        with self.sessions.begin() as db:
            match = db.get(Match, match_id, with_for_update=True)
            if match is not None and match.ai_turn_at is not None:
                match.ai_claimed_until = self.clock() + self.lease

    async def _think_and_play(self, job: Job) -> None:
        loop = asyncio.get_running_loop()
        try:
            if self._pool is not None:
                text = await loop.run_in_executor(
                    self._pool, self.thinker, job.game, job.position, job.level, job.seed, job.history
                )
            else:
                text = await asyncio.to_thread(
                    self.thinker, job.game, job.position, job.level, job.seed, job.history
                )
            await asyncio.to_thread(self.matches.computer_move, job.match_id, text, job.ply)
        except ServiceError as exc:
            # The match moved on meanwhile (a resignation, say): nothing to play.
            log.info("computer move for %s not played: %s", job.match_id, exc)
        except Exception:
            log.exception("computer move for %s failed", job.match_id)

    def claim(self) -> Job | None:
        moment = self.clock()
        with self.sessions.begin() as db:
            stmt = (
                select(Match)
                .where(
                    Match.ai_turn_at.is_not(None),
                    or_(Match.ai_claimed_until.is_(None), Match.ai_claimed_until < moment),
                )
                .order_by(Match.ai_turn_at)
                .limit(1)
                .with_for_update(skip_locked=True)
            )
            match = db.scalars(stmt).first()
            if match is None:
                return None
            game = games.get(match.game)
            seat = computer_seat(match, game.to_move(game.parse_position(match.position)))
            if seat is None or match.status != "playing":
                match.ai_turn_at = None
                return None
            match.ai_claimed_until = moment + self.lease
            assert seat.ai_level is not None
            return Job(
                match.id, match.game, match.position, match.ply, seat.ai_level, seed_for(match.id, match.ply)
            )
