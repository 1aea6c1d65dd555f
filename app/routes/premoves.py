"""GET /matches/{id}/premoves: the premove paths for the player waiting on the opponent
(app/premoves.py), as JSON for static/premove.js. A page helper, not part of the API."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

import games
from app.matches.model import seat_of
from app.premoves import premove_tree
from app.routes.pages import service
from app.services.errors import Conflict, Forbidden
from app.texts import N_
from app.web import viewer_hash

router = APIRouter(include_in_schema=False)


@router.get("/matches/{match_id}/premoves")
def premoves(request: Request, match_id: str) -> dict[str, Any]:
    match = service(request).get(match_id)
    seat = seat_of(match, viewer_hash(request))
    if seat is None:
        raise Forbidden(N_("you have no seat in this match"))
    game = games.get(match.game)
    state = game.parse_position(match.position)
    if match.status != "playing" or game.to_move(state) == seat.side:
        raise Conflict(N_("premoves are queued while your opponent is to move"))
    return {"ply": match.ply, "tree": premove_tree(match.game, match.position)}
