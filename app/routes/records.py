"""Records (export, import), board pictures, positions and reviews: the JSON side."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

import games
from app import parsing, pictures
from app.matches.service import MatchService
from app.models import Match
from app.parsing import off_loop
from app.record_schemas import BestMove, PositionMoves, RecordPublic, ReviewPublic
from app.review import BLUNDER, INACCURACY, review_public
from app.review_queue import asker
from app.routes.api import WRITES as ERRORS
from app.schemas import ErrorDetail
from app.services.errors import Invalid, NotFound
from app.services.records import (
    Line,
    RecordService,
    Unsupported,
    file_name,
    line_of_match,
    line_of_record,
    match_record,
    record_state,
    stored_record,
)
from app.web import absolute_url, page_context
from games import records
from games.base import BadPosition

RECORD_ERRORS: dict[int | str, dict[str, Any]] = {**ERRORS, 413: ERRORS[422], 415: ERRORS[422]}
api_router = APIRouter(prefix="/api", tags=["records"], responses=ERRORS)

TEXT_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/plain": {"schema": {"type": "string"}}}, "description": "the record"}
}
#: The board picture's formats by file extension: (media type, body schema, description).
PICTURES: dict[str, tuple[str, dict[str, str], str]] = {
    "svg": (
        "image/svg+xml",
        {"type": "string"},
        "The board after ``at`` plies (default: now) as an SVG file, drawn as the page draws it.",
    ),
    "png": (
        "image/png",
        {"type": "string", "format": "binary"},
        "The board after ``at`` plies (default: now) as a PNG, 480 pixels wide, rasterised from that SVG.",
    ),
}
#: Where a line of play comes from: (URL segment, its path parameter, the route names' word).
SOURCES = (("matches", "match_id", "match"), ("records", "record_id", "record"))
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])


def record_service(request: Request) -> RecordService:
    return request.app.state.records


def match_service(request: Request) -> MatchService:
    return request.app.state.matches


def load_line(request: Request, kind: str, ident: str) -> Line:
    if kind == "matches":
        return line_of_match(match_service(request).get(ident))
    return line_of_record(record_service(request).get(ident))


def record_download(text: str, name: str) -> Response:
    return Response(
        text,
        media_type="text/plain; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )


def picture_download(request: Request, line: Line, at: int | None, picture: str) -> Response:
    """The board after ``at`` plies (default: the end) as a ``picture`` file (svg, png)."""
    ply = len(line.moves) if at is None else at
    if not 0 <= ply <= len(line.moves):
        raise Invalid(f"at: the game has plies 0..{len(line.moves)}")
    view = pictures.view_at(line.game, line.positions, line.moves, ply)
    gettext = page_context(request)["_"]
    name = file_name(line.game, line.date, line.id).rsplit(".", 1)[0] + f"-ply{ply}.{picture}"
    svg = pictures.board_svg(view, gettext)
    return Response(
        svg if picture == "svg" else pictures.board_png(svg),
        media_type=PICTURES[picture][0],
        headers={"content-disposition": f'attachment; filename="{name}"'},
    )


@api_router.get("/matches/{match_id}/record", response_class=Response, responses=TEXT_RESPONSE)
def match_record_file(match_id: str, request: Request) -> Response:
    """The match's record (PDN for Bashni, the same tag-pair format for the others), during or after play."""
    match: Match = match_service(request).get(match_id)
    site = absolute_url(request, f"/matches/{match.id}")
    text = records.write(match_record(match, site))
    return record_download(text, file_name(match.game, match.created_at, match.id))


@api_router.post(
    "/records",
    status_code=201,
    response_model=RecordPublic,
    responses=RECORD_ERRORS,
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "a record (tag pairs and movetext) or a bare list of moves, UTF-8, at most "
            f"{records.MAX_BYTES} bytes",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    },
)
async def import_record(
    request: Request,
    game: Annotated[
        str | None,
        Query(min_length=1, description="the game of a record that does not name it (a bare list of moves)"),
    ] = None,
) -> dict[str, Any]:
    """Import a record: every move is checked; a refusal names the first bad line, and nothing is stored.

    413 over the size limit, 415 for a body that is not text, 422 for a bad record
    (not UTF-8, a bad tag, a wrong move number, an illegal move, a cut-short file, or one
    that takes over 5 seconds to check).
    """
    kind = request.headers.get("content-type", "text/plain").split(";")[0].strip().lower()
    if kind and not (kind.startswith("text/") or kind in ("application/x-pdn", "application/octet-stream")):
        raise Unsupported("send the record as text/plain")
    data = await request.body()
    row = await off_loop(request, record_service(request).import_record, data, game, parsing.RECORD_SECONDS)
    return await off_loop(request, record_state, row)


@api_router.get("/records/{record_id}", response_model=RecordPublic)
def get_record(record_id: str, request: Request) -> dict[str, Any]:
    return record_state(record_service(request).get(record_id))


@api_router.get("/records/{record_id}/record", response_class=Response, responses=TEXT_RESPONSE)
def record_file(record_id: str, request: Request) -> Response:
    """An imported game written back as a record."""
    row = record_service(request).get(record_id)
    return record_download(records.write(stored_record(row)), file_name(row.game, row.created_at, row.id))


def position_moves(game_name: str, position: str) -> dict[str, Any]:
    try:
        game = games.get(game_name)
    except games.UnknownGame as exc:
        raise NotFound(str(exc)) from None
    try:
        state = game.parse_position(position)
    except BadPosition as exc:
        raise Invalid(f"position: {exc}") from None
    outcome = game.outcome(state)
    moves = []
    for move in sorted(game.legal_moves(state), key=game.format_move):
        moves.append(
            {
                "move": game.format_move(move),
                "clicks": [list(path) for path in game.click_paths(move)],
                "after": game.format_position(game.apply(state, move)),
            }
        )
    return {
        "game": game.name,
        "position": game.format_position(state),
        "to_move": game.to_move(state),
        "result": None if outcome is None else {"winner": outcome.winner, "reason": outcome.reason},
        "moves": moves,
    }


@api_router.get("/positions/{game_name}", response_model=PositionMoves)
def legal_from_position(
    game_name: str,
    position: Annotated[str, Query(min_length=1, max_length=2000, description="a position string")],
) -> dict[str, Any]:
    """Read-only: any position's legal moves, the taps that make each, and the position after it.

    The result judges the position alone (no repetition history).
    """
    return position_moves(game_name, position)


def review_state(request: Request, kind: str, ident: str, ask: bool) -> dict[str, Any]:
    line = load_line(request, kind, ident)
    reviews = request.app.state.reviews
    review = reviews.request(line, asker(request)) if ask else reviews.find(line)
    if review is None:
        raise NotFound("nobody has asked for a review of this game yet (POST to ask)")
    state = review_public(review, line)
    assert state is not None
    return state


REVIEW_DOC = (
    "The computer's review: per position (0 = the start) the master level's score from White's / "
    "player 1's side, the winning chance, the best move, and for the move that led there a mark "
    f"(inaccuracy: the mover's winning chance drops {INACCURACY:g} points or more, blunder: {BLUNDER:g}) "
    "with the better move."
)


@api_router.get("/positions/{game_name}/best", response_model=BestMove)
async def best_from_position(
    game_name: str,
    request: Request,
    position: Annotated[str, Query(min_length=1, max_length=2000, description="a position string")],
) -> dict[str, Any]:
    """The master level's move and score (White's / player 1's side) in any position, after about 2 s.

    Computed in the review worker processes; the request waits, the server does not.
    """
    position = (await off_loop(request, position_moves, game_name, position))["position"]
    result = await request.app.state.review_worker.best_move(game_name, position, who=asker(request))
    score = result["score"]
    return {
        "move": result["best"],
        "score": None if score is None else round(score / 100, 2),
        "win_in": result["win_in"],
        "depth": result["depth"],
    }


# The same operations on a match and on an imported game, and on each picture format:
# one implementation each, registered once per path with the names (so operation ids)
# and descriptions the API has always had.


def _path_parameter(endpoint: Endpoint, param: str) -> Endpoint:
    """``ident`` is the path's ``{match_id}`` or ``{record_id}``; the annotation is set here
    because a string annotation (this module's ``from __future__``) cannot name ``param``."""
    endpoint.__annotations__["ident"] = Annotated[str, Path(alias=param)]
    return endpoint


def board_file_endpoint(source: str, param: str, picture: str) -> Callable[..., Response]:
    def board_file(
        request: Request,
        ident: str,
        at: Annotated[
            int | None, Query(ge=0, description="plies played (at most the game's plies; more is a 422)")
        ] = None,
    ) -> Response:
        return picture_download(request, load_line(request, source, ident), at, picture)

    return _path_parameter(board_file, param)


def review_endpoint(source: str, param: str, ask: bool) -> Callable[..., dict[str, Any]]:
    def review(request: Request, ident: str) -> dict[str, Any]:
        return review_state(request, source, ident, ask=ask)

    return _path_parameter(review, param)


for _source, _param, _word in SOURCES:
    for _picture, (_media, _schema, _doc) in PICTURES.items():
        api_router.add_api_route(
            f"/{_source}/{{{_param}}}/board.{_picture}",
            board_file_endpoint(_source, _param, _picture),
            methods=["GET"],
            name=f"{_word}_board_file" if _picture == "svg" else f"{_word}_board_{_picture}",
            response_class=Response,
            responses={200: {"content": {_media: {"schema": _schema}}, "description": "the board"}},
            description=_doc,
        )
    api_router.add_api_route(
        f"/{_source}/{{{_param}}}/review",
        review_endpoint(_source, _param, ask=True),
        methods=["POST"],
        name=f"ask_{_word}_review",
        status_code=202,
        response_model=ReviewPublic,
        description=REVIEW_DOC,
    )
    api_router.add_api_route(
        f"/{_source}/{{{_param}}}/review",
        review_endpoint(_source, _param, ask=False),
        methods=["GET"],
        name=f"{_word}_review",
        response_model=ReviewPublic,
        responses={
            404: {"model": ErrorDetail, "description": f"no such {_word}, or no review asked for yet"}
        },
        description=REVIEW_DOC,
    )
