"""The JSON API of DESIGN.md: the same actions as the pages, for programs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

import games
from app.schemas import (
    READ_REFUSALS,
    WRITE_REFUSALS,
    LegalMoves,
    MatchCreate,
    MatchCreated,
    MatchJoin,
    MatchPublic,
    MoveCreate,
    OfferAction,
    SeatTaken,
    refusals,
)
from app.security import hashed_key, request_client_key
from app.services.errors import Invalid
from app.services.matches import MatchService, state_of
from app.web import absolute_url, ensure_player, viewer_hash

READS = refusals(*READ_REFUSALS)
WRITES = refusals(*WRITE_REFUSALS)

router = APIRouter(prefix="/api", tags=["matches"])


def check_level(game: str, level: int) -> None:
    from games.ai.levels import level_count

    try:
        count = level_count(game)
    except KeyError:
        return  # unknown game: create() says so
    top = 18 if count is None else count
    if not 1 <= level <= top:
        raise Invalid(f"{game} computer levels are 1..{top}")


def service(request: Request) -> MatchService:
    return request.app.state.matches


#: OpenAPI links: the id a create answers with is the match_id of every other call
#: (Schemathesis follows them in its stateful phase).
MATCH_LINKS = {
    name: {"operationId": operation, "parameters": {"match_id": "$response.body#/id"}}
    for name, operation in {
        "GetMatch": "get_match",
        "LegalMoves": "legal_moves",
        "JoinMatch": "join_match",
        "PlayMove": "play_move",
        "Resign": "resign",
        "Draw": "draw",
        "Takeback": "takeback",
        "Rematch": "rematch",
    }.items()
}


@router.post(
    "/matches",
    responses={**WRITES, 201: {"links": MATCH_LINKS}},
    status_code=201,
    response_model=MatchCreated,
    operation_id="create_match",
)
def create_match(body: MatchCreate, request: Request, response: Response) -> dict[str, Any]:
    level = None
    if body.opponent is not None:
        level = body.opponent.level
        check_level(body.game, level)
    owner = ensure_player(request, response)
    change = service(request).create(
        body.game,
        body.name,
        body.side,
        owner,
        public=body.public,
        computer_level=level,
        client_key=hashed_key(request_client_key(request.scope)),
    )
    assert change.seat is not None
    return {
        "id": change.match.id,
        "invite_url": absolute_url(request, f"/matches/{change.match.id}"),
        "seat": change.seat.side,
    }


@router.post(
    "/matches/{match_id}/join", responses=WRITES, response_model=SeatTaken, operation_id="join_match"
)
def join_match(match_id: str, body: MatchJoin, request: Request, response: Response) -> dict[str, Any]:
    change = service(request).join(match_id, body.name, ensure_player(request, response))
    assert change.seat is not None
    return {"seat": change.seat.side}


@router.get("/matches/{match_id}", responses=READS, response_model=MatchPublic, operation_id="get_match")
def get_match(match_id: str, request: Request) -> dict[str, Any]:
    return state_of(service(request).get(match_id))


@router.get(
    "/matches/{match_id}/legal", responses=READS, response_model=LegalMoves, operation_id="legal_moves"
)
def legal_moves(match_id: str, request: Request) -> dict[str, Any]:
    match = service(request).get(match_id)
    game = games.get(match.game)
    moves = [] if match.status != "playing" else game.move_texts(game.parse_position(match.position))
    return {"ply": match.ply, "moves": moves}


@router.post(
    "/matches/{match_id}/moves", responses=WRITES, response_model=MatchPublic, operation_id="play_move"
)
def play_move(match_id: str, body: MoveCreate, request: Request) -> dict[str, Any]:
    return state_of(service(request).move(match_id, viewer_hash(request), body.move, body.ply).match)


@router.post(
    "/matches/{match_id}/resign", responses=WRITES, response_model=MatchPublic, operation_id="resign"
)
def resign(match_id: str, request: Request) -> dict[str, Any]:
    return state_of(service(request).resign(match_id, viewer_hash(request)).match)


@router.post("/matches/{match_id}/draw", responses=WRITES, response_model=MatchPublic, operation_id="draw")
def draw(match_id: str, body: OfferAction, request: Request) -> dict[str, Any]:
    return state_of(service(request).draw(match_id, viewer_hash(request), body.action).match)


@router.post(
    "/matches/{match_id}/takeback", responses=WRITES, response_model=MatchPublic, operation_id="takeback"
)
def takeback(match_id: str, body: OfferAction, request: Request) -> dict[str, Any]:
    return state_of(service(request).takeback(match_id, viewer_hash(request), body.action).match)


@router.post(
    "/matches/{match_id}/rematch", responses=WRITES, response_model=MatchPublic, operation_id="rematch"
)
def rematch(match_id: str, request: Request) -> dict[str, Any]:
    """Start (or find) the rematch, sides swapped; both players are seated in it."""
    return state_of(service(request).rematch(match_id, viewer_hash(request)).match)
