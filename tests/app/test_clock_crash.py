"""SIGKILL the server while a clock runs, restart it: the outage counts against the side
to move (the clock is a deadline stored in the database, not a timer in a process), and
a deadline that passed while no server was up is judged as soon as one is."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.db import make_engine
from app.matches.model import aware
from app.models import Match
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN
from tests.app.test_crash import start
from tests.app.test_deadlines import leave_white
from tests.live import LiveServer

pytestmark = pytest.mark.slow

#: Long enough for a restart on a loaded machine (18 s has been seen) to leave time on it.
TWO_MINUTES = {"kind": "realtime", "initial_seconds": 120, "increment_seconds": 0}


def expected_left(left_ms: int, since: str, at: str) -> int:
    """What the clock must show at ``at`` if it ran without a pause from ``since``."""
    elapsed = datetime.fromisoformat(at) - datetime.fromisoformat(since)
    return (left_ms * 1000 - elapsed // timedelta(microseconds=1)) // 1000


def test_the_outage_counts_against_the_side_to_move(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    server = LiveServer(url)
    start(server)
    try:
        alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
        created = alice.post(
            "/api/matches",
            json={"game": "morris", "name": "Alice", "side": "first", "time_control": TWO_MINUTES},
        )
        match_id = created.json()["id"]
        bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
        alice.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[0], "ply": 0})
        ran = bob.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[1], "ply": 1}).json()
        assert ran["clock_running"] == "w" and ran["clocks"]["b"] == 120_000

        server.stop(kill=True)
        time.sleep(1.5)
        start(server)
        after = alice.get(f"/api/matches/{match_id}").json()
        assert after["status"] == "playing", "the restart took longer than the clock had"
        assert after["clocks"]["b"] == 120_000
        # Both readings are rounded down to the millisecond: they agree to within one.
        assert (
            abs(
                after["clocks"]["w"] - expected_left(ran["clocks"]["w"], ran["clocks_at"], after["clocks_at"])
            )
            <= 1
        )
        outage = datetime.fromisoformat(after["clocks_at"]) - datetime.fromisoformat(ran["clocks_at"])
        assert outage > timedelta(seconds=1.5)
        print(f"\nthe restart took {outage.total_seconds():.1f} s of White's clock")

        # Dead again until White's deadline has passed: the next server judges it at once.
        # (White's stored time is cut to 0.5 s, as if a move had left that much, rather
        # than waiting out two minutes.)
        server.stop(kill=True)
        engine = make_engine(url)
        deadline = leave_white(engine, match_id, 500, black_ms=120_000)
        time.sleep(1.0)
        start(server)
        try:
            stop = time.monotonic() + 5
            while time.monotonic() < stop:
                with engine.connect() as conn:
                    row = conn.execute(select(Match).where(Match.id == match_id)).first()
                if row.status == "finished":
                    break
                time.sleep(0.05)
        finally:
            engine.dispose()
        assert (row.winner, row.reason) == ("b", "timeout")
        assert aware(row.finished_at) >= deadline
        late = alice.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[2], "ply": 2})
        assert late.status_code == 409
        assert alice.get(f"/api/matches/{match_id}").json()["clocks"] == {"w": 0, "b": 120_000}
    finally:
        server.stop()
