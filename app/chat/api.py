"""The chat's JSON API (issue 33): phrases, a match's rooms, blocks and reports."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response

from app import i18n
from app.accounts.identity import signed_in
from app.chat.moderation import Moderation
from app.chat.phrases import phrase_list
from app.chat.safety import Safety
from app.chat.schemas import (
    READS,
    WRITES,
    Line,
    Lines,
    LineSay,
    Phrases,
    ReportCreate,
    ReportCreated,
    Room,
    refusals,
)
from app.chat.service import ChatService, Viewer
from app.rate_limits import request_client_hash
from app.web import ensure_player, language, viewer_hash

router = APIRouter(prefix="/api", tags=["chat"])
MatchId = Annotated[str, Path(max_length=32)]
Username = Annotated[str, Path(max_length=40)]


def chat(request: Request) -> ChatService:
    return request.app.state.chat


def safety(request: Request) -> Safety:
    return request.app.state.chat_safety


def moderation(request: Request) -> Moderation:
    return request.app.state.moderation


def viewer(request: Request, hash_: str | None = None) -> Viewer:
    """Who asks, as the chat's rules need it."""
    return Viewer(
        hash=hash_ if hash_ is not None else viewer_hash(request),
        account=signed_in(request),
        client=request_client_hash(request.scope),
    )


def gettext(request: Request) -> Any:
    return i18n.translations(language(request)).gettext


@router.get(
    "/chat/phrases", response_model=Phrases, responses=refusals(429, 503), operation_id="chat_phrases"
)
def phrases(request: Request) -> dict[str, Any]:
    """The phrases anyone may say, each by its key and in the reader's language."""
    return {"phrases": phrase_list(gettext(request))}


@router.get("/matches/{match_id}/chat", response_model=Lines, responses=READS, operation_id="chat_lines")
def lines(match_id: MatchId, request: Request, room: Annotated[Room, Query()] = "players") -> dict[str, Any]:
    """A room's last 100 lines, oldest first, as this reader may see them: the players'
    room for the two seats; the spectators' room for anyone but the players, who read it
    once the game is over (else 403). Lines of accounts the reader blocked are left out.
    ``phrase`` is the key of a phrase (``text`` is then the phrase in the reader's
    language) or null (``text`` is the free text as typed: escape it when showing it)."""
    return {"lines": chat(request).lines(match_id, room, viewer(request), gettext(request))}


@router.post(
    "/matches/{match_id}/chat",
    status_code=201,
    response_model=Line,
    responses=WRITES,
    operation_id="chat_say",
)
def say(match_id: MatchId, body: LineSay, request: Request) -> dict[str, Any]:
    """Say a phrase (``{"room", "phrase"}``) or free text (``{"room", "text"}``).
    The players' room is the two seats'; the spectators' room is signed-in spectators'.
    403 for a room you may not write in (or a moderator's timeout); 422 for free text
    from a guest or an account under a day old or with fewer than 3 finished games, or a
    bad line; 429 (with Retry-After) past 4 lines in 10 s or for the same line within a
    minute."""
    return chat(request).say(
        match_id, body.room, viewer(request), gettext(request), phrase=body.phrase, said=body.text
    )


@router.post(
    "/users/{username}/block",
    status_code=204,
    responses=refusals(400, 403, 404, 413, 422, 429, 503),
    operation_id="block_user",
)
def block(username: Username, request: Request) -> Response:
    """Block an account: its chat lines are no longer shown to you, and "Play anyone"
    never pairs the two of you. Works for a guest too (kept with this browser's player
    cookie). 404 for an unknown name, as the public profile answers."""
    response = Response(status_code=204)
    me = ensure_player(request, response)
    safety(request).block(me, username, signed_in(request))
    return response


@router.delete(
    "/users/{username}/block",
    status_code=204,
    responses=refusals(403, 404, 422, 429, 503),
    operation_id="unblock_user",
)
def unblock(username: Username, request: Request) -> Response:
    """Unblock an account (nothing to do if it was not blocked)."""
    me = viewer_hash(request)
    if me is not None:
        safety(request).unblock(me, username)
    return Response(status_code=204)


@router.post(
    "/reports",
    status_code=201,
    response_model=ReportCreated,
    responses=WRITES,
    operation_id="create_report",
)
def report(body: ReportCreate, request: Request) -> dict[str, Any]:
    """Report an account, or one of its lines (``line_id``), with a reason; moderators
    see it with the lines around it. 403 without a seat or an account (nothing to
    report from); 404 for an unknown account or a line you cannot read or that is not
    that account's; 429 past 5 reports in 10 minutes."""
    return safety(request).report(viewer(request), body.username, body.reason, body.line_id)
