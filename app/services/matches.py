"""Matches between two seats: create, join, move, resign, draw, takeback, rematch.

Every change runs in one transaction that first locks the match row, so two
requests on one match never both apply; the caller publishes "match changed"
after the commit with the version this module returns.
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, joinedload, sessionmaker

import games
from app import fairness
from app.models import Match, MoveRecord, Seat
from app.services.errors import Conflict, Forbidden, Invalid, NotFound
from app.services.names import clean_name
from app.services.tokens import same
from app.texts import N_
from games.base import BadMove, Game, GameError, IllegalMove, UnknownGame

SIDE_CHOICES = ("first", "second", "random")
OFFER_ACTIONS = ("offer", "accept", "decline")

Publish = Callable[[str, int], None]


def now() -> datetime:
    return datetime.now(UTC)


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


def history(match: Match) -> list[Any]:
    """Every position of the match, the start first."""
    game = engine_for(match)
    return [game.parse_position(match.initial_position)] + [
        game.parse_position(m.position_after) for m in match.moves
    ]


def state_of(match: Match) -> dict[str, Any]:
    """The match as the JSON API shows it."""
    game = engine_for(match)
    position = game.parse_position(match.position)
    result = None
    if match.status == "finished":
        result = {"winner": match.winner, "reason": match.reason}
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
    }


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
) -> Match:
    """A new match at the game's start position (not yet added to a session)."""
    start = game.format_position(game.initial(**options))
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
    )
    if started is not None:  # the service's clock, so expiry follows it (cleanup.py)
        match.created_at = match.updated_at = started
    match.seats.extend(seats)
    settle_turn(match, started)
    return match


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
        self.finish_hooks: list[FinishHook] = []

    # ------------------------------------------------------------- reading

    def get(self, match_id: str) -> Match:
        """The match with its seats and moves, read in one statement.

        One statement, because under READ COMMITTED separate reads of the match and
        its moves could straddle a commit and show ply N with N + 1 moves.
        """
        with self.sessions() as db:
            stmt = (
                select(Match)
                .where(Match.id == match_id)
                .options(joinedload(Match.seats), joinedload(Match.moves))
            )
            match = db.scalars(stmt).unique().first()
            if match is None:
                raise NotFound(f"there is no match {match_id!r}")
            return match

    def version_of(self, match_id: str) -> tuple[int, int, str]:
        """(version, ply, status): all an event stream needs, in one cheap read."""
        with self.sessions() as db:
            row = db.execute(
                select(Match.version, Match.ply, Match.status).where(Match.id == match_id)
            ).first()
            if row is None:
                raise NotFound(f"there is no match {match_id!r}")
            return row.version, row.ply, row.status

    def lobby(self, limit: int = 20) -> dict[str, list[Match]]:
        with self.sessions() as db:

            def query(status: str, public_only: bool) -> list[Match]:
                stmt = select(Match).where(Match.status == status)
                if public_only:
                    stmt = stmt.where(Match.public.is_(True))
                if status == "finished":  # expired seeks were never played: not news
                    stmt = stmt.where(or_(Match.reason.is_(None), Match.reason != "expired"))
                stmt = stmt.order_by(Match.updated_at.desc()).limit(limit)
                found = list(db.scalars(stmt))
                for match in found:
                    _ = match.seats
                return found

            return {
                "open": query("waiting", True),
                "playing": query("playing", False),
                "finished": query("finished", False),
            }

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
        client_key: str | None = None,
    ) -> Change:
        """A new match with the creator seated; against the computer it starts at once.

        ``client_key`` (a hash of the creator's address) counts open seeks per client.
        """
        try:
            game = games.get(game_name)
        except UnknownGame as exc:
            raise Invalid(str(exc)) from None
        if side not in SIDE_CHOICES:
            raise Invalid(f"side must be one of {', '.join(SIDE_CHOICES)}")
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
        try:
            match = build_match(
                game,
                options or {},
                seats,
                status="waiting" if computer_level is None else "playing",
                public=public and computer_level is None,
                started=self.clock(),
            )
        except (TypeError, ValueError) as exc:
            raise Invalid(f"bad options for {game_name}: {exc}") from None
        match.client_key = client_key
        with self.sessions.begin() as db:
            if match.public:
                fairness.check_open_seeks(db, token_hash, client_key)
            if computer_level is not None:
                fairness.check_computer_games(db, token_hash)
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
                self._touch(match, turn_changed=True)
                db.flush()
                seat_id = seat.id
                version = match.version
        if mine is None:
            self._after(match_id, version, False)
        joined = self.get(match_id)
        return Change(joined, next(s for s in joined.seats if s.id == seat_id))

    # -------------------------------------------------------------- playing

    def move(self, match_id: str, token_hash: str | None, text: str, ply: int) -> Change:
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash)
            self._play(db, match, seat, text, ply)
            version, computer = match.version, match.ai_turn_at is not None
        self._after(match_id, version, computer)
        return Change(self.get(match_id), seat)

    def computer_move(self, match_id: str, text: str, ply: int) -> Match:
        """Play the computer's reply, if it is still the computer's turn at ``ply``."""
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            self._require_playing(match)
            game = engine_for(match)
            seat = computer_seat(match, game.to_move(game.parse_position(match.position)))
            if seat is None:
                raise Conflict("it is not the computer's turn")
            self._play(db, match, seat, text, ply)
            version, computer = match.version, match.ai_turn_at is not None
        self._after(match_id, version, computer)
        return self.get(match_id)

    def _play(self, db: Session, match: Match, seat: Seat, text: str, ply: int) -> None:
        """Check and record one move; raises and changes nothing when it is refused."""
        self._require_playing(match)
        if ply != match.ply:
            raise Conflict(f"the match has moved on: it is at ply {match.ply}, not {ply}")
        game = engine_for(match)
        position = game.parse_position(match.position)
        if game.to_move(position) != seat.side:
            raise Conflict(N_("it is not your turn"))
        if not isinstance(text, str) or len(text) > 200:
            raise Invalid(N_("a move is a short text in the game's notation"))
        try:
            move = game.parse_move(position, text)
        except BadMove as exc:
            raise Invalid(f"malformed move: {exc}") from None
        except IllegalMove as exc:
            raise Invalid(f"illegal move: {exc}") from None
        self._record(db, match, game, seat.side, game.format_move(move), game.apply(position, move))

    def _after(self, match_id: str, version: int, computer_to_move: bool, publish: bool = True) -> None:
        """After a commit: tell every subscriber, and the computer if it is to move."""
        if publish:
            self.publish(match_id, version)
        if computer_to_move:
            self.wake_computer()

    def _record(
        self,
        db: Session,
        match: Match,
        game: Game,  # type: ignore[type-arg]
        side: str,
        notation: str,
        after: Any,
    ) -> None:
        moment = self.clock()
        think_ms = None
        if match.turn_started_at is not None:
            started = match.turn_started_at
            if started.tzinfo is None:  # SQLite hands back naive datetimes
                started = started.replace(tzinfo=UTC)
            think_ms = max(0, int((moment - started).total_seconds() * 1000))
        match.ply += 1
        match.position = game.format_position(after)
        match.moves.append(
            MoveRecord(
                ply=match.ply,
                side=side,
                notation=notation,
                position_after=match.position,
                think_ms=think_ms,
                created_at=moment,
            )
        )
        match.draw_offer = None
        match.takeback_offer = None
        match.ai_turn_at = None
        match.ai_claimed_until = None
        outcome = game.outcome_after(history(match))
        if outcome is not None:
            self._finish(db, match, outcome.winner, outcome.reason)
        self._touch(match, turn_changed=True)

    def resign(self, match_id: str, token_hash: str | None) -> Change:
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash)
            self._require_playing(match)
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
            raise Invalid(f"action must be one of {', '.join(OFFER_ACTIONS)}")
        what = "a draw" if field == "draw_offer" else "a takeback"
        with self.sessions.begin() as db:
            match = self._lock(db, match_id)
            seat = self._seat(match, token_hash)
            self._require_playing(match)
            if any(s.ai_level is not None for s in match.seats):
                raise Conflict(f"the computer does not agree to {what}s")
            pending = getattr(match, field)
            if action == "offer":
                if field == "takeback_offer":
                    self._check_takeback_offer(match, seat)
                if pending == seat.side:
                    raise Conflict(f"you have already asked for {what}")
                if pending is not None:
                    raise Conflict(f"your opponent is asking for {what}: accept or decline it")
                setattr(match, field, seat.side)
            else:
                if pending is None or pending == seat.side:
                    raise Conflict(f"there is no offer of {what} from your opponent to answer")
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
        match.draw_offer = None

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
                self._touch(match)
            rematch_id, version = match.rematch_id, match.version
        if created:
            self._after(match_id, version, False)
        rematch = self.get(rematch_id)
        if rematch.ai_turn_at is not None:
            self.wake_computer()
        return Change(rematch, seat_of(rematch, token_hash))

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
        fresh = build_match(game, json.loads(match.options), seats, status="playing", started=self.clock())
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
            raise NotFound(f"there is no match {match_id!r}")
        return match

    def _seat(self, match: Match, token_hash: str | None) -> Seat:
        seat = seat_of(match, token_hash)
        if seat is None:
            raise Forbidden(N_("you have no seat in this match"))
        return seat

    def _require_playing(self, match: Match) -> None:
        if match.status == "finished":
            raise Conflict(N_("the match is over"))
        if match.status == "waiting":
            raise Conflict(N_("the match is waiting for an opponent"))

    def _finish(self, db: Session, match: Match, winner: str | None, reason: str) -> None:
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


def computer_name(level: int) -> str:
    return f"Computer {level}"


__all__ = ["Change", "GameError", "MatchService", "state_of"]
