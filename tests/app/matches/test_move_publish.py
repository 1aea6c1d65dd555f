"""What a move does after its commit: its ``changed`` event is known without a read, and
only a move that can change a deadline wakes the deadline worker."""

from __future__ import annotations

import os
import threading
import time

import httpx
import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.matches.service import MatchService
from app.pg_events import CHANNEL
from tests.app.helpers import started
from tests.app.test_deadlines import started_timed
from tests.app.test_fanout import stream_events
from tests.pg import counting_getconn


def test_a_move_s_event_is_sent_from_what_the_move_committed(
    app_in_thread: tuple[str, FastAPI], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, _application = app_in_thread
    reads: list[str] = []
    real = MatchService.version_of

    def counted(self: MatchService, match_id: str) -> tuple[int, int, str]:
        reads.append(match_id)
        return real(self, match_id)

    monkeypatch.setattr(MatchService, "version_of", counted)
    alice, bob = httpx.Client(base_url=base), httpx.Client(base_url=base)
    created = alice.post("/api/matches", json={"game": "morris", "name": "Ann", "side": "first"})
    match_id = created.json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Ben"}).raise_for_status()
    found: list[tuple[str, int, str]] = []
    watcher = threading.Thread(
        target=stream_events, args=(f"{base}/matches/{match_id}/events", httpx.Client(), found, 3)
    )
    watcher.start()
    deadline = time.monotonic() + 10
    while not found and time.monotonic() < deadline:
        time.sleep(0.02)
    assert found, "the stream did not catch up"
    assert reads == [match_id]  # the catch-up on connecting reads the match
    first = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0}).json()
    second = bob.post(f"/api/matches/{match_id}/moves", json={"move": "a1", "ply": 1}).json()
    watcher.join(timeout=15)
    changed = [(ident, data) for event, ident, data in found if event == "changed"]
    assert changed[1:] == [
        (first["version"], f'{{"version": {first["version"]}, "ply": 1, "status": "playing"}}'),
        (second["version"], f'{{"version": {second["version"]}, "ply": 2, "status": "playing"}}'),
    ]
    assert reads == [match_id]  # and nothing more: the moves told the streams


def test_only_a_timed_match_s_move_wakes_the_deadline_worker(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    wakes: list[int] = []
    monkeypatch.setattr(app.state.deadlines, "wake", lambda: wakes.append(1))
    untimed = started(alice, bob)
    wakes.clear()
    assert alice.post(f"/api/matches/{untimed}/moves", json={"move": "d1", "ply": 0}).status_code == 200
    assert bob.post(f"/api/matches/{untimed}/moves", json={"move": "a1", "ply": 1}).status_code == 200
    assert wakes == []
    started_timed(alice, bob)  # two moves of a timed match
    assert len(wakes) >= 2


@pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"), reason="the NOTIFY path needs PostgreSQL")
def test_on_postgresql_a_move_notifies_the_other_processes_from_its_own_transaction(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = started(alice, bob)
    engine = app.state.engine
    url = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    # the event loop's pool, where PostgreSQL's moves run
    taken = counting_getconn(app.state.matches.pg_loop_pool.pool, monkeypatch)
    loop_thread = alice.portal.call(threading.current_thread)  # type: ignore[union-attr]
    checkouts: list[int] = []  # SQLAlchemy's pool, from the event loop (the app's workers
    # poll it from threads of their own meanwhile)

    def counted(*_args: object) -> None:
        if threading.current_thread() is loop_thread:
            checkouts.append(1)

    with psycopg.connect(url, autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        event.listen(engine, "checkout", counted)
        try:
            played = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0})
            refused = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d2", "ply": 1})
        finally:
            event.remove(engine, "checkout", counted)
        assert played.status_code == 200 and refused.status_code == 409
        heard = [n.payload for n in listener.notifies(timeout=1.0, stop_after=2)]
    # One connection per move: the NOTIFY went with the move's own commit (a second
    # connection and transaction per move before), and the refused move sent none.
    assert (len(checkouts), len(taken)) == (0, 2)
    assert heard == [f"{match_id}:{played.json()['version']}"]
