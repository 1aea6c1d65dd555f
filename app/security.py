"""Defences every response and request passes through: headers, origin check, body size,
and per-client rate limits.

Pure ASGI middleware (no BaseHTTPMiddleware), so event streams pass through
unbuffered and untouched.
"""

from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

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
]
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


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


class SecurityHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _v in message.get("headers", ())}
                message["headers"] = list(message.get("headers", ())) + [
                    (k, v) for k, v in SECURITY_HEADERS if k not in present
                ]
            await send(message)

        await self.app(scope, receive, with_headers)


class SameOrigin:
    """Refuse state-changing requests that a browser sent from another site.

    Browsers send Origin (or at least Referer) on cross-site POSTs; programs using
    the JSON API send neither and are let through. With SameSite=Lax cookies this
    stops cross-site request forgery of every form and API call.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in UNSAFE_METHODS:
            host = _header(scope, b"host")
            source = _header(scope, b"origin") or _header(scope, b"referer")
            foreign = source == "null" or urlsplit(source or "").netloc.lower() != (host or "").lower()
            if source is not None and host is not None and foreign:
                await _refuse(send, 403, "cross-site requests are not accepted")
                return
        await self.app(scope, receive, send)


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes (413) before anything reads them."""

    def __init__(self, app: ASGIApp, limit: int = 64 * 1024) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _refuse(send, 413, f"the request body is over {self.limit} bytes")
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge
            return message

        try:
            await self.app(scope, counted, send)
        except BodyTooLarge:
            await _refuse(send, 413, f"the request body is over {self.limit} bytes")


class BodyTooLarge(Exception):
    pass


@dataclass
class Bucket:
    tokens: float
    updated: float


class TokenBuckets:
    """Per-key token buckets: ``burst`` requests at once, refilled at ``per_second``."""

    def __init__(self, per_second: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.per_second = per_second
        self.burst = burst
        self.clock = clock
        self._buckets: dict[str, Bucket] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> float:
        """0 when allowed; otherwise the seconds to wait before the next request."""
        now = self.clock()
        with self._lock:
            if len(self._buckets) > 100_000:  # forget idle clients rather than grow forever
                self._buckets = {k: b for k, b in self._buckets.items() if now - b.updated < 600}
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = Bucket(float(self.burst), now)
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.per_second)
            bucket.updated = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return 0.0
            return (1 - bucket.tokens) / self.per_second


@dataclass(frozen=True)
class Limit:
    name: str
    per_second: float
    burst: int


#: What each kind of request may do per client address. Creating is rarer than
#: moving; a move takes a few taps, and several players may share one address.
DEFAULT_LIMITS = {"create": Limit("create", 0.5, 20), "move": Limit("move", 20.0, 60)}


def classify(method: str, path: str) -> str | None:
    if method == "GET" and path.endswith("/best"):
        return "create"  # a search of the computer's strongest level: as costly as a new match
    if method != "POST":
        return None
    if path in ("/api/matches", "/matches", "/api/ladder/runs", "/ladder/runs", "/positions/play"):
        return "create"
    if path in ("/api/records", "/records/import") or path.endswith("/review"):
        return "create"
    if path.endswith("/moves") or path.endswith("/click"):
        return "move"
    return None


class RateLimit:
    """429 with Retry-After when a client (its address) goes over its limit."""

    def __init__(self, app: ASGIApp, limits: dict[str, Limit] | None = None) -> None:
        self.app = app
        limits = limits if limits is not None else DEFAULT_LIMITS
        self.buckets = {name: TokenBuckets(limit.per_second, limit.burst) for name, limit in limits.items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            kind = classify(scope["method"], scope["path"])
            buckets = self.buckets.get(kind) if kind else None
            if buckets is not None:
                client = scope.get("client") or ("unknown", 0)
                wait = buckets.take(f"{kind}:{client[0]}")
                if wait > 0:
                    retry = str(max(1, math.ceil(wait))).encode()
                    await _refuse(send, 429, "too many requests; please slow down", [(b"retry-after", retry)])
                    return
        await self.app(scope, receive, send)
