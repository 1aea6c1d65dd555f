"""Static files under content-hashed names, cached by browsers for a year.

``static_url("play.js")`` (a template global) is ``/static/play.<hash>.js``, where the hash
is the first 10 hex digits of the file's SHA-256: a new release changes the name of every
file it changes, so a browser may keep each name forever (``immutable``) and never asks
again. ``HashedStatic`` serves both that name and the plain one; the plain one (a link
from before hashing, the sounds play.js builds by name) and a hash that is no longer the
file's (a page from the previous release) get the current file with a short cache, so no
link breaks during a deploy.

Styles, scripts and SVG are sent compressed at brotli's and gzip's highest settings,
made once per process and kept (about 60 KB for all of them): worth 175 ms of CPU for
htmx once, where a response compressed on the fly (app/compression.py) stays at a fast
setting. Anything else (sounds, ranges) is Starlette's ``StaticFiles``.

The hashes are read once per process, on first use: static files belong to the release
(``make run`` does not reload them), and a render must not hash files.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import re
from functools import cache
from pathlib import Path

import anyio
import brotli
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from app.compression import COMPRESSIBLE, chosen_encoding
from app.config import ROOT

STATIC_DIR = ROOT / "static"
URL_PREFIX = "/static/"
HASH_LENGTH = 10
#: A year, the most RFC 9111 asks a cache to honour; ``immutable`` spares the revalidation
#: a reload would otherwise send.
IMMUTABLE = "public, max-age=31536000, immutable"
#: A name without its hash may change with the next release: a browser checks after 5
#: minutes (the ETag makes that check a 304).
SHORT = "public, max-age=300"
_HASHED = re.compile(rf"^(?P<stem>.+)\.(?P<hash>[0-9a-f]{{{HASH_LENGTH}}})(?P<ext>\.[A-Za-z0-9]+)$")


@cache
def _hashes(directory: Path = STATIC_DIR) -> dict[str, str]:
    """Every file's hash by its path relative to ``directory`` ("vendor/htmx-2.0.11.min.js")."""
    found: dict[str, str] = {}
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            name = path.relative_to(directory).as_posix()
            found[name] = hashlib.sha256(path.read_bytes()).hexdigest()[:HASH_LENGTH]
    return found


def hashed_name(name: str) -> str:
    """``play.js`` -> ``play.<hash>.js``; a name with no file is returned as it is."""
    digest = _hashes().get(name)
    if digest is None:
        return name
    folder, _, base = name.rpartition("/")
    stem, dot, ext = base.rpartition(".")
    hashed = f"{stem}.{digest}.{ext}" if dot else f"{base}.{digest}"
    return f"{folder}/{hashed}" if folder else hashed


def static_url(name: str) -> str:
    """The URL a template links: the hashed name, cached for a year."""
    return URL_PREFIX + hashed_name(name)


def _unhashed(path: str) -> tuple[str, bool]:
    """The file a request path names and whether its hash is the file's current one."""
    if path in _hashes():
        return path, False
    folder, _, base = path.rpartition("/")
    match = _HASHED.match(base)
    if match is None:
        return path, False
    plain = match["stem"] + match["ext"]
    plain = f"{folder}/{plain}" if folder else plain
    return plain, _hashes().get(plain) == match["hash"]


@cache
def _encoded(name: str, coding: str) -> bytes:
    """The file compressed once, as small as the coding makes it (kept for the process)."""
    data = (STATIC_DIR / name).read_bytes()
    if coding == "br":
        return brotli.compress(data, quality=11)
    return gzip.compress(data, compresslevel=9, mtime=0)


def _media_type(name: str) -> str:
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def _header(scope: Scope, name: bytes) -> bytes:
    for key, value in scope["headers"]:
        if key == name:
            return value
    return b""


class HashedStatic(StaticFiles):
    """Starlette's static files (ETag, Last-Modified, ranges, 304s) with the names above,
    their ``Cache-Control``, and the compressed copies of styles and scripts."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        plain, current = _unhashed(path)
        cache_control = IMMUTABLE if current else SHORT
        coding = chosen_encoding(_header(scope, b"accept-encoding"))
        media = _media_type(plain)
        if (
            coding is not None
            and scope["method"] in ("GET", "HEAD")
            and plain in _hashes()
            and media.encode() in COMPRESSIBLE
            and not _header(scope, b"range")
        ):
            return await self._compressed(scope, plain, coding, media, cache_control)
        response = await super().get_response(plain, scope)
        if response.status_code in (200, 206, 304):
            response.headers["cache-control"] = cache_control
        return response

    async def _compressed(
        self, scope: Scope, name: str, coding: str, media: str, cache_control: str
    ) -> Response:
        # Weak: the same content in any coding (If-None-Match matches it either way).
        etag = f'W/"{_hashes()[name]}"'
        headers = {
            "cache-control": cache_control,
            "etag": etag,
            "vary": "Accept-Encoding",
        }
        asked = _header(scope, b"if-none-match").decode("latin-1")
        if etag.removeprefix("W/") in {tag.strip().removeprefix("W/") for tag in asked.split(",")}:
            return Response(status_code=304, headers=headers)
        body = await anyio.to_thread.run_sync(_encoded, name, coding)
        headers["content-encoding"] = coding
        if scope["method"] == "HEAD":
            headers["content-length"] = str(len(body))
            body = b""
        return Response(body, media_type=media, headers=headers)
