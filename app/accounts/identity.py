"""Who is asking: the signed-in account (from the session cookie) or the guest token.

``web.viewer_hash`` and ``web.ensure_player`` ask ``signed_in`` first: a signed-in
browser's identity is its account's ``holder``, so every seat and run the account holds
is found by any of its sessions, and a seat created while signed in belongs to it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fastapi import Request, Response

if TYPE_CHECKING:
    from app.models import Account

SESSION_COOKIE = "tablero_session"
_UNKNOWN = object()


def session_id(request: Request) -> str | None:
    value = request.cookies.get(SESSION_COOKIE)
    if value is None or not 20 <= len(value) <= 100:
        return None
    return value


def signed_in(request: Request) -> Account | None:
    """The account this request's session cookie signs in (looked up once per request)."""
    found = getattr(request.state, "account", _UNKNOWN)
    if found is not _UNKNOWN:
        return found  # type: ignore[return-value]
    value = session_id(request)
    accounts = getattr(request.app.state, "accounts", None)
    account = accounts.account_of_session(value) if value and accounts is not None else None
    request.state.account = account
    return account


def set_session_cookie(request: Request, response: Response, value: str) -> None:
    """HttpOnly, SameSite=Lax, Secure behind HTTPS; a session cookie lives as long as the
    player cookie (the server forgets an idle session sooner, see service.SESSION_IDLE)."""
    from app.web import COOKIE_MAX_AGE, settings

    response.set_cookie(
        SESSION_COOKIE,
        value,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=settings(request).secure_cookies,
        path="/",
    )
    request.state.account = _UNKNOWN  # later code in this request asks again


def clear_session_cookie(request: Request, response: Response) -> None:
    from app.web import settings

    response.delete_cookie(
        SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=settings(request).secure_cookies
    )
    request.state.account = None
