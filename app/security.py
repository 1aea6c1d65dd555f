"""Defences every response and request passes through: headers, origin check, body size,
and per-client rate limits (counted in app/rate_limits.py).

One pure-ASGI middleware, ``Hardening`` (no BaseHTTPMiddleware), so event streams pass
through unbuffered and untouched.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from app.process_limits import StreamCount
from app.rate_limits import Limiter, classify, request_client_key

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

log = logging.getLogger("app.errors")

#: Only the site's own scripts and styles; htmx is configured not to inject styles.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; "
    "form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
    (
        b"permissions-policy",
        b"camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()",
    ),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
#: Only when the site is served over HTTPS (SECURE_COOKIES): browsers then refuse plain HTTP.
HSTS = (b"strict-transport-security", b"max-age=31536000")
UNSAFE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


async def _refuse(send: Send, status: int, detail: str, headers: list[tuple[bytes, bytes]] = ()) -> None:  # type: ignore[assignment]
    body = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *SECURITY_HEADERS,
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


EVENTS_PATH = re.compile(r"^/(?:matches|api/seeks)/[^/]+/events$")


class Hardening:
    """Every per-request defence in one pure-ASGI layer, applied in this order: the
    security headers on every answer (refusals and 500s too), the allowed hosts (400
    for another Host, when ``hosts`` is given), the same-origin check, the
    body limit, the rate limits (when ``limiter`` is given), the cap on open event
    streams, and a readable answer for an exception no handler took.

    One layer rather than one per defence: every layer is a coroutine frame each request
    resumes through at every await, and a send wrapper each response message passes.
    """

    def __init__(
        self,
        app: ASGIApp,
        render: Callable[[Scope, Exception], Awaitable[ASGIApp]],
        hsts: bool = False,
        body_limit: int = 64 * 1024,
        limiter: Limiter | None = None,
        streams_per_client: int = 32,
        streams_total: int | None = None,
        hosts: frozenset[str] | None = None,
    ) -> None:
        self.app = app
        self.hosts = hosts
        self.render = render
        self.headers = SECURITY_HEADERS + ([HSTS] if hsts else [])
        self.header_names = frozenset(name for name, _value in self.headers)
        self.body_limit = body_limit
        self.too_large = f"the request body is over {body_limit} bytes"
        self.limiter = limiter
        self.streams = StreamCount(streams_per_client, streams_total)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False
        own, names = self.headers, self.header_names

        async def respond(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                given = message.get("headers", ())
                present = {key.lower() for key, _value in given}
                if not names <= present:
                    message["headers"] = [*given, *((k, v) for k, v in own if k not in present)]
            await send(message)

        if self.hosts is not None and scope["path"] != "/healthz" and not host_allowed(scope, self.hosts):
            # A probe by address (/healthz from a container's health check) builds no link.
            await _refuse(respond, 400, "this site is not served under the host name this request asked for")
            return
        method = scope["method"]
        if method in UNSAFE_METHODS:
            host = origin = referer = length = None
            for key, value in scope.get("headers", ()):
                # The first of each, as a lookup by name finds it.
                if key == b"host":
                    host = host if host is not None else value
                elif key == b"origin":
                    origin = origin if origin is not None else value
                elif key == b"referer":
                    referer = referer if referer is not None else value
                elif key == b"content-length":
                    length = length if length is not None else value
            if foreign(host, origin, referer):
                await _refuse(respond, 403, "cross-site requests are not accepted")
                return
            if length is not None and length.isdigit() and int(length) > self.body_limit:
                await _refuse(respond, 413, self.too_large)
                return
            try:
                body = await self._read_body(receive)
            except _BodyTooLarge:
                await _refuse(respond, 413, self.too_large)
                return
            if body is None:
                return  # the client went away before the body was complete
            receive = replaying({"type": "http.request", "body": body, "more_body": False}, receive)
        if self.limiter is not None:
            kind = classify(method, scope["path"])
            if kind is not None:
                wait = await self.limiter.wait_async(kind, request_client_key(scope))
                if wait > 0:
                    retry = [(b"retry-after", str(max(1, math.ceil(wait))).encode())]
                    await _refuse(respond, 429, "too many requests; please slow down", retry)
                    return
        stream_key = None
        if method == "GET" and EVENTS_PATH.match(scope["path"]):
            stream_key = request_client_key(scope)
            # No await between the check and the count: the event loop runs one at a time.
            if not self.streams.open(stream_key):
                # Connection: close, so a refused stream gives its descriptor back at
                # once instead of idling on keep-alive (1,100 refused-but-open
                # connections took a 1024-descriptor process to EMFILE).
                await _refuse(
                    respond,
                    429,
                    "too many open event streams; close some pages",
                    [(b"retry-after", b"10"), (b"connection", b"close")],
                )
                return
        try:
            await self.app(scope, receive, respond)
        except Exception as exc:
            if not started:
                response = await self.render(scope, exc)
                await response(scope, receive, respond)
            raise  # the server logs it (and a test client shows it)
        finally:
            if stream_key is not None:
                self.streams.close(stream_key)

    async def _read_body(self, receive: Receive) -> bytes | None:
        """The whole body, read here (at most the limit is held) so that a chunked body
        without Content-Length is refused with 413 too, not left to fail in the parser.
        ``None`` when the client went away first."""
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.body_limit:
                raise _BodyTooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                return chunks[0] if len(chunks) == 1 else b"".join(chunks)


class _BodyTooLarge(Exception):
    pass


def host_name(value: bytes) -> str:
    """The Host header's name, lower case, without its port ("[::1]" keeps its brackets)."""
    text = value.decode("latin-1").strip().lower()
    if text.startswith("["):
        return text[: text.find("]") + 1] if "]" in text else text
    return text.split(":", 1)[0]


def host_allowed(scope: Scope, hosts: frozenset[str]) -> bool:
    """Whether the request names a host this site is served under (a request without a
    Host header, HTTP/1.0, is let through: nothing is built from a host it never named)."""
    for key, value in scope.get("headers", ()):
        if key == b"host":
            return host_name(value) in hosts
    return True


def foreign(host: bytes | None, origin: bytes | None, referer: bytes | None) -> bool:
    """Whether a state-changing request was sent by a browser from another site.

    Browsers send Origin (or at least Referer) on cross-site POSTs; programs using the
    JSON API send neither and are let through. With SameSite=Lax cookies this stops
    cross-site request forgery of every form and API call.
    """
    source = origin or referer  # an empty Origin counts as none
    if source is None or host is None:
        return False
    text = source.decode("latin-1")
    try:
        netloc = urlsplit(text).netloc
    except ValueError:  # not even a URL (an unclosed IPv6 bracket): not this site
        return True
    return text == "null" or netloc.lower() != host.decode("latin-1").lower()


def replaying(message: Message, receive: Receive) -> Receive:
    """``receive`` for the app after ``message`` was read from it: that message once,
    then the client's next ones."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return message
        return await receive()

    return replay
