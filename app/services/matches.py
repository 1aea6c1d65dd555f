"""Matches between two seats: create, join, move, resign, draw, takeback, rematch.

Every change runs in one transaction that first locks the match row, so two
requests on one match never both apply; the caller publishes "match changed"
after the commit with the version this module returns.
"""

from __future__ import annotations

import json
import random
import secrets
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any, overload

import psycopg
from psycopg import AsyncConnection
from sqlalchemy import Connection, Engine, bindparam, or_, select, update
from sqlalchemy import exc as sa_exc
from sqlalchemy.orm import Session, joinedload, sessionmaker

import games
from app import fairness
from app.db import LoopReads, PgLoopPool, ReadElsewhere, reading
from app.models import Match, Seat
from app.services import clocks as timing
from app.services.errors import Conflict, Forbidden, Invalid, NotFound
from app.services.move_statements import (
    MATCHES,
    SEATS,
    DriverStatements,
    LoopStatements,
    Notice,
    Writes,
    statements_for,
)
from app.services.names import clean_name
from app.services.tokens import same
from app.texts import N_, UNPLAYED_REASONS
from games.base import BadMove, Game, GameError, IllegalMove, Outcome, UnknownGame

SIDE_CHOICES = ("first", "second", "random")
OFFER_ACTIONS = ("offer", "accept", "decline")
CLAIMS = ("win", "draw")

#: What an offer that cannot be made or answered is refused with, per kind of offer.
OFFER_REFUSALS = {
    "draw_offer": {
        "computer": N_("the computer does not agree to draws"),
        "already": N_("you have already asked for a draw"),
        "pending": N_("your opponent is asking for a draw: accept or decline it"),
        "none": N_("there is no offer of a draw from your opponent to answer"),
    },
    "takeback_offer": {
        "computer": N_("the computer does not agree to takebacks"),
        "already": N_("you have already asked for a takeback"),
        "pending": N_("your opponent is asking for a takeback: accept or decline it"),
        "none": N_("there is no offer of a takeback from your opponent to answer"),
    },
}

Publish = Callable[[str, int], None]


def now() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC); PostgreSQL aware ones."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


class TimeUp(Exception):
    """Raised inside a transaction that found the match's deadline passed: the caller
    rolls back, finishes the match by its deadline (``MatchService.expire``) and refuses."""


def time_control_of(match: Match) -> timing.TimeControl | None:
    return timing.loads(match.time_control)


def clock_of(match: Match, to_move: str | None = None) -> timing.Clock | None:
    """The stored clock of a timed match (``None`` untimed); ``to_move`` saves a parse."""
    if match.time_control is None or match.clocks is None:
        return None
    running = None
    if match.status == "playing" and match.clock_since is not None:
        if to_move is None:
            game = engine_for(match)
            to_move = game.to_move(game.parse_position(match.position))
        running = to_move
    since = aware(match.clock_since) if match.clock_since is not None else None
    return timing.Clock(json.loads(match.clocks), running, since, match.ply)


def store_clock(match: Match, control: timing.TimeControl, clock: timing.Clock) -> None:
    match.clocks = json.dumps(clock.left_ms, sort_keys=True)
    match.clock_since = clock.since
    match.deadline = timing.deadline(control, clock)


def clock_state(match: Match, to_move: str, moment: datetime, away: bool = True) -> dict[str, Any]:
    """The time-control fields of a match state, measured at ``moment``."""
    control = time_control_of(match)
    clock = clock_of(match, to_move)
    fields: dict[str, Any] = {
        "time_control": control.as_dict() if control else None,
        "clocks": None,
        "clock_running": None,
        "clocks_at": None,
        "deadline": None,
        "grace": False,
        "abortable": match.status == "playing" and match.ply < timing.BOTH_MOVED and not match.ladder_run_id,
        "away": away_side(match, to_move, moment) if away else None,
    }
    if control is not None and clock is not None:
        due = timing.deadline(control, clock)
        fields.update(
            clocks=timing.left_at(control, clock, moment),
            clock_running=timing.running(control, clock),
            clocks_at=moment.isoformat(),
            deadline=due.isoformat() if due else None,
            grace=timing.in_grace(control, clock),
        )
    return fields


def away_side(match: Match, to_move: str, moment: datetime) -> str | None:
    """The side to move of a real-time match, if it has had no open event stream for
    ``ABANDON_AFTER`` during its turn: its opponent may claim the win or a draw."""
    control = time_control_of(match)
    if match.status != "playing" or control is None or not control.realtime or match.clock_since is None:
        return None
    seat = next((s for s in match.seats if s.side == to_move), None)
    if seat is None or seat.ai_level is not None:
        return None
    last_seen = aware(seat.last_seen_at) if seat.last_seen_at is not None else None
    return to_move if timing.away_too_long(last_seen, aware(match.clock_since), moment) else None


def new_match_id() -> str:
    """72 random bits: short enough to share, too many to guess."""
    return secrets.token_urlsafe(9)


def engine_for(match: Match) -> Game:  # type: ignore[type-arg]
    return games.get(match.game)


def seat_of(match: Match, token_hash: str | None) -> Seat | None:
    """The seat this browser holds in ``match``, if any (constant-time compare)."""
    found = None
    for seat in match.seats:
        if same(seat.token_hash, token_hash):
            found = seat
    return found


def other_side(game: Game, side: str) -> str:  # type: ignore[type-arg]
    first, second = game.sides
    return second if side == first else first


class History(Sequence[Any]):
    """Every position of the match, the start first, each parsed when first read.

    A page shows one position and the one before it; parsing every position of the
    match for it made each render (the spectators' view, once per move) cost a parse
    per ply played so far.
    """

    def __init__(self, match: Match) -> None:
        self._game = engine_for(match)
        self._texts = [match.initial_position, *(m.position_after for m in match.moves)]
        self._parsed: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self._texts)

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        ply = range(len(self))[index]  # negative indices as a list's; IndexError past the end
        if ply not in self._parsed:
            self._parsed[ply] = self._game.parse_position(self._texts[ply])
        return self._parsed[ply]


def history(match: Match) -> History:
    """Every position of the match, the start first (parsed as they are read)."""
    return History(match)


def state_of(match: Match, moment: datetime | None = None) -> dict[str, Any]:
    """The match as the JSON API shows it; clocks as measured at ``moment``."""
    game = engine_for(match)
    position = game.parse_position(match.position)
    result = None
    if match.status == "finished":
        result = {"winner": match.winner, "reason": match.reason}
    to_move = game.to_move(position)
    return {
        "id": match.id,
        "game": match.game,
        "status": match.status,
        "position": match.position,
        "ply": match.ply,
        "to_move": game.to_move(position),
        "result": result,
        "moves": [m.notation for m in match.moves],
        "players": [
            {"side": s.side, "name": s.name, "computer": s.ai_level is not None} for s in match.seats
        ],
        "version": match.version,
        "draw_offer": match.draw_offer,
        "takeback_offer": match.takeback_offer,
        "rematch_id": match.rematch_id,
        **clock_state(match, to_move, moment or now()),
        "rematch_offer": match.rematch_offer,
    }


def your_move(match: Match, token_hash: str) -> bool:
    seat = seat_of(match, token_hash)
    if seat is None or match.status != "playing":
        return False
    game = engine_for(match)
    return game.to_move(game.parse_position(match.position)) == seat.side


def my_row(match: Match, token_hash: str, moment: datetime) -> dict[str, Any]:
    """One line of "My games" (and of ``GET /api/me/matches``)."""
    seat = seat_of(match, token_hash)
    assert seat is not None
    other = next((s for s in match.seats if s.side != seat.side), None)
    opponent = other.name if other is not None else None
    control = time_control_of(match)
    mine = your_move(match, token_hash)
    due = aware(match.deadline) if match.deadline is not None and match.status == "playing" else None
    updated = aware(match.finished_at or match.updated_at)
    return {
        "id": match.id,
        "game": match.game,
        "status": match.status,
        "side": seat.side,
        "opponent": opponent,
        "your_move": mine,
        "deadline": due.isoformat() if due else None,
        "time_control": control.as_dict() if control else None,
        "result": {"winner": match.winner, "reason": match.reason} if match.status == "finished" else None,
        "updated_at": updated.isoformat(),
        "left_ms": max(0, int((due - moment).total_seconds() * 1000)) if due else None,
        "_deadline": due,
        "_updated": updated,
        # The page names a computer seat in the reader's language (the API keeps its name).
        "_opponent_seat": other,
    }


# ------------------------------------------------------------ the move path
#
# A move is the hot path of the site: it runs as Core statements on one connection, with
# no ORM objects, and its answer is built from the locked row (nothing is read twice).

READ_FOR_LEGAL = select(MATCHES.c.game, MATCHES.c.status, MATCHES.c.position, MATCHES.c.ply).where(
    MATCHES.c.id == bindparam("match_id")
)
READ_VERSION = select(MATCHES.c.version, MATCHES.c.ply, MATCHES.c.status).where(
    MATCHES.c.id == bindparam("match_id")
)
#: One row per seat, or a single row of NULLs for a match without seats; none: no match.
READ_SEATS = (
    select(SEATS.c.id, SEATS.c.token_hash)
    .select_from(MATCHES.outerjoin(SEATS, SEATS.c.match_id == MATCHES.c.id))
    .where(MATCHES.c.id == bindparam("match_id"))
)


@dataclass(frozen=True, slots=True)
class SeatRow:
    id: int
    side: str
    name: str
    token_hash: str | None
    ai_level: int | None


@dataclass(frozen=True, slots=True)
class Locked:
    """What a move's transaction read, under the lock: the match row and its seats."""

    #: the match's columns as named fields (``move_statements``)
    match: Any
    #: ordered by side, as ``Match.seats`` is
    seats: tuple[SeatRow, ...]

    def seat_of(self, token_hash: str | None) -> SeatRow | None:
        found = None
        for seat in self.seats:  # every seat compared, in constant time
            if same(seat.token_hash, token_hash):
                found = seat
        return found


@dataclass(frozen=True, slots=True)
class Played:
    """An accepted move: the match as the JSON API shows it right after the move."""

    state: dict[str, Any]
    version: int
    computer_to_move: bool
    #: Whether the match has a time control (only then can a move change a deadline).
    timed: bool
    #: The writes still to send in the move's transaction, with its commit (``None``: sent).
    pending: Writes | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class Checked:
    """A move that passed its checks on the locked row, before the repetition count."""

    locked: Locked
    seat: SeatRow
    game: Game  # type: ignore[type-arg]
    notation: str
    #: the position the move makes, and its text
    after: Any
    after_text: str
    moment: datetime
    code: str | None
    #: the result the new position has on its own (threefold repetition not counted yet)
    outcome: Outcome | None

    @property
    def code_to_count(self) -> str | None:
        """The new position's code if its repetitions must be counted to judge it."""
        return self.code if self.outcome is None else None


def with_move(row: Any, moment: datetime, mover: str, next_side: str | None) -> dict[str, Any]:
    """The columns of the match row that every accepted move changes, besides the position,
    the ply, the version, the turn and the result, which ``MatchService._play`` sets.

    ``row`` is the match row as locked (every column), ``moment`` the time of the move,
    ``next_side`` the side to move after it (``None`` if the move ended the game).
    This is the one place for what else must change with a move (the clocks): the values
    returned here are written in the same UPDATE and show in the answer.
    """
    return {"draw_offer": None, "takeback_offer": None, **clock_after_move(row, moment, mover, next_side)}


def clock_after_move(row: Any, moment: datetime, mover: str, next_side: str | None) -> dict[str, Any]:
    """The clock columns after ``mover``'s move at ``moment``: the time used subtracted,
    the increment added, the next turn started. ``TimeUp`` if the move came too late
    (the caller rolls back and finishes the match by its deadline). Untimed: nothing."""
    control = timing.loads(row.time_control)
    if control is None or row.clocks is None or row.clock_since is None:
        return {}
    clock = timing.Clock(json.loads(row.clocks), mover, aware(row.clock_since), row.ply)
    try:
        after = timing.after_move(control, clock, next_side, moment)
    except timing.Flagged:
        raise TimeUp(row.id) from None
    return {
        "clocks": json.dumps(after.left_ms, sort_keys=True),
        "clock_since": after.since,
        "deadline": timing.deadline(control, after),
    }


def think_ms(turn_started_at: datetime | None, moment: datetime) -> int | None:
    """Milliseconds from the turn's start to ``moment`` (None: no turn was running)."""
    if turn_started_at is None:
        return None
    if turn_started_at.tzinfo is None:  # SQLite hands back naive datetimes
        turn_started_at = turn_started_at.replace(tzinfo=UTC)
    return max(0, int((moment - turn_started_at).total_seconds() * 1000))


def answer(
    values: dict[str, Any], to_move: str, seats: tuple[SeatRow, ...], moment: datetime
) -> dict[str, Any]:
    """``state_of`` for a match known as column values (the move path has no ORM object);
    its clocks as at ``moment``, the move's, when the next turn has only just begun."""
    result = None
    if values["status"] == "finished":
        result = {"winner": values["winner"], "reason": values["reason"]}
    notations = values["notations"]
    return {
        "id": values["id"],
        "game": values["game"],
        "status": values["status"],
        "position": values["position"],
        "ply": values["ply"],
        "to_move": to_move,
        "result": result,
        "moves": notations.split("\n") if notations else [],
        "players": [{"side": s.side, "name": s.name, "computer": s.ai_level is not None} for s in seats],
        "version": values["version"],
        "draw_offer": values["draw_offer"],
        "takeback_offer": values["takeback_offer"],
        "rematch_id": values["rematch_id"],
        "rematch_offer": values["rematch_offer"],
        # Nobody can be away from a turn that began at this moment: no seat times needed.
        **clock_state(SimpleNamespace(**values, seats=seats), to_move, moment, away=False),  # type: ignore[arg-type]
    }


def legal_in(match_id: str, row: Sequence[Any] | None) -> dict[str, Any]:
    """The answer of ``GET /legal`` from the match's row of ``READ_FOR_LEGAL`` (None: no match)."""
    if row is None:
        raise NotFound(f"there is no match {match_id!r}")
    game_name, status, position, ply = row
    if status != "playing":
        return {"ply": ply, "moves": []}
    game = games.get(game_name)
    return {"ply": ply, "moves": game.move_texts(game.parse_position(position))}


def require_playing(status: str) -> None:
    if status == "finished":
        raise Conflict(N_("the match is over"))
    if status == "waiting":
        raise Conflict(N_("the match is waiting for an opponent"))


@dataclass
class Change:
    """What a service did: the match after it, and the seat it concerns (if any)."""

    match: Match
    seat: Seat | None = None


#: Called inside the transaction that finishes a match (the ladder moves on here).
FinishHook = Callable[[Session, Match], None]


def build_match(
    game: Game,  # type: ignore[type-arg]
    options: dict[str, Any],
    seats: list[Seat],
    status: str,
    public: bool = False,
    started: datetime | None = None,
    time_control: timing.TimeControl | None = None,
    initial: str | None = None,
) -> Match:
    """A new match at the game's start position, or at ``initial`` (not yet added to a session)."""
    start = initial if initial is not None else game.format_position(game.initial(**options))
    match = Match(
        id=new_match_id(),
        game=game.name,
        options=json.dumps(options, sort_keys=True),
        status=status,
        public=public,
        initial_position=start,
        position=start,
        ply=0,
        version=1,
        turn_started_at=started if status == "playing" else None,
        time_control=timing.dumps(time_control),
    )
    if started is not None:  # the service's clock, so expiry follows it (cleanup.py)
        match.created_at = match.updated_at = started
    match.seats.extend(seats)
    settle_turn(match, started)
    settle_clock(match, started or now())
    return match


def settle_clock(match: Match, moment: datetime) -> None:
    """A new timed match: nobody's clock runs while it waits (it expires instead); once
    it is being played, the first side's turn starts at ``moment``."""
    control = time_control_of(match)
    if control is None:
        return
    game = engine_for(match)
    if match.status == "playing":
        store_clock(
            match,
            control,
            timing.start(control, game.sides, game.to_move(game.parse_position(match.position)), moment),
        )
    else:
        match.clocks = json.dumps({side: control.allowance_ms for side in game.sides}, sort_keys=True)
        expiry = timing.expiry_after(control)
        match.deadline = moment + expiry if expiry else None


def computer_seat(match: Match, side: str) -> Seat | None:
    return next((s for s in match.seats if s.side == side and s.ai_level is not None), None)


def settle_turn(match: Match, at: datetime | None) -> None:
    """Queue the computer's turn when it is to move in a match being played."""
    if match.status != "playing":
        match.ai_turn_at = None
        match.ai_claimed_until = None
        return
    side = engine_for(match).to_move(engine_for(match).parse_position(match.position))
    if computer_seat(match, side) is not None:
        if match.ai_turn_at is None:
            match.ai_turn_at = at or now()
    else:
        match.ai_turn_at = None
        match.ai_claimed_until = None


def locked_from(match_id: str, rows: Sequence[Any]) -> Locked:
    """``Locked`` from the rows of ``LOCK_FOR_MOVE`` (none: no such match)."""
    if not rows:
        raise NotFound(f"there is no match {match_id!r}")
    seats = tuple(
        SeatRow(r.seat_id, r.seat_side, r.seat_name, r.seat_token_hash, r.seat_ai_level)
        for r in rows
        if r.seat_id is not None
    )
    return Locked(rows[0], tuple(sorted(seats, key=lambda seat: seat.side)))


def players_seat(locked: Locked, token_hash: str | None) -> SeatRow:
    """The seat of the browser holding ``token_hash``; ``Forbidden`` if it has none."""
    seat = locked.seat_of(token_hash)
    if seat is None:
        raise Forbidden(N_("you have no seat in this match"))
    return seat


def _unobserved(_match_id: str, _version: int) -> Callable[[Played | None], None]:
    return lambda _played: None


class MatchService:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        publish: Publish,
        clock: Callable[[], datetime] = now,
        wake_computer: Callable[[], None] = lambda: None,
    ) -> None:
        self.sessions = sessions
        self.publish = publish
        self.clock = clock
        #: Pokes this process's computer worker after a change that gives it the move.
        self.wake_computer = wake_computer
        #: Publishes a move after its commit, told whether its match is timed: the app
        #: wakes the deadline worker only for a timed one (an untimed move cannot bring a
        #: deadline closer), and tells only this process when ``notice_of``
        #: has already told the others.
        self.publish_move: Callable[[str, int, bool], None] = lambda match_id, version, _timed: publish(
            match_id, version
        )
        #: On PostgreSQL: the (channel, payload) of the NOTIFY that tells the other
        #: processes of a move from inside the move's own transaction (a NOTIFY is
        #: delivered at commit and never after a rollback), so a move needs no second
        #: connection and transaction of its own to announce it.
        self.notice_of: Callable[[str, int], Notice] | None = None
        #: Told in a move's transaction, just before its commit, of the version it makes;
        #: what it returns is called after the transaction with the move (``None``: rolled
        #: back). The event streams learn the new state this way without reading it back,
        #: even when the commit's own NOTIFY wakes them first.
        self.on_playing: Callable[[str, int], Callable[[Played | None], None]] = _unobserved
        self.finish_hooks: list[FinishHook] = []
        engine = sessions.kw.get("bind")
        assert isinstance(engine, Engine), "the sessionmaker must be bound to an engine"
        #: The move path works on plain connections of the sessions' engine.
        self.engine = engine
        self.statements = statements_for(engine.dialect)
        self.loop_reads = LoopReads.of(engine)
        self.pg_loop_pool = PgLoopPool.of(engine)
        self.loop_statements = (
            LoopStatements(self.statements) if isinstance(self.statements, DriverStatements) else None
        )
        self._legal_sql = str(READ_FOR_LEGAL.compile(dialect=engine.dialect))

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
        with self.sessions() as db:
            stmt = (
                select(Match)
                .where(Match.id == match_id)
                .options(joinedload(Match.seats), joinedload(Match.moves))
            )
            match = db.scalars(stmt).unique().first()
            if match is None:
                raise NotFound(N_("there is no match %(id)s"), id=repr(match_id))
            return match

    def version_of(self, match_id: str) -> tuple[int, int, str]:
        """(version, ply, status): all an event stream needs, in one cheap read."""
        with reading(self.engine) as conn:
            row = conn.execute(READ_VERSION, {"match_id": match_id}).first()
        if row is None:
            raise NotFound(f"there is no match {match_id!r}")
        return row.version, row.ply, row.status

    def legal(self, match_id: str) -> dict[str, Any]:
        """``{"ply", "moves"}``: the legal moves in notation (none unless playing), one row read."""
        with reading(self.engine) as conn:
            row = conn.execute(READ_FOR_LEGAL, {"match_id": match_id}).first()
        return legal_in(match_id, row)

    def legal_here(self, match_id: str) -> dict[str, Any] | None:
        """``legal`` read on this thread, the event loop's, on SQLite (``LoopReads``);
        None where that cannot be done (PostgreSQL, or SQLite busy): then call ``legal``
        on a worker thread."""
        if self.loop_reads is None:
            return None
        try:
            row = self.loop_reads.first(self._legal_sql, (match_id,))
        except sqlite3.Error:
            return None
        return legal_in(match_id, row)

    async def legal_on_loop(self, match_id: str) -> dict[str, Any] | None:
        """``legal`` read without leaving the event loop where the database allows it:
        SQLite's ``legal_here``, or awaited on PostgreSQL (``PgLoopPool``); None where that
        cannot be done now: then call ``legal`` on a worker thread."""
        if self.pg_loop_pool is None:
            return self.legal_here(match_id)
        try:
            row = await self.pg_loop_pool.first(self._legal_sql, {"match_id": match_id})
        except ReadElsewhere:
            return None
        return legal_in(match_id, row)

    def is_seated(self, match_id: str, token_hash: str | None) -> bool:
        """Whether the browser holding ``token_hash`` has a seat in the match (404 if no match)."""
        return self.seat_id_of(match_id, token_hash) is not None

    def seat_id_of(self, match_id: str, token_hash: str | None) -> int | None:
        """The id of the seat the browser holding ``token_hash`` has, if any (404 if no match)."""
        with reading(self.engine) as conn:
            rows = conn.execute(READ_SEATS, {"match_id": match_id}).all()
        if not rows:
            raise NotFound(f"there is no match {match_id!r}")
        found = None
        for row in rows:  # every seat compared, in constant time
            if row.token_hash is not None and same(row.token_hash, token_hash):
                found = row.id
        return found

    def lobby(self, limit: int = 20) -> dict[str, list[Match]]:
        """The public matches: open to join, being played, recently finished.

        Only matches their creator chose to list; a match that ended without being
        played (nobody joined in time) is left out.
        """
        with self.sessions() as db:
            moment = self.clock()

            def query(status: str) -> list[Match]:
                stmt = select(Match).where(Match.status == status, Match.public.is_(True))
                if status == "waiting":
                    # A seek past its expiry leaves the lobby even before the worker ends it.
                    stmt = stmt.where(or_(Match.deadline.is_(None), Match.deadline > moment))
                if status == "finished":
                    stmt = stmt.where(or_(Match.reason.is_(None), Match.reason.not_in(UNPLAYED_REASONS)))
                stmt = stmt.order_by(Match.updated_at.desc()).limit(limit)
                found = list(db.scalars(stmt))
                for match in found:
                    _ = match.seats
                return found

            return {"open": query("waiting"), "playing": query("playing"), "finished": query("finished")}

    def mine(self, token_hash: str | None, finished_limit: int = 50) -> list[dict[str, Any]]:
        """The matches this browser holds a seat in: its move first (soonest deadline
        first), then the others being played or waiting, then the finished (newest first)."""
        if not token_hash:
            return []
        moment = self.clock()
        with self.sessions() as db:
            base = (
                select(Match)
                .join(Seat, Seat.match_id == Match.id)
                .where(Seat.token_hash == token_hash)
                .options(joinedload(Match.seats))
            )
            active = list(db.scalars(base.where(Match.status != "finished")).unique())
            finished = list(
                db.scalars(
                    base.where(Match.status == "finished")
                    .order_by(Match.finished_at.desc())
                    .limit(finished_limit)
                ).unique()
            )
        rows = [my_row(m, token_hash, moment) for m in active + finished]
        far = datetime.max.replace(tzinfo=UTC)

        def order(row: dict[str, Any]) -> tuple[Any, ...]:
            if row["your_move"]:
                return (0, row["_deadline"] or far, "")
            if row["status"] != "finished":
                return (1, -row["_updated"].timestamp(), "")
            return (2, -row["_updated"].timestamp(), "")

        return sorted(rows, key=order)

    def my_move_count(self, token_hash: str | None) -> int:
        """How many of this browser's matches wait for its move (the header's count)."""
        if not token_hash:
            return 0
        with self.sessions() as db:
            stmt = (
                select(Match)
                .join(Seat, Seat.match_id == Match.id)
                .where(Seat.token_hash == token_hash, Match.status == "playing")
                .options(joinedload(Match.seats))
            )
            found = list(db.scalars(stmt).unique())
        return sum(1 for m in found if your_move(m, token_hash))

    # ------------------------------------------------------------ creating

    def create(
        self,
        game_name: str,
        name: str,
        side: str,
        token_hash: str,
        public: bool = False,
        options: dict[str, Any] | None = None,
        computer_level: int | None = None,
        time_control: dict[str, Any] | None = None,
        position: str | None = None,
        client_key: str | None = None,
    ) -> Change:
        """A new match with the creator seated; against the computer it starts at once.

        ``options`` go to the engine's ``initial``; ``None`` means the game's
        ``new_match_options`` (Bilsang: ``line,quiet=300``), which are stored with
        the match like chosen ones, so a rematch keeps them. ``time_control`` is the
        JSON form of app/services/clocks.py (``None``: untimed).
        ``position`` starts it from that position string instead of the game's start.
        ``client_key`` (a hash of the creator's address) counts open seeks per client.
        """
        try:
            game = games.get(game_name)
        except UnknownGame as exc:
            raise Invalid("%(detail)s", detail=exc) from None  # told by the engine error's key
        try:
            control = timing.parse(time_control)
        except timing.TimeControlError as exc:
            raise Invalid(str(exc)) from None
        initial = None if position is None else start_position(game, position)
        if side not in SIDE_CHOICES:
            raise Invalid(N_("side must be one of %(choices)s"), choices=", ".join(SIDE_CHOICES))
        name = clean_name(name)
        if side == "random":
            side = random.choice(("first", "second"))
        letter = game.sides[0] if side == "first" else game.sides[1]
        seats = [Seat(side=letter, name=name, token_hash=token_hash)]
        if computer_level is not None:
            seats.append(
                Seat(
                    side=other_side(game, letter), name=computer_name(computer_level), ai_level=computer_level
                )
            )
        if options is None:
            options = dict(game.new_match_options)
        try:
            match = build_match(
                game,
                options,
                seats,
                status="waiting" if computer_level is None else "playing",
                public=public and computer_level is None,
                started=self.clock(),
                time_control=control,
                initial=initial,
            )
        except (TypeError, ValueError) as exc:
            raise Invalid(N_("bad options for %(game)s: %(detail)s"), game=game_name, detail=exc) from None
        match.client_key = client_key
        with self.sessions.begin() as db:
            if match.public:
                fairness.check_open_seeks(db, token_hash, client_key)
            if computer_level is not None:
                fairness.check_computer_games(db, token_hash, client_key)
            db.add(match)
        self._after(match.id, match.version, match.ai_turn_at is not None, publish=False)
        created = self.get(match.id)
        return Change(created, seat_of(created, token_hash))

    def join(self, match_id: str, name: str, token_hash: str) -> Change:
        name = clean_name(name)
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            mine = seat_of(match, token_hash)
            if mine is not None:
                seat_id = mine.id
            elif len(match.seats) >= 2:
                raise Conflict(N_("both seats of this match are taken"))
            else:
                side = other_side(engine_for(match), match.seats[0].side)
                seat = Seat(side=side, name=name, token_hash=token_hash)
                match.seats.append(seat)
                match.status = "playing"
                settle_clock(match, self.clock())
                self._touch(match, turn_changed=True)
                db.flush()
                seat_id = seat.id
                version = match.version
        if mine is None:
            self._after(match_id, version, False)
        joined = self.get(match_id)
        return Change(joined, next(s for s in joined.seats if s.id == seat_id))

    # -------------------------------------------------------------- playing

    def move(self, match_id: str, token_hash: str | None, text: str, ply: int) -> Played:
        """Play ``text`` for the browser holding ``token_hash``, if the match is at ``ply``."""

        def play(conn: Connection, locked: Locked) -> Played:
            return self._play(conn, locked, players_seat(locked, token_hash), text, ply)

        return self._commit_move(match_id, play)

    async def move_on_loop(self, match_id: str, token_hash: str | None, text: str, ply: int) -> Played | None:
        """``move`` awaited on the event loop, on PostgreSQL (``PgLoopPool`` and
        ``LoopStatements``): no hand-over to a worker thread and no SQLAlchemy, which
        cost more CPU than the move's own work (docs/benchmarks.md, issue 16).

        None, having changed nothing, where ``move`` must play it on a worker thread
        instead: on SQLite; with no connection free now; after a database error before
        the commit was sent; and for the moves that path finishes, one that ends a game
        with finish hooks to run (the ladder) and one that finds the mover's time run
        out. Refusals are raised as ``move`` raises them.
        """
        pool, statements = self.pg_loop_pool, self.loop_statements
        if pool is None or statements is None:
            return None
        try:
            async with pool.connection() as conn:
                return await self._move_on(conn, statements, match_id, token_hash, text, ply)
        except ReadElsewhere:
            return None

    async def _move_on(
        self,
        conn: AsyncConnection[Any],
        statements: LoopStatements,
        match_id: str,
        token_hash: str | None,
        text: str,
        ply: int,
    ) -> Played | None:
        try:
            locked = locked_from(match_id, await statements.lock(conn, match_id))
            checked = self._check(locked, players_seat(locked, token_hash), text, ply)
            code = checked.code_to_count
            earlier = None if code is None else await statements.count_repeats(conn, match_id, code)
            played = self._accept(checked, earlier)
        except (TimeUp, psycopg.Error):
            # The worker thread's path plays it again and answers as it always does
            # (the match finished by its deadline; a 503 while the database is away).
            await statements.rollback(conn)
            return None
        except BaseException:
            await statements.rollback(conn)
            raise
        pending = played.pending
        assert pending is not None, "_accept leaves the writes to send"
        if self._runs_hooks(played):
            await statements.rollback(conn)
            return None
        settle = self.on_playing(match_id, played.version)
        try:
            await statements.write_and_commit(conn, pending)
        except BaseException as exc:
            settle(None)
            await statements.rollback(conn)
            if isinstance(exc, psycopg.Error):
                # As the worker thread's path raises it (through SQLAlchemy): the app
                # answers a 503 if the database is away, else a 500.
                raise sa_exc.DBAPIError.instance("COMMIT", None, exc, psycopg.Error) from exc
            raise
        played = replace(played, pending=None)
        settle(played)
        self._played(match_id, played)
        return played

    def computer_move(self, match_id: str, text: str, ply: int) -> Played:
        """Play the computer's reply, if it is still the computer's turn at ``ply``."""

        def play(conn: Connection, locked: Locked) -> Played:
            require_playing(locked.match.status)
            game = games.get(locked.match.game)
            side = game.to_move(game.parse_position(locked.match.position))
            seat = next((s for s in locked.seats if s.side == side and s.ai_level is not None), None)
            if seat is None:
                raise Conflict(N_("it is not the computer's turn"))
            return self._play(conn, locked, seat, text, ply)

        return self._commit_move(match_id, play)

    def _commit_move(self, match_id: str, play: Callable[[Connection, Locked], Played]) -> Played:
        """One move's transaction on the locked match row, then its publishing."""
        settle: Callable[[Played | None], None] | None = None
        try:
            with self._judging_time(match_id), self.engine.begin() as conn:
                played = play(conn, self._lock_row(conn, match_id))
                settle = self.on_playing(match_id, played.version)
                if played.pending is not None:
                    self.statements.write_and_commit(conn, played.pending)
                    played = replace(played, pending=None)
        except BaseException:
            if settle is not None:
                settle(None)  # the commit failed
            raise
        assert settle is not None
        settle(played)
        self._played(match_id, played)
        return played

    def _lock_row(self, conn: Connection, match_id: str) -> Locked:
        return locked_from(match_id, self.statements.lock(conn, match_id))

    def _play(self, conn: Connection, locked: Locked, seat: SeatRow, text: str, ply: int) -> Played:
        """Check and record one move; raises and changes nothing when it is refused.

        A bounded amount of work whatever the ply: the locked row, one count of equal
        positions (games with a repetition rule), one insert, one update.
        """
        checked = self._check(locked, seat, text, ply)
        code = checked.code_to_count
        earlier = None if code is None else self.statements.count_repeats(conn, locked.match.id, code)
        played = self._accept(checked, earlier)
        if played.pending is not None and self._runs_hooks(played):
            # The finish hooks read the finished match: its writes go first.
            self.statements.write(conn, played.pending)
            with self.sessions(bind=conn) as db:
                match = db.get(Match, locked.match.id)
                assert match is not None
                for hook in self.finish_hooks:
                    hook(db, match)
                db.flush()
            played = replace(played, pending=None)
        return played

    def _runs_hooks(self, played: Played) -> bool:
        return played.state["status"] == "finished" and bool(self.finish_hooks)

    def _check(self, locked: Locked, seat: SeatRow, text: str, ply: int) -> Checked:
        """The move's checks on the locked row, and the position it makes; raises a
        refusal (nothing changed) when it cannot be played."""
        row = locked.match
        require_playing(row.status)
        if ply != row.ply:
            raise Conflict(
                N_("the match has moved on: it is at ply %(ply)s, not %(asked)s"), ply=row.ply, asked=ply
            )
        game = games.get(row.game)
        position = game.parse_position(row.position)
        if game.to_move(position) != seat.side:
            raise Conflict(N_("it is not your turn"))
        if not isinstance(text, str) or len(text) > 200:
            raise Invalid(N_("a move is a short text in the game's notation"))
        try:
            move = game.parse_move(position, text)
        except BadMove as exc:
            raise Invalid(N_("malformed move: %(detail)s"), detail=exc) from None
        except IllegalMove as exc:
            raise Invalid(N_("illegal move: %(detail)s"), detail=exc) from None
        after = game.apply(position, move)
        return Checked(
            locked=locked,
            seat=seat,
            game=game,
            notation=game.format_move(move),
            after=after,
            after_text=game.format_position(after),
            moment=self.clock(),
            code=game.repetition_code(after),
            outcome=game.outcome(after),
        )

    def _accept(self, checked: Checked, earlier: int | None) -> Played:
        """The accepted move, its writes still to send (``Played.pending``).

        ``earlier``: how many stored moves of the match reached the position the move
        makes (``count_repeats``), given when it has a ``code_to_count``. ``TimeUp`` if
        the mover's time had run out.
        """
        locked, seat, game, moment = checked.locked, checked.seat, checked.game, checked.moment
        row = locked.match
        outcome, counted = checked.outcome, checked.code_to_count
        if counted is not None:
            assert earlier is not None, "a position with a repetition rule needs its count"
            if self._repeats(row, game, counted, earlier) >= 3:
                outcome = Outcome(None, "repetition")
        to_move = game.to_move(checked.after)
        changes = with_move(row, moment, seat.side, to_move if outcome is None else None)
        notation, after_text = checked.notation, checked.after_text
        changes.update(
            position=after_text,
            ply=row.ply + 1,
            version=row.version + 1,
            notations=f"{row.notations}\n{notation}" if row.notations else notation,
            updated_at=moment,
            ai_turn_at=None,
            ai_claimed_until=None,
        )
        if outcome is None:
            changes["turn_started_at"] = moment
            if any(s.side == to_move and s.ai_level is not None for s in locked.seats):
                changes["ai_turn_at"] = moment
        else:
            changes.update(
                status="finished",
                winner=outcome.winner,
                reason=outcome.reason,
                finished_at=moment,
                draw_offer=None,
                takeback_offer=None,
                turn_started_at=None,
            )
        record = {
            "match_id": row.id,
            "ply": row.ply + 1,
            "side": seat.side,
            "notation": notation,
            "position_after": after_text,
            "think_ms": think_ms(row.turn_started_at, moment),
            "created_at": moment,
            "repetition": checked.code,
            "clocks_after": changes.get("clocks"),
        }
        notice = None if self.notice_of is None else self.notice_of(row.id, changes["version"])
        values = {**row._asdict(), **changes}
        return Played(
            state=answer(values, to_move, locked.seats, moment),
            version=changes["version"],
            computer_to_move=changes["ai_turn_at"] is not None,
            timed=row.time_control is not None,
            pending=Writes(record, row.id, changes, notice),
        )

    def _repeats(self, row: Any, game: Game, code: str, earlier: int) -> int:  # type: ignore[type-arg]
        """How often the position with ``code`` has occurred, counting the one just reached.

        The start position, the ``earlier`` stored moves' positions with that code (an
        indexed count), and the new one: what ``Game.outcome_after`` counts over the
        whole history.
        """
        start = game.repetition_code(game.parse_position(row.initial_position)) == code
        return int(start) + earlier + 1

    def _played(self, match_id: str, played: Played) -> None:
        """After a move's commit: every subscriber and the computer."""
        self.publish_move(match_id, played.version, played.timed)
        self._after(match_id, played.version, played.computer_to_move, publish=False)

    def _after(self, match_id: str, version: int, computer_to_move: bool, publish: bool = True) -> None:
        """After a commit: tell every subscriber, and the computer if it is to move."""
        if publish:
            self.publish(match_id, version)
        if computer_to_move:
            self.wake_computer()

    @contextmanager
    def _judging_time(self, match_id: str) -> Iterator[None]:
        """Around a change's transaction: if it found the deadline passed (``TimeUp``,
        rolled back), finish the match by that deadline and refuse the change."""
        try:
            yield
        except TimeUp:
            self.expire(match_id)
            raise Conflict(N_("the time ran out: the match is over")) from None

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

    def abort(self, match_id: str, token_hash: str | None) -> Change:
        """End a match without a result before both sides have made a move."""
        with self._judging_time(match_id), self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash)
            self._require_playing(match)
            self._check_time(match)
            if match.ladder_run_id is not None:
                raise Conflict(N_("a ladder game cannot be aborted"))
            if match.ply >= timing.BOTH_MOVED:
                raise Conflict(N_("both sides have moved: the match can no longer be aborted"))
            self._finish(db, match, None, "aborted")
            self._touch(match)
            version = match.version
        self.publish(match_id, version)
        return Change(self.get(match_id), seat)

    def claim(self, match_id: str, token_hash: str | None, outcome: str) -> Change:
        """The win or a draw, claimed against a real-time opponent who has gone away."""
        if outcome not in CLAIMS:
            raise Invalid(f"a claim is one of {', '.join(CLAIMS)}")
        with self._judging_time(match_id), self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash)
            self._require_playing(match)
            self._check_time(match)
            game = engine_for(match)
            to_move = game.to_move(game.parse_position(match.position))
            if to_move == seat.side or away_side(match, to_move, self.clock()) != to_move:
                raise Conflict(N_("you can claim only when your opponent has been away for a minute"))
            self._finish(db, match, seat.side if outcome == "win" else None, "abandonment")
            self._touch(match)
            version = match.version
        self.publish(match_id, version)
        return Change(self.get(match_id), seat)

    def seen(self, seat_id: int) -> None:
        """This seat's browser holds an event stream open now (see ``away_side``)."""
        with self.sessions.begin() as db:
            db.execute(update(Seat).where(Seat.id == seat_id).values(last_seen_at=self.clock()))

    def _check_time(self, match: Match) -> None:
        if match.deadline is not None and aware(match.deadline) <= self.clock():
            control, clock = time_control_of(match), clock_of(match)
            if control is not None and clock is not None and timing.expired(control, clock, self.clock()):
                raise TimeUp(match.id)

    def resign(self, match_id: str, token_hash: str | None) -> Change:
        with self._judging_time(match_id), self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash)
            self._require_playing(match)
            self._check_time(match)
            self._finish(db, match, other_side(engine_for(match), seat.side), "resignation")
            self._touch(match)
            version = match.version
        self.publish(match_id, version)
        return Change(self.get(match_id), seat)

    def draw(self, match_id: str, token_hash: str | None, action: str) -> Change:
        return self._offer(match_id, token_hash, action, "draw_offer")

    def takeback(self, match_id: str, token_hash: str | None, action: str) -> Change:
        return self._offer(match_id, token_hash, action, "takeback_offer")

    def _offer(self, match_id: str, token_hash: str | None, action: str, field: str) -> Change:
        if action not in OFFER_ACTIONS:
            raise Invalid(N_("action must be one of %(choices)s"), choices=", ".join(OFFER_ACTIONS))
        says = OFFER_REFUSALS[field]
        with self._judging_time(match_id), self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash)
            self._require_playing(match)
            self._check_time(match)
            if any(s.ai_level is not None for s in match.seats):
                raise Conflict(says["computer"])
            pending = getattr(match, field)
            if action == "offer":
                if field == "takeback_offer":
                    self._check_takeback_offer(match, seat)
                if pending == seat.side:
                    raise Conflict(says["already"])
                if pending is not None:
                    raise Conflict(says["pending"])
                setattr(match, field, seat.side)
            else:
                if pending is None or pending == seat.side:
                    raise Conflict(says["none"])
                setattr(match, field, None)
                if action == "accept" and field == "draw_offer":
                    self._finish(db, match, None, "agreement")
                elif action == "accept":
                    self._take_back(db, match)
            self._touch(match, turn_changed=action == "accept" and field == "takeback_offer")
            version = match.version
        self.publish(match_id, version)
        return Change(self.get(match_id), seat)

    def _check_takeback_offer(self, match: Match, seat: Seat) -> None:
        if not match.moves or match.moves[-1].side != seat.side:
            raise Conflict(N_("you can only ask to take back your own last move"))

    def _take_back(self, db: Session, match: Match) -> None:
        last = match.moves.pop()
        db.delete(last)
        match.ply -= 1
        match.position = match.moves[-1].position_after if match.moves else match.initial_position
        match.notations = "\n".join(m.notation for m in match.moves)
        match.draw_offer = None
        self._restore_clock(match, last.side)

    def _restore_clock(self, match: Match, side: str) -> None:
        """A takeback gives the time back as it was: both clocks as when ``side``'s
        taken-back turn began, which starts again now."""
        control, clock = time_control_of(match), clock_of(match, side)
        if control is None or clock is None:
            return
        before = match.moves[-1].clocks_after if match.moves else None
        game = engine_for(match)
        left = json.loads(before) if before else timing.start(control, game.sides, side, self.clock()).left_ms
        store_clock(match, control, timing.restarted(clock, left, side, match.ply, self.clock()))

    def rematch(self, match_id: str, token_hash: str | None) -> Change:
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            self._seat(match, token_hash)
            if match.status != "finished":
                raise Conflict(N_("a rematch can start only when the match is over"))
            if len(match.seats) < 2:
                raise Conflict(N_("this match never had an opponent"))
            created = match.rematch_id is None
            if created:
                match.rematch_id = self._new_rematch(db, match)
                match.rematch_offer = None
                self._touch(match)
            rematch_id, version = match.rematch_id, match.version
        if created:
            self._after(match_id, version, False)
        rematch = self.get(rematch_id)
        if rematch.ai_turn_at is not None:
            self.wake_computer()
        return Change(rematch, seat_of(rematch, token_hash))

    def answer_rematch(self, match_id: str, token_hash: str | None, action: str) -> Change:
        """Offer, accept or decline a rematch: it starts only once both players want it.

        The computer always agrees, and an offer made while the opponent's offer stands
        accepts it. ``rematch`` (the JSON API without an action) starts one at once.
        """
        if action not in OFFER_ACTIONS:
            raise Invalid(f"action must be one of {', '.join(OFFER_ACTIONS)}")
        created = False
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash)
            if match.status != "finished":
                raise Conflict(N_("a rematch can start only when the match is over"))
            if len(match.seats) < 2:
                raise Conflict(N_("this match never had an opponent"))
            if match.rematch_id is not None:
                raise Conflict(N_("the rematch has already started"))
            pending = match.rematch_offer
            computer = any(s.ai_level is not None for s in match.seats)
            if action == "offer" and pending == seat.side:
                raise Conflict(N_("you have already offered a rematch"))
            if action != "offer" and (pending is None or pending == seat.side):
                raise Conflict(N_("there is no rematch offer from your opponent to answer"))
            if action == "accept" or (action == "offer" and (computer or pending is not None)):
                match.rematch_id = self._new_rematch(db, match)
                match.rematch_offer = None
                created = True
            else:
                match.rematch_offer = seat.side if action == "offer" else None
            self._touch(match)
            version = match.version
        self._after(match_id, version, False)
        if created and self.get(match.rematch_id or "").ai_turn_at is not None:
            self.wake_computer()
        return Change(self.get(match_id), seat)

    def _new_rematch(self, db: Session, match: Match) -> str:
        game = engine_for(match)
        seats = [
            Seat(
                side=other_side(game, old.side),
                name=old.name,
                token_hash=old.token_hash,
                ai_level=old.ai_level,
            )
            for old in match.seats
        ]
        fresh = build_match(
            game,
            json.loads(match.options),
            seats,
            status="playing",
            started=self.clock(),
            time_control=time_control_of(match),
            initial=match.initial_position,
        )
        db.add(fresh)
        return fresh.id

    def move_seat(
        self, match_id: str, seat_id: int, token_hash: str, check: Callable[[Seat], bool] = lambda s: True
    ) -> Change:
        """Hand a seat to this browser (the private "continue on another device" link).

        ``check`` is asked under the row lock (is the link still good for this holder?),
        so two confirmations of one link cannot both move the seat.
        """
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = next((s for s in match.seats if s.id == seat_id), None)
            if seat is None or not check(seat):
                raise NotFound(N_("this continue link is not valid (any more)"))
            if seat.token_hash != token_hash:
                seat.moved_from_hash = seat.token_hash
                seat.token_hash = token_hash
            self._touch(match)  # the old device's page refreshes and is told
            version = match.version
        self.publish(match_id, version)
        return Change(self.get(match_id), seat)

    def end_by_server(
        self, match_id: str, winner: str | None, reason: str, still: Callable[[Match], bool]
    ) -> Change:
        """Finish a match for the server's own reason (cleanup: "expired", "abandoned"),
        if ``still`` holds under the row lock; otherwise Conflict and nothing changes."""
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            if not still(match):
                raise Conflict("the match changed meanwhile")
            self._finish(db, match, winner, reason)
            self._touch(match)
            version = match.version
        self.publish(match_id, version)
        return Change(self.get(match_id))

    # -------------------------------------------------------------- helpers

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

    def _require_playing(self, match: Match) -> None:
        require_playing(match.status)

    def _finish(self, db: Session, match: Match, winner: str | None, reason: str) -> None:
        control, clock = time_control_of(match), clock_of(match)
        if control is not None and clock is not None:
            # Frozen as they ran until now (a flag shows 0:00 for the side that ran out).
            store_clock(match, control, timing.stopped(control, clock, self.clock()))
        match.deadline = None
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


def start_position(game: Game, text: str) -> str:  # type: ignore[type-arg]
    """A position to start a match from, in canonical form; ``Invalid`` naming the field."""
    try:
        state = game.parse_position(text)
    except GameError as exc:
        raise Invalid(f"position: {exc}") from None
    if not game.legal_moves(state):
        raise Invalid(N_("position: the game is already over in this position"))
    return game.format_position(state)


def computer_name(level: int) -> str:
    return f"Computer {level}"


__all__ = ["Change", "GameError", "MatchService", "Played", "state_of"]
