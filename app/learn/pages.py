"""The lesson pages: /learn (every game's lessons) and /learn/{game}/{lesson} (one lesson,
step by step on the match page's board). Taps are posted like a match's (static/play.js
sends the complete move with the line so far); the server judges and answers the board."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response

import games
from app.learn import service
from app.services.clicks import follow
from app.services.errors import Invalid
from app.web import is_htmx, page_context, templates
from games import lessons

router = APIRouter(include_in_schema=False)

NO_STORE = {"Cache-Control": "no-store"}


@router.get("/learn", response_class=HTMLResponse)
def learn_index(request: Request) -> Response:
    chapters = [(game, lessons.lessons(game.name)) for game in games.all()]
    return templates.TemplateResponse(request, "learn.html", page_context(request, chapters=chapters))


def _next_link(game_name: str, lesson_id: str, number: int) -> tuple[str, str]:
    """Where the learner goes after step ``number``: (URL, which kind of link)."""
    all_lessons = lessons.lessons(game_name)
    index = next(i for i, item in enumerate(all_lessons) if item.id == lesson_id)
    if number < len(all_lessons[index].steps):
        return f"/learn/{game_name}/{lesson_id}?step={number + 1}", "step"
    if index + 1 < len(all_lessons):
        return f"/learn/{game_name}/{all_lessons[index + 1].id}", "lesson"
    return "/learn", "done"


def live_context(
    request: Request,
    game_name: str,
    lesson_id: str,
    number: int,
    moves: list[str],
    taps: tuple[str, ...] = (),
    hint: bool = False,
) -> dict[str, Any]:
    """The lesson board after ``moves``; with ``taps`` that complete a move, that move judged."""
    game, lesson, step = service.find_step(game_name, lesson_id, number)
    tr = page_context(request)["_"]
    message, ok, done = "", None, False
    before, last = None, None
    if len(moves) % 2:  # a finished step: the learner's last move was its final one
        state = service.position_after(game_name, lesson_id, number, moves[:-1])
        verdict = service.judge(game_name, lesson_id, number, moves)
        if not verdict.done:
            raise Invalid("moves: this line does not complete the step")
        before, last = state, moves[-1]
        state = game.play(state, last)
        message, ok, done = service.say(verdict, tr), True, True
    else:
        state = service.position_after(game_name, lesson_id, number, moves)
        if len(moves) >= 2:
            before = service.position_after(game_name, lesson_id, number, moves[:-2])
            before = game.play(before, moves[-2])
            last = moves[-1]
        followed = follow(game, state, taps)
        if followed.complete is not None:
            verdict = service.judge(game_name, lesson_id, number, [*moves, followed.complete])
            message, ok, done = service.say(verdict, tr), verdict.ok, verdict.done
            taps = ()
            if verdict.ok:
                before, last = state, followed.complete
                state = game.play(state, followed.complete)
                moves = [*moves, followed.complete]
                if verdict.reply is not None:
                    before, last = state, verdict.reply
                    state = game.play(state, verdict.reply)
                    moves = [*moves, verdict.reply]
        elif not followed.valid:
            taps = ()
    hint_move = None
    if hint and not done:
        hint_move = service.hint(game_name, lesson_id, number, moves)
        points = " → ".join(game.clicks(game.parse_move(state, hint_move)))
        message = tr("Hint: tap %(points)s, in this order (the move %(move)s).") % {
            "points": points,
            "move": hint_move,
        }
    base = f"/learn/{game_name}/{lesson_id}/{number}"
    board = service.board_context(
        game,
        state,
        tr,
        playable=not done,
        taps=taps,
        before=before,
        last=last,
        hint_move=hint_move,
        tap_url=f"{base}/board",
    )
    next_url, next_kind = _next_link(game_name, lesson_id, number)
    return page_context(
        request,
        game=game,
        lesson=lesson,
        step=step,
        number=number,
        moves=moves,
        message=message,
        ok=ok,
        done=done,
        next_url=next_url,
        next_kind=next_kind,
        base=base,
        **board,
    )


def _answer(request: Request, context: dict[str, Any]) -> Response:
    if is_htmx(request):
        return templates.TemplateResponse(request, "learn_live.html", context, headers=NO_STORE)
    return templates.TemplateResponse(request, "learn_lesson.html", context, headers=NO_STORE)


@router.get("/learn/{game_name}/{lesson_id}", response_class=HTMLResponse)
def lesson_page(request: Request, game_name: str, lesson_id: str, step: int = 1) -> Response:
    return _answer(request, live_context(request, game_name, lesson_id, step, []))


@router.get("/learn/{game_name}/{lesson_id}/{number}/board", response_class=HTMLResponse)
def lesson_board(request: Request, game_name: str, lesson_id: str, number: int, moves: str = "") -> Response:
    """The step's board after ``moves`` (the start again: "Try again")."""
    return _answer(request, live_context(request, game_name, lesson_id, number, service.read_moves(moves)))


@router.post("/learn/{game_name}/{lesson_id}/{number}/click", response_class=HTMLResponse)
def lesson_click(
    request: Request,
    game_name: str,
    lesson_id: str,
    number: int,
    taps: Annotated[str, Form(max_length=200)] = "",
    moves: Annotated[str, Form(max_length=4000)] = "",
) -> Response:
    """Taps on the lesson board; a complete move is judged (static/play.js posts it once)."""
    line = service.read_moves(moves)
    return _answer(
        request, live_context(request, game_name, lesson_id, number, line, tuple(taps.split())[:8])
    )


@router.post("/learn/{game_name}/{lesson_id}/{number}/hint", response_class=HTMLResponse)
def lesson_hint(
    request: Request,
    game_name: str,
    lesson_id: str,
    number: int,
    moves: Annotated[str, Form(max_length=4000)] = "",
) -> Response:
    line = service.read_moves(moves)
    return _answer(request, live_context(request, game_name, lesson_id, number, line, hint=True))
