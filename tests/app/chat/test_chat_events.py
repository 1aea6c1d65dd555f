"""A new chat line reaches the match's event stream as event ``chat`` (issue 33), over a
real socket; on PostgreSQL through NOTIFY like a move."""

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
    live = LiveServer(database_url(tmp_path))
    live.start()
    yield live
    live.stop()


def read_events(url: str, headers: dict[str, str], count: int, timeout: float = 5) -> list[dict]:
    """The first ``count`` events (their id if any, event and data), or fewer on timeout."""
    events: list[dict] = []
    with httpx.stream("GET", url, headers=headers, timeout=timeout) as response:
        current: dict = {}
        deadline = time.monotonic() + timeout
        for line in response.iter_lines():
            if line.startswith("id: "):
                current["id"] = int(line[4:])
            elif line.startswith("event: "):
                current["event"] = line[7:]
            elif line.startswith("data: "):
                current["data"] = json.loads(line[6:])
            elif line == "" and "event" in current:
                events.append(current)
                current = {}
                if len(events) >= count:
                    break
            if time.monotonic() > deadline:
                break
    return events


def test_a_line_is_event_chat_without_an_id_and_moves_keep_theirs(server: LiveServer) -> None:
    alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
    match_id = alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"}).json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "B"})
    version = alice.get(f"/api/matches/{match_id}").json()["version"]
    received: list[dict] = []
    listener = threading.Thread(
        target=lambda: received.extend(
            read_events(f"{server.url}/matches/{match_id}/events", {"Last-Event-ID": str(version)}, 2)
        )
    )
    listener.start()
    time.sleep(0.5)
    said = alice.post(f"/api/matches/{match_id}/chat", json={"room": "players", "phrase": "hello"}).json()
    time.sleep(0.3)
    alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0})
    listener.join(timeout=6)
    assert received[0] == {"event": "chat", "data": {"line": said["id"]}}  # no id: Last-Event-ID stays
    assert received[1]["event"] == "changed" and received[1]["id"] > version
