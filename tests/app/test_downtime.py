"""Downtime is nobody's time (issue 27, item 2), with the app's clock in the test's hand.

The site stops (its lifespan ends), the clock moves 70 s on, a new app starts on the same
database: the side to move has the time it had when the site went down, the deadline
moved by the outage, and its opponent cannot claim the win right after the restart,
only once the side to move has been absent for a minute of the site being up. A player
that plays through the JSON API alone, reading its game while it thinks, is present.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.db import make_engine
from app.heartbeat import ABORT_STARTS_AFTER
from app.main import create_app
from app.manage import migrate
from app.models import Match, Seat, SiteHeartbeat
from app.presence import cookie_token
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN
from tests.app.matches.test_time_controls import T0, FakeClock

FIVE = {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 0}
#: Real seconds for the heartbeat (every 1 s) to flush what this process noted.
FLUSHED = 1.6


def settings_for(tmp_path: Path) -> Settings:
    url = database_url(tmp_path)
    migrate(url)
    return Settings(database_url=url, secret_key="t", rate_limits=False, computer_thinker="first-legal")


def begin(alice: TestClient, bob: TestClient, moves: int = 2) -> str:
    created = alice.post(
        "/api/matches", json={"game": "morris", "name": "Alice", "side": "first", "time_control": FIVE}
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).status_code == 200
    for ply in range(moves):
        client = alice if ply % 2 == 0 else bob
        moved = client.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[ply], "ply": ply})
        assert moved.status_code == 200, moved.text
    return match_id


def seen(url: str, match_id: str) -> dict[str, datetime | None]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(Seat.side, Seat.last_seen_at).where(Seat.match_id == match_id))
            return dict(rows.tuples().all())
    finally:
        engine.dispose()


def test_an_outage_costs_no_clock_time_and_no_claim_follows_the_restart(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    clock = FakeClock(T0)
    with TestClient(create_app(settings, clock=clock)) as alice:
        bob = TestClient(alice.app)
        match_id = begin(alice, bob)  # both have moved: White's clock runs
        time.sleep(FLUSHED)  # the moves' presence is stamped (at T0)
        clock.advance(seconds=20)  # White thinks 20 s, then the site goes down
        spectator = TestClient(alice.app)
        before = spectator.get(f"/api/matches/{match_id}").json()
        assert before["clocks"] == {"w": 280_000, "b": 300_000}
    clock.advance(seconds=70)
    with TestClient(create_app(settings, clock=clock)) as spectator:
        bob = TestClient(spectator.app, cookies=bob.cookies)
        after = spectator.get(f"/api/matches/{match_id}").json()
        assert after["status"] == "playing"
        assert after["clocks"] == {"w": 280_000, "b": 300_000}
        moved_by = datetime.fromisoformat(after["deadline"]) - datetime.fromisoformat(before["deadline"])
        assert moved_by == timedelta(seconds=70)
        assert after["away"] is None
        claimed = bob.post(f"/api/matches/{match_id}/claim", json={"claim": "win"})
        assert claimed.status_code == 409, claimed.text
        # Absence counts on the site's time only: White was last seen 20 s before the
        # outage, so 40 s after the restart makes the minute, not 0 s.
        clock.advance(seconds=39)
        assert bob.post(f"/api/matches/{match_id}/claim", json={"claim": "win"}).status_code == 409
        clock.advance(seconds=1)
        assert spectator.get(f"/api/matches/{match_id}").json()["away"] == "w"
        won = bob.post(f"/api/matches/{match_id}/claim", json={"claim": "win"})
        assert won.status_code == 200, won.text
        assert won.json()["result"] == {"winner": "b", "reason": "abandonment"}


def test_the_next_process_to_start_moves_nothing_again(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    clock = FakeClock(T0)
    with TestClient(create_app(settings, clock=clock)) as alice:
        match_id = begin(alice, TestClient(alice.app))
        first = alice.get(f"/api/matches/{match_id}").json()
    clock.advance(seconds=30)
    # Two processes start after the same outage: the first gives the time back, the
    # second finds the heartbeat fresh.
    with TestClient(create_app(settings, clock=clock)), TestClient(create_app(settings, clock=clock)) as b:
        again = b.get(f"/api/matches/{match_id}").json()
    assert again["clocks"] == first["clocks"]
    moved_by = datetime.fromisoformat(again["deadline"]) - datetime.fromisoformat(first["deadline"])
    assert moved_by == timedelta(seconds=30)
    engine = make_engine(settings.database_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(select(SiteHeartbeat.beat_at)).scalar_one() is not None
    finally:
        engine.dispose()


def test_a_turn_begun_after_the_last_beat_starts_again_at_the_restart(tmp_path: Path) -> None:
    """A turn that began inside the outage (after the last beat, before the kill) moves
    to the restart, never past it: its clock and think time do not start in the future."""
    settings = settings_for(tmp_path)
    clock = FakeClock(T0)
    with TestClient(create_app(settings, clock=clock)) as alice:
        match_id = begin(alice, TestClient(alice.app))  # White's turn began at T0
        clock.advance(seconds=20)
    engine = make_engine(settings.database_url)
    try:
        with engine.begin() as conn:  # the last beat came 10 s before White's turn began
            conn.execute(SiteHeartbeat.__table__.update().values(beat_at=T0 - timedelta(seconds=10)))
    finally:
        engine.dispose()
    clock.advance(seconds=70)
    restart = T0 + timedelta(seconds=90)
    with TestClient(create_app(settings, clock=clock)) as spectator:
        after = spectator.get(f"/api/matches/{match_id}").json()
        assert after["clocks"] == {"w": 300_000, "b": 300_000}
        assert datetime.fromisoformat(after["deadline"]) == restart + timedelta(seconds=300)
        clock.advance(seconds=5)
        assert spectator.get(f"/api/matches/{match_id}").json()["clocks"]["w"] == 295_000
    engine = make_engine(settings.database_url)
    try:
        with engine.connect() as conn:
            started = conn.execute(select(Match.turn_started_at).where(Match.id == match_id)).scalar_one()
    finally:
        engine.dispose()
    assert started is not None and started.replace(tzinfo=None) == restart.replace(tzinfo=None)


def test_a_short_gap_is_not_an_outage(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    clock = FakeClock(T0)
    with TestClient(create_app(settings, clock=clock)) as alice:
        match_id = begin(alice, TestClient(alice.app))
    clock.advance(seconds=2)  # under OUTAGE_AFTER: charged as before
    with TestClient(create_app(settings, clock=clock)) as again:
        assert again.get(f"/api/matches/{match_id}").json()["clocks"]["w"] == 298_000


def test_a_long_outage_aborts_real_time_games_in_their_first_moves(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    clock = FakeClock(T0)
    with TestClient(create_app(settings, clock=clock)) as alice:
        bob = TestClient(alice.app)
        opening = begin(alice, bob, moves=1)
        going = begin(alice, bob, moves=2)
    clock.advance(seconds=ABORT_STARTS_AFTER.total_seconds() + 1)
    with TestClient(create_app(settings, clock=clock)) as reader:
        aborted = reader.get(f"/api/matches/{opening}").json()
        assert aborted["status"] == "finished"
        assert aborted["result"] == {"winner": None, "reason": "aborted"}
        kept = reader.get(f"/api/matches/{going}").json()
        assert kept["status"] == "playing" and kept["clocks"] == {"w": 300_000, "b": 300_000}


def test_a_player_that_only_reads_its_game_through_the_api_is_present(tmp_path: Path) -> None:
    """Before: a JSON-only player was never seen and lost to a claim while thinking."""
    settings = settings_for(tmp_path)
    clock = FakeClock(T0)
    with TestClient(create_app(settings, clock=clock)) as alice:
        bob = TestClient(alice.app)
        match_id = begin(alice, bob)
        # White thinks for 70 s, reading its game every 20 s (no event stream).
        for _ in range(4):
            clock.advance(seconds=20)
            assert alice.get(f"/api/matches/{match_id}").status_code == 200
            time.sleep(FLUSHED)
        claimed = bob.post(f"/api/matches/{match_id}/claim", json={"claim": "win"})
        assert claimed.status_code == 409, claimed.text
        assert seen(settings.database_url, match_id)["w"] is not None
        # Gone for a minute after that: now it may be claimed against.
        clock.advance(seconds=61)
        assert bob.post(f"/api/matches/{match_id}/claim", json={"claim": "win"}).status_code == 200


@pytest.mark.parametrize("path", ["/api/me/matches", "/matches/{id}/legal"])
def test_any_request_with_the_token_counts(tmp_path: Path, path: str) -> None:
    settings = settings_for(tmp_path)
    clock = FakeClock(T0)
    with TestClient(create_app(settings, clock=clock)) as alice:
        bob = TestClient(alice.app)
        match_id = begin(alice, bob)
        time.sleep(FLUSHED)
        stamped = seen(settings.database_url, match_id)["w"]
        clock.advance(seconds=30)  # past the per-process note interval of the moves
        alice.get(path.replace("{id}", match_id))
        time.sleep(FLUSHED)
        later = seen(settings.database_url, match_id)["w"]
        assert stamped is not None and later is not None and later > stamped
        # A spectator's requests stamp nobody.
        before = seen(settings.database_url, match_id)
        TestClient(alice.app).get(f"/api/matches/{match_id}")
        clock.advance(seconds=5)
        time.sleep(FLUSHED)
        assert seen(settings.database_url, match_id) == before


def test_the_heartbeat_row_exists_after_migration(tmp_path: Path) -> None:
    settings = settings_for(tmp_path)
    engine = make_engine(settings.database_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(select(SiteHeartbeat.id)).scalars().all() == [1]
            assert conn.execute(select(Match.id)).first() is None
    finally:
        engine.dispose()


def test_the_token_is_read_from_the_cookie_header_as_the_pages_read_it() -> None:
    token = b"t" * 43
    assert cookie_token([(b"cookie", b"a=b; tablero_player=" + token + b"; c=d")]) == token
    assert cookie_token([(b"cookie", b"tablero_player=" + token)]) == token
    # Another cookie whose name ends the same way is not the token; nor a short value.
    assert cookie_token([(b"cookie", b"xtablero_player=" + token)]) is None
    assert cookie_token([(b"cookie", b"tablero_player=short")]) is None
    assert cookie_token([(b"accept", b"tablero_player=" + token)]) is None
