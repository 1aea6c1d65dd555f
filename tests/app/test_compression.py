"""Transport: compressed pages, styles, scripts and JSON; hashed static names cached a year.

Over a real socket (a live uvicorn), reading the raw bytes, so the tests see what a
browser receives: the encoding, the Vary header, and that the bytes decode to the page.
"""

from __future__ import annotations

import gzip
import re
import socket
from collections.abc import Iterator

import brotli
import httpx
import pytest

import games
from app.compression import MIN_BYTES, chosen_encoding
from app.manage import migrate
from app.static_files import IMMUTABLE, SHORT, STATIC_DIR, hashed_name
from tests.app.conftest import database_url
from tests.app.matches.test_constant_work import long_quiet_line
from tests.live import LiveServer


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    url = database_url(tmp_path_factory.mktemp("compression"))
    migrate(url)
    live = LiveServer(url)
    live.start()
    yield live
    live.stop()


def raw_get(url: str, encoding: str | None) -> tuple[httpx.Response, bytes]:
    """The response and its body exactly as sent (httpx would decode it)."""
    headers = {"Accept-Encoding": encoding} if encoding is not None else {"Accept-Encoding": "identity"}
    with httpx.stream("GET", url, headers={**headers, "Accept": "text/html"}, timeout=10) as response:
        return response, b"".join(response.iter_raw())


def decoded(response: httpx.Response, body: bytes) -> bytes:
    coding = response.headers.get("content-encoding")
    if coding == "br":
        return brotli.decompress(body)
    if coding == "gzip":
        return gzip.decompress(body)
    assert coding is None, coding
    return body


def match_page(server: LiveServer) -> str:
    created = httpx.post(server.url + "/api/matches", json={"game": "bashni", "name": "Ana"}, timeout=10)
    assert created.status_code == 201, created.text
    return server.url + "/matches/" + created.json()["id"]


def asset_urls(server: LiveServer, page: bytes) -> list[str]:
    return [server.url + path.decode() for path in re.findall(rb'(?:src|href)="(/static/[^"]+)"', page)]


@pytest.mark.parametrize("coding", ["br", "gzip"])
def test_page_styles_and_scripts_are_compressed_with_vary(server: LiveServer, coding: str) -> None:
    url = match_page(server)
    plain_response, _ = raw_get(url, None)
    assert plain_response.headers.get("content-encoding") is None
    response, body = raw_get(url, f"{coding}, deflate")
    assert response.status_code == 200
    assert response.headers["content-encoding"] == coding
    assert "accept-encoding" in response.headers["vary"].lower()
    page = decoded(response, body)
    assert b"<!doctype html>" in page.lower()[:100]
    assert len(body) < len(page) / 3
    assets = asset_urls(server, page)
    kinds = {a.rsplit(".", 1)[1] for a in assets}
    assert {"css", "js"} <= kinds, assets
    for asset in assets:
        got, raw = raw_get(asset, coding)
        assert got.status_code == 200, asset
        if asset.endswith((".css", ".js")) and len(decoded(got, raw)) >= 1024:
            assert got.headers["content-encoding"] == coding, asset
            assert "accept-encoding" in got.headers["vary"].lower()
            name = asset.split("/static/", 1)[1]
            plain_name = re.sub(r"\.[0-9a-f]{10}(\.[a-z]+)$", r"\1", name)
            assert decoded(got, raw) == (STATIC_DIR / plain_name).read_bytes()


def test_json_is_compressed_and_a_small_answer_is_not(server: LiveServer) -> None:
    response, body = raw_get(server.url + "/openapi.json", "gzip, br")
    assert response.headers["content-encoding"] == "br"
    assert response.headers["content-type"].startswith("application/json")
    assert "accept-encoding" in response.headers["vary"].lower()
    assert decoded(response, body).startswith(b"{")
    # A move's answer-sized JSON is under the threshold: sent as it is, Vary still said.
    small, small_body = raw_get(server.url + "/api/matches/nosuchmatch", "br")
    assert small.status_code == 404
    assert small.headers.get("content-encoding") is None
    assert "accept-encoding" in small.headers["vary"].lower()
    assert small_body.startswith(b'{"detail"')


def test_the_moves_json_calls_are_sent_as_they_are_other_answers_of_that_size_compressed(
    server: LiveServer,
) -> None:
    # A move's answer lists the moves, so it passes MIN_BYTES late in a game (2 KB at
    # ply 200); compressing it made such a move cost ×1.1 one early, for no round trip.
    asks = {"Accept-Encoding": "br, gzip"}
    alice = httpx.Client(base_url=server.url, headers=asks, timeout=10)
    bob = httpx.Client(base_url=server.url, headers=asks, timeout=10)
    created = alice.post("/api/matches", json={"game": "morris", "name": "Ana", "side": "first"})
    match_id = created.json()["id"]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Ben"}).status_code == 200
    line = long_quiet_line(games.get("morris"), 90, seed=3)
    for ply, move in enumerate(line):
        legal = (alice if ply % 2 == 0 else bob).get(f"/api/matches/{match_id}/legal")
        assert legal.status_code == 200 and move in legal.json()["moves"]
        played = (alice if ply % 2 == 0 else bob).post(
            f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply}
        )
        assert played.status_code == 200, played.text
        for response in (legal, played):
            assert response.headers.get("content-encoding") is None
            assert "accept-encoding" not in response.headers.get("vary", "").lower()
    assert len(played.content) > MIN_BYTES  # big enough to be compressed elsewhere
    assert played.json()["moves"] == line
    state = alice.get(f"/api/matches/{match_id}")
    assert len(state.content) > MIN_BYTES
    assert state.headers["content-encoding"] == "br"
    assert state.json()["moves"] == line


def test_no_compression_for_a_client_that_does_not_ask(server: LiveServer) -> None:
    for header in ("identity", "gzip;q=0, br;q=0", "*;q=0"):
        with httpx.stream("GET", server.url + "/", headers={"Accept-Encoding": header}, timeout=10) as r:
            body = b"".join(r.iter_raw())
        assert r.headers.get("content-encoding") is None, header
        assert body.lower().startswith(b"<!doctype html>")


def test_event_streams_are_never_compressed(server: LiveServer) -> None:
    url = match_page(server)
    match_id = url.rsplit("/", 1)[1]
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(
            f"GET /matches/{match_id}/events HTTP/1.1\r\nHost: {host}\r\n"
            "Accept-Encoding: br, gzip\r\n\r\n".encode()
        )
        head = b""
        while b"retry:" not in head:
            chunk = s.recv(4096)
            assert chunk, head
            head += chunk
    headers = head.split(b"\r\n\r\n", 1)[0].lower()
    assert b"content-type: text/event-stream" in headers
    assert b"content-encoding" not in headers
    # The first event's bytes arrived readable, not held in a compressor.
    assert b"retry:" in head.split(b"\r\n\r\n", 1)[1]


def test_hashed_static_names_are_cached_a_year_plain_names_briefly(server: LiveServer) -> None:
    hashed = hashed_name("site.css")
    assert re.fullmatch(r"site\.[0-9a-f]{10}\.css", hashed)
    response = httpx.get(f"{server.url}/static/{hashed}", timeout=10)
    assert response.status_code == 200
    assert response.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
    assert response.content == (STATIC_DIR / "site.css").read_bytes()
    plain = httpx.get(f"{server.url}/static/site.css", timeout=10)
    assert plain.status_code == 200 and plain.headers["cache-control"] == SHORT
    # A page of the previous release names an older hash: the file still comes, briefly cached.
    stale = httpx.get(f"{server.url}/static/site.0123456789.css", timeout=10)
    assert stale.status_code == 200 and stale.headers["cache-control"] == SHORT
    assert stale.content == plain.content
    # Folders and sounds too; a name that is no file is still a 404.
    vendor = httpx.get(f"{server.url}/static/{hashed_name('vendor/htmx-2.0.11.min.js')}", timeout=10)
    assert vendor.status_code == 200 and vendor.headers["cache-control"] == IMMUTABLE
    assert httpx.get(f"{server.url}/static/nothing.0123456789.css", timeout=10).status_code == 404
    assert httpx.get(f"{server.url}/static/../app/main.py", timeout=10).status_code == 404


def test_revalidation_of_a_compressed_file_is_a_304(server: LiveServer) -> None:
    url = f"{server.url}/static/{hashed_name('vendor/htmx-2.0.11.min.js')}"
    first = httpx.get(url, headers={"Accept-Encoding": "br"}, timeout=10)
    assert first.headers["content-encoding"] == "br"
    etag = first.headers["etag"]
    assert etag.startswith('W/"')
    again = httpx.get(url, headers={"Accept-Encoding": "br", "If-None-Match": etag}, timeout=10)
    assert again.status_code == 304


def test_pages_link_every_static_file_by_its_hashed_name(server: LiveServer) -> None:
    page = httpx.get(match_page(server), timeout=10).text
    linked = re.findall(r'(?:src|href)="/static/([^"]+)"', page)
    assert linked
    for name in linked:
        assert re.search(r"\.[0-9a-f]{10}\.[a-z]+$", name), name


def test_accept_encoding_is_read_with_its_weights() -> None:
    assert chosen_encoding(b"gzip, deflate, br") == "br"
    assert chosen_encoding(b"gzip, deflate") == "gzip"
    assert chosen_encoding(b"br;q=0, gzip;q=0.5") == "gzip"
    assert chosen_encoding(b"*") == "br"
    assert chosen_encoding(b"*;q=0") is None
    assert chosen_encoding(b"identity") is None
    assert chosen_encoding(b"gzip;q=nonsense") is None
    assert chosen_encoding(b"GZIP") == "gzip"


def test_static_scripts_are_sent_at_the_highest_setting(server: LiveServer) -> None:
    name = "vendor/htmx-2.0.11.min.js"
    url = f"{server.url}/static/{hashed_name(name)}"
    original = (STATIC_DIR / name).read_bytes()
    for coding, fast in (("br", brotli.compress(original, quality=4)), ("gzip", gzip.compress(original, 6))):
        response, body = raw_get(url, coding)
        assert response.headers["content-encoding"] == coding
        assert decoded(response, body) == original
        assert len(body) < len(fast)  # smaller than the on-the-fly setting would make it
        head = httpx.head(url, headers={"Accept-Encoding": coding}, timeout=10)
        assert head.status_code == 200 and int(head.headers["content-length"]) == len(body)
        assert head.headers["cache-control"] == IMMUTABLE
    # A range is asked of the file itself: Starlette's answer, uncompressed.
    ranged = httpx.get(url, headers={"Accept-Encoding": "br", "Range": "bytes=0-9"}, timeout=10)
    assert ranged.status_code == 206 and ranged.content == original[:10]
