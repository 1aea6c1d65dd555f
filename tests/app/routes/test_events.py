"""Server-Sent Events over a real socket: ids, resuming with Last-Event-ID, live delivery."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.app.conftest import database_url
from tests.live import LiveServer


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    url = database_url(tmp_path)
    live = LiveServer(url)
    live.start()
    yield live
    live.stop()


def read_events(url: str, headers: dict[str, str], count: int, timeout: float = 5) -> list[dict]:
    """The first ``count`` events of the stream (id, event, data), or fewer on timeout."""
    events: list[dict] = []
    with httpx.stream("GET", url, headers=headers, timeout=timeout) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        current: dict = {}
        deadline = time.monotonic() + timeout
        for line in response.iter_lines():
            if line.startswith("id: "):
                current["id"] = int(line[4:])
            elif line.startswith("event: "):
                current["event"] = line[7:]
            elif line.startswith("data: "):
                current["data"] = json.loads(line[6:])
            elif line == "" and "id" in current:
                events.append(current)
                current = {}
                if len(events) >= count:
                    break
            if time.monotonic() > deadline:
                break
    return events


def test_events_have_increasing_ids_and_resume(server: LiveServer) -> None:
    alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
    match_id = alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"}).json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "B"})
    version = alice.get(f"/api/matches/{match_id}").json()["version"]
    url = f"{server.url}/matches/{match_id}/events"

    # A fresh subscriber hears the current version at once.
    first = read_events(url, {}, 1)
    assert first[0]["id"] == version and first[0]["event"] == "changed"

    # One that has seen it hears nothing until the next move, which arrives live.
    received: list[dict] = []
    listener = threading.Thread(
        target=lambda: received.extend(read_events(url, {"Last-Event-ID": str(version)}, 1))
    )
    listener.start()
    time.sleep(0.5)
    sent = time.monotonic()
    alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0})
    listener.join(timeout=5)
    assert received and received[0]["id"] > version and received[0]["data"]["ply"] == 1
    assert time.monotonic() - sent < 1.0

    # Reconnecting with an older id catches up with one event carrying the newest id.
    bob.post(f"/api/matches/{match_id}/moves", json={"move": "a1", "ply": 1})
    caught_up = read_events(url, {"Last-Event-ID": str(version)}, 1)
    assert caught_up[0]["data"]["ply"] == 2
    assert caught_up[0]["id"] == alice.get(f"/api/matches/{match_id}").json()["version"]


def test_events_of_an_unknown_match_are_404(server: LiveServer) -> None:
    response = httpx.get(f"{server.url}/matches/nope/events")
    assert response.status_code == 404
