"""HTML pages: lobby, rules, match page and its live partial, language switch."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Annotated, Any

import segno
from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy import update

import games
from app import boards, i18n, texts
from app.config import ROOT
from app.models import HealthProbe, Match
from app.security import hashed_key, request_client_key
from app.services import clock_words, describe
from app.services import clocks as timing
from app.services.clicks import click_tree, follow, tree_points
from app.services.errors import Invalid, NotFound, ServiceError
from app.services.matches import MatchService, clock_state, history, other_side, seat_of
from app.services.tokens import CONTINUE_LIFETIME_SECONDS, continue_code, continue_code_ok, same
from app.texts import N_
from app.web import (
    absolute_url,
    ensure_player,
    is_htmx,
    language,
    localized,
    page_context,
    remember_name,
    settings,
    templates,
    viewer_hash,
)
from games.bilsang import NEW_MATCH_OPTIONS

#: Pages that show a seat's private link must not be kept by a browser or a proxy.
NO_STORE = {"Cache-Control": "no-store"}


def client_key(request: Request) -> str:
    """A hash of this client's rate-limit key, stored with what it creates."""
    return hashed_key(request_client_key(request.scope))


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


#: The Bilsang rule sets offered on the new-match form: label and engine options
#: (RULES.md, "Bilsang rule options"); the first is the default for new matches.
BILSANG_RULES: dict[str, tuple[str, dict[str, Any]]] = {
    "line": (N_("same-line pairs (recommended)"), dict(NEW_MATCH_OPTIONS)),
    "free": (N_("free pairs (the rules without options; almost always drawn)"), {}),
    "long": (N_("long game (same-line, quiet 1000)"), {"line": True, "quiet": 1000}),
}


def rule_options(game: str, choice: str) -> dict[str, Any] | None:
    """The engine options behind the form's rules choice; ``None``: the game's default."""
    if game != "bilsang":
        return None
    if choice not in BILSANG_RULES:
        raise Invalid(N_("choose the rules for Bilsang"))
    return dict(BILSANG_RULES[choice][1])


def computer_level(game: str, choice: str) -> int | None:
    """The level behind a strength on the form; "" means a friend, not the computer.

    Bashni's levels are the ladder's opponents; 7 is the deepest search there is.
    """
    if not choice:
        return None
    table = texts.BASHNI_LEVELS if game == "bashni" else texts.OTHER_LEVELS
    if choice not in table:
        raise Invalid(N_("choose a strength for the computer"))
    return table[choice]


#: The last time control chosen on the new-match form ("rt:300:3", "cd:3", "rt:custom:…").
TIME_CONTROL_COOKIE = "tablero_tc"


def form_time_control(choice: str, initial_minutes: str, increment_seconds: str) -> dict[str, Any] | None:
    """The new-match form's time control, in the JSON API's form ("" is untimed)."""
    kind, _, rest = choice.partition(":")
    try:
        if kind == "rt" and rest == "custom":
            seconds = round(float(initial_minutes.replace(",", ".")) * 60)
            return {
                "kind": "realtime",
                "initial_seconds": seconds,
                "increment_seconds": int(increment_seconds),
            }
        if kind == "rt":
            initial, increment = rest.split(":")
            return {"kind": "realtime", "initial_seconds": int(initial), "increment_seconds": int(increment)}
        if kind == "cd":
            return {"kind": "correspondence", "days": int(rest)}
    except ValueError:
        raise Invalid(N_("choose a time control from the list, or a custom time in minutes")) from None
    return None


def remembered_time_control(request: Request) -> dict[str, str]:
    """The form's last choice, for the form to come back with it selected."""
    parts = (request.cookies.get(TIME_CONTROL_COOKIE) or "").split("|")
    choice = parts[0] if parts else ""
    return {
        "choice": choice[:20],
        "initial_minutes": parts[1][:8] if len(parts) > 1 else "15",
        "increment_seconds": parts[2][:4] if len(parts) > 2 else "10",
    }


@router.get("/", response_class=HTMLResponse)
def lobby(request: Request, game: str | None = None) -> Response:
    lists = service(request).lobby()
    context = page_context(
        request,
        games=games.all(),
        # A rules page's "play" link names its game; the forms start on it.
        chosen_game=game if game in games.names() else "morris",
        blurbs=GAME_BLURBS,
        lists=lists,
        mine=viewer_hash(request),
        computer_levels=list(texts.STRENGTHS.items()),
        bilsang_rules=[(key, label) for key, (label, _options) in BILSANG_RULES.items()],
        realtime_presets=timing.REALTIME_PRESETS,
        correspondence_days=timing.CORRESPONDENCE_DAYS,
        last_time_control=remembered_time_control(request),
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
) -> Response:
    response = RedirectResponse("/", status_code=303)
    level = computer_level(game, opponent)
    options = rule_options(game, rules)
    control = form_time_control(time_control, initial_minutes, increment_seconds)
    # Cookies first: once the match is committed, nothing may fail to hand the seat over.
    owner = ensure_player(request, response)
    remember_name(response, name)
    response.set_cookie(
        TIME_CONTROL_COOKIE,
        "|".join((time_control, initial_minutes, increment_seconds)),
        max_age=400 * 24 * 3600,
        samesite="lax",
        httponly=True,
    )
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
    )
    response.headers["location"] = f"/matches/{change.match.id}"
    return response


@router.post("/matches/{match_id}/join")
def join_match(request: Request, match_id: str, name: Annotated[str, Form()]) -> Response:
    response = RedirectResponse(f"/matches/{match_id}", status_code=303)
    owner = ensure_player(request, response)
    remember_name(response, name)
    service(request).join(match_id, name, owner)
    return response


def continue_path(request: Request, match: Match, seat_id: int, holder_hash: str | None) -> str:
    # Expiry rounded up to the hour, so the link shown stays the same for a while.
    now = service(request).clock().timestamp()
    expires = int(math.ceil((now + CONTINUE_LIFETIME_SECONDS) / 3600) * 3600)
    code = continue_code(settings(request).secret_key, seat_id, holder_hash, expires)
    return f"/matches/{match.id}/continue/{seat_id}/{expires}/{code}"


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
    translation = i18n.translations(language(request))
    gettext = translation.gettext
    names = {s.side: texts.seat_name(match.game, s, gettext) for s in match.seats}
    # Seats held by accounts: their names are links with a mark (issue 30).
    holders = request.app.state.account_data.usernames(s.token_hash for s in match.seats)
    extra.setdefault(
        "account_names", {s.side: holders[s.token_hash] for s in match.seats if s.token_hash in holders}
    )
    extra.setdefault("timing", clock_state(match, game.to_move(positions[-1]), service(request).clock()))
    # The words static/clocks.js speaks as the viewer's own clock runs low.
    low_time_said = (
        clock_words.low_time_said(translation.gettext, translation.ngettext, extra["timing"]["time_control"])
        if seat is not None and match.status == "playing"
        else ""
    )
    if match.ladder_run_id is not None:
        extra["run"] = request.app.state.ladder.get(match.ladder_run_id)
        extra["clock"] = think_clock(match, request.app.state.matches.clock())
    continue_link = None
    if seat is not None:
        continue_link = absolute_url(request, continue_path(request, match, seat.id, seat.token_hash))
    seat_moved = seat is None and any(same(s.moved_from_hash, viewer) for s in match.seats)
    invite_url = absolute_url(request, f"/matches/{match.id}")
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
        seat_moved=seat_moved,
        against_computer=against_computer,
        sides_top_bottom=(other_side(game, bottom), bottom),
        board=boards.board_data(view),
        click_tree=json.dumps(tree, separators=(",", ":")) if tree else "",
        step_hints=boards.STEP_HINTS,
        turn_hints=boards.bilsang_hints(state) if my_turn and game.name == "bilsang" else [],
        move_rows=boards.move_rows(game, [m.notation for m in match.moves]),
        last_steps=json.dumps(boards.move_steps(game, before, last_notation)),
        last_kind=boards.move_kind(game.name, before, state, last_notation),
        low_time_said=low_time_said,
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
    context = match_context(request, match, at=at)
    return templates.TemplateResponse(request, "match.html", context, headers=NO_STORE)


@router.get("/matches/{match_id}/claims", response_class=HTMLResponse)
def match_claims(request: Request, match_id: str) -> Response:
    """The abandonment claim, polled: an opponent's absence changes no version, so the
    live partial's refresh would not show it."""
    match = service(request).get(match_id)
    return templates.TemplateResponse(request, "partials/claims.html", match_context(request, match))


@router.get("/matches/{match_id}/live", response_class=HTMLResponse)
def match_live(request: Request, match_id: str, at: int | None = None) -> Response:
    """The changing part of the match page; ``at`` shows an earlier position (browsing)."""
    match = service(request).get(match_id)
    context = match_context(request, match, at=at)
    return templates.TemplateResponse(request, "partials/live.html", context, headers=NO_STORE)


def _live_or_redirect(
    request: Request,
    match_id: str,
    error: str | None = None,
    taps: tuple[str, ...] = (),
    status: int = 200,
) -> Response:
    if not is_htmx(request) and error is None:
        return RedirectResponse(f"/matches/{match_id}", status_code=303)
    if not is_htmx(request) and "text/html" not in request.headers.get("accept", ""):
        return JSONResponse({"detail": error}, status_code=status if status >= 400 else 409)
    match = service(request).get(match_id)
    context = match_context(request, match, taps=taps, error=error)
    if not is_htmx(request):
        # A plain form post that was refused: the whole page, with the reason on it.
        return templates.TemplateResponse(
            request, "match.html", context, status_code=status if status >= 400 else 409, headers=NO_STORE
        )
    return templates.TemplateResponse(request, "partials/live.html", context, headers=NO_STORE)


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
            return _live_or_redirect(request, match_id, error=localized(request, exc), status=exc.status_code)
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
