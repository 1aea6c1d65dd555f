"""Request helpers shared by the page, API and event routes."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

from fastapi import Request, Response
from fastapi.templating import Jinja2Templates

import games
from app import i18n, texts
from app.config import ROOT, Settings
from app.services.tokens import PLAYER_COOKIE, new_token, token_hash

COOKIE_MAX_AGE = 400 * 24 * 3600  # browsers cap cookie lifetimes near 400 days


def settings(request: Request) -> Settings:
    return request.app.state.settings


def player_token(request: Request) -> str | None:
    token = request.cookies.get(PLAYER_COOKIE)
    if token is None or not 20 <= len(token) <= 100:
        return None
    return token


def viewer_hash(request: Request) -> str | None:
    token = player_token(request)
    return token_hash(token) if token else None


def ensure_player(request: Request, response: Response) -> str:
    """This browser's player token hash, giving it a new token cookie if it has none."""
    token = player_token(request)
    if token is None:
        token = new_token()
        set_player_cookie(request, response, token)
        # Later code in this request must see the new token too.
        request.state.new_player_token = token
    return token_hash(token)


def set_player_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        PLAYER_COOKIE,
        token,
        max_age=COOKIE_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=settings(request).secure_cookies,
        path="/",
    )


def language(request: Request) -> str:
    return i18n.negotiate(request.cookies.get(i18n.LANG_COOKIE), request.headers.get("accept-language"))


templates = Jinja2Templates(directory=str(ROOT / "templates"))
templates.env.globals["LANGUAGES"] = i18n.LANGUAGES
templates.env.globals["side_label"] = texts.side_label
templates.env.globals["reason_text"] = texts.reason_text
templates.env.filters["title_of"] = lambda name: games.get(name).title


def page_context(request: Request, **extra: Any) -> dict[str, Any]:
    lang = language(request)
    translation = i18n.translations(lang)
    context: dict[str, Any] = {
        "request": request,
        "lang": lang,
        "_": translation.gettext,
        "ngettext": translation.ngettext,
        "my_name": remembered_name(request),
    }
    context.update(extra)
    return context


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


NAME_COOKIE = "tablero_name"


def remember_name(response: Response, name: str) -> None:
    """Keep the last display name so the next form comes filled in (one-click joins).

    Percent-encoded: a header holds only Latin-1, and names are any Unicode. Call it
    before the change is committed, so a failure here commits nothing.
    """
    value = quote(" ".join(name.split())[:32], safe="")
    response.set_cookie(NAME_COOKIE, value, max_age=COOKIE_MAX_AGE, samesite="lax", httponly=True)


def remembered_name(request: Request) -> str:
    return unquote(request.cookies.get(NAME_COOKIE) or "", errors="replace")[:32]


def absolute_url(request: Request, path: str) -> str:
    """An absolute link to ``path`` for people to copy: from PUBLIC_URL when it is set,
    never from a Host header an attacker chose; from the request only in development."""
    public = settings(request).public_url
    if public:
        return public.rstrip("/") + path
    return str(request.base_url).rstrip("/") + path
