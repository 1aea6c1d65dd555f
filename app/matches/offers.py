"""Offers between the two players: a draw, and taking back the last move."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.matches.clock import restore_clock
from app.matches.core import Core
from app.matches.model import OFFER_ACTIONS, Change
from app.models import Match, Seat
from app.services.errors import Conflict, Invalid
from app.texts import N_

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


def check_takeback_offer(match: Match, seat: Seat) -> None:
    if not match.moves or match.moves[-1].side != seat.side:
        raise Conflict(N_("you can only ask to take back your own last move"))


class Offers(Core):
    def draw(self, match_id: str, token_hash: str | None, action: str) -> Change:
        return self._offer(match_id, token_hash, action, "draw_offer")

    def takeback(self, match_id: str, token_hash: str | None, action: str) -> Change:
        return self._offer(match_id, token_hash, action, "takeback_offer")

    def _offer(self, match_id: str, token_hash: str | None, action: str, field: str) -> Change:
        if action not in OFFER_ACTIONS:
            raise Invalid(N_("action must be one of %(choices)s"), choices=", ".join(OFFER_ACTIONS))
        says = OFFER_REFUSALS[field]
        with self.changing(match_id, token_hash) as change:
            match, seat = change.match, change.seat
            assert seat is not None
            if any(s.ai_level is not None for s in match.seats):
                raise Conflict(says["computer"])
            pending = getattr(match, field)
            if action == "offer":
                if field == "takeback_offer":
                    if match.rated:  # issue 31: a rated game's moves stand
                        raise Conflict(N_("takebacks are not allowed in rated games"))
                    check_takeback_offer(match, seat)
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
                    self._finish(change.db, match, None, "agreement")
                elif action == "accept":
                    self._take_back(change.db, match)
            change.turn_changed = action == "accept" and field == "takeback_offer"
        return Change(self.get(match_id), seat)

    def _take_back(self, db: Session, match: Match) -> None:
        last = match.moves.pop()
        db.delete(last)
        match.ply -= 1
        match.position = match.moves[-1].position_after if match.moves else match.initial_position
        match.notations = "\n".join(m.notation for m in match.moves)
        match.draw_offer = None
        restore_clock(match, last.side, self.clock())
