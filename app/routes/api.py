"""The JSON API of DESIGN.md: the same actions as the pages, for programs."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from starlette.datastructures import State

from app.accounts.identity import signed_in
from app.matches.service import MatchService
from app.matches.view import state_of
from app.models import Match
from app.rate_limits import request_client_hash
from app.ratings.wiring import check_rated
from app.schemas import (
    READ_REFUSALS,
    WRITE_REFUSALS,
    BilsangOptions,
    ClaimAction,
    LegalMoves,
    MatchCreate,
    MatchCreated,
    MatchJoin,
    MatchPublic,
    MoveCreate,
    MyMatches,
    OfferAction,
    SeatTaken,
    refusals,
    refusals_with_computer_games,
)
from app.services.errors import Invalid
from app.texts import N_
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
    top = 19 if count is None else count  # Bashni: the ladder's 18, then the master
    if not 1 <= level <= top:
        raise Invalid(N_("%(game)s computer levels are 1..%(top)s"), game=game, top=top)


def service(request: Request) -> MatchService:
    return request.app.state.matches


def state(request: Request, match: Match) -> dict[str, Any]:
    """The match state, its clocks measured by the server's clock now."""
    return state_of(match, service(request).clock())


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
    responses={**refusals_with_computer_games(*WRITE_REFUSALS), 201: {"links": MATCH_LINKS}},
    status_code=201,
    response_model=MatchCreated,
    operation_id="create_match",
)
def create_match(body: MatchCreate, request: Request, response: Response) -> dict[str, Any]:
    level = None
    if body.opponent is not None:
        level = body.opponent.level
        check_level(body.game, level)
    control = body.time_control.model_dump() if body.time_control is not None else None
    # Only Bilsang has rule options; what the client left out is the rules' default.
    chosen = getattr(body, "options", None)
    options = chosen.model_dump(exclude_unset=True) if isinstance(chosen, BilsangOptions) else None
    if body.rated:
        check_rated(
            signed_in=signed_in(request) is not None,
            game=body.game,
            time_control_kind=control["kind"] if control else None,
            against_computer=level is not None,
            options=options,
            position=body.position,
        )
    owner = ensure_player(request, response)
    change = service(request).create(
        body.game,
        body.name,
        body.side,
        owner,
        public=body.public,
        options=options,
        computer_level=level,
        time_control=control,
        position=body.position,
        client_key=request_client_hash(request.scope),
        rated=body.rated,
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
    return state(request, service(request).get(match_id))


@router.get(
    "/matches/{match_id}/legal", responses=READS, response_model=LegalMoves, operation_id="legal_moves"
)
async def legal_moves(match_id: str, request: Request) -> dict[str, Any]:
    # app.routes.move_calls answers this call before FastAPI sees it; the route
    # documents it (and would serve it if that layer were taken out).
    return await legal_moves_of(request.app.state, match_id)


@router.post(
    "/matches/{match_id}/moves", responses=WRITES, response_model=MatchPublic, operation_id="play_move"
)
async def play_move(match_id: str, body: MoveCreate, request: Request) -> dict[str, Any]:
    # Answered by app.routes.move_calls too, except when the body is not a valid move:
    # then this route's validation says what is wrong with it.
    return await play_move_for(request.app.state, match_id, viewer_hash(request), body)


# The move's two calls, for both the routes above and app.routes.move_calls: coroutines
# handing their one blocking call to a worker thread (app.db.Lanes), except where the
# database can be awaited on the event loop, which is cheaper than the hand-over: the
# read of the legal moves (app.db.LoopReads, app.pg_loop.PgLoopPool) and, on PostgreSQL,
# the move itself (MatchService.play chooses). A plain ``def`` route would cross to a
# thread twice, once for the endpoint and once more for the response's validation, which
# is cheap on the event loop.


async def legal_moves_of(state: State, match_id: str) -> dict[str, Any]:
    here = await state.matches.legal_on_loop(match_id)
    if here is not None:
        return here
    return await state.lanes.read(state.matches.legal, match_id)


async def play_move_for(
    state: State, match_id: str, token_hash: str | None, body: MoveCreate
) -> dict[str, Any]:
    played = await state.matches.play(match_id, token_hash, body.move, body.ply)
    return played.state


@router.post(
    "/matches/{match_id}/resign", responses=WRITES, response_model=MatchPublic, operation_id="resign"
)
def resign(match_id: str, request: Request) -> dict[str, Any]:
    return state(request, service(request).resign(match_id, viewer_hash(request)).match)


@router.post("/matches/{match_id}/draw", responses=WRITES, response_model=MatchPublic, operation_id="draw")
def draw(match_id: str, body: OfferAction, request: Request) -> dict[str, Any]:
    return state(request, service(request).draw(match_id, viewer_hash(request), body.action).match)


@router.post(
    "/matches/{match_id}/takeback", responses=WRITES, response_model=MatchPublic, operation_id="takeback"
)
def takeback(match_id: str, body: OfferAction, request: Request) -> dict[str, Any]:
    return state(request, service(request).takeback(match_id, viewer_hash(request), body.action).match)


@router.post(
    "/matches/{match_id}/rematch", responses=WRITES, response_model=MatchPublic, operation_id="rematch"
)
def rematch(match_id: str, request: Request, body: OfferAction | None = None) -> dict[str, Any]:
    """Without a body: start (or find) the rematch at once, sides swapped, and answer its state.

    With ``{"action": "offer"|"accept"|"decline"}``: ask the opponent first, as the match
    page does; the answer is this match's state, whose ``rematch_id`` is set once the
    opponent accepts (the computer accepts at once).
    """
    if body is None:
        return state(request, service(request).rematch(match_id, viewer_hash(request)).match)
    return state(request, service(request).answer_rematch(match_id, viewer_hash(request), body.action).match)


@router.post("/matches/{match_id}/abort", responses=WRITES, response_model=MatchPublic, operation_id="abort")
def abort(match_id: str, request: Request) -> dict[str, Any]:
    """End the match without a result; only before both sides have moved."""
    return state(request, service(request).abort(match_id, viewer_hash(request)).match)


@router.post("/matches/{match_id}/claim", responses=WRITES, response_model=MatchPublic, operation_id="claim")
def claim(match_id: str, body: ClaimAction, request: Request) -> dict[str, Any]:
    """The win or a draw against a real-time opponent away (no event stream) for 60 s."""
    return state(request, service(request).claim(match_id, viewer_hash(request), body.claim).match)


@router.get("/me/matches", responses=READS, response_model=MyMatches, operation_id="my_matches")
def my_matches(request: Request) -> dict[str, Any]:
    """Every match this browser holds a seat in: your move first, then the others being
    played or waiting, then the finished ones (newest first)."""
    return {"matches": service(request).mine(viewer_hash(request))}
