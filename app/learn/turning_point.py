"""Your turning point (issue 29): after a lost match with a finished review, the position
where the loser's winning chance fell most is offered to that player as a puzzle.

Which position: among the loser's moves the review marked (``app.review.mark_plies``: the
search preferred another move and the mover's chance fell by ``INACCURACY`` points or
more), the one whose fall was biggest. The answer is the review's best move there. The
server judges every try; the page is the puzzles' board (walked by play.js) and look.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, Field

import games
from app.learn import service
from app.matches.model import seat_of
from app.models import Match
from app.review import mark_plies
from app.schemas import described
from app.services.clicks import follow
from app.services.errors import Conflict, Forbidden, Invalid, NotFound, ServiceError
from app.services.records import Line, line_of_match
from app.texts import N_
from app.web import is_htmx, page_context, templates, viewer_hash
from games.base import GameError
from games.puzzles.miner import idea

router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api/matches", tags=["puzzles"])
NO_STORE = {"Cache-Control": "no-store"}


@dataclass(frozen=True)
class TurningPoint:
    #: plies played before the position; the move played there is ``moves[ply]``
    ply: int
    position: str
    to_move: str
    played: str
    best: str
    #: percentage points of the mover's winning chance the played move lost
    drop: float


def _mover_drop(before: dict[str, Any], after: dict[str, Any]) -> float:
    # mark_plies' arithmetic: the chance is the first player's, so the mover's fall is
    # its decrease when the first player moved and its increase otherwise.
    if before["first_to_move"]:
        return float(before["chance"] - after["chance"])
    return float(after["chance"] - before["chance"])


def turning_point(
    game_name: str,
    initial_position: str,
    moves: tuple[str, ...],
    results: list[dict[str, Any] | None],
    side: str,
) -> TurningPoint | None:
    """The position where ``side``'s move lost most of its winning chance, or ``None`` when
    no move of ``side`` is marked by the review (no fall of ``INACCURACY`` or more)."""
    game = games.get(game_name)
    first = side == game.sides[0]
    chosen: tuple[float, int, str] | None = None
    # A marked entry is exactly a move whose search preferred another one and that fell by
    # at least the threshold: the turning point is always one the review itself names.
    for entry in mark_plies(game_name, moves, results):
        if entry["mark"] is None:
            continue
        ply = entry["ply"] - 1  # the entry is the position after the move
        before, after = results[ply], results[ply + 1]
        assert before is not None and after is not None
        if bool(before["first_to_move"]) != first:
            continue
        drop = _mover_drop(before, after)
        if chosen is None or drop > chosen[0]:
            chosen = (drop, ply, before["best"])
    if chosen is None:
        return None
    drop, ply, best = chosen
    state = game.parse_position(initial_position)
    for text in moves[:ply]:
        state = game.play(state, text)
    return TurningPoint(
        ply=ply,
        position=game.format_position(state),
        to_move=game.to_move(state),
        played=moves[ply],
        best=game.format_move(game.parse_move(state, best)),
        drop=round(drop, 1),
    )


def is_better(game_name: str, point: TurningPoint, move: str) -> bool:
    """Whether ``move`` (canonical) is the review's best move. A Morris mill counts whatever
    it removes, as in the puzzles, unless the played move was that same mill: then the
    removal was the mistake and only the best one answers it."""
    if move == point.best:
        return True
    game = games.get(game_name)
    same_mill = game.name == "morris" and idea(game, move) == idea(game, point.best)
    return same_mill and idea(game, point.played) != idea(game, point.best)


# ------------------------------------------------------------------ who may see it


def find(request: Request, match_id: str) -> tuple[Match, TurningPoint]:
    """The viewer's turning point in the match, or a refusal saying why there is none:
    404 no such match (or no turning point in its review), 403 not a player of it, 409
    the match's state (not over, not lost by the viewer, no finished review yet). Not
    404 for a match that exists: a client that just made it would read "not found"."""
    match: Match = request.app.state.matches.get(match_id)
    seat = seat_of(match, viewer_hash(request))
    if seat is None:
        raise Forbidden(N_("only a player of this match has a turning point in it"))
    if match.status != "finished":
        raise Conflict(N_("this match is not over yet"))
    if match.winner is None or match.winner == seat.side:
        raise Conflict(N_("a turning point is offered only to the player who lost the match"))
    line = line_of_match(match)
    review = request.app.state.reviews.find(line)
    if review is None or review.status != "done":
        raise Conflict(N_("this match has no finished review yet: ask for one on its analysis page"))
    point = turning_point(line.game, line.initial, line.moves, json.loads(review.results), seat.side)
    if point is None:
        raise NotFound(N_("the review found no move of yours that lost much: no turning point here"))
    return match, point


def offer_url(request: Request, line: Line) -> str | None:
    """The page's address when the viewer has a turning point in the match ``line`` is
    (the review panel and the match page offer it); cheap checks before any query."""
    if line.kind != "match" or not line.finished or line.winner is None:
        return None
    try:
        find(request, line.id)
    except ServiceError:
        return None
    return f"/matches/{line.id}/turning-point"


# ------------------------------------------------------------------ pages


def move_number(game_name: str, ply: int) -> int:
    # The move list's row number (boards.move_rows): a row per two plies, Bilsang's per ply.
    return ply + 1 if game_name == "bilsang" else ply // 2 + 1


def board_of(request: Request, match: Match, point: TurningPoint, **extra: Any) -> dict[str, Any]:
    game = games.get(match.game)
    tr = page_context(request)["_"]
    state = game.parse_position(point.position)
    before, last = None, None
    shown = extra.get("solved", False) or extra.get("shown", False)
    if shown:  # the answer on the board: the position after the best move
        before, last = state, point.best
        state = game.play(state, point.best)
    board = service.board_context(
        game,
        state,
        tr,
        playable=not shown,
        taps=extra.pop("taps", ()),
        before=before,
        last=last,
        hint_move=extra.pop("hint_move", None),
        tap_url=f"/matches/{match.id}/turning-point",
    )
    number = move_number(game.name, point.ply)
    return page_context(request, game=game, match=match, point=point, number=number, **board, **extra)


def _answer(request: Request, context: dict[str, Any]) -> Response:
    name = "turning_point_live.html" if is_htmx(request) else "turning_point.html"
    return templates.TemplateResponse(request, name, context, headers=NO_STORE)


@router.get("/matches/{match_id}/turning-point", response_class=HTMLResponse)
def turning_page(request: Request, match_id: str) -> Response:
    match, point = find(request, match_id)
    return _answer(request, board_of(request, match, point))


@router.post("/matches/{match_id}/turning-point/click", response_class=HTMLResponse)
def turning_click(
    request: Request, match_id: str, taps: Annotated[str, Form(max_length=200)] = ""
) -> Response:
    match, point = find(request, match_id)
    game = games.get(match.game)
    tr = page_context(request)["_"]
    chosen = tuple(taps.split())[:8]
    followed = follow(game, game.parse_position(point.position), chosen)
    if followed.complete is None:
        return _answer(request, board_of(request, match, point, taps=chosen if followed.valid else ()))
    if is_better(game.name, point, followed.complete):
        return _answer(request, board_of(request, match, point, message=tr("Solved!"), ok=True, solved=True))
    message = tr("Not the move. Try again.")
    if followed.complete == point.played:
        message += " " + tr("That is the move you played.")
    return _answer(request, board_of(request, match, point, message=message, ok=False))


@router.post("/matches/{match_id}/turning-point/hint", response_class=HTMLResponse)
def turning_hint(request: Request, match_id: str) -> Response:
    match, point = find(request, match_id)
    game = games.get(match.game)
    tr = page_context(request)["_"]
    state = game.parse_position(point.position)
    first = game.clicks(game.parse_move(state, point.best))[0]
    message = tr("Hint: the move starts on %(point)s.") % {"point": first}
    return _answer(request, board_of(request, match, point, message=message, ok=None, hint_move=point.best))


@router.post("/matches/{match_id}/turning-point/solution", response_class=HTMLResponse)
def turning_solution(request: Request, match_id: str) -> Response:
    match, point = find(request, match_id)
    tr = page_context(request)["_"]
    message = tr("The solution: %(line)s.") % {"line": point.best}
    return _answer(request, board_of(request, match, point, message=message, ok=None, shown=True))


# ------------------------------------------------------------------ JSON API

_WHY = {
    400: "the body is not UTF-8 JSON, or nested too deep",
    403: "you are not a player of this match (or, for a POST, a cross-site request)",
    404: "no such match, or its review marked no move of yours",
    409: "the match is not over, you did not lose it, or its review is not finished yet",
    413: "the body is over 64 KiB",
    422: "the move is not notation of the game",
    429: "too many requests from this client",
    503: "the site's database is unavailable for a moment",
}
MatchId = Annotated[str, Path(description="the match's id", max_length=40)]


class TurningShown(BaseModel):
    ply: int = Field(description="plies played before the position; the move you played was the next")
    position: str = Field(description="the position, a position string of the game")
    to_move: str = Field(description="your side letter")
    played: str = Field(description="the move you played there")
    drop: float = Field(description="percentage points of your winning chance that move lost")


class TurningTry(BaseModel):
    move: str = Field(min_length=1, max_length=service.MAX_MOVE_CHARS, description="your better move")


class TurningVerdict(BaseModel):
    correct: bool = Field(description="the move is the review's best move")
    best: str | None = Field(description="the best move, given once you found it")


@api_router.get(
    "/{match_id}/turning-point",
    response_model=TurningShown,
    responses=described(_WHY, 403, 404, 409, 422, 429, 503),
    operation_id="turning_point",
)
def turning_shown(request: Request, match_id: MatchId) -> TurningShown:
    """Your turning point in a match you lost, once its review is done (without the answer)."""
    _match, point = find(request, match_id)
    return TurningShown(
        ply=point.ply, position=point.position, to_move=point.to_move, played=point.played, drop=point.drop
    )


@api_router.post(
    "/{match_id}/turning-point/attempt",
    response_model=TurningVerdict,
    responses=described(_WHY, 400, 403, 404, 409, 413, 422, 429, 503),
    operation_id="attempt_turning_point",
)
def turning_attempt(request: Request, match_id: MatchId, body: TurningTry) -> TurningVerdict:
    """Judge a move in your turning point's position; nothing is stored, so try again freely."""
    match, point = find(request, match_id)
    game = games.get(match.game)
    state = game.parse_position(point.position)
    try:
        move = game.format_move(game.parse_move(state, body.move))
    except games.IllegalMove:
        return TurningVerdict(correct=False, best=None)
    except GameError as exc:
        raise Invalid(f"move: {exc}") from None
    correct = is_better(game.name, point, move)
    return TurningVerdict(correct=correct, best=point.best if correct else None)
