"""The moderation page (issue 33): open reports with their lines, the three decisions,
and the log of what moderators did. Moderators only (403 for anyone else)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Path, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.accounts.identity import signed_in
from app.chat.api import moderation
from app.texts import N_
from app.web import page_context, templates

router = APIRouter(include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}

#: How each decision is named on the page and in the log.
ACTION_WORDS = {
    "timeout": N_("Time out for 15 minutes"),
    "mute": N_("Mute for good"),
    "dismiss": N_("Dismiss"),
}


def moderation_page(request: Request, done: str | None = None) -> Response:
    me = signed_in(request)
    service = moderation(request)
    context = page_context(
        request,
        reports=service.open_reports(me),
        log=service.log(me),
        actions=ACTION_WORDS,
        done=done,
    )
    return templates.TemplateResponse(request, "moderation.html", context, headers=NO_STORE)


@router.get("/moderation", response_class=HTMLResponse)
def moderation_get(request: Request) -> Response:
    return moderation_page(request)


@router.post("/moderation/reports/{report_id}")
def moderation_decide(
    request: Request,
    report_id: Annotated[int, Path(ge=1, le=2**31 - 1)],
    action: Annotated[str, Form(max_length=16)],
) -> Response:
    """Time out, mute or dismiss; back to the page (303), the decision in the log."""
    moderation(request).decide(signed_in(request), report_id, action)
    return RedirectResponse("/moderation", status_code=303)
