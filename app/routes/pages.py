"""HTML pages: lobby, rules, match page and its live partial, language switch."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import text

import games
from app import boards, i18n
from app.config import ROOT
from app.models import Match
from app.services import describe
from app.services.clicks import click_tree, follow, tree_points
from app.services.errors import Invalid, NotFound, ServiceError
from app.services.matches import MatchService, history, other_side, seat_of
from app.services.tokens import continue_code
from app.texts import N_
from app.web import (
    ensure_player,
    is_htmx,
    page_context,
    remember_name,
    settings,
    templates,
    viewer_hash,
)

router = APIRouter(include_in_schema=False)

GAME_BLURBS = {
    "bashni": N_("Column draughts: captured pieces are not removed but stacked under the capturer."),
    "morris": N_("The old mill game: place nine pieces, slide them, close lines of three to remove."),
    "bobail": N_("Push the shared Neutron onto your own home row, moving it and then one of yours."),
    "bilsang": N_("Twenty shared buoys on an endless sea; move them in pairs and never break the group."),
}


def service(request: Request) -> MatchService:
    return request.app.state.matches


def _safe_next(target: str | None) -> str:
    # Only same-site paths: an open redirect would let other sites borrow our name.
    if not target or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


@router.get("/healthz")
def healthz(request: Request) -> Response:
    try:
        with request.app.state.sessions() as db:
            db.execute(text("SELECT 1"))
    except Exception as exc:
        return Response(f"database unreachable: {type(exc).__name__}", status_code=503)
    return Response("ok", media_type="text/plain")


#: The four strengths offered on the new-match form, as levels of games.ai.levels.
#: Bashni's levels are the ladder's opponents; 7 is the deepest search there is.
COMPUTER_CHOICES = {
    "easy": N_("easy"),
    "medium": N_("medium"),
    "hard": N_("hard"),
    "strongest": N_("strongest"),
}
BASHNI_LEVELS = {"easy": 1, "medium": 3, "hard": 5, "strongest": 7}
OTHER_LEVELS = {"easy": 1, "medium": 2, "hard": 3, "strongest": 4}


def computer_level(game: str, choice: str) -> int | None:
    """The level behind a strength on the form; "" means a friend, not the computer."""
    if not choice:
        return None
    table = BASHNI_LEVELS if game == "bashni" else OTHER_LEVELS
    if choice not in table:
        raise Invalid(N_("choose a strength for the computer"))
    return table[choice]


@router.get("/", response_class=HTMLResponse)
def lobby(request: Request) -> Response:
    lists = service(request).lobby()
    context = page_context(
        request,
        games=games.all(),
        blurbs=GAME_BLURBS,
        lists=lists,
        mine=viewer_hash(request),
        computer_levels=list(COMPUTER_CHOICES.items()),
    )
    return templates.TemplateResponse(request, "lobby.html", context)


@router.get("/rules/{game_name}", response_class=HTMLResponse)
def rules(request: Request, game_name: str) -> Response:
    try:
        game = games.get(game_name)
    except games.UnknownGame:
        raise NotFound(f"there is no game {game_name!r}") from None
    context = page_context(request, game=game)
    body = ROOT / "templates" / "rules" / f"{game.name}.{context['lang']}.html"
    if not body.exists():
        body = ROOT / "templates" / "rules" / f"{game.name}.en.html"
    context["body_template"] = f"rules/{body.name}" if body.exists() else None
    return templates.TemplateResponse(request, "rules.html", context)


@router.get("/lang/{lang}")
def switch_language(
    request: Request, lang: str, target: Annotated[str | None, Query(alias="next")] = None
) -> Response:
    response = RedirectResponse(_safe_next(target), status_code=303)
    if lang in i18n.LANGUAGES:
        response.set_cookie(i18n.LANG_COOKIE, lang, max_age=400 * 24 * 3600, samesite="lax")
    return response


@router.post("/matches")
def create_match(
    request: Request,
    game: Annotated[str, Form()],
    name: Annotated[str, Form()],
    side: Annotated[str, Form()] = "random",
    public: Annotated[bool, Form()] = False,
    opponent: Annotated[str, Form()] = "",
) -> Response:
    response = RedirectResponse("/", status_code=303)
    level = computer_level(game, opponent)
    owner = ensure_player(request, response)
    change = service(request).create(game, name, side, owner, public=public, computer_level=level)
    response.headers["location"] = f"/matches/{change.match.id}"
    remember_name(response, name)
    return response


@router.post("/matches/{match_id}/join")
def join_match(request: Request, match_id: str, name: Annotated[str, Form()]) -> Response:
    response = RedirectResponse(f"/matches/{match_id}", status_code=303)
    service(request).join(match_id, name, ensure_player(request, response))
    remember_name(response, name)
    return response


@router.get("/matches/{match_id}/continue/{seat_id}/{code}")
def continue_here(request: Request, match_id: str, seat_id: int, code: str) -> Response:
    import hmac

    if not hmac.compare_digest(code, continue_code(settings(request).secret_key, seat_id)):
        raise NotFound("this continue link is not valid")
    response = RedirectResponse(f"/matches/{match_id}", status_code=303)
    service(request).move_seat(match_id, seat_id, ensure_player(request, response))
    return response


def match_context(request: Request, match: Match, taps: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    game = games.get(match.game)
    viewer = viewer_hash(request)
    seat = seat_of(match, viewer)
    positions = history(match)
    at = extra.pop("at", None)
    # Browsing: an earlier position is shown while the match goes on (or after it ended).
    replay = at is not None and 0 <= at < len(positions) - 1
    shown_ply = at if replay else len(positions) - 1
    state = positions[shown_ply]
    before = positions[shown_ply - 1] if shown_ply > 0 else None
    last_notation = match.moves[shown_ply - 1].notation if shown_ply > 0 else None
    my_turn = (
        not replay and seat is not None and match.status == "playing" and game.to_move(state) == seat.side
    )
    targets: frozenset[str] = frozenset()
    tree: dict[str, Any] | None = None
    if my_turn:
        targets = follow(game, state, taps).next_points
        tree = boards.annotate_tree(game.name, state, click_tree(game, state))
    view = boards.BoardView(
        game=game.name,
        state=state,
        targets=targets,
        chosen=taps if my_turn else (),
        last=boards.last_move_points(game, before, last_notation),
        flipped=seat is not None and seat.side == game.sides[1],
        position_text=game.format_position(state),
        extra={"cells": frozenset(tree_points(tree)) if tree else frozenset()},
    )
    names = {s.side: s.name for s in match.seats}
    if match.ladder_run_id is not None:
        extra["run"] = request.app.state.ladder.get(match.ladder_run_id)
        extra["clock"] = think_clock(match, request.app.state.matches.clock())
    continue_link = None
    if seat is not None:
        code = continue_code(settings(request).secret_key, seat.id)
        continue_link = str(request.url_for("continue_here", match_id=match.id, seat_id=seat.id, code=code))
    invite_url = str(request.url_for("match_page", match_id=match.id))
    against_computer = any(s.ai_level is not None for s in match.seats)
    # The top of the board is the viewer's opponent; spectators see the first side at the bottom.
    bottom = seat.side if seat is not None else game.sides[0]
    context = page_context(
        request,
        match=match,
        game=game,
        seat=seat,
        view=view,
        names=names,
        players_title=" – ".join(names.get(side, "…") for side in game.sides),
        my_turn=my_turn,
        to_move=game.to_move(state),
        replay=replay,
        shown_ply=shown_ply,
        counters=boards.counters(game.name, state),
        spectators=request.app.state.broker.spectators(match.id),
        invite_url=invite_url,
        invite_qr=invite_qr(invite_url) if match.status == "waiting" and seat is not None else "",
        continue_link=continue_link,
        against_computer=against_computer,
        sides_top_bottom=(other_side(game, bottom), bottom),
        board=boards.board_data(view),
        click_tree=json.dumps(tree, separators=(",", ":")) if tree else "",
        step_hints=boards.STEP_HINTS,
        turn_hints=boards.bilsang_hints(state) if my_turn and game.name == "bilsang" else [],
        move_rows=boards.move_rows(game, [m.notation for m in match.moves]),
        last_steps=json.dumps(boards.move_steps(game, before, last_notation)),
        last_kind=boards.move_kind(game.name, before, state, last_notation),
        **extra,
    )
    # Screen-reader words and the keyboard cursor's map (app/services/describe.py).
    context.update(
        describe.page_words(
            tr=context["_"],
            game=game,
            match=match,
            board=context["board"],
            positions=positions,
            shown_ply=shown_ply,
            viewer_side=seat.side if seat is not None else None,
            my_turn=my_turn,
        ),
        legal_moves=sorted(game.format_move(m) for m in game.legal_moves(state)) if my_turn else [],
    )
    return context


def invite_qr(url: str) -> str:
    """The invite link as an inline SVG QR code, drawn by the server (no script, no image request)."""
    code = segno.make(url, error="m")
    return str(
        code.svg_inline(scale=1, border=2, svgclass="qr", lineclass="qr-line", omitsize=True, dark="#000")
    )


def think_clock(match: Match, moment: datetime) -> dict[str, Any]:
    """White's think time in this game, in ms: what is done, and the running turn."""
    done = sum(m.think_ms or 0 for m in match.moves if m.side == "w")
    running = 0
    game = games.get(match.game)
    white_to_move = game.to_move(game.parse_position(match.position)) == "w"
    if match.status == "playing" and white_to_move and match.turn_started_at is not None:
        started = match.turn_started_at
        if started.tzinfo is None:
            started = started.replace(tzinfo=UTC)
        running = max(0, int((moment - started).total_seconds() * 1000))
    return {
        "done_ms": done,
        "turn_ms": running,
        "running": running > 0 or (white_to_move and match.status == "playing"),
    }


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def match_page(request: Request, match_id: str, at: int | None = None) -> Response:
    match = service(request).get(match_id)
    return templates.TemplateResponse(request, "match.html", match_context(request, match, at=at))


@router.get("/matches/{match_id}/live", response_class=HTMLResponse)
def match_live(request: Request, match_id: str, at: int | None = None) -> Response:
    """The changing part of the match page; ``at`` shows an earlier position (browsing)."""
    match = service(request).get(match_id)
    return templates.TemplateResponse(request, "partials/live.html", match_context(request, match, at=at))


def _live_or_redirect(
    request: Request, match_id: str, error: str | None = None, taps: tuple[str, ...] = ()
) -> Response:
    if not is_htmx(request):
        return RedirectResponse(f"/matches/{match_id}", status_code=303)
    match = service(request).get(match_id)
    context = match_context(request, match, taps=taps, error=error)
    return templates.TemplateResponse(request, "partials/live.html", context)


@router.post("/matches/{match_id}/click", response_class=HTMLResponse)
def click(
    request: Request,
    match_id: str,
    taps: Annotated[str, Form()] = "",
    ply: Annotated[int, Form()] = -1,
) -> Response:
    svc = service(request)
    match = svc.get(match_id)
    game = games.get(match.game)
    chosen = tuple(taps.split())[:8]
    state = game.parse_position(match.position)
    if ply != match.ply:
        return _live_or_redirect(request, match_id, error=N_("The position changed; please look again."))
    result = follow(game, state, chosen)
    if result.complete is not None:
        try:
            svc.move(match_id, viewer_hash(request), result.complete, ply)
        except ServiceError as exc:
            return _live_or_redirect(request, match_id, error=str(exc))
        return _live_or_redirect(request, match_id)
    if not result.valid:
        chosen = ()
    return _live_or_redirect(request, match_id, taps=chosen)


ACTIONS = {
    "resign": lambda svc, mid, who: svc.resign(mid, who),
    "draw-offer": lambda svc, mid, who: svc.draw(mid, who, "offer"),
    "draw-accept": lambda svc, mid, who: svc.draw(mid, who, "accept"),
    "draw-decline": lambda svc, mid, who: svc.draw(mid, who, "decline"),
    "takeback-offer": lambda svc, mid, who: svc.takeback(mid, who, "offer"),
    "takeback-accept": lambda svc, mid, who: svc.takeback(mid, who, "accept"),
    "takeback-decline": lambda svc, mid, who: svc.takeback(mid, who, "decline"),
}


REMATCH_ACTIONS = {
    "rematch": "offer",
    "rematch-offer": "offer",
    "rematch-accept": "accept",
    "rematch-decline": "decline",
}


@router.post("/matches/{match_id}/act", response_class=HTMLResponse)
def act(request: Request, match_id: str, action: Annotated[str, Form()]) -> Response:
    svc = service(request)
    if action in REMATCH_ACTIONS:
        # Asked, not imposed: the rematch starts when the opponent accepts (the computer always does).
        try:
            change = svc.answer_rematch(match_id, viewer_hash(request), REMATCH_ACTIONS[action])
        except ServiceError as exc:
            return _live_or_redirect(request, match_id, error=str(exc))
        rematch_id = change.match.rematch_id
        if rematch_id is not None:
            if is_htmx(request):
                return Response(status_code=204, headers={"HX-Redirect": f"/matches/{rematch_id}"})
            return RedirectResponse(f"/matches/{rematch_id}", status_code=303)
        return _live_or_redirect(request, match_id)
    handler = ACTIONS.get(action)
    if handler is None:
        return _live_or_redirect(request, match_id, error=N_("That action is not known."))
    try:
        handler(svc, match_id, viewer_hash(request))
    except ServiceError as exc:
        return _live_or_redirect(request, match_id, error=str(exc))
    return _live_or_redirect(request, match_id)
