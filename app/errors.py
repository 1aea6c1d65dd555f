"""The site's refusals and errors, as JSON for the API and as a page in the reader's
language: the exception handlers, the answer ``MoveCalls`` and ``Hardening`` give for a
refused move or a crash, and the 405's ``Allow``."""

from __future__ import annotations

from collections.abc import Iterator
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import DataError, SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

import games
from app.db import unavailable
from app.rate_limits import TooManyRequests
from app.security import Scope
from app.services.errors import Invalid, ServiceError
from app.texts import N_
from app.web import localized, page_context, templates
from games.base import GameError

#: Seconds a client is asked to wait when the database cannot serve (503).
RETRY_AFTER_UNAVAILABLE = 5
UNAVAILABLE = N_("the database is unavailable for a moment; please try again shortly")
INTERNAL = N_("something went wrong on our side; please try again")
#: A refusal's message echoes what was asked for (an id, a name); never at any length.
MAX_MESSAGE = 300


def _every_route(routes: list[Any]) -> Iterator[Any]:
    """The routes, with those of each included router (FastAPI keeps an included router as
    one entry that matches for its first route only; ours are included without a prefix)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _every_route(inner.routes)
        else:
            yield route


def _allowed_methods(app: FastAPI, request: Request) -> set[str]:
    """Every method some route serves at this path: Starlette names only the first route's,
    and a path with a GET and a POST handler (a review) is two routes."""
    methods: set[str] = set()
    for route in _every_route(app.router.routes):
        match, _ = route.matches(request.scope)
        if match is not Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    if "GET" in methods:
        methods.add("HEAD")
    return methods


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "text/html" not in request.headers.get("accept", "")


def _clip(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _error_response(
    request: Request, status: int, error: object, headers: dict[str, str] | None = None
) -> Response:
    """JSON keeps the English message (the API's contract); a page says it in the reader's language."""
    if len(request.url.path) > MAX_MESSAGE:
        # The page's language links repeat the path: not a 20 KB one.
        request = Request({**request.scope, "path": "/", "raw_path": b"/"}, request.receive)
    # A refusal may say more than its sentence (the games a limit counted: fairness.py).
    more = error.body() if callable(getattr(error, "body", None)) else {}  # type: ignore[attr-defined]
    if _wants_json(request):
        return JSONResponse({"detail": _clip(str(error)), **more}, status_code=status, headers=headers)
    context = page_context(request, status=status, message=_clip(localized(request, error)), more=more)
    return templates.TemplateResponse(request, "error.html", context, status_code=status, headers=headers)


def _unavailable_response(request: Request) -> Response:
    return _error_response(request, 503, UNAVAILABLE, {"Retry-After": str(RETRY_AFTER_UNAVAILABLE)})


async def render_server_error(scope: Scope, exc: Exception) -> Response:
    request = Request(scope)
    if unavailable(exc):
        return _unavailable_response(request)
    return _error_response(request, 500, INTERNAL)


def refusal(request: Request, exc: Exception) -> Response | None:
    """The answer to a refusal raised by a service, a game or the database, or ``None``
    for any other exception (a 500). The exception handlers and ``MoveCalls`` use it."""
    if isinstance(exc, ServiceError):
        # A refusal may carry headers of its own (the chat's 429 says Retry-After).
        return _error_response(request, exc.status_code, exc, getattr(exc, "headers", None))
    if isinstance(exc, GameError):
        return _error_response(request, 422, exc)
    if isinstance(exc, TooManyRequests):
        return _error_response(request, 429, str(exc), {"Retry-After": str(exc.retry_after)})
    if isinstance(exc, SQLAlchemyError) and unavailable(exc):
        return _unavailable_response(request)
    if isinstance(exc, DataError) and "NUL" in str(exc.orig):
        # PostgreSQL refuses NUL in text (SQLite stores it). Fields that reach the database
        # are checked where they are read; this is the net for one that is not: the
        # statement failed, its transaction rolled back, and nothing changed.
        return _error_response(request, 422, Invalid(N_("text may not contain the NUL character")))
    return None


#: Starlette's own reasons, as people are told them (the API has said these since 0.1).
HTTP_MESSAGES = {404: N_("there is no such page")}


def install_error_handlers(app: FastAPI) -> None:
    async def refused(request: Request, exc: Exception) -> Response:
        response = refusal(request, exc)
        if response is None:
            raise exc
        return response

    for kind in (ServiceError, GameError, TooManyRequests, SQLAlchemyError):
        app.add_exception_handler(kind, refused)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> Response:
        parts = []
        for error in exc.errors():
            top = len([p for p in error.get("loc", ()) if p != "body"]) == 0
            if error.get("type") == "union_tag_invalid" and top:
                tag = str(error.get("ctx", {}).get("tag", ""))[:32]
                parts.append(f"unknown game {tag!r}; the games are {', '.join(games.names())}")
                continue
            if error.get("type") == "union_tag_not_found" and top:
                parts.append(f"game: required, one of {', '.join(games.names())}")
                continue
            where = ".".join(str(p) for p in error.get("loc", ()) if p not in ("body", "query", "path"))
            message = str(error.get("msg", "invalid"))
            message = message.removeprefix("Value error, ")
            parts.append(f"{where}: {message}" if where else message)
        detail = "; ".join(parts) or "the request is not valid"
        if _wants_json(request):
            return _error_response(request, 422, detail)
        # Pydantic speaks English only: a page names the problem and shows the detail.
        return _error_response(
            request, 422, Invalid(N_("the form is not filled in right: %(detail)s"), detail=detail)
        )

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        message = exc.detail if isinstance(exc.detail, str) else "request refused"
        if message == HTTPStatus(exc.status_code).phrase and exc.status_code in HTTP_MESSAGES:
            message = HTTP_MESSAGES[exc.status_code]
        # exc.headers carry meaning: Allow on a 405, for one.
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            named = {
                m.strip() for m in headers.get("allow", headers.get("Allow", "")).split(",") if m.strip()
            }
            headers.pop("allow", None)
            headers["Allow"] = ", ".join(sorted(named | set(_allowed_methods(app, request))))
        return _error_response(request, exc.status_code, message, headers)
