"""What changes without a version reaches the match page through its event stream, so an
idle page asks for nothing (issue 28): the spectators' count, and a player's claim against
an opponent who has gone away (and its withdrawal when the opponent comes back)."""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN
from tests.e2e.test_polish_prompts import bob_leaves
from tests.live import LiveServer

Event = tuple[str, str]  # (event name, data)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(database_url(tmp_path))
    live.start()
    yield live
    live.stop()


class Listener:
    """One event stream read on its own thread over a plain socket (so that ``close``
    really closes it, as a browser leaving the page does); its events in a queue."""

    def __init__(self, url: str, cookies: dict[str, str] | None = None) -> None:
        self.events: queue.Queue[Event] = queue.Queue()
        self._stop = threading.Event()
        parts = urlsplit(url)
        cookie = "; ".join(f"{k}={v}" for k, v in (cookies or {}).items())
        self._request = (
            f"GET {parts.path}?{parts.query} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Accept: text/event-stream\r\nCookie: {cookie}\r\n\r\n"
        ).encode()
        self._address = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        with socket.create_connection(self._address, timeout=5) as sock:
            sock.sendall(self._request)
            sock.settimeout(0.1)
            buffer = b""
            while not self._stop.is_set():
                try:
                    chunk = sock.recv(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    return
                buffer += chunk.replace(b"\r\n", b"\n")
                while b"\n\n" in buffer:
                    block, buffer = buffer.split(b"\n\n", 1)
                    self._take(block.decode())

    def _take(self, block: str) -> None:
        name, data = "message", []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data.append(line[6:])
        if data:
            self.events.put((name, "\n".join(data)))

    def wait_for(self, wanted: Callable[[Event], bool], seconds: float) -> Event | None:
        """The first event (from now on) for which ``wanted`` holds, or None after ``seconds``."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                event = self.events.get(timeout=left)
            except queue.Empty:
                return None
            if wanted(event):
                return event
        return None

    def close(self) -> None:
        """Close the connection, as a browser leaving the page does."""
        self._stop.set()
        self._thread.join(timeout=5)


def count_is(n: int) -> Callable[[Event], bool]:
    return lambda event: event == ("spectators", str(n))


def test_a_page_hears_the_spectators_come_and_go(server: LiveServer) -> None:
    alice = httpx.Client(base_url=server.url)
    match_id = alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"}).json()["id"]
    version = alice.get(f"/api/matches/{match_id}").json()["version"]
    url = f"{server.url}/matches/{match_id}/events?view=live&since={version}"
    player = Listener(url, dict(alice.cookies))
    time.sleep(0.5)
    watchers = [Listener(url) for _ in range(3)]
    # Arrivals within a second are told as one change: not 1, 2, 3 but 3 (or, on a slow
    # machine, one step on the way and then 3).
    told = [player.wait_for(lambda e: e[0] == "spectators", 5) for _ in range(2)]
    assert ("spectators", "3") in told and told.index(("spectators", "3")) <= 1
    assert watchers[0].wait_for(count_is(3), 3) is not None  # a spectator hears it too
    watchers[0].close()
    assert player.wait_for(count_is(2), 5) is not None
    for watcher in watchers[1:]:
        watcher.close()
    assert player.wait_for(count_is(0), 5) is not None
    player.close()


def test_a_player_hears_the_claim_come_and_go_without_asking(server: LiveServer) -> None:
    alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
    body = {"game": "morris", "name": "Alice", "side": "first"}
    body["time_control"] = {"kind": "realtime", "initial_seconds": 600, "increment_seconds": 0}
    match_id = alice.post("/api/matches", json=body).json()["id"]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).status_code == 200
    for ply, client in enumerate((alice, bob, alice)):
        moved = client.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[ply], "ply": ply})
        assert moved.status_code == 200, moved.text
    version = alice.get(f"/api/matches/{match_id}").json()["version"]
    url = f"{server.url}/matches/{match_id}/events?view=live&since={version}"
    page = Listener(url, dict(alice.cookies))
    watcher = Listener(url)  # a spectator: never told a claim
    # On connecting, the page is told the claim as it stands: none, Bob has just moved.
    told = page.wait_for(lambda e: e[0] == "claims", 5)
    assert told is not None and 'id="claims"' in told[1] and "claim-win" not in told[1]

    bob_leaves(server, match_id)  # Bob's turn began two minutes ago; he has not been seen
    # Looked at every 5 s: the claim comes within that and a request's time.
    started = time.monotonic()
    told = page.wait_for(lambda e: e[0] == "claims", 8)
    assert told is not None and "claim-win" in told[1] and 'data-prompt="claim:3"' in told[1]
    assert time.monotonic() - started < 7

    # Bob comes back, opening his page: the claim goes away within a look or two.
    back = Listener(url, dict(bob.cookies))
    told = page.wait_for(lambda e: e[0] == "claims", 8)
    assert told is not None and "claim-win" not in told[1]
    assert watcher.wait_for(lambda e: e[0] == "claims", 0.1) is None
    for listener in (page, watcher, back):
        listener.close()
