"""SIGKILL the server while a clock runs, keep it down, restart it: downtime is nobody's
time (issue 27). The side to move has the time it had when the server died (give or
take the last heartbeat, a second, given back), its opponent cannot claim the win right
after the restart, and a clock that had half a second left when the site went down
flags half a second after it is back, not during the outage."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
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
from tests.app.test_downtime import seen
from tests.live import LiveServer

pytestmark = pytest.mark.slow

#: Long enough for a restart on a loaded machine (18 s has been seen) to leave time on it.
TWO_MINUTES = {"kind": "realtime", "initial_seconds": 120, "increment_seconds": 0}


def expected_left(left_ms: int, since: str, at: str) -> int:
    """What the clock must show at ``at`` if it ran without a pause from ``since``."""
    elapsed = datetime.fromisoformat(at) - datetime.fromisoformat(since)
    return (left_ms * 1000 - elapsed // timedelta(microseconds=1)) // 1000


def turn_of(url: str, match_id: str) -> tuple[datetime, int]:
    """White's turn start and the match's version, from the table."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(select(Match.clock_since, Match.version).where(Match.id == match_id)).one()
        return aware(row.clock_since), row.version
    finally:
        engine.dispose()


def check_given_back_once(
    url: str, match_id: str, before: tuple[datetime, int], killed: datetime, up: datetime
) -> timedelta:
    """The turn start moved by the outage, once: at least the time the test kept the site
    down, at most from the kill (less the last beat, up to a second before it) to the
    first answer after the restart; one catch-up bumps the version once."""
    since, version = turn_of(url, match_id)
    moved = since - before[0]
    assert timedelta(seconds=DOWN_SECONDS) <= moved <= up - killed + timedelta(seconds=1.3), moved
    assert version == before[1] + 1, (before[1], version)
    return moved


#: The server stays down this long: well past OUTAGE_AFTER (3 s), so it is an outage.
DOWN_SECONDS = 6.0


def test_an_outage_costs_the_side_to_move_nothing(tmp_path: Path) -> None:
    url = database_url(tmp_path)
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
        before = turn_of(url, match_id)
        server.stop(kill=True)
        killed = datetime.now(UTC)
        time.sleep(DOWN_SECONDS)
        start(server)
        up = datetime.now(UTC)
        after = watcher.get(f"/api/matches/{match_id}").json()
        assert after["status"] == "playing"
        assert after["clocks"]["b"] == 120_000
        moved = check_given_back_once(url, match_id, before, killed, up)
        # What White had when the server died, less what ran since it is back up.
        at_kill = expected_left(ran["clocks"]["w"], ran["clocks_at"], killed.isoformat())
        lost = at_kill - after["clocks"]["w"]
        print(f"\ndown {moved.total_seconds():.1f} s given back; White's clock lost {lost} ms")
        assert (
            lost
            <= (datetime.fromisoformat(after["clocks_at"]) - killed - moved) // timedelta(milliseconds=1) + 1
        )
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
        # The moment the new process is launched: the outage ends there. (Read after
        # start() returned, a busy machine's slow readiness poll put it 2.7 s after the
        # server, already up, had rightly flagged White.)
        back = datetime.now(UTC)
        start(server)
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
        assert aware(row.finished_at) >= back, "flagged before the site was back"
        assert watcher.get(f"/api/matches/{match_id}").json()["clocks"] == {"w": 0, "b": 120_000}
        assert seen(url, match_id)["w"] is not None  # the moves were signs of life
    finally:
        server.stop()


@pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"), reason="two processes need PostgreSQL")
def test_two_processes_killed_and_restarted_together_give_the_outage_back_once(tmp_path: Path) -> None:
    """Both processes of one PostgreSQL site die and start again at the same moment: one
    of them catches up under the heartbeat row's lock, the other finds it fresh; given
    twice, White would gain the outage instead of losing nothing."""
    url = database_url(tmp_path)
    a, b = LiveServer(url), LiveServer(url)

    def start_both() -> None:
        with ThreadPoolExecutor(2) as pool:
            for started in [pool.submit(start, a), pool.submit(start, b)]:
                started.result()

    start_both()
    try:
        alice, bob = httpx.Client(base_url=a.url), httpx.Client(base_url=b.url)
        created = alice.post(
            "/api/matches",
            json={"game": "morris", "name": "Alice", "side": "first", "time_control": TWO_MINUTES},
        )
        match_id = created.json()["id"]
        bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
        alice.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[0], "ply": 0})
        ran = bob.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[1], "ply": 1}).json()
        time.sleep(1.2)
        before = turn_of(url, match_id)
        a.stop(kill=True)
        b.stop(kill=True)
        killed = datetime.now(UTC)
        time.sleep(DOWN_SECONDS)
        start_both()
        up = datetime.now(UTC)
        moved = check_given_back_once(url, match_id, before, killed, up)
        after = httpx.get(f"{a.url}/api/matches/{match_id}").json()
        assert after["status"] == "playing" and after["clocks"]["b"] == 120_000
        lost = expected_left(ran["clocks"]["w"], ran["clocks_at"], killed.isoformat()) - after["clocks"]["w"]
        print(f"\ntwo processes: {moved.total_seconds():.1f} s given back once; White's clock lost {lost} ms")
    finally:
        a.stop()
        b.stop()
