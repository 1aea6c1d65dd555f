"""What every part of the match service shares: its database, clock and publishing
port, reading a match whole, and the one sequence of a change to a match (``changing``):
lock the row, find the seat, require play and time left, change, touch, commit, publish.

Every change runs in one transaction that first locks the match row, so two requests
on one match never both apply; what it changed is published after the commit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, and_, func, or_, select
from sqlalchemy.orm import Session, joinedload, raiseload, sessionmaker

from app.db import Lanes, LoopReads, reading
from app.matches.clock import clock_of, settle_turn, stop_clock, time_control_of, time_is_up
from app.matches.events import Publisher
from app.matches.judge import require_playing
from app.matches.model import FinishHook, TimeUp, Viewed, aware, engine_for, now, other_side, seat_of
from app.matches.statements import READ_FOR_LEGAL, DriverStatements, LoopStatements, statements_for
from app.models import Match, MoveRecord, Seat
from app.pg_loop import PgLoopPool
from app.ratings.service import changes_of
from app.services import clocks as timing
from app.services.errors import Conflict, Forbidden, NotFound
from app.texts import N_


@dataclass
class Changing:
    """One change in progress, under the match row's lock (see ``Core.changing``)."""

    db: Session
    match: Match
    #: the caller's seat (``None`` when the change was not asked for by a seat)
    seat: Seat | None
    #: False: the change turned out to change nothing (no new version, nothing told)
    touched: bool = True
    #: whether the turn changed hands (a takeback; a join that starts play)
    turn_changed: bool = False
    #: the version the change made, known once it is committed
    version: int = 0


class Core:
    def __init__(
        self, sessions: sessionmaker[Session], port: Publisher, clock: Callable[[], datetime] = now
    ) -> None:
        self.sessions = sessions
        self.port = port
        self.clock = clock
        self.finish_hooks: list[FinishHook] = []
        engine = sessions.kw.get("bind")
        assert isinstance(engine, Engine), "the sessionmaker must be bound to an engine"
        #: The move path works on plain connections of the sessions' engine.
        self.engine = engine
        self.statements = statements_for(engine.dialect)
        #: The worker threads of the blocking calls on the hot paths (SQLite's moves among them).
        self.lanes = Lanes(engine)
        self.loop_reads = LoopReads.of(engine)
        self.pg_loop_pool = PgLoopPool.of(engine)
        self.loop_statements = (
            LoopStatements(self.statements) if isinstance(self.statements, DriverStatements) else None
        )
        self._legal_sql = str(READ_FOR_LEGAL.compile(dialect=engine.dialect))

    # ------------------------------------------------------------- telling

    def publish(self, match_id: str, version: int) -> None:
        self.port.changed(match_id, version)

    def wake_computer(self) -> None:
        self.port.wake_computer()

    def _after(self, match_id: str, version: int, computer_to_move: bool, publish: bool = True) -> None:
        """After a commit: tell every subscriber, and the computer if it is to move."""
        if publish:
            self.publish(match_id, version)
        if computer_to_move:
            self.wake_computer()

    # ------------------------------------------------------------- reading

    def get(self, match_id: str) -> Match:
        """The match with its seats and moves, read in one statement; a deadline found
        passed is judged first (the reader never sees a clock below zero still running).

        One statement, because under READ COMMITTED separate reads of the match and
        its moves could straddle a commit and show ply N with N + 1 moves.
        """
        match = self._read(match_id)
        if match.deadline is not None and aware(match.deadline) <= self.clock():
            # Read again even if another process (the deadline worker) got there first.
            self.expire(match_id)
            match = self._read(match_id)
        return match

    def _read(self, match_id: str) -> Match:
        # A read: deferred BEGIN on SQLite (never waits for a writer), autocommit on PostgreSQL.
        with reading(self.engine) as conn, self.sessions(bind=conn) as db:
            stmt = (
                select(Match)
                .where(Match.id == match_id)
                .options(joinedload(Match.seats), joinedload(Match.moves))
            )
            match = db.scalars(stmt).unique().first()
            if match is None:
                raise NotFound(N_("there is no match %(id)s"), id=repr(match_id))
            if match.rated and match.status == "finished":
                # Read here, in the session, for the state's "rating_changes" (app/matches/view.py).
                match.rating_changes = changes_of(db, match.id)
            return match

    def view(self, match_id: str, at: int | None = None) -> Viewed:
        """The match as a page shows it at ply ``at`` (None: the last): the row, its seats,
        and only the move rows of the shown ply, the one before it and the last (see
        ``Viewed``), read in one statement like ``get``; a deadline found passed is
        judged first, as there."""
        viewed = self._read_view(match_id, at)
        deadline = viewed.match.deadline
        if deadline is not None and aware(deadline) <= self.clock():
            self.expire(match_id)
            viewed = self._read_view(match_id, at)
        return viewed

    def _read_view(self, match_id: str, at: int | None) -> Viewed:
        near = MoveRecord.ply >= Match.ply - 1
        # A ply past any game's length (``?at=`` is a client's number) shows the last ply:
        # it must not reach the statement, where it overflows the column's integer type.
        if at is not None and 0 < at < 2**31:
            near = or_(near, MoveRecord.ply.in_((at - 1, at)))
        with reading(self.engine) as conn, self.sessions(bind=conn) as db:
            stmt = (
                select(Match, MoveRecord)
                .outerjoin(MoveRecord, and_(MoveRecord.match_id == Match.id, near))
                .where(Match.id == match_id)
                .options(joinedload(Match.seats), raiseload(Match.moves))
            )
            rows = db.execute(stmt).unique().all()
            if not rows:
                raise NotFound(N_("there is no match %(id)s"), id=repr(match_id))
            match = rows[0][0]
            moves = {move.ply: move for _, move in rows if move is not None}
            white_think_ms = 0
            if match.ladder_run_id is not None:  # the ladder's think clock counts the whole game
                white_think_ms = db.scalar(
                    select(func.coalesce(func.sum(MoveRecord.think_ms), 0)).where(
                        MoveRecord.match_id == match_id, MoveRecord.side == "w"
                    )
                )
            if match.rated and match.status == "finished":
                match.rating_changes = changes_of(db, match.id)
            return Viewed(match, moves, int(white_think_ms or 0))

    # ------------------------------------------------------------ changing

    @contextmanager
    def changing(
        self, match_id: str, token_hash: str | None = None, *, seated: bool = True, playing: bool = True
    ) -> Iterator[Changing]:
        """The one sequence of a change to a match, around the change itself (the body):
        lock the row; find the caller's seat (``seated``: ``Forbidden`` without one);
        require the match being played with time left (``playing``); after the body,
        touch the match (a new version) unless the body found nothing to change;
        commit; publish. Time found run out finishes the match and refuses the change."""
        with self._judging_time(match_id), self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash) if seated else None
            if playing:
                require_playing(match.status)
                if time_is_up(match, self.clock()):
                    raise TimeUp(match.id)
            change = Changing(db, match, seat)
            yield change
            if change.touched:
                self._touch(match, turn_changed=change.turn_changed)
            change.version = match.version
        if change.touched:
            self.publish(match_id, change.version)

    @contextmanager
    def _judging_time(self, match_id: str) -> Iterator[None]:
        """Around a change's transaction: if it found the deadline passed (``TimeUp``,
        rolled back), finish the match by that deadline and refuse the change."""
        try:
            yield
        except TimeUp:
            self.expire(match_id)
            raise Conflict(N_("the time ran out: the match is over")) from None

    def _lock(self, db: Session, match_id: str) -> Match:
        match = db.scalars(select(Match).where(Match.id == match_id).with_for_update()).first()
        if match is None:
            raise NotFound(N_("there is no match %(id)s"), id=repr(match_id))
        return match

    def _seat(self, match: Match, token_hash: str | None) -> Seat:
        seat = seat_of(match, token_hash)
        if seat is None:
            raise Forbidden(N_("you have no seat in this match"))
        return seat

    def _finish(self, db: Session, match: Match, winner: str | None, reason: str) -> None:
        stop_clock(match, self.clock())
        match.status = "finished"
        match.winner = winner
        match.reason = reason
        match.finished_at = self.clock()
        match.draw_offer = None
        match.takeback_offer = None
        for hook in self.finish_hooks:
            hook(db, match)

    def _touch(self, match: Match, turn_changed: bool = False) -> None:
        match.version += 1
        match.updated_at = self.clock()
        if turn_changed:
            match.turn_started_at = self.clock() if match.status == "playing" else None
        settle_turn(match, self.clock())

    # ------------------------------------------------------------ deadlines

    def expire(self, match_id: str) -> bool:
        """Finish the match if its deadline has passed; True if this call finished it."""
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            done = self.expire_locked(db, match, self.clock())
            version = match.version
        if done:
            self.publish(match_id, version)
        return done

    def expire_locked(self, db: Session, match: Match, moment: datetime) -> bool:
        """In a transaction holding the match row: end it by its passed deadline (timeout,
        aborted before both sides moved, or expired unjoined). Re-checks everything, so
        of several processes that saw the same deadline only the first finishes it."""
        if match.deadline is None or aware(match.deadline) > moment:
            return False
        if match.status == "waiting":
            self._finish(db, match, None, "expired")
            self._touch(match)
            return True
        control = time_control_of(match)
        clock = clock_of(match)
        if match.status != "playing" or control is None or clock is None or clock.to_move is None:
            match.deadline = None
            return False
        if not timing.expired(control, clock, moment):
            match.deadline = timing.deadline(control, clock)
            return False
        reason = timing.expiry_reason(clock)
        winner = None if reason == "aborted" else other_side(engine_for(match), clock.to_move)
        self._finish(db, match, winner, reason)
        self._touch(match)
        return True
