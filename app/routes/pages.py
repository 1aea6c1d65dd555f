"""HTML pages: lobby, rules, match page and its live partial, language switch."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import update

import games
from app import i18n, texts
from app.accounts.identity import signed_in
from app.config import ROOT
from app.db import read_session
from app.forms import (
    BILSANG_RULES,
    computer_level,
    form_time_control,
    remember_time_control,
    remembered_time_control,
    rule_options,
)
from app.learn.puzzle_service import daily_puzzles
from app.matches.service import MatchService
from app.models import HealthProbe
from app.rate_limits import request_client_hash, request_client_key
from app.ratings.pages import ratings_for
from app.ratings.wiring import check_rated
from app.services import clocks as timing
from app.services.errors import NotFound
from app.texts import N_
from app.web import (
    ensure_player,
    name_for_form,
    page_context,
    remember_name,
    templates,
    viewer_hash,
)

#: Pages that show a seat's private link must not be kept by a browser or a proxy.
NO_STORE = {"Cache-Control": "no-store"}


def client_key(request: Request) -> str:
    """A hash of this client's rate-limit key, stored with what it creates."""
    return request_client_hash(request.scope)


def check_create_limit(request: Request) -> None:
    limiter = request.app.state.limiter
    if limiter is not None:
        limiter.check("create", request_client_key(request.scope))


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
    """ "ok" only when the database takes a write (a full disk or a read-only database
    answers SELECT 1 but cannot keep a move)."""
    try:
        with request.app.state.sessions.begin() as db:
            db.execute(update(HealthProbe).where(HealthProbe.id == 1).values(checked_at=datetime.now(UTC)))
    except Exception as exc:
        return Response(
            f"database unavailable: {type(exc).__name__}", status_code=503, headers={"Retry-After": "5"}
        )
    return Response("ok", media_type="text/plain")


@router.get("/", response_class=HTMLResponse)
def lobby(request: Request, game: str | None = None) -> Response:
    lists = service(request).lobby()
    with read_session(request.app.state.sessions) as db:
        # Issue 31: rated matches say so, with each account's rating beside its name.
        rated = ratings_for(db, [m for ms in lists.values() for m in ms])
    context = page_context(
        request,
        games=games.all(),
        # A rules page's "play" link names its game; the forms start on it.
        chosen_game=game if game in games.names() else "morris",
        blurbs=GAME_BLURBS,
        lists=lists,
        rated=rated,
        mine=viewer_hash(request),
        computer_levels=list(texts.STRENGTHS.items()),
        bilsang_rules=[(key, label) for key, (label, _options) in BILSANG_RULES.items()],
        # The plies without a removal that end a game, for the hint under the rules' select.
        bilsang_quiet={key: options.get("quiet") for key, (_label, options) in BILSANG_RULES.items()},
        realtime_presets=timing.REALTIME_PRESETS,
        correspondence_days=timing.CORRESPONDENCE_DAYS,
        last_time_control=remembered_time_control(request),
        # A first visit's forms start their match at the first click ("Guest" in the
        # page's language), not at the browser's "fill out this field".
        my_name=name_for_form(request),
        # Issue 29: each game's puzzle of the day, the same for everybody all day.
        daily_puzzles=daily_puzzles(),
    )
    return templates.TemplateResponse(request, "lobby.html", context)


@router.get("/games", response_class=HTMLResponse)
def my_games(request: Request) -> Response:
    """Every match this browser holds a seat in, its move first."""
    rows = service(request).mine(viewer_hash(request))
    return templates.TemplateResponse(request, "games.html", page_context(request, rows=rows))


@router.get("/rules/{game_name}", response_class=HTMLResponse)
def rules(request: Request, game_name: str) -> Response:
    try:
        game = games.get(game_name)
    except games.UnknownGame:
        raise NotFound(N_("there is no game %(name)s"), name=repr(game_name)) from None
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
    rules: Annotated[str, Form()] = "line",
    time_control: Annotated[str, Form(max_length=20)] = "",
    initial_minutes: Annotated[str, Form(max_length=8)] = "15",
    increment_seconds: Annotated[str, Form(max_length=4)] = "10",
    rated: Annotated[bool, Form()] = False,
) -> Response:
    response = RedirectResponse("/", status_code=303)
    level = computer_level(game, opponent)
    options = rule_options(game, rules)
    control = form_time_control(time_control, initial_minutes, increment_seconds)
    if rated:  # the same refusals as the API's (403 for a guest, 422 with the reason)
        check_rated(
            signed_in=signed_in(request) is not None,
            game=game,
            time_control_kind=control["kind"] if control else None,
            against_computer=level is not None,
            options=options,
            position=None,
        )
    # Cookies first: once the match is committed, nothing may fail to hand the seat over.
    owner = ensure_player(request, response)
    remember_name(response, name)
    remember_time_control(response, time_control, initial_minutes, increment_seconds)
    change = service(request).create(
        game,
        name,
        side,
        owner,
        public=public,
        options=options,
        computer_level=level,
        time_control=control,
        client_key=client_key(request),
        rated=rated,
    )
    response.headers["location"] = f"/matches/{change.match.id}"
    return response
