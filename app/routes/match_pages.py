"""The match page's routes: join, continue on another device, the page and its live
part, a move (``/moves``) and the buttons (``/act``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

import games
from app.match_view import match_context
from app.routes.events import seat_view, viewed_at
from app.routes.pages import NO_STORE, check_create_limit, service
from app.services.errors import NotFound, ServiceError
from app.services.tokens import CONTINUE_LIFETIME_SECONDS, continue_code_ok
from app.texts import N_
from app.web import (
    ensure_player,
    is_htmx,
    localized,
    page_context,
    remember_name,
    settings,
    templates,
    viewer_hash,
)

router = APIRouter(include_in_schema=False)


@router.post("/matches/{match_id}/join")
def join_match(request: Request, match_id: str, name: Annotated[str, Form()]) -> Response:
    response = RedirectResponse(f"/matches/{match_id}", status_code=303)
    owner = ensure_player(request, response)
    remember_name(response, name)
    service(request).join(match_id, name, owner)
    return response


def _continue_valid(request: Request, seat_id: int, expires: int, code: str) -> Any:
    now = service(request).clock().timestamp()
    fresh = now <= expires <= now + CONTINUE_LIFETIME_SECONDS + 3600
    key = settings(request).secret_key
    return lambda seat: fresh and continue_code_ok(key, seat_id, seat.token_hash, expires, code)


@router.get("/matches/{match_id}/continue/{seat_id}/{expires}/{code}", response_class=HTMLResponse)
def continue_confirm(request: Request, match_id: str, seat_id: int, expires: int, code: str) -> Response:
    """Ask before moving the seat: a GET (a link preview, a mail scanner) changes nothing."""
    match = service(request).get(match_id)
    seat = next((s for s in match.seats if s.id == seat_id), None)
    if seat is None or not _continue_valid(request, seat_id, expires, code)(seat):
        raise NotFound(N_("this continue link is not valid (any more)"))
    context = page_context(request, match=match, seat=seat, game=games.get(match.game))
    return templates.TemplateResponse(request, "continue.html", context, headers=NO_STORE)


@router.post("/matches/{match_id}/continue/{seat_id}/{expires}/{code}")
def continue_here(request: Request, match_id: str, seat_id: int, expires: int, code: str) -> Response:
    response = RedirectResponse(f"/matches/{match_id}", status_code=303)
    check = _continue_valid(request, seat_id, expires, code)
    service(request).move_seat(match_id, seat_id, ensure_player(request, response), check=check)
    return response


@router.get("/matches/{match_id}", response_class=HTMLResponse)
def match_page(request: Request, match_id: str, at: int | None = None) -> Response:
    context = match_context(request, service(request).view(match_id, at), at=at)
    return templates.TemplateResponse(request, "match.html", context, headers=NO_STORE)


@router.get("/matches/{match_id}/claims", response_class=HTMLResponse)
def match_claims(request: Request, match_id: str) -> Response:
    """The abandonment claim as the banner shows it. The match page no longer asks: its
    event stream sends it when it comes or goes (app/routes/stream_notes.py)."""
    viewed = service(request).view(match_id)
    return templates.TemplateResponse(request, "partials/claims.html", match_context(request, viewed))


@router.get("/matches/{match_id}/live", response_class=HTMLResponse)
def match_live(request: Request, match_id: str, at: int | None = None) -> Response:
    """The changing part of the match page; ``at`` shows an earlier position (browsing)."""
    context = match_context(request, service(request).view(match_id, at), at=at)
    return templates.TemplateResponse(request, "partials/live.html", context, headers=NO_STORE)


def _live_or_redirect(
    request: Request,
    match_id: str,
    error: str | None = None,
    taps: tuple[str, ...] = (),
    status: int = 200,
    version: int | None = None,
) -> Response:
    """The live part after a change (``version``: the one it committed, whose read the
    event streams share), a redirect for a form without scripts, or the refusal."""
    if not is_htmx(request) and error is None:
        return RedirectResponse(f"/matches/{match_id}", status_code=303)
    if not is_htmx(request) and "text/html" not in request.headers.get("accept", ""):
        return JSONResponse({"detail": error}, status_code=status if status >= 400 else 409)
    if version is not None and error is None:
        viewed = viewed_at(request.app, match_id, version)
    else:
        viewed = service(request).view(match_id)
    if is_htmx(request) and error is None and not taps:
        # The page's view after its own move or action: the same render as the ``live``
        # event its event stream gets for this version (one render, issue 28).
        return HTMLResponse(seat_view(request, viewed), headers=NO_STORE)
    context = match_context(request, viewed, taps=taps, error=error)
    if not is_htmx(request):
        # A plain form post that was refused: the whole page, with the reason on it.
        return templates.TemplateResponse(
            request, "match.html", context, status_code=status if status >= 400 else 409, headers=NO_STORE
        )
    return templates.TemplateResponse(request, "partials/live.html", context, headers=NO_STORE)


@router.post("/matches/{match_id}/moves", response_class=HTMLResponse)
async def play_move(
    request: Request,
    match_id: str,
    move: Annotated[str, Form(max_length=200)],
    ply: Annotated[int, Form()],
) -> Response:
    """The match page's one door for a move: ``{move, ply}`` from the click tree's leaf
    (taps, drags, the keyboard), the typed box, or the form shown without scripts.

    The page's script (``HX-Request``) gets the live part as it is after the move (its
    new view: no second request), a form without scripts a redirect to the page (or the
    page with the reason it was refused), and a client asking for JSON the JSON API's
    answer. The move itself is ``MatchService.play``, as for every client; who asks (a
    session's lookup) and the render are blocking, so they run on a worker thread.
    """
    who = await run_in_threadpool(viewer_hash, request)
    try:
        # Every game's notation is lower case; phones and screen readers like capitals.
        played = await service(request).play(match_id, who, move.strip().lower(), ply)
    except ServiceError as exc:
        error = localized(request, exc)
        return await run_in_threadpool(
            _live_or_redirect, request, match_id, error=error, status=exc.status_code
        )
    if not is_htmx(request) and "text/html" not in request.headers.get("accept", ""):
        return JSONResponse(played.state)
    return await run_in_threadpool(_live_or_redirect, request, match_id, version=played.version)


ACTIONS = {
    "resign": lambda svc, mid, who: svc.resign(mid, who),
    "draw-offer": lambda svc, mid, who: svc.draw(mid, who, "offer"),
    "draw-accept": lambda svc, mid, who: svc.draw(mid, who, "accept"),
    "draw-decline": lambda svc, mid, who: svc.draw(mid, who, "decline"),
    "takeback-offer": lambda svc, mid, who: svc.takeback(mid, who, "offer"),
    "takeback-accept": lambda svc, mid, who: svc.takeback(mid, who, "accept"),
    "takeback-decline": lambda svc, mid, who: svc.takeback(mid, who, "decline"),
    "abort": lambda svc, mid, who: svc.abort(mid, who),
    "claim-win": lambda svc, mid, who: svc.claim(mid, who, "win"),
    "claim-draw": lambda svc, mid, who: svc.claim(mid, who, "draw"),
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
        if REMATCH_ACTIONS[action] != "decline":
            # An accept, or an offer the computer takes at once, creates a match like the form.
            check_create_limit(request)
        # Asked, not imposed: the rematch starts when the opponent accepts (the computer always does).
        try:
            change = svc.answer_rematch(match_id, viewer_hash(request), REMATCH_ACTIONS[action])
        except ServiceError as exc:
            return _live_or_redirect(request, match_id, error=localized(request, exc), status=exc.status_code)
        rematch_id = change.match.rematch_id
        if rematch_id is not None:
            if is_htmx(request):
                return Response(status_code=204, headers={"HX-Redirect": f"/matches/{rematch_id}"})
            return RedirectResponse(f"/matches/{rematch_id}", status_code=303)
        return _live_or_redirect(request, match_id)
    handler = ACTIONS.get(action)
    if handler is None:
        return _live_or_redirect(request, match_id, error=N_("That action is not known."), status=422)
    try:
        handler(svc, match_id, viewer_hash(request))
    except ServiceError as exc:
        return _live_or_redirect(request, match_id, error=localized(request, exc), status=exc.status_code)
    return _live_or_redirect(request, match_id)
