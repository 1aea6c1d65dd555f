"""The nouns of a match: what a change hands back, the rows a move locks, the seats,
and the small questions every other module of the package asks of a match."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, overload

from sqlalchemy.orm import Session

import games
from app.matches.statements import Writes
from app.models import Match, MoveRecord, Seat
from app.services.errors import Forbidden, NotFound
from app.services.tokens import same
from app.texts import N_
from games.base import Game, Outcome

SIDE_CHOICES = ("first", "second", "random")
OFFER_ACTIONS = ("offer", "accept", "decline")
CLAIMS = ("win", "draw")


def now() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC); PostgreSQL aware ones."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


class TimeUp(Exception):
    """Raised inside a transaction that found the match's deadline passed: the caller
    rolls back, finishes the match by its deadline (``MatchService.expire``) and refuses."""


def new_match_id() -> str:
    """72 random bits: short enough to share, too many to guess."""
    return secrets.token_urlsafe(9)


def engine_for(match: Match) -> Game[Any, Any]:
    return games.get(match.game)


def seat_of(match: Match, token_hash: str | None) -> Seat | None:
    """The seat this browser holds in ``match``, if any (constant-time compare)."""
    found = None
    for seat in match.seats:
        if same(seat.token_hash, token_hash):
            found = seat
    return found


def other_side(game: Game[Any, Any], side: str) -> str:
    first, second = game.sides
    return second if side == first else first


def computer_seat(match: Match, side: str) -> Seat | None:
    return next((s for s in match.seats if s.side == side and s.ai_level is not None), None)


def computer_name(level: int) -> str:
    return f"Computer {level}"


@dataclass
class Change:
    """What a service did: the match after it, and the seat it concerns (if any)."""

    match: Match
    seat: Seat | None = None


#: Called inside the transaction that finishes a match (the ladder moves on here).
FinishHook = Callable[[Session, Match], None]


class History(Sequence[Any]):
    """Every position of the match, the start first, each parsed when first read.

    A page shows one position and the one before it; parsing every position of the
    match for it made each render (the spectators' view, once per move) cost a parse
    per ply played so far. Built from a ``Viewed`` read, only the positions of the move
    rows it read can be asked for (and the start and the current position).
    """

    def __init__(self, match: Match, window: Mapping[int, MoveRecord] | None = None) -> None:
        self._game = engine_for(match)
        self._match = match
        if window is None:
            self._texts: list[str] | None = [match.initial_position, *(m.position_after for m in match.moves)]
            self._length = len(self._texts)
        else:
            self._texts = None
            self._length = match.ply + 1
        self._window = window or {}
        self._parsed: dict[int, Any] = {}

    def __len__(self) -> int:
        return self._length

    def _text(self, ply: int) -> str:
        if self._texts is not None:
            return self._texts[ply]
        if ply == 0:
            return self._match.initial_position
        if ply == self._length - 1:
            return self._match.position
        return self._window[ply].position_after  # KeyError: a ply this read did not fetch

    @overload
    def __getitem__(self, index: int) -> Any: ...

    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        ply = range(len(self))[index]  # negative indices as a list's; IndexError past the end
        if ply not in self._parsed:
            self._parsed[ply] = self._game.parse_position(self._text(ply))
        return self._parsed[ply]


def history(match: Match) -> History:
    """Every position of the match, the start first (parsed as they are read)."""
    return History(match)


@dataclass(frozen=True, slots=True)
class Viewed:
    """A match as a page shows it (``Reads.view``): the match row and its seats, and of its
    move rows only those around the shown ply and the last, so that a render costs the
    same at ply 200 as at ply 2. ``match.moves`` is not loaded (reading it raises)."""

    match: Match
    #: the move rows read, by ply (1 for the first move)
    moves: Mapping[int, MoveRecord]
    #: White's think time over the whole game, in ms (ladder matches only, else 0)
    white_think_ms: int = 0

    @property
    def notations(self) -> list[str]:
        return self.match.notations.split("\n") if self.match.notations else []

    def positions(self) -> History:
        return History(self.match, self.moves)


# ------------------------------------------------------- what a move works on


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

    #: the match's columns as named fields (``app.matches.statements``)
    match: Any
    #: ordered by side, as ``Match.seats`` is
    seats: tuple[SeatRow, ...]

    def seat_of(self, token_hash: str | None) -> SeatRow | None:
        found = None
        for seat in self.seats:  # every seat compared, in constant time
            if same(seat.token_hash, token_hash):
                found = seat
        return found


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
    game: Game[Any, Any]
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
