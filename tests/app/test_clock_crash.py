"""SIGKILL the server while a clock runs, keep it down, restart it: downtime is nobody's
time (issue 27). The side to move has the time it had when the server died (give or
take the last heartbeat, a second, given back), its opponent cannot claim the win right
after the restart, and a clock that had half a second left when the site went down
flags half a second after it is back, not during the outage."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import select

from app.db import make_engine
from app.manage import migrate
from app.models import Match
from app.services.matches import aware
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN
from tests.app.test_crash import start
from tests.app.test_deadlines import leave_white
from tests.app.test_downtime import seen
from tests.live import LiveServer

pytestmark = pytest.mark.slow

#: Long enough for a restart on a loaded machine (18 s has been seen) to leave time on it.
TWO_MINUTES = {"kind": "realtime", "initial_seconds": 120, "increment_seconds": 0}


def expected_left(left_ms: int, since: str, at: str) -> int:
    """What the clock must show at ``at`` if it ran without a pause from ``since``."""
    elapsed = datetime.fromisoformat(at) - datetime.fromisoformat(since)
    return (left_ms * 1000 - elapsed // timedelta(microseconds=1)) // 1000


#: The server stays down this long: well past OUTAGE_AFTER (3 s), so it is an outage.
DOWN_SECONDS = 6.0


def test_an_outage_costs_the_side_to_move_nothing(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    migrate(url)
    server = LiveServer(url)
    start(server)
    try:
        alice, bob = httpx.Client(base_url=server.url), httpx.Client(base_url=server.url)
        watcher = httpx.Client(base_url=server.url)  # no seat: its reads are nobody's presence
        created = alice.post(
            "/api/matches",
            json={"game": "morris", "name": "Alice", "side": "first", "time_control": TWO_MINUTES},
        )
        match_id = created.json()["id"]
        bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
        alice.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[0], "ply": 0})
        ran = bob.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[1], "ply": 1}).json()
        assert ran["clock_running"] == "w" and ran["clocks"]["b"] == 120_000

        time.sleep(1.2)  # a heartbeat after the move
        server.stop(kill=True)
        killed = datetime.now(UTC)
        time.sleep(DOWN_SECONDS)
        start(server)
        after = watcher.get(f"/api/matches/{match_id}").json()
        assert after["status"] == "playing"
        assert after["clocks"]["b"] == 120_000
        # What White had when the server died, less what ran since it is back (from the
        # first answer of /healthz, less than a second on a loaded machine), plus at most
        # one heartbeat interval given back.
        at_kill = expected_left(ran["clocks"]["w"], ran["clocks_at"], killed.isoformat())
        lost = at_kill - after["clocks"]["w"]
        print(f"\ndown {DOWN_SECONDS} s plus the start; White's clock lost {lost} ms")
        assert -1_100 <= lost <= 1_500, lost
        assert after["away"] is None
        claimed = bob.post(f"/api/matches/{match_id}/claim", json={"claim": "win"})
        assert claimed.status_code == 409, claimed.text

        # Down again with White's clock cut to 0.5 s (as if a move had left that much,
        # rather than waiting out two minutes): the flag falls about half a second after
        # the next server is up, not during the outage.
        time.sleep(1.2)
        server.stop(kill=True)
        engine = make_engine(url)
        leave_white(engine, match_id, 500, black_ms=120_000)
        time.sleep(DOWN_SECONDS)
        start(server)
        back = datetime.now(UTC)
        try:
            stop = time.monotonic() + 10
            while time.monotonic() < stop:
                with engine.connect() as conn:
                    row = conn.execute(select(Match).where(Match.id == match_id)).first()
                if row.status == "finished":
                    break
                time.sleep(0.05)
        finally:
            engine.dispose()
        assert (row.winner, row.reason) == ("b", "timeout")
        assert aware(row.finished_at) >= back - timedelta(seconds=1), "flagged before the site was back"
        assert watcher.get(f"/api/matches/{match_id}").json()["clocks"] == {"w": 0, "b": 120_000}
        assert seen(url, match_id)["w"] is not None  # the moves were signs of life
    finally:
        server.stop()
