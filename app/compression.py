"""Responses compressed for the browsers that ask: brotli where offered, else gzip.

A pure-ASGI layer (Starlette's ``GZipMiddleware`` speaks gzip only). It compresses HTML,
CSS, JavaScript, JSON and SVG (``COMPRESSIBLE``) and nothing else: never an event
stream (``text/event-stream``: each event must reach the browser when it is sent, and a
compressor holds bytes back), never a body already encoded, never one smaller than
``MIN_BYTES``. Every response of a compressible type says ``Vary: Accept-Encoding``,
compressed or not, so a shared cache never hands one client's encoding to another.

A body sent in several parts (a streamed page, a file in 64 KiB chunks) is compressed as
it goes, each part flushed, so nothing waits for the end.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import brotli

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COMPRESSIBLE = frozenset(
    {
        b"text/html",
        b"text/css",
        b"text/javascript",
        b"application/javascript",
        b"application/json",
        b"image/svg+xml",
    }
)
#: Below one TCP segment's payload (about 1460 bytes) a smaller body saves no round trip;
#: 1 KiB keeps small answers (a refusal, most JSON) out of the compressor.
MIN_BYTES = 1024
#: Brotli's quality 4 is faster than gzip's 6 and still smaller; 11 would cost 50 times
#: the CPU on every page. Static files are fetched once a year per browser anyway.
BROTLI_QUALITY = 4
GZIP_LEVEL = 6


def chosen_encoding(accept_encoding: bytes) -> str | None:
    """``br``, ``gzip`` or ``None`` (identity) for an ``Accept-Encoding`` header.

    A coding with ``q=0`` is refused; ``*`` stands for any coding not named.
    """
    offered: dict[str, float] = {}
    for item in accept_encoding.decode("latin-1").lower().split(","):
        name, _, params = item.strip().partition(";")
        if not name:
            continue
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        offered[name.strip()] = quality
    for coding in ("br", "gzip"):
        quality = offered.get(coding, offered.get("*", 0.0))
        if quality > 0:
            return coding
    return None


class _Compressor:
    def __init__(self, coding: str) -> None:
        self.coding = coding
        if coding == "br":
            self._br = brotli.Compressor(quality=BROTLI_QUALITY)
        else:
            self._gz = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 31)  # 31: a gzip wrapper

    def part(self, data: bytes) -> bytes:
        """``data`` compressed and flushed, so the client can read it now."""
        if self.coding == "br":
            return self._br.process(data) + self._br.flush()
        return self._gz.compress(data) + self._gz.flush(zlib.Z_SYNC_FLUSH)

    def last(self, data: bytes) -> bytes:
        if self.coding == "br":
            return self._br.process(data) + self._br.finish()
        return self._gz.compress(data) + self._gz.flush(zlib.Z_FINISH)


def _header(headers: list[tuple[bytes, bytes]], name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def _with_vary(headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    vary = _header(headers, b"vary")
    if vary is None:
        return [*headers, (b"vary", b"Accept-Encoding")]
    if b"accept-encoding" in vary.lower() or vary.strip() == b"*":
        return headers
    return [(k, v) for k, v in headers if k.lower() != b"vary"] + [(b"vary", vary + b", Accept-Encoding")]


class Compression:
    """The ASGI layer: wrap the app, and every HTTP response passes through ``send`` below.

    ``identity_paths``: paths (patterns matched whole) whose answers always go out as the
    app made them, with no ``Vary`` added since they do not vary: the move's two JSON
    calls. Their answers are the hot path's, and under one initial congestion window
    (ten segments, about 14 KB), where compressing saves bytes but no round trip; yet a
    move's answer grows past ``MIN_BYTES`` with its list of moves (2 KB at ply 200), and
    compressing it cost about 0.1 ms of a 1.4 ms move late in a game (docs/benchmarks.md,
    "The JSON move against the issue's 'today', and its answer left uncompressed").
    """

    def __init__(self, app: ASGIApp, identity_paths: tuple[re.Pattern[str], ...] = ()) -> None:
        self.app = app
        self.identity_paths = identity_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or any(p.fullmatch(scope["path"]) for p in self.identity_paths):
            await self.app(scope, receive, send)
            return
        accept = b""
        for key, value in scope["headers"]:
            if key == b"accept-encoding":
                accept = value
                break
        coding = chosen_encoding(accept) if accept else None
        start: Message | None = None
        compressor: _Compressor | None = None
        passing = False  # this response goes out as the app sent it

        async def send_compressed(message: Message) -> None:
            nonlocal start, compressor, passing
            kind = message["type"]
            if kind == "http.response.start":
                headers = list(message.get("headers", ()))
                media = (_header(headers, b"content-type") or b"").split(b";")[0].strip().lower()
                if media not in COMPRESSIBLE:
                    passing = True
                    await send(message)
                    return
                headers = _with_vary(headers)
                if coding is None or _header(headers, b"content-encoding") is not None:
                    passing = True
                    await send({**message, "headers": headers})
                    return
                start = {**message, "headers": headers}
                return
            if kind != "http.response.body" or passing:
                await send(message)
                return
            body = message.get("body", b"")
            more = message.get("more_body", False)
            if start is not None:
                headers = start["headers"]
                if not more and len(body) < MIN_BYTES:
                    passing = True
                    await send(start)
                    await send(message)
                    return
                compressor = _Compressor(coding)  # type: ignore[arg-type]
                headers = [(k, v) for k, v in headers if k.lower() not in (b"content-length", b"etag")]
                etag = _header(start["headers"], b"etag")
                if etag is not None:
                    # Another byte sequence, the same content: a weak validator (as nginx
                    # makes it), which If-None-Match still matches, so a 304 stays a 304.
                    headers.append((b"etag", etag if etag.startswith(b"W/") else b"W/" + etag))
                headers.append((b"content-encoding", coding.encode()))  # type: ignore[union-attr]
                if not more:
                    body = compressor.last(body)
                    headers.append((b"content-length", str(len(body)).encode()))
                    await send({**start, "headers": headers})
                    await send({"type": "http.response.body", "body": body})
                    start = None
                    return
                await send({**start, "headers": headers})
                start = None
            assert compressor is not None
            data = compressor.part(body) if more else compressor.last(body)
            await send({"type": "http.response.body", "body": data, "more_body": more})

        await self.app(scope, receive, send_compressed)
