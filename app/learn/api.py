"""The lessons' JSON API (issue 29): list a game's lessons, show a step, judge a move, a hint.

Texts (titles, goals, messages) come in the request's language (the ``lang`` cookie, else
Accept-Language, else English): they are for the learner. Moves are notation.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, Field

from app import i18n
from app.learn import service
from app.schemas import ErrorDetail
from app.web import language

GameName = Annotated[str, Path(description="bashni, morris, bobail or bilsang", max_length=16)]
LessonId = Annotated[str, Path(description="the lesson's id, from the list", max_length=40)]
StepNumber = Annotated[int, Path(description="the step, counted from 1", ge=1, le=50)]

_WHY: dict[int, str] = {
    400: "the body is not UTF-8 JSON, or nested too deep",
    403: "a cross-site request",
    404: "no such game, lesson or step",
    413: "the body is over 64 KiB",
    422: "the request is not valid: a move that is not notation, or a line that is not this "
    "step's (an earlier move of yours it did not accept, a reply that is not its script's, "
    "moves past the end of the step)",
    429: "too many requests from this client",
    # Documented on every operation of the API (tests/app/test_hardening.py): a lesson
    # reads no table, but a puzzle attempt or a signed-in request may.
    503: "the site's database is unavailable for a moment",
}


def _refusals(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorDetail, "description": _WHY[code]} for code in codes}


READS = _refusals(404, 422, 429, 503)
WRITES = _refusals(400, 403, 404, 413, 422, 429, 503)

router = APIRouter(prefix="/api/lessons", tags=["lessons"])


class LessonSummary(BaseModel):
    id: str
    title: str
    steps: int = Field(description="how many steps; they are numbered from 1")


class LessonList(BaseModel):
    lessons: list[LessonSummary]


class StepShown(BaseModel):
    position: str = Field(description="the step's start, a position string of the game")
    to_move: str = Field(description="the learner's side letter")
    goal: str


class LessonLine(BaseModel):
    moves: list[Annotated[str, Field(min_length=1, max_length=service.MAX_MOVE_CHARS)]] = Field(
        max_length=service.MAX_MOVES,
        description="the step's line so far, from its start: your moves and the replies in turn",
    )


class StepVerdict(BaseModel):
    ok: bool = Field(description="the move was accepted")
    done: bool = Field(description="the step is complete")
    reply: str | None = Field(description="the opponent's answer, when the step goes on")
    message: str = Field(description="why, in words: well done, or why the move misses")


class HintMove(BaseModel):
    move: str


def _gettext(request: Request) -> Any:
    return i18n.translations(language(request)).gettext


@router.get("/{game}", response_model=LessonList, responses=READS, operation_id="list_lessons")
def list_lessons(request: Request, game: GameName) -> LessonList:
    """The game's lessons, in the order they are meant to be taken."""
    _game, found = service.find_lessons(game)
    tr = _gettext(request)
    return LessonList(
        lessons=[LessonSummary(id=item.id, title=tr(item.title), steps=len(item.steps)) for item in found]
    )


@router.get("/{game}/{lesson}/{step}", response_model=StepShown, responses=READS, operation_id="show_step")
def show_step(request: Request, game: GameName, lesson: LessonId, step: StepNumber) -> StepShown:
    engine, _lesson, found = service.find_step(game, lesson, step)
    state = engine.parse_position(found.position)
    return StepShown(
        position=found.position, to_move=engine.to_move(state), goal=_gettext(request)(found.goal)
    )


@router.post("/{game}/{lesson}/{step}", response_model=StepVerdict, responses=WRITES, operation_id="try_step")
def try_step(
    request: Request, game: GameName, lesson: LessonId, step: StepNumber, body: LessonLine
) -> StepVerdict:
    """Judge the last move of ``moves`` (new; the moves before it are the step's line so far).

    A legal move that misses the goal, or an illegal one, is answered ``ok: false`` with
    why; nothing is stored, so the learner tries again from the same line.
    """
    verdict = service.judge(game, lesson, step, body.moves)
    message = service.say(verdict, _gettext(request))
    return StepVerdict(ok=verdict.ok, done=verdict.done, reply=verdict.reply, message=message)


@router.post(
    "/{game}/{lesson}/{step}/hint", response_model=HintMove, responses=WRITES, operation_id="step_hint"
)
def step_hint(
    request: Request, game: GameName, lesson: LessonId, step: StepNumber, body: LessonLine
) -> HintMove:
    """The learner's next move that reaches the goal, after ``moves`` (whole turns so far)."""
    return HintMove(move=service.hint(game, lesson, step, body.moves))
