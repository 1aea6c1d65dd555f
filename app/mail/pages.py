"""The links in mails (``/email/verify``, ``/email/unsubscribe``) and the settings page's
email forms.

A link works from any browser, signed in or not: its token is the proof. A tampered,
expired or outdated link is a page saying so, with status 400. ``/email/unsubscribe``
also takes a POST (RFC 8058 one-click, what a mail program sends from the
``List-Unsubscribe`` header; it carries no Origin, so the same-origin check lets it in).
Unsubscribing works even where the site no longer sends email: it only turns a switch off.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.accounts import identity
from app.accounts.pages import NO_STORE, TOO_MANY, _settings
from app.mail.api import offered
from app.mail.service import EmailService
from app.rate_limits import TooManyRequests
from app.services.errors import ServiceError
from app.texts import N_
from app.web import localized, page_context, templates

router = APIRouter(include_in_schema=False)

VERIFIED = N_("Your email address %(address)s is confirmed.")
UNSUBSCRIBED = N_(
    "You will get no more daily emails from Tablero. You can turn them on again in your account's settings."
)


def _done(request: Request, text: str, status: int = 200) -> Response:
    """The page a link opens: what it did, or why it did nothing (``text`` already in the
    reader's language)."""
    context = page_context(request, message=text, failed=status >= 400)
    return templates.TemplateResponse(
        request, "accounts/email_link.html", context, status_code=status, headers=NO_STORE
    )


@router.get("/email/verify", response_class=HTMLResponse)
def verify(request: Request, token: str = "") -> Response:
    try:
        address = offered(request).verify(token)
    except ServiceError as exc:
        return _done(request, localized(request, exc), exc.status_code)
    return _done(request, page_context(request)["_"](VERIFIED) % {"address": address})


def _unsubscribe(request: Request, token: str) -> Response:
    # Made whether or not the site sends email (app/mail/wiring.py).
    service: EmailService = request.app.state.email_links
    try:
        service.unsubscribe(token)
    except ServiceError as exc:
        return _done(request, localized(request, exc), exc.status_code)
    return _done(request, page_context(request)["_"](UNSUBSCRIBED))


@router.get("/email/unsubscribe", response_class=HTMLResponse)
def unsubscribe_page(request: Request, token: str = "") -> Response:
    return _unsubscribe(request, token)


@router.post("/email/unsubscribe", response_class=HTMLResponse)
def unsubscribe_one_click(request: Request, token: str = "") -> Response:
    return _unsubscribe(request, token)


# ------------------------------------------------------------------ the settings page


def _refused(request: Request, exc: Exception) -> Response:
    if isinstance(exc, TooManyRequests):
        gettext = page_context(request)["_"]
        message = gettext(TOO_MANY) % {"seconds": exc.retry_after}
        response = _settings(request, 429, email_error=message)
        response.headers["Retry-After"] = str(exc.retry_after)
        return response
    assert isinstance(exc, ServiceError)
    return _settings(request, exc.status_code, email_error=localized(request, exc))


def _form(request: Request, change: Any) -> Response:
    account = identity.signed_in(request)
    if account is None:
        return RedirectResponse("/signin?next=/account", status_code=303)
    try:
        notice = change(offered(request), account.id)
    except (ServiceError, TooManyRequests) as exc:
        return _refused(request, exc)
    return _settings(request, notice=notice)


@router.post("/account/email")
def email_form(request: Request, email: Annotated[str, Form(max_length=1000)] = "") -> Response:
    def change(service: EmailService, account_id: int) -> str:
        service.set_address(account_id, email)
        return N_("If the address is right, a link to confirm it is on its way. It works for 24 hours.")

    return _form(request, change)


@router.post("/account/email/remove")
def remove_form(request: Request) -> Response:
    def change(service: EmailService, account_id: int) -> str:
        service.remove(account_id)
        return N_("Your email address is removed.")

    return _form(request, change)


@router.post("/account/email/digest")
def digest_form(request: Request, digest: Annotated[str, Form(max_length=10)] = "") -> Response:
    def change(service: EmailService, account_id: int) -> str:
        on = service.set_digest(account_id, digest == "on")["digest"]
        return N_("The daily email is on.") if on else N_("The daily email is off.")

    return _form(request, change)
