"""The deadline worker: unattended flags, once, within a second of the deadline.

Waiting out a real 15 s clock after two 30 s grace periods would make each test take a
minute, so the tests play both first moves and then store a short remaining time in
the database, exactly what the clock would hold after a move made with that much left.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, select, update

from app.db import make_engine
from app.manage import migrate
from app.matches.model import aware
from app.models import Match
from tests.app.helpers import MORRIS_WIN, create, play
from tests.app.test_crash import start
from tests.live import LiveServer

SEAT_COOKIE = "tablero_player"
FIFTEEN = {"kind": "realtime", "initial_seconds": 15, "increment_seconds": 0}


def leave_white(engine: Engine, match_id: str, left_ms: int, black_ms: int = 15_000) -> datetime:
    """White to move with ``left_ms`` on the clock from now; returns the deadline."""
    moment = datetime.now(UTC)
    deadline = moment + timedelta(milliseconds=left_ms)
    with engine.begin() as conn:
        conn.execute(
            update(Match)
            .where(Match.id == match_id)
            .values(clocks=json.dumps({"b": black_ms, "w": left_ms}), clock_since=moment, deadline=deadline)
        )
    return deadline


def wait_finished(engine: Engine, match_id: str, seconds: float = 5.0) -> Match:
    """Reads the table directly (an API read would judge the deadline itself)."""
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        with engine.connect() as conn:
            row = conn.execute(select(Match).where(Match.id == match_id)).first()
        if row is not None and row.status == "finished":
            return row
        time.sleep(0.02)
    raise AssertionError(f"{match_id} was not finished within {seconds} s")


def started_timed(alice: httpx.Client | TestClient, bob: httpx.Client | TestClient) -> str:
    created = alice.post(
        "/api/matches", json={"game": "morris", "name": "Alice", "side": "first", "time_control": FIFTEEN}
    )
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).status_code == 200
    for client, ply in ((alice, 0), (bob, 1)):
        moved = client.post(f"/api/matches/{match_id}/moves", json={"move": MORRIS_WIN[ply], "ply": ply})
        assert moved.status_code == 200, moved.text
    return match_id


@pytest.fixture
def engine(app: FastAPI) -> Iterator[Engine]:
    found = make_engine(str(app.state.settings.database_url))
    yield found
    found.dispose()


def test_an_unattended_flag_is_recorded_within_a_second(
    alice: TestClient, bob: TestClient, engine: Engine
) -> None:
    match_id = started_timed(alice, bob)
    deadline = leave_white(engine, match_id, 800)
    alice.app.state.deadlines.wake()  # as the move that left 0.8 s would have
    row = wait_finished(engine, match_id)
    late = aware(row.finished_at) - deadline
    where = engine.dialect.name
    print(f"\nflag recorded {late.total_seconds() * 1000:.0f} ms after the deadline ({where}, one process)")
    assert (row.winner, row.reason) == ("b", "timeout")
    assert timedelta(0) <= late < timedelta(seconds=1)
    state = alice.get(f"/api/matches/{match_id}").json()
    assert state["clocks"] == {"w": 0, "b": 15_000} and state["deadline"] is None


def test_a_deadline_set_elsewhere_is_noticed_by_polling(
    alice: TestClient, bob: TestClient, engine: Engine
) -> None:
    match_id = started_timed(alice, bob)
    deadline = leave_white(engine, match_id, 300)  # no wake: as if another process moved
    row = wait_finished(engine, match_id)
    assert timedelta(0) <= aware(row.finished_at) - deadline < timedelta(seconds=1)


def test_concurrent_sweeps_finish_a_match_once(alice: TestClient, bob: TestClient, engine: Engine) -> None:
    worker = alice.app.state.deadlines
    match_id = started_timed(alice, bob)
    with engine.begin() as conn:  # keep the running worker out: a deadline in the past, all at once
        conn.execute(update(Match).where(Match.id == match_id).values(deadline=None))
    version = alice.get(f"/api/matches/{match_id}").json()["version"]
    gate = threading.Barrier(4)

    def sweep(_: int) -> int:
        gate.wait()
        return worker.sweep()[0]

    leave_white(engine, match_id, -50)
    with ThreadPoolExecutor(4) as pool:
        finished = list(pool.map(sweep, range(4)))
    row = wait_finished(engine, match_id)
    assert sum(finished) <= 1 and row.reason == "timeout"
    assert row.version == version + 1


def test_a_timed_seek_nobody_joins_leaves_the_lobby(alice: TestClient, engine: Engine) -> None:
    match_id = create(alice, public=True, time_control=FIFTEEN)
    join_form = f"/matches/{match_id}/join"
    assert join_form in alice.get("/").text
    with engine.begin() as conn:
        conn.execute(
            update(Match)
            .where(Match.id == match_id)
            .values(deadline=datetime.now(UTC) - timedelta(seconds=1))
        )
    row = wait_finished(engine, match_id)
    assert (row.winner, row.reason) == (None, "expired")
    assert join_form not in alice.get("/").text


def test_an_untimed_match_never_expires(alice: TestClient, bob: TestClient, engine: Engine) -> None:
    match_id = create(alice)
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    play(alice, match_id, MORRIS_WIN[0])
    with engine.connect() as conn:
        assert conn.execute(select(Match.deadline).where(Match.id == match_id)).scalar() is None


# ---------------------------------------------------------------- two processes

needs_pg = pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"),
    reason="needs PostgreSQL: set TEST_DATABASE_URL=postgresql+psycopg://user:pass@host:port/postgres",
)


@needs_pg
def test_two_processes_one_flag_and_the_other_process_stream_hears_it() -> None:
    from tests.pg import fresh_database

    url = fresh_database(os.environ["TEST_DATABASE_URL"])
    migrate(url)
    a, b = LiveServer(url), LiveServer(url)
    with ThreadPoolExecutor(2) as pool:
        # test_crash's start waits longer than LiveServer's 20 s (a loaded machine).
        for started in [pool.submit(start, a), pool.submit(start, b)]:
            started.result()
    engine = make_engine(url)
    try:
        alice, bob = httpx.Client(base_url=a.url), httpx.Client(base_url=b.url)
        match_ids = [started_timed(alice, bob) for _ in range(6)]
        alice.close()
        bob.close()  # nobody is connected now, except the one stream below
        heard: list[dict] = []
        subscribed = threading.Event()

        def listen(match_id: str, version: int) -> None:
            url = f"{b.url}/matches/{match_id}/events"
            with httpx.stream("GET", url, headers={"Last-Event-ID": str(version)}, timeout=10) as response:
                for line in response.iter_lines():
                    if line.startswith("retry:"):
                        subscribed.set()
                    elif line.startswith("data: "):
                        heard.append({**json.loads(line[6:]), "at": datetime.now(UTC)})
                        return

        with engine.connect() as conn:
            version = conn.execute(select(Match.version).where(Match.id == match_ids[0])).scalar()
        listener = threading.Thread(target=listen, args=(match_ids[0], version), daemon=True)
        listener.start()
        assert subscribed.wait(10)
        deadlines = {m: leave_white(engine, m, 700 + 40 * i) for i, m in enumerate(match_ids)}
        rows = {m: wait_finished(engine, m) for m in match_ids}
        listener.join(timeout=5)

        for match_id, row in rows.items():
            late = aware(row.finished_at) - deadlines[match_id]
            print(f"\n{match_id}: flag recorded {late.total_seconds() * 1000:.0f} ms after the deadline")
            assert (row.winner, row.reason) == ("b", "timeout")
            assert timedelta(0) <= late < timedelta(seconds=1)
            # Finished exactly once: moves at plies 1 and 2 and the join made the versions
            # before; one more for the finish, none for a second finisher.
            assert row.version == version + 1
        assert heard and heard[0]["status"] == "finished"
        assert heard[0]["at"] - deadlines[match_ids[0]] < timedelta(seconds=1)
    finally:
        a.stop()
        b.stop()
        engine.dispose()
