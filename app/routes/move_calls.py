"""The two JSON calls of every move, ``GET /api/matches/{id}/legal`` and
``POST /api/matches/{id}/moves``, answered as plain ASGI in front of FastAPI's router.

They are most of the site's requests, and FastAPI's per-request machinery (routing through
every route, the dependency solver, its exit stacks and exception wrappers) cost about
as much CPU as the move itself (docs/benchmarks.md, issue 16). This layer sits inside
``Hardening``, so every defence still applies; it calls the same functions as the
FastAPI routes in ``app.routes.api`` (which stay, and are the OpenAPI document's
operations), validates the answer with the same response models, and declines anything
it is not sure to answer exactly as FastAPI would: a body that does not validate, another
content type, a mounted app (``root_path``). A declined request goes on to FastAPI
unchanged, which gives its usual answer (a 422 naming the field, say).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import TypeAdapter, ValidationError
from starlette.datastructures import State
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.routes.api import legal_moves_of, play_move_for
from app.schemas import LegalMoves, MatchPublic, MoveCreate
from app.security import replaying
from app.web import viewer_hash

#: FastAPI's ``{match_id}``: one path segment.
LEGAL_PATH = re.compile(r"/api/matches/([^/]+)/legal")
MOVES_PATH = re.compile(r"/api/matches/([^/]+)/moves")
LEGAL_ANSWER = TypeAdapter(LegalMoves)
MOVE_ANSWER = TypeAdapter(MatchPublic)
JSON_HEADER = (b"content-type", b"application/json")

#: The response a known refusal gets (the app's exception handlers' answer), or ``None``
#: for an exception no handler takes, which is raised on to ``Hardening``.
Refusal = Callable[[Request, Exception], Response | None]


class MoveCalls:
    """Answers the move's two calls itself; passes every other request on."""

    def __init__(self, app: ASGIApp, state: State, refusal: Refusal) -> None:
        self.app = app
        self.state = state
        self.refusal = refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not scope.get("root_path"):
            method = scope["method"]
            if method == "GET" and (found := LEGAL_PATH.fullmatch(scope["path"])):
                await self._answer(scope, receive, send, legal_moves_of(self.state, found[1]), LEGAL_ANSWER)
                return
            if method == "POST" and (found := MOVES_PATH.fullmatch(scope["path"])):
                message = await receive()
                move = _move_in(scope, message)
                if move is not None:
                    played = play_move_for(self.state, found[1], viewer_hash(Request(scope)), move)
                    await self._answer(scope, receive, send, played, MOVE_ANSWER)
                    return
                receive = replaying(message, receive)  # FastAPI reads it again and says what is wrong
        await self.app(scope, receive, send)

    async def _answer(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        call: Awaitable[dict[str, Any]],
        model: TypeAdapter[Any],
    ) -> None:
        try:
            answer = await call
        except Exception as exc:
            refused = self.refusal(Request(scope, receive), exc)
            if refused is None:
                raise
            await refused(scope, receive, send)
            return
        # As FastAPI's response_model does: validated, then dumped by alias.
        body = model.dump_json(model.validate_python(answer), by_alias=True)
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-length", str(len(body)).encode()), JSON_HEADER],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _move_in(scope: Scope, message: Message) -> MoveCreate | None:
    """The move in the request's first message, if FastAPI would accept it as one.

    FastAPI reads a JSON body only under a JSON content type, parses it with ``json``
    and validates the result with the body's model: the same steps here, and anything
    else (another type, a body in parts, a bad one) is left to it. ``Hardening`` has
    read the body already and hands it on in one message.
    """
    if message["type"] != "http.request" or message.get("more_body", False):
        return None
    body = message.get("body", b"")
    if not body or not _json_content(scope):
        return None
    try:
        return MoveCreate.model_validate(json.loads(body))
    except (ValueError, ValidationError):  # json's decode errors are ValueErrors
        return None


def _json_content(scope: Scope) -> bool:
    for key, value in scope["headers"]:
        if key == b"content-type":
            kind = value.split(b";", 1)[0].strip().lower()
            return kind == b"application/json" or (
                kind.startswith(b"application/") and kind.endswith(b"+json")
            )
    return False
