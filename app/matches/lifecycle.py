"""A match from its start to its end: made, joined, handed to another device, and ended
otherwise than by a move (resigned, aborted, claimed, or by the server's cleanup)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy import exists, select, update

import games
from app import fairness
from app.matches.clock import away_side, settle_clock, settle_turn
from app.matches.core import Core
from app.matches.judge import start_position
from app.matches.model import (
    CLAIMS,
    SIDE_CHOICES,
    Change,
    computer_name,
    engine_for,
    new_match_id,
    now,
    other_side,
    seat_of,
)
from app.models import Account, Match, Seat
from app.services import clocks as timing
from app.services.errors import Conflict, Forbidden, Invalid, NotFound
from app.services.names import clean_name
from app.texts import N_
from games.base import Game, UnknownGame


def build_match(
    game: Game[Any, Any],
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


class Lifecycle(Core):
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
        rated: bool = False,
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
        # Whether it may be rated is app/ratings/wiring.py's check_rated, asked by the route.
        match.rated = rated
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
        with self.changing(match_id, seated=False, playing=False) as change:
            match = change.match
            mine = seat_of(match, token_hash)
            if mine is not None:
                change.touched = False
                seat_id = mine.id
            elif len(match.seats) >= 2:
                raise Conflict(N_("both seats of this match are taken"))
            elif match.rated and not change.db.scalar(select(exists().where(Account.holder == token_hash))):
                # A signed-in player's seat holds the account's holder hash (app/models.py).
                raise Forbidden(N_("this game is rated: sign in to join it"))
            else:
                seat = Seat(
                    side=other_side(engine_for(match), match.seats[0].side), name=name, token_hash=token_hash
                )
                match.seats.append(seat)
                match.status = "playing"
                settle_clock(match, self.clock())
                change.turn_changed = True
                change.db.flush()
                seat_id = seat.id
        joined = self.get(match_id)
        return Change(joined, next(s for s in joined.seats if s.id == seat_id))

    def resign(self, match_id: str, token_hash: str | None) -> Change:
        with self.changing(match_id, token_hash) as change:
            assert change.seat is not None
            self._finish(
                change.db, change.match, other_side(engine_for(change.match), change.seat.side), "resignation"
            )
        return Change(self.get(match_id), change.seat)

    def abort(self, match_id: str, token_hash: str | None) -> Change:
        """End a match without a result before both sides have made a move."""
        with self.changing(match_id, token_hash) as change:
            if change.match.ladder_run_id is not None:
                raise Conflict(N_("a ladder game cannot be aborted"))
            if change.match.ply >= timing.BOTH_MOVED:
                raise Conflict(N_("both sides have moved: the match can no longer be aborted"))
            self._finish(change.db, change.match, None, "aborted")
        return Change(self.get(match_id), change.seat)

    def claim(self, match_id: str, token_hash: str | None, outcome: str) -> Change:
        """The win or a draw, claimed against a real-time opponent who has gone away."""
        if outcome not in CLAIMS:
            raise Invalid(f"a claim is one of {', '.join(CLAIMS)}")
        with self.changing(match_id, token_hash) as change:
            match, seat = change.match, change.seat
            assert seat is not None
            game = engine_for(match)
            to_move = game.to_move(game.parse_position(match.position))
            if to_move == seat.side or away_side(match, to_move, self.clock()) != to_move:
                raise Conflict(N_("you can claim only when your opponent has been away for a minute"))
            self._finish(change.db, match, seat.side if outcome == "win" else None, "abandonment")
        return Change(self.get(match_id), seat)

    def seen(self, seat_id: int) -> None:
        """This seat's browser holds an event stream open now (see ``away_side``)."""
        with self.sessions.begin() as db:
            db.execute(update(Seat).where(Seat.id == seat_id).values(last_seen_at=self.clock()))

    def move_seat(
        self, match_id: str, seat_id: int, token_hash: str, check: Callable[[Seat], bool] = lambda s: True
    ) -> Change:
        """Hand a seat to this browser (the private "continue on another device" link).

        ``check`` is asked under the row lock (is the link still good for this holder?),
        so two confirmations of one link cannot both move the seat.
        """
        # Touched even if the seat stays: the old device's page refreshes and is told.
        with self.changing(match_id, seated=False, playing=False) as change:
            seat = next((s for s in change.match.seats if s.id == seat_id), None)
            if seat is None or not check(seat):
                raise NotFound(N_("this continue link is not valid (any more)"))
            if seat.token_hash != token_hash:
                seat.moved_from_hash = seat.token_hash
                seat.token_hash = token_hash
        return Change(self.get(match_id), seat)

    def end_by_server(
        self, match_id: str, winner: str | None, reason: str, still: Callable[[Match], bool]
    ) -> Change:
        """Finish a match for the server's own reason (cleanup: "expired", "abandoned"),
        if ``still`` holds under the row lock; otherwise Conflict and nothing changes."""
        with self.changing(match_id, seated=False, playing=False) as change:
            if not still(change.match):
                raise Conflict("the match changed meanwhile")
            self._finish(change.db, change.match, winner, reason)
        return Change(self.get(match_id))
