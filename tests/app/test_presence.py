"""A player's open event stream records that the player is there (abandonment claims);
a spectator's records nothing."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.db import make_engine
from app.models import Seat
from tests.app.conftest import database_url
from tests.app.test_crash import start
from tests.live import LiveServer


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[LiveServer, str]]:
    url = database_url(tmp_path)
    live = LiveServer(url)
    start(live)  # more patient than LiveServer.start on a loaded machine
    yield live, url
    live.stop()


def seen_at(url: str, match_id: str) -> dict[str, object]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(Seat.side, Seat.last_seen_at).where(Seat.match_id == match_id))
            return {side: seen for side, seen in rows}
    finally:
        engine.dispose()


def test_a_seat_stream_marks_the_player_present_and_a_spectator_marks_nothing(
    served: tuple[LiveServer, str],
) -> None:
    server, url = served
    alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
    control = {"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0}
    created = alice.post(
        "/api/matches", json={"game": "morris", "name": "A", "side": "first", "time_control": control}
    )
    match_id = created.json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "B"})

    def listen(client: httpx.Client) -> None:
        with client.stream("GET", f"/matches/{match_id}/events", timeout=5) as response:
            for line in response.iter_lines():
                if line.startswith("data:"):
                    return

    # Every request with a player's token is a sign of life too (app/presence.py): the
    # create and the join are stamped within a heartbeat or so.
    time.sleep(1.5)
    before = seen_at(url, match_id)
    spectator = httpx.Client(base_url=server.url)
    listen(spectator)
    time.sleep(1.5)
    assert seen_at(url, match_id) == before
    listen(bob)
    stop = time.monotonic() + 3
    while seen_at(url, match_id)["b"] == before["b"] and time.monotonic() < stop:
        time.sleep(0.05)
    found = seen_at(url, match_id)
    assert found["b"] is not None and found["b"] != before["b"] and found["w"] == before["w"]
