"""The accounts' pages: sign up, sign in, the account's settings, profiles ``/@/{name}``.

Forms post here (covered by the same-origin check like every form); the passkey buttons
call the JSON API from ``static/accounts.js``. A refusal shows the form again with the
reason in the reader's language.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

import games
from app.accounts import identity
from app.accounts.api import (
    account_data,
    accounts,
    client,
    device,
    guest_hash,
    signed_in_answer,
)
from app.accounts.service import PREFERENCES, SignedIn, preferences_of
from app.db import read_session
from app.i18n import LANG_COOKIE
from app.rate_limits import TooManyRequests
from app.ratings import history
from app.ratings.api import ratings_of
from app.services import clocks as timing
from app.services.errors import ServiceError
from app.texts import N_
from app.web import COOKIE_MAX_AGE, localized, page_context, templates

router = APIRouter(include_in_schema=False)
NO_STORE = {"Cache-Control": "no-store"}
TOO_MANY = N_("too many attempts; please wait %(seconds)s seconds")


def _safe_next(target: str) -> str:
    """Only a path on this site (never //host or a scheme): no open redirect."""
    if target.startswith("/") and not target.startswith("//") and "\\" not in target and len(target) < 300:
        return target
    return "/games"


def _refusal(request: Request, exc: Exception) -> tuple[str, int, dict[str, str]]:
    if isinstance(exc, TooManyRequests):
        gettext = page_context(request)["_"]
        return gettext(TOO_MANY) % {"seconds": exc.retry_after}, 429, {"Retry-After": str(exc.retry_after)}
    assert isinstance(exc, ServiceError)
    return localized(request, exc), exc.status_code, {}


def _page(
    request: Request, name: str, status: int = 200, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    return templates.TemplateResponse(
        request,
        name,
        page_context(request, **extra),
        status_code=status,
        headers={**NO_STORE, **(headers or {})},
    )


def _welcome(request: Request, signed: SignedIn) -> Response:
    """After a sign-up: the recovery codes, shown this once, and the session cookie; the
    page's header already shows the new account."""
    answer = signed_in_answer(request, signed, 200, {})
    request.state.account = accounts(request).account_of_session(signed.session_id)
    page = _page(
        request, "accounts/codes.html", codes=signed.recovery_codes, username=signed.username, new=True
    )
    for cookie in answer.headers.getlist("set-cookie"):
        page.headers.append("set-cookie", cookie)
    return page


def _redirect_signed_in(request: Request, signed: SignedIn, target: str) -> Response:
    answer = signed_in_answer(request, signed, 200, {})
    response = RedirectResponse(_safe_next(target), status_code=303)
    for cookie in answer.headers.getlist("set-cookie"):
        response.headers.append("set-cookie", cookie)
    prefs = accounts(request).summary(signed.account_id)["preferences"]
    if prefs.get("language"):
        response.set_cookie(LANG_COOKIE, prefs["language"], max_age=COOKIE_MAX_AGE, samesite="lax")
    return response


# ------------------------------------------------------------------ sign up, sign in


@router.get("/whoami", response_class=HTMLResponse)
def whoami(request: Request, in_game: bool = False) -> Response:
    """The header's "who you are", asked again by a page when another tab of the same
    browser signed in or out (site.js): a game page opened as a guest shows the account
    its seat now belongs to without a reload."""
    context = page_context(request, who=identity.signed_in(request), in_game=in_game)
    return templates.TemplateResponse(request, "partials/whoami.html", context, headers=NO_STORE)


@router.get("/signup", response_class=HTMLResponse)
def signup_page(request: Request) -> Response:
    if identity.signed_in(request) is not None:
        return RedirectResponse("/account", status_code=303)
    return _page(request, "accounts/signup.html", username="")


@router.post("/signup")
def signup(
    request: Request,
    username: Annotated[str, Form(max_length=200)],
    password: Annotated[str, Form(max_length=1000)],
) -> Response:
    try:
        from app.accounts.credentials import check_password
        from app.accounts.usernames import check_username

        check_username(username)
        check_password(password)
        accounts(request).count_sign_up(client(request))
        signed = accounts(request).sign_up(username, password, guest_hash(request), device(request))
    except (ServiceError, TooManyRequests) as exc:
        message, status, headers = _refusal(request, exc)
        return _page(request, "accounts/signup.html", status, headers, username=username[:20], error=message)
    return _welcome(request, signed)


@router.get("/signin", response_class=HTMLResponse)
def signin_page(request: Request, next: str = "/games") -> Response:  # noqa: A002
    return _page(request, "accounts/signin.html", username="", next=_safe_next(next))


@router.post("/signin")
def signin(
    request: Request,
    username: Annotated[str, Form(max_length=200)],
    password: Annotated[str, Form(max_length=1000)] = "",
    recovery_code: Annotated[str, Form(max_length=100)] = "",
    next: Annotated[str, Form(max_length=300)] = "/games",  # noqa: A002
) -> Response:
    recovery = bool(recovery_code) and not password
    try:
        signed = accounts(request).sign_in(
            username,
            recovery_code if recovery else password,
            client(request),
            guest_hash(request),
            device(request),
            recovery=recovery,
        )
    except (ServiceError, TooManyRequests) as exc:
        message, status, headers = _refusal(request, exc)
        return _page(
            request,
            "accounts/signin.html",
            status,
            headers,
            username=username[:20],
            next=_safe_next(next),
            error=message,
        )
    return _redirect_signed_in(request, signed, next)


@router.post("/signout")
def signout(request: Request) -> Response:
    response = RedirectResponse("/", status_code=303)
    value = identity.session_id(request)
    if value:
        accounts(request).end_session(value)
    identity.clear_session_cookie(request, response)
    return response


# ------------------------------------------------------------------ settings


def _settings(request: Request, status: int = 200, **extra: Any) -> Response:
    account = identity.signed_in(request)
    if account is None:
        return RedirectResponse("/signin?next=/account", status_code=303)
    service = accounts(request)
    email = getattr(request.app.state, "email", None)
    context = {
        "account": service.summary(account.id),
        "devices": service.devices(account.id, identity.session_id(request) or ""),
        "codes_left": service.recovery_codes_left(account.id),
        "choices": PREFERENCES,
        # Issue 32: the email section, only where the site sends email.
        "email_offered": email is not None,
        "email": email.state(account.id) if email is not None else None,
        # Issue 33: a moderator's way to the reports (looked up here, not in every header).
        "moderator": request.app.state.moderation.is_moderator(account),
        **extra,
    }
    return _page(request, "accounts/settings.html", status, **context)


@router.get("/account", response_class=HTMLResponse)
def settings_page(request: Request) -> Response:
    return _settings(request)


@router.post("/account/password")
def password_form(
    request: Request,
    password: Annotated[str, Form(max_length=1000)],
    current_password: Annotated[str, Form(max_length=1000)] = "",
) -> Response:
    account = identity.signed_in(request)
    if account is None:
        return RedirectResponse("/signin?next=/account", status_code=303)
    try:
        accounts(request).set_password(account.id, password, current_password or None)
    except ServiceError as exc:
        message, status, _ = _refusal(request, exc)
        return _settings(request, status, password_error=message)
    return _settings(request, notice=N_("Your password is saved."))


@router.post("/account/recovery-codes")
def codes_form(request: Request) -> Response:
    account = identity.signed_in(request)
    if account is None:
        return RedirectResponse("/signin?next=/account", status_code=303)
    codes = accounts(request).new_recovery_codes(account.id)
    return _page(request, "accounts/codes.html", codes=codes, username=account.username, new=False)


@router.post("/account/sessions/end")
def end_others_form(request: Request) -> Response:
    account = identity.signed_in(request)
    if account is None:
        return RedirectResponse("/signin?next=/account", status_code=303)
    accounts(request).end_other_sessions(account.id, identity.session_id(request) or "")
    return _settings(request, notice=N_("Every other device is signed out."))


@router.post("/account/preferences")
async def preferences_form(request: Request) -> Response:
    account = identity.signed_in(request)
    if account is None:
        return RedirectResponse("/signin?next=/account", status_code=303)
    form = await request.form()
    changes: dict[str, Any] = {}
    for key, allowed in PREFERENCES.items():
        value: Any = form.get(key)
        if allowed == (True, False):
            value = value == "on"
        if value in allowed:
            changes[key] = value
    kept = accounts(request).set_preferences(account.id, changes)
    response = _settings(request, notice=N_("Your preferences are saved."))
    if kept.get("language"):
        response.set_cookie(LANG_COOKIE, kept["language"], max_age=COOKIE_MAX_AGE, samesite="lax")
    return response


@router.post("/account/close")
def close_form(request: Request, password: Annotated[str, Form(max_length=1000)] = "") -> Response:
    account = identity.signed_in(request)
    if account is None:
        return RedirectResponse("/signin?next=/account", status_code=303)
    try:
        account_data(request).check_password(account.id, password)
    except ServiceError as exc:
        message, status, _ = _refusal(request, exc)
        return _settings(request, status, close_error=message)
    account_data(request).close(account.id)
    response = RedirectResponse("/", status_code=303)
    identity.clear_session_cookie(request, response)
    return response


# ------------------------------------------------------------------ profiles


@router.get("/@/{username}", response_class=HTMLResponse)
def profile_page(request: Request, username: str) -> Response:
    profile = account_data(request).profile(username)
    with read_session(request.app.state.sessions) as db:
        # Issue 31: each rating with its "?" and games, its history, each game's change.
        rated = ratings_of(db, username)
        charts = history.charts_of(db, username) if rated else []
        deltas = history.deltas_of(db, username, [g["id"] for g in profile["recent"]]) if rated else {}
    shown = {"ratings": rated, "charts": charts, "deltas": deltas, "box": history.BOX}
    context = page_context(request, profile=profile, **shown, **CHALLENGE_FORM)
    return templates.TemplateResponse(request, "accounts/profile.html", context)


#: What the profile's "Challenge" form offers (issue 32): the games and time controls.
CHALLENGE_FORM = {
    "challenge_games": games.all(),
    "realtime_presets": timing.REALTIME_PRESETS,
    "correspondence_days": timing.CORRESPONDENCE_DAYS,
}


__all__ = ["preferences_of", "router"]
