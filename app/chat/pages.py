"""The chat's pages: the match page's chat panel (its rooms are re-fetched on the event
stream's ``chat`` event) and its forms. Every form asks the same services as the JSON API;
a refusal is shown in the panel in the reader's language (htmx), or as the error page."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app import i18n
from app.accounts.identity import signed_in
from app.accounts.service import preferences_of
from app.chat.api import chat, gettext, safety, viewer
from app.chat.phrases import phrase_list
from app.chat.service import ROOMS
from app.services.errors import ServiceError
from app.texts import N_
from app.web import ensure_player, is_htmx, language, localized, page_context, templates

router = APIRouter(include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}

ROOM_TITLES = {"players": N_("Players"), "spectators": N_("Spectators")}


def chat_on(request: Request) -> bool:
    """The account's preference (on unless turned off in the account's settings)."""
    account = signed_in(request)
    return account is None or preferences_of(account).get("chat", True) is not False


def rooms_context(
    request: Request, match_id: str, note: str | None = None, error: str | None = None
) -> dict[str, Any]:
    """What the panel shows this reader: the rooms it may read, whether it may write
    (and free text), its mute; all decided here, the page only shows it."""
    service, who = chat(request), viewer(request)
    place = service.access(match_id, who)
    muted = service.muted(match_id, who.hash)
    words = gettext(request)
    rooms = []
    for room in ROOMS:
        if not place.may_read(room):
            continue
        lines = [] if muted else service.lines(match_id, room, who, words)
        rooms.append({"name": room, "title": ROOM_TITLES[room], "lines": lines})
    writable = next((r for r in ROOMS if place.may_write(r, who.account is not None)), None)
    return {
        "match_id": match_id,
        "rooms": rooms,
        "muted": muted,
        "writable": writable,
        "side": place.side,
        "signed_in": who.account is not None,
        # A report needs someone to file it (a seat's token or an account).
        "can_report": who.hash is not None,
        "my_name": who.account.username if who.account else None,
        "note": note,
        "error": error,
    }


def panel_context(request: Request, match_id: str) -> dict[str, Any]:
    """The whole panel: the rooms and, when the reader may write, the phrases and the
    free-text box (only for accounts that may write free text)."""
    if not chat_on(request):
        return {"off": True, "match_id": match_id}
    context = rooms_context(request, match_id)
    context["off"] = False
    context["phrases"] = phrase_list(gettext(request)) if context["writable"] else []
    context["free_text"] = bool(context["writable"]) and chat(request).text_allowed(signed_in(request))
    return context


def record_lines(request: Request, match_id: str) -> list[dict[str, Any]]:
    """The players' room for the match's record (analysis) page: its players' only."""
    who = viewer(request)
    service = chat(request)
    if who.hash is None or not service.access(match_id, who).may_read("players"):
        return []
    return service.lines(match_id, "players", who, gettext(request))


templates.env.globals["chat_panel"] = panel_context
templates.env.globals["chat_shown"] = chat_on
templates.env.globals["chat_record"] = record_lines


def _rooms(request: Request, match_id: str, note: str | None = None, error: str | None = None) -> Response:
    context = page_context(request, chat=rooms_context(request, match_id, note=note, error=error))
    return templates.TemplateResponse(request, "partials/chat_rooms.html", context, headers=NO_STORE)


def _answer(request: Request, match_id: str, note: str | None = None) -> Response:
    if is_htmx(request):
        return _rooms(request, match_id, note=note)
    return RedirectResponse(f"/matches/{match_id}", status_code=303)


def _refused(request: Request, match_id: str, exc: ServiceError) -> Response:
    """htmx: the rooms with the reason (200, so htmx swaps it); a plain form: the error page."""
    if not is_htmx(request):
        raise exc
    return _rooms(request, match_id, error=localized(request, exc))


@router.get("/matches/{match_id}/chat", response_class=HTMLResponse)
def chat_rooms(request: Request, match_id: str) -> Response:
    """The rooms as this reader sees them now (fetched on the stream's ``chat`` event)."""
    return _rooms(request, match_id[:32])


@router.post("/matches/{match_id}/chat", response_class=HTMLResponse)
def chat_say(
    request: Request,
    match_id: str,
    room: Annotated[str, Form(max_length=16)],
    phrase: Annotated[str | None, Form(max_length=32)] = None,
    text: Annotated[str | None, Form(max_length=20_000)] = None,
) -> Response:
    said = text if phrase is None else None
    try:
        chat(request).say(match_id[:32], room, viewer(request), gettext(request), phrase=phrase, said=said)
    except ServiceError as exc:
        return _refused(request, match_id[:32], exc)
    answer = _answer(request, match_id[:32])
    # Said: the page empties its text box (a refusal keeps what was typed).
    answer.headers["HX-Trigger"] = "tablero-chat-said"
    return answer


@router.post("/matches/{match_id}/chat/mute")
def chat_mute(request: Request, match_id: str, muted: Annotated[str, Form(max_length=1)] = "1") -> Response:
    """Mute (or unmute) this match's chat for this browser or account."""
    response = RedirectResponse(f"/matches/{match_id[:32]}#chat", status_code=303)
    chat(request).set_muted(match_id[:32], ensure_player(request, response), muted == "1")
    return response


@router.post("/matches/{match_id}/chat/block", response_class=HTMLResponse)
def chat_block(request: Request, match_id: str, username: Annotated[str, Form(max_length=40)]) -> Response:
    response = _answer(request, match_id[:32])
    try:
        safety(request).block(ensure_player(request, response), username, signed_in(request))
    except ServiceError as exc:
        return _refused(request, match_id[:32], exc)
    words = i18n.translations(language(request)).gettext
    answer = _answer(request, match_id[:32], note=words(N_("Blocked: you will not see their lines.")))
    for key, value in response.headers.items():  # a new guest's player cookie
        if key == "set-cookie":
            answer.headers.append(key, value)
    return answer


@router.post("/matches/{match_id}/chat/report", response_class=HTMLResponse)
def chat_report(
    request: Request,
    match_id: str,
    username: Annotated[str, Form(max_length=40)],
    reason: Annotated[str, Form(max_length=2000)],
    line_id: Annotated[int | None, Form(ge=1, le=2**31 - 1)] = None,
) -> Response:
    try:
        safety(request).report(viewer(request), username, reason, line_id)
    except ServiceError as exc:
        return _refused(request, match_id[:32], exc)
    words = i18n.translations(language(request)).gettext
    return _answer(request, match_id[:32], note=words(N_("Reported. A moderator will look at it.")))
