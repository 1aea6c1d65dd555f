"""The challenges' pages: /challenges (yours and for you), the profile's challenge form,
and the header's count, polled on every page of a signed-in player."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.accounts.identity import signed_in
from app.accounts.service import Unauthorized
from app.challenges.api import service
from app.challenges.service import DECLINE_REASONS
from app.forms import form_time_control
from app.models import Account
from app.rate_limits import request_client_hash
from app.services import clocks as timing
from app.services.errors import ServiceError
from app.texts import N_
from app.web import localized, page_context, templates

router = APIRouter(include_in_schema=False)

SIGN_IN = N_("sign in to see your challenges")


def decline_text(key: str | None) -> str:
    """A declined challenge's reason, untranslated (the template translates it). Not
    ``reason_text``: that global is the game results' (app/web.py)."""
    return DECLINE_REASONS.get(key or "generic", DECLINE_REASONS["generic"])


templates.env.globals["decline_text"] = decline_text


def _account(request: Request) -> Account:
    account = signed_in(request)
    if account is None:
        raise Unauthorized(SIGN_IN)
    return account


def _page(request: Request, status: int = 200, error: str | None = None) -> Response:
    account = _account(request)
    context = _lists_context(request, account, error=error)
    return templates.TemplateResponse(request, "challenges.html", context, status_code=status)


def _lists_context(
    request: Request, account: Account, stamp: bool = True, **extra: object
) -> dict[str, object]:
    """The page's and its poll's context: the lists, the reasons to decline, and each
    challenge's time control parsed for its label."""
    lists = service(request).lists(account, stamp=stamp)
    controls = {c["id"]: timing.parse(c["time_control"]) for c in lists["incoming"] + lists["outgoing"]}
    return page_context(
        request, lists=lists, reasons=list(DECLINE_REASONS.items()), controls=controls, **extra
    )


@router.get("/challenges", response_class=HTMLResponse)
def challenges_page(request: Request) -> Response:
    if signed_in(request) is None:
        return RedirectResponse("/signin?next=/challenges", status_code=303)
    return _page(request)


@router.get("/challenges/panel", response_class=HTMLResponse)
def challenges_panel(request: Request) -> Response:
    """The lists, polled by the challenges page: keeps the challenger present, and sends
    it to the match (``HX-Redirect``) once a challenge of its is accepted."""
    account = _account(request)
    _count, accepted = service(request).waiting_for(account)
    if accepted is not None:
        return Response(status_code=204, headers={"HX-Redirect": f"/matches/{accepted}"})
    return templates.TemplateResponse(
        # waiting_for has just stamped the presence: once a poll, not twice.
        request,
        "partials/challenge_lists.html",
        _lists_context(request, account, stamp=False),
    )


@router.get("/challenges/badge", response_class=HTMLResponse)
def challenges_badge(request: Request) -> Response:
    """The header's link with the number of challenges waiting for you (polled every 10 s
    on every page of a signed-in player: it also keeps your real-time challenges alive),
    and a link to the match when one of yours was accepted."""
    account = signed_in(request)
    if account is None:
        return Response("", media_type="text/html")
    count, accepted = service(request).waiting_for(account)
    if accepted is not None and _on_challenges_page(request):
        # The acceptance is told once, to whichever poll asks first: on the challenges
        # page the header's may beat the page's own (every 10 s against every 3 s), and
        # a link in the header then stood where the page promised to go to the match.
        return Response(status_code=204, headers={"HX-Redirect": f"/matches/{accepted}"})
    context = page_context(request, count=count, accepted=accepted)
    return templates.TemplateResponse(request, "partials/challenge_badge.html", context)


def _on_challenges_page(request: Request) -> bool:
    """Whether the polling page is /challenges (htmx names it in HX-Current-URL)."""
    return urlsplit(request.headers.get("hx-current-url", "")).path == "/challenges"


@router.post("/challenges", response_class=HTMLResponse)
def challenge_form(
    request: Request,
    to: Annotated[str, Form(max_length=40)],
    game: Annotated[str, Form(max_length=32)],
    time_control: Annotated[str, Form(max_length=40)] = "",
    rated: Annotated[str, Form(max_length=8)] = "",
    side: Annotated[str, Form(max_length=8)] = "random",
) -> Response:
    """The profile's form: the API's rules and refusals, answered on the profile page."""
    account = _account(request)
    try:
        control = form_time_control(time_control, "", "0")
        service(request).create(
            account,
            to,
            game,
            control,
            rated == "true",
            side,
            client_key=request_client_hash(request.scope),
        )
    except ServiceError as exc:
        return _page(request, exc.status_code, localized(request, exc))
    return RedirectResponse("/challenges", status_code=303)


@router.post("/challenges/{challenge_id}/answer", response_class=HTMLResponse)
def answer_form(
    request: Request,
    challenge_id: str,
    action: Annotated[str, Form(max_length=8)],
    reason: Annotated[str, Form(max_length=16)] = "generic",
) -> Response:
    account = _account(request)
    try:
        if action == "accept":
            match_id = service(request).accept(account, challenge_id[:16])
            return RedirectResponse(f"/matches/{match_id}", status_code=303)
        if action == "decline":
            service(request).decline(account, challenge_id[:16], reason)
        elif action == "cancel":
            service(request).cancel(account, challenge_id[:16])
    except ServiceError as exc:
        return _page(request, exc.status_code, localized(request, exc))
    return RedirectResponse("/challenges", status_code=303)
