"""The computer opponent's worker: the database is the queue, a process pool thinks.

A match whose side to move is a computer seat has ``ai_turn_at`` set. Every app
process runs one worker that claims such a match for a while (a lease in
``ai_claimed_until``, so a crashed process's work is picked up again), has a
process pool compute the reply — the search is CPU-bound and must not block the
event loop — and plays it through ``MatchService.play_computer`` like any move.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session, selectinload, sessionmaker

import games
from app.fairness import NOBODY, RoundRobin, Waiting
from app.matches.model import computer_seat, now
from app.matches.service import MatchService
from app.models import Match
from app.services import clocks
from app.services.errors import ServiceError
from app.work_queue import JobWorker, claimable, lease_free
from games.ai.levels import is_master, master_seconds

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
    #: whose game it is and from where (the human's token hash, the creator's address):
    #: the round robin's keys
    turn: Waiting = NOBODY
    #: the master level's think time (its clock's share); None for the other levels
    seconds: float | None = None


def seed_for(match_id: str, ply: int) -> int:
    """Deterministic per match and ply, so a replayed position gets the same reply."""
    return int.from_bytes(hashlib.sha256(f"{match_id}:{ply}".encode()).digest()[:4], "big")


#: A safety net, not a playing strength: searches at our levels finish far sooner.
THINK_SECONDS_LIMIT = 30.0


def think(
    game_name: str,
    position: str,
    level: int,
    seed: int,
    history: tuple[str, ...] = (),
    seconds: float | None = None,
) -> str:
    """The move (in notation) the computer of ``level`` plays; runs in a worker process."""
    from games.ai.levels import choose_move

    move, _info = choose_move(
        game_name, position, level, seed, history, time_limit=THINK_SECONDS_LIMIT, seconds=seconds
    )
    return move


def first_legal(
    game_name: str,
    position: str,
    level: int,
    seed: int,
    history: tuple[str, ...] = (),
    seconds: float | None = None,
) -> str:
    """A deliberately weak, predictable opponent for tests only (TABLERO_TEST_OPPONENT)."""
    game = games.get(game_name)
    return game.move_texts(game.parse_position(position))[0]


def end_with_parent() -> None:
    """Worker process initialiser: exit as soon as the server that started us is gone.

    After a ``kill -9`` of the server nobody shuts the pool down, and a worker waiting
    for its next job would wait for ever.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


#: How many of the oldest waiting computer turns the round robin chooses among.
CANDIDATES = 200


THINKERS: dict[str, Callable[[str, str, int, int, tuple[str, ...], float | None], str]] = {
    "search": think,
    "first-legal": first_legal,
}


class ComputerWorker(JobWorker[Job]):
    """One task per thinker process, each claiming a turn, thinking, playing, again."""

    failure = "could not claim or play a computer turn"

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
        super().__init__(poll_seconds, concurrency=processes)
        self.sessions = sessions
        self.matches = matches
        self.thinker = THINKERS[thinker]
        self.processes = processes
        self.lease = lease
        self.clock = clock
        self._pool: Executor | None = None
        #: Serves waiting turns address by address, then player by player (app.fairness).
        self.fair = RoundRobin()
        self._fair_lock = threading.Lock()
        #: Master searches (2 s each) being thought about: at most all processes but one,
        #: so a turn of any other level always finds a process within one short search.
        self.masters = 0

    # ----------------------------------------------------------- lifecycle

    async def start(self) -> None:
        if self.thinker is think:
            # spawn: forking a process that runs threads (the server) is not safe.
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                max_workers=self.processes, mp_context=context, initializer=end_with_parent
            )
        await super().start()

    async def stop(self) -> None:
        await super().stop()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    # --------------------------------------------------------------- work

    async def work(self, job: Job) -> None:
        try:
            await self._play(job)
        finally:
            with self._fair_lock:
                self.fair.finished(job.turn)
                self.masters -= job.seconds is not None

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
                    self._pool,
                    self.thinker,
                    job.game,
                    job.position,
                    job.level,
                    job.seed,
                    job.history,
                    job.seconds,
                )
            else:
                text = await asyncio.to_thread(
                    self.thinker, job.game, job.position, job.level, job.seed, job.history, job.seconds
                )
            await self.matches.play_computer(job.match_id, text, job.ply)
        except ServiceError as exc:
            # The match moved on meanwhile (a resignation, say): nothing to play.
            log.info("computer move for %s not played: %s", job.match_id, exc)
        except Exception:
            log.exception("computer move for %s failed", job.match_id)

    def claim(self) -> Job | None:
        moment = self.clock()
        with self.sessions.begin() as db:
            stmt = claimable(
                Match,
                Match.ai_turn_at.is_not(None),
                lease_free(Match.ai_claimed_until, moment),
                order_by=Match.ai_turn_at,
                limit=CANDIDATES,
            ).options(selectinload(Match.seats))
            candidates = list(db.scalars(stmt))
            with self._fair_lock:
                busy = self.masters >= max(1, self.processes - 1)
                waiting = [
                    Waiting(m.id, _owner(m), m.client_key or "")
                    for m in candidates
                    if not (busy and _master_seat(m))
                ]
                chosen = self.fair.choose(waiting)
                if chosen is None:
                    return None
                match = next(m for m in candidates if m.id == chosen.match_id)
                self.fair.started(chosen)
                master = _master_seat(match)
                self.masters += master
            game = games.get(match.game)
            seat = computer_seat(match, game.to_move(game.parse_position(match.position)))
            if seat is None or match.status != "playing":
                match.ai_turn_at = None
                with self._fair_lock:
                    self.fair.finished(chosen)
                    self.masters -= master
                return None
            match.ai_claimed_until = moment + self.lease
            assert seat.ai_level is not None
            return Job(
                match.id,
                match.game,
                match.position,
                match.ply,
                seat.ai_level,
                seed_for(match.id, match.ply),
                history=_earlier_positions(match),
                turn=chosen,
                seconds=_master_budget(match, seat.side) if master else None,
            )


def _earlier_positions(match: Match) -> tuple[str, ...]:
    """The match's positions before its current one, start first: what the search
    needs for a repetition rule (Morris, Bobail) or to avoid going round in
    circles (Bilsang)."""
    moves = match.moves
    if not moves:
        return ()
    return (match.initial_position, *(m.position_after for m in moves[:-1]))


def _master_seat(match: Match) -> bool:
    return any(s.ai_level is not None and is_master(match.game, s.ai_level) for s in match.seats)


def _master_budget(match: Match, side: str) -> float:
    """The master's think time: its share of what its real-time clock has left."""
    control = clocks.loads(match.time_control)
    if control is None or not control.realtime or not match.clocks:
        return master_seconds(None)
    left_ms = json.loads(match.clocks).get(side)
    return master_seconds(None if left_ms is None else left_ms / 1000, control.increment_seconds)


def _owner(match: Match) -> str:
    return next((s.token_hash or "" for s in match.seats if s.ai_level is None), "")
