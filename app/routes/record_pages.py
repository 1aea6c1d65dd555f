"""Pages of issue 18: import a record, the analysis board of any game, its review, play from a position."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

import games
from app import boards, graph, parsing
from app.analysis_view import analysis_extras
from app.forms import computer_level
from app.learn.turning_point import offer_url
from app.parsing import off_loop
from app.review import MARK_LABELS, review_public
from app.review_queue import asker
from app.routes.records import load_line
from app.services.clicks import follow
from app.services.errors import Invalid, NotFound, ServiceError
from app.services.records import Line, RecordInvalid, TooLarge, translate_error
from app.texts import OPPONENT_CHOICES
from app.web import ensure_player, name_for_form, page_context, remember_name, templates
from games.base import GameError

router = APIRouter(include_in_schema=False)

KINDS = ("matches", "records")


def game_or_404(game_name: str) -> games.Game:  # type: ignore[type-arg]
    try:
        return games.get(game_name)
    except games.UnknownGame:
        raise NotFound(f"there is no game {game_name!r}") from None


# ---------------------------------------------------------------- import


def import_context(request: Request, **extra: Any) -> dict[str, Any]:
    return page_context(
        request,
        games=games.all(),
        computer_levels=list(OPPONENT_CHOICES.items()),
        form_name=name_for_form(request),
        **extra,
    )


@router.get("/records/import", response_class=HTMLResponse)
def import_page(request: Request) -> Response:
    return templates.TemplateResponse(request, "records_import.html", import_context(request))


@router.post("/records/import", response_class=HTMLResponse)
async def import_submit(
    request: Request,
    text: Annotated[str, Form()] = "",
    game: Annotated[str, Form()] = "",
    file: UploadFile | None = None,
) -> Response:
    data: bytes | str = text
    if file is not None and file.filename:
        data = await file.read()
    try:
        row = await off_loop(
            request, request.app.state.records.import_record, data, game or None, parsing.RECORD_SECONDS
        )
    except (RecordInvalid, TooLarge) as exc:
        gettext = page_context(request)["_"]
        message = translate_error(exc.error, gettext) if isinstance(exc, RecordInvalid) else str(exc)
        shown = text if isinstance(data, str) else ""
        context = import_context(request, import_error=message, text=shown, chosen_game=game)
        return templates.TemplateResponse(
            request, "records_import.html", context, status_code=exc.status_code
        )
    return RedirectResponse(f"/records/{row.id}", status_code=303)


# ---------------------------------------------------------------- analysis


#: Variations kept replayed, per process: each tap asks for the same (position, line)
#: again, and replaying up to 500 plies was most of the board's 0.22 s of CPU.
REPLAYED_KEPT = 512
MAX_BASE = 2000


@lru_cache(maxsize=REPLAYED_KEPT)
def replayed(game_name: str, base: str, line: tuple[str, ...]) -> tuple[Any, Any]:
    """(the position before the last ply or ``None``, the position after ``line``) from
    ``base``; game states are immutable, so one may serve every request. A refusal
    (GameError) is not kept."""
    game = games.get(game_name)
    state = game.parse_position(base)
    before = None
    for text in line:
        before = state
        state = game.play(state, text)
    return before, state


def variation_view(
    game: games.Game,  # type: ignore[type-arg]
    base: str,
    line: list[str],
    taps: tuple[str, ...],
    **extra: Any,
) -> dict[str, Any]:
    """The analysis board: ``base`` plus the variation ``line``, with the taps that may come next."""
    before, state = replayed(game.name, base, tuple(line))
    followed = follow(game, state, taps)
    chosen = taps if followed.valid else ()
    if followed.complete is not None:
        before = state
        state = game.play(state, followed.complete)
        line = [*line, followed.complete]
        chosen = ()
        followed = follow(game, state, ())
    elif not followed.valid:
        followed = follow(game, state, ())
    last = boards.last_move_points(game, before, line[-1]) if line else extra.pop("last", ())
    position = game.format_position(state)
    view = boards.BoardView(
        game=game.name,
        state=state,
        targets=followed.next_points,
        chosen=chosen,
        last=last,
        position_text=position,
        extra={"tap_url": f"/analysis/{game.name}/board", "hint": extra.pop("hint", ()) if not line else ()},
    )
    outcome = game.outcome(state)
    return {
        "view": view,
        "board": boards.board_data(view),
        "base": base,
        "line": line,
        "position": position,
        "to_move": game.to_move(state),
        "outcome": outcome,
        "counters": boards.counters(game.name, state),
        **extra,
    }


def review_context(request: Request, line: Line, at: int) -> dict[str, Any]:
    review = request.app.state.reviews.find(line)
    state = review_public(review, line)
    entries = {e["ply"]: e for e in state["plies"]} if state else {}
    points = graph.graph_points(state["plies"], len(line.moves)) if state else []
    marks = {e["ply"]: e["mark"] for e in entries.values() if e["mark"]}
    counts: dict[str, dict[str, int]] = {}
    game = games.get(line.game)
    for ply, mark in marks.items():
        side = game.to_move(game.parse_position(line.positions[ply - 1]))
        counts.setdefault(side, {"inaccuracy": 0, "blunder": 0})[mark] += 1
    return {
        "review": state,
        "entry": entries.get(at),
        "marks": marks,
        "mark_counts": counts,
        "mark_labels": MARK_LABELS,
        "graph": graph,
        "points": points,
        "can_review": line.kind == "record" or line.finished,
        # The loser's own turning point, once the review is done (issue 29).
        "turning_url": offer_url(request, line) if state and state["status"] == "done" else None,
    }


def analysis_context(request: Request, line: Line, at: int | None) -> dict[str, Any]:
    game = games.get(line.game)
    total = len(line.moves)
    ply = total if at is None else max(0, min(total, at))
    base = line.positions[ply]
    before = game.parse_position(line.positions[ply - 1]) if ply > 0 else None
    last = boards.last_move_points(game, before, line.moves[ply - 1] if ply > 0 else None)
    extra = review_context(request, line, ply)
    hint: tuple[str, ...] = ()
    entry = extra["entry"]
    if entry is not None and entry["better"] and before is not None:
        hint = boards.last_move_points(game, before, entry["better"])
    kind = "matches" if line.kind == "match" else "records"
    return page_context(
        request,
        source=line,
        kind=kind,
        game=game,
        at=ply,
        total=total,
        names=line.names,
        computer_levels=list(OPPONENT_CHOICES.items()),
        playable=bool(game.legal_moves(game.parse_position(base))),
        form_name=name_for_form(request),
        **variation_view(game, base, [], (), last=last, hint=hint),
        **extra,
        **analysis_extras(game, list(line.moves), base, entry),
    )


@router.get("/matches/{match_id}/analysis", response_class=HTMLResponse)
def match_analysis(request: Request, match_id: str, at: int | None = None) -> Response:
    line = load_line(request, "matches", match_id)
    return templates.TemplateResponse(request, "analysis.html", analysis_context(request, line, at))


@router.get("/records/{record_id}", response_class=HTMLResponse)
def record_analysis(request: Request, record_id: str, at: int | None = None) -> Response:
    line = load_line(request, "records", record_id)
    return templates.TemplateResponse(request, "analysis.html", analysis_context(request, line, at))


def _kind(kind: str) -> str:
    if kind not in KINDS:
        raise NotFound("there is no such page")
    return kind


@router.post("/{kind}/{ident}/review", response_class=HTMLResponse)
def ask_review(request: Request, kind: str, ident: str, at: int | None = None) -> Response:
    line = load_line(request, _kind(kind), ident)
    request.app.state.reviews.request(line, asker(request))
    return review_panel(request, kind, ident, at)


@router.get("/{kind}/{ident}/review/panel", response_class=HTMLResponse)
def review_panel(request: Request, kind: str, ident: str, at: int | None = None) -> Response:
    line = load_line(request, _kind(kind), ident)
    if request.headers.get("hx-request") != "true":
        target = f"/matches/{ident}/analysis" if kind == "matches" else f"/records/{ident}"
        return RedirectResponse(target + (f"?at={at}" if at is not None else ""), status_code=303)
    context = analysis_context(request, line, at)
    return templates.TemplateResponse(request, "partials/review_panel.html", context)


@router.get("/analysis/{game_name}/board", response_class=HTMLResponse)
def analysis_board(
    request: Request, game_name: str, base: str = "", line: str = "", taps: str = ""
) -> Response:
    """The variation board after a tap: nothing is stored, the page carries the variation."""
    game = game_or_404(game_name)
    if len(base) > MAX_BASE:
        raise Invalid(f"position: at most {MAX_BASE} characters")
    moves = [m for m in line.split("|") if m.strip()][:500]
    try:
        context = variation_view(game, base, moves, tuple(taps.split())[:8])
    except GameError as exc:
        raise Invalid(f"position: {exc}") from None
    context = page_context(request, game=game, **context)
    return templates.TemplateResponse(request, "partials/analysis_board.html", context)


@router.get("/analysis/{game_name}/best", response_class=HTMLResponse)
async def analysis_best(request: Request, game_name: str, position: str = "") -> Response:
    game = game_or_404(game_name)
    try:
        position = await off_loop(request, lambda: game.format_position(game.parse_position(position[:2000])))
    except GameError as exc:
        raise Invalid(f"position: {exc}") from None
    result = await request.app.state.review_worker.best_move(game.name, position, who=asker(request))
    context = page_context(request, game=game, best=result)
    return templates.TemplateResponse(request, "partials/best_move.html", context)


# ---------------------------------------------------------------- play from a position


@router.post("/positions/play")
def play_from_position(
    request: Request,
    game: Annotated[str, Form()],
    position: Annotated[str, Form()],
    name: Annotated[str, Form()],
    side: Annotated[str, Form()] = "first",
    opponent: Annotated[str, Form()] = "",
    back: Annotated[str, Form()] = "",
) -> Response:
    """A new match from ``position`` against a friend or the computer."""
    response = RedirectResponse("/", status_code=303)
    try:
        level = computer_level(game, opponent)
        owner = ensure_player(request, response)
        change = request.app.state.matches.create(
            game, name, side, owner, computer_level=level, position=position.strip()
        )
    except ServiceError as exc:
        if back != "import":
            raise
        gettext = page_context(request)["_"]
        message = gettext(str(exc))
        context = import_context(request, position_error=message, position=position, chosen_game=game)
        return templates.TemplateResponse(
            request, "records_import.html", context, status_code=exc.status_code
        )
    response.headers["location"] = f"/matches/{change.match.id}"
    remember_name(response, name)
    return response
