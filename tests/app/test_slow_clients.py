"""make run's own bound on slow clients (app/slow_clients.py), with real sockets that trickle."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.config import ROOT
from app.manage import migrate
from tests.app.conftest import database_url
from tests.live import free_port

BOUND = 2.0  # REQUEST_SECONDS for this server
SLACK = 3.0  # a loaded machine's scheduling on top of it


@pytest.fixture
def server(tmp_path: Path) -> Iterator[int]:
    url = database_url(tmp_path)
    migrate(url)
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "SECRET_KEY": "t",
        "RATE_LIMITS": "off",
        "REQUEST_SECONDS": str(BOUND),
    }
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "app.main:create_app",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--http",
            "app.slow_clients:GuardedH11Protocol",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        yield port
    finally:
        process.kill()
        process.wait(timeout=10)


def trickle(port: int, head: bytes, then: bytes) -> float:
    """Send ``head`` at once and ``then`` a byte every 0.3 s; the seconds until the server
    closed the connection (the test fails if it never does within the bound and slack)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(0.3)
        sock.sendall(head)
        for byte in then:
            try:
                sock.sendall(bytes([byte]))
                if sock.recv(1024) == b"":
                    return time.monotonic() - started
            except TimeoutError:
                pass
            except OSError:  # reset or broken pipe: closed
                return time.monotonic() - started
            assert time.monotonic() - started < BOUND + SLACK, "the trickling client was not cut"
    raise AssertionError("the trickle ended before the server closed the connection")


def test_a_trickled_header_is_cut_within_the_bound(server: int) -> None:
    took = trickle(server, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", b"X-Slow: " + b"a" * 200)
    assert BOUND - 0.5 <= took < BOUND + SLACK, took


def test_a_trickled_body_is_cut_within_the_bound(server: int) -> None:
    head = (
        b"POST /api/records HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: text/plain\r\nContent-Length: 500\r\n\r\n"
    )
    took = trickle(server, head, b"1" * 500)
    assert BOUND - 0.5 <= took < BOUND + SLACK, took


def test_a_connection_that_never_sends_is_cut(server: int) -> None:
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", server)) as sock:
        sock.settimeout(BOUND + SLACK)
        assert sock.recv(1024) == b""
    assert time.monotonic() - started < BOUND + SLACK


def test_a_request_sent_at_once_and_an_open_stream_are_not_cut(server: int) -> None:
    base = f"http://127.0.0.1:{server}"
    made = httpx.post(base + "/api/matches", json={"game": "morris", "name": "A", "side": "first"})
    match_id = made.json()["id"]
    # The stream's request is complete with its header: answering it for longer is fine.
    # It says nothing until its 15 s keep-alive comment: a read timeout past the bound
    # means the server kept it open (a close would end the lines).
    started = time.monotonic()
    with httpx.stream("GET", f"{base}/matches/{match_id}/events", timeout=BOUND + 2) as stream:
        try:
            for _line in stream.iter_lines():
                pass
        except httpx.ReadTimeout:
            pass
    assert time.monotonic() - started > BOUND + 1.5
