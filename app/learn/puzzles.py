"""Puzzles: the JSON API (issue 29, item 3) and the pages /puzzles and /puzzles/{game}.

The pages use the lesson board (the match page's board templates walked by play.js); the
server judges every move against the puzzle's mined line.
"""

from __future__ import annotations

import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from pydantic import BaseModel, Field

import games
from app.accounts.identity import signed_in
from app.db import read_session
from app.learn import puzzle_ratings as rated
from app.learn import puzzle_service as puzzles
from app.learn import service
from app.learn.api import READS, WRITES, LessonLine
from app.services.clicks import follow
from app.web import is_htmx, page_context, templates

PuzzleId = Annotated[str, Path(description="the puzzle's id", max_length=20)]
GameName = Annotated[str, Path(description="bashni, morris, bobail or bilsang", max_length=16)]

api_router = APIRouter(prefix="/api/puzzles", tags=["puzzles"])
router = APIRouter(include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}


class PuzzleSummary(BaseModel):
    count: int
    themes: dict[str, int] = Field(description="how many puzzles have each theme")


class PuzzlePublic(BaseModel):
    id: str
    game: str
    position: str
    to_move: str
    rating: int = Field(description="the puzzle's Glicko-2 puzzle rating (issue 29), rounded")
    themes: list[str]


class AttemptAnswer(BaseModel):
    correct: bool
    reply: str | None = Field(description="the opponent's answer when the line goes on")
    solved: bool
    rating: int | None = Field(
        None,
        description="a signed-in player's puzzle rating in this game once the attempt is judged "
        "(a wrong move, or the puzzle solved; only the first attempt at a puzzle is rated); "
        "null for guests and while the line goes on",
    )


class Solution(BaseModel):
    line: list[str] = Field(description="the solver's moves and the replies, from the puzzle's position")


@api_router.get("/{game}", response_model=PuzzleSummary, responses=READS, operation_id="puzzle_summary")
def puzzle_summary(game: GameName) -> PuzzleSummary:
    return PuzzleSummary(**puzzles.summary(game))


@api_router.get("/{game}/next", response_model=PuzzlePublic, responses=READS, operation_id="next_puzzle")
def next_puzzle(game: GameName, request: Request) -> PuzzlePublic:
    """A puzzle near the player's puzzle rating (guests: 1500), one not yet attempted
    while others are left."""
    row, rating = _next_for(request, game)
    return PuzzlePublic(**puzzles.public(row, rating))


@api_router.post(
    "/{puzzle_id}/attempt", response_model=AttemptAnswer, responses=WRITES, operation_id="attempt_puzzle"
)
def attempt_puzzle(puzzle_id: PuzzleId, body: LessonLine, request: Request) -> AttemptAnswer:
    """Judge the solver's last move of ``moves`` (the line so far, the last move new). A
    signed-in player's first attempt at the puzzle is rated when it is judged: a wrong
    move loses, the whole line solved wins."""
    row = puzzles.find(puzzle_id)
    result = puzzles.attempt(row, body.moves)
    rating = None
    if not result.correct or result.solved:
        rating = _judged(request, row, solved=result.correct)[1]
    return AttemptAnswer(
        correct=result.correct,
        reply=result.reply,
        solved=result.solved,
        rating=None if rating is None else round(rating),
    )


@api_router.get(
    "/{puzzle_id}/solution", response_model=Solution, responses=READS, operation_id="puzzle_solution"
)
def puzzle_solution(puzzle_id: PuzzleId, request: Request) -> Solution:
    """The puzzle's line. For a signed-in player, asking counts as failing the puzzle."""
    row = puzzles.find(puzzle_id)
    _judged(request, row, solved=False)
    return Solution(line=row["line"])


# ------------------------------------------------------------------ ratings


def _next_for(request: Request, game: str) -> tuple[dict[str, Any], float]:
    """The next puzzle for this player, and its current rating."""
    rows = puzzles.puzzles_of(game)  # 404 for an unknown game, before the database
    account = signed_in(request)
    with read_session(request.app.state.sessions) as db:
        ratings = rated.ratings_of(db, game, rows)
        if account is None:
            row = puzzles.next_puzzle(game, ratings=ratings)
        else:
            level = rated.player_rating(db, account.id, game)
            row = puzzles.next_puzzle(
                game, level, ratings=ratings, exclude=rated.attempted(db, account.id, game)
            )
    return row, ratings[row["id"]]


def _judged(request: Request, row: dict[str, Any], solved: bool) -> tuple[rated.Rated | None, float | None]:
    """Rate a signed-in player's first attempt at ``row`` (nothing for a guest or a
    puzzle attempted before) and say the player's puzzle rating now (None: a guest)."""
    account = signed_in(request)
    if account is None:
        return None, None
    with request.app.state.sessions.begin() as db:
        change = rated.record(db, account.id, row, solved)
        now = change.after if change is not None else rated.player_rating(db, account.id, row["game"])
    return change, now


def _rating_said(tr: Any, judged: tuple[rated.Rated | None, float | None]) -> str:
    """ " Your puzzle rating: 1523 (+23)." after a rated attempt; "" otherwise."""
    change = judged[0]
    if change is None:
        return ""
    return " " + tr("Your puzzle rating: %(rating)s (%(delta)s).") % {
        "rating": round(change.after),
        "delta": f"{change.delta:+d}".replace("-", "−"),
    }


# ------------------------------------------------------------------ pages


@router.get("/puzzles", response_class=HTMLResponse)
def puzzles_index(request: Request) -> Response:
    today = datetime.datetime.now(datetime.UTC).date()
    rows = [(game, puzzles.summary(game.name), puzzles.daily(game.name, today)) for game in games.all()]
    return templates.TemplateResponse(request, "puzzles.html", page_context(request, rows=rows))


def board_of(request: Request, row: dict[str, Any], moves: list[str], **extra: Any) -> dict[str, Any]:
    game = games.get(row["game"])
    tr = page_context(request)["_"]
    state = game.parse_position(row["position"])
    before, last = None, None
    for text in moves:
        before, last = state, text
        state = game.play(state, text)
    done = extra.get("solved", False) or extra.get("shown", False)
    hint_move = extra.pop("hint_move", None)
    board = service.board_context(
        game,
        state,
        tr,
        playable=not done,
        taps=extra.pop("taps", ()),
        before=before,
        last=last,
        hint_move=hint_move,
        tap_url=f"/puzzles/{row['id']}/board",
    )
    words = puzzles.theme_words(row["themes"], tr)
    with read_session(request.app.state.sessions) as db:
        shown = {**row, "rating": round(rated.puzzle_rating(db, row))}
    return page_context(
        request,
        game=game,
        puzzle=shown,
        theme_words=words,
        moves=moves,
        rated_player=signed_in(request) is not None,
        **board,
        **extra,
    )


def _answer(request: Request, context: dict[str, Any]) -> Response:
    name = "puzzles_live.html" if is_htmx(request) else "puzzles_game.html"
    return templates.TemplateResponse(request, name, context, headers=NO_STORE)


@router.get("/puzzles/{game_name}", response_class=HTMLResponse)
def puzzle_page(
    request: Request, game_name: str, puzzle_id: Annotated[str, Query(alias="id", max_length=20)] = ""
) -> Response:
    if not puzzle_id:
        row, _rating = _next_for(request, game_name)
        return RedirectResponse(f"/puzzles/{game_name}?id={row['id']}", status_code=303)
    row = puzzles.find(puzzle_id)
    if row["game"] != game_name:
        raise puzzles.NotFound(f"there is no {game_name} puzzle {puzzle_id!r}")
    return _answer(request, board_of(request, row, []))


@router.post("/puzzles/{puzzle_id}/click", response_class=HTMLResponse)
def puzzle_click(
    request: Request,
    puzzle_id: str,
    taps: Annotated[str, Form(max_length=200)] = "",
    moves: Annotated[str, Form(max_length=4000)] = "",
) -> Response:
    row = puzzles.find(puzzle_id)
    line = service.read_moves(moves)
    game = games.get(row["game"])
    tr = page_context(request)["_"]
    if len(line) % 2 or len(line) >= len(row["line"]) or line != row["line"][: len(line)]:
        raise puzzles.Invalid("moves: not this puzzle's line so far")
    state = game.parse_position(row["position"])
    for text in line:
        state = game.play(state, text)
    chosen = tuple(taps.split())[:8]
    followed = follow(game, state, chosen)
    if followed.complete is None:
        return _answer(request, board_of(request, row, line, taps=chosen if followed.valid else ()))
    result = puzzles.attempt(row, [*line, followed.complete])
    if not result.correct:
        message = tr("Not the move. Try again.") + _rating_said(tr, _judged(request, row, solved=False))
        return _answer(request, board_of(request, row, line, message=message, ok=False))
    if result.solved:
        message = tr("Solved!") + _rating_said(tr, _judged(request, row, solved=True))
    else:
        message = tr("Right. Your opponent answered %(reply)s.") % {"reply": result.reply}
    return _answer(
        request, board_of(request, row, result.line, message=message, ok=True, solved=result.solved)
    )


@router.post("/puzzles/{puzzle_id}/hint", response_class=HTMLResponse)
def puzzle_hint(
    request: Request, puzzle_id: str, moves: Annotated[str, Form(max_length=4000)] = ""
) -> Response:
    row = puzzles.find(puzzle_id)
    line = service.read_moves(moves)
    if len(line) % 2 or len(line) >= len(row["line"]) or line != row["line"][: len(line)]:
        raise puzzles.Invalid("moves: not this puzzle's line")
    game = games.get(row["game"])
    tr = page_context(request)["_"]
    state = game.parse_position(row["position"])
    for text in line:
        state = game.play(state, text)
    hint_move = row["line"][len(line)]
    message = tr("Hint: the move starts on %(point)s.") % {
        "point": game.clicks(game.parse_move(state, hint_move))[0]
    }
    # A hint counts as a miss for a signed-in player's rating, as the solution does.
    message += _rating_said(tr, _judged(request, row, solved=False))
    return _answer(request, board_of(request, row, line, message=message, ok=None, hint_move=hint_move))


@router.post("/puzzles/{puzzle_id}/solution", response_class=HTMLResponse)
def puzzle_shown(request: Request, puzzle_id: str) -> Response:
    row = puzzles.find(puzzle_id)
    tr = page_context(request)["_"]
    message = tr("The solution: %(line)s.") % {"line": ", ".join(row["line"])}
    message += _rating_said(tr, _judged(request, row, solved=False))
    return _answer(request, board_of(request, row, list(row["line"]), message=message, ok=None, shown=True))


@router.get("/puzzles/{puzzle_id}/board", response_class=HTMLResponse)
def puzzle_board(request: Request, puzzle_id: str) -> Response:
    return _answer(request, board_of(request, puzzles.find(puzzle_id), []))
