"""A rematch: the same players, sides swapped, once the match is over. Two protocols:
the JSON API's ``rematch`` starts one at once; the page's ``answer_rematch`` offers it
and starts it once both players want it."""

from __future__ import annotations

import json

from sqlalchemy.orm import Session

from app.matches.clock import time_control_of
from app.matches.core import Core
from app.matches.lifecycle import build_match
from app.matches.model import OFFER_ACTIONS, Change, engine_for, other_side, seat_of
from app.models import Match, Seat
from app.services.errors import Conflict, Invalid
from app.texts import N_


def check_rematch(match: Match) -> None:
    if match.status != "finished":
        raise Conflict(N_("a rematch can start only when the match is over"))
    if len(match.seats) < 2:
        raise Conflict(N_("this match never had an opponent"))


class Rematches(Core):
    def rematch(self, match_id: str, token_hash: str | None) -> Change:
        with self.changing(match_id, token_hash, playing=False) as change:
            match = change.match
            check_rematch(match)
            change.touched = match.rematch_id is None
            if change.touched:
                match.rematch_id = self._new_rematch(change.db, match)
                match.rematch_offer = None
            rematch_id = match.rematch_id
        assert rematch_id is not None
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
        with self.changing(match_id, token_hash, playing=False) as change:
            match, seat = change.match, change.seat
            assert seat is not None
            check_rematch(match)
            if match.rematch_id is not None:
                raise Conflict(N_("the rematch has already started"))
            pending = match.rematch_offer
            computer = any(s.ai_level is not None for s in match.seats)
            if action == "offer" and pending == seat.side:
                raise Conflict(N_("you have already offered a rematch"))
            if action != "offer" and (pending is None or pending == seat.side):
                raise Conflict(N_("there is no rematch offer from your opponent to answer"))
            if action == "accept" or (action == "offer" and (computer or pending is not None)):
                match.rematch_id = self._new_rematch(change.db, match)
                match.rematch_offer = None
                created = True
            else:
                match.rematch_offer = seat.side if action == "offer" else None
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
        # Same two seats, same settings: a rated game's rematch is rated too (issue 31).
        fresh.rated = match.rated
        db.add(fresh)
        return fresh.id
