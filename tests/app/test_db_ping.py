"""Pooled PostgreSQL connections: a dead one is found by a ping before it serves, and a
connection that served a moment ago is handed out without a round trip first.

Needs TEST_DATABASE_URL (SQLite, a local file, has no connection to lose and no ping).
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, event, text

from app import db
from tests.app.helpers import create

pytestmark = pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"), reason="needs a PostgreSQL server (TEST_DATABASE_URL)"
)


def count_pings(app: FastAPI, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    dialect = app.state.engine.dialect
    pings: list[Any] = []
    real = dialect.do_ping

    def ping(dbapi_connection: Any) -> bool:
        pings.append(dbapi_connection)
        return real(dbapi_connection)

    monkeypatch.setattr(dialect, "do_ping", ping)
    return pings


def kill_pooled_connections(app: FastAPI) -> int:
    """Terminate every server process serving the app's database, as a restart would."""
    url = app.state.engine.url
    name = url.database
    with create_engine(url.set(database="postgres")).connect() as conn:
        return len(
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            ).all()
        )


def test_a_connection_killed_while_idle_is_replaced_before_a_request_uses_it(
    app: FastAPI, alice: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = create(alice)
    assert alice.get(f"/api/matches/{match_id}").status_code == 200
    assert kill_pooled_connections(app) >= 1
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 0.0)  # every pooled connection counts as idle now
    pings = count_pings(app, monkeypatch)
    answer = alice.get(f"/api/matches/{match_id}")
    assert answer.status_code == 200, answer.text
    assert pings, "the dead connection was not pinged"


def test_a_connection_that_served_a_moment_ago_is_not_pinged(
    app: FastAPI, alice: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = create(alice)
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 60.0)
    pings = count_pings(app, monkeypatch)
    # The match's state: read through SQLAlchemy's pool (the legal moves are not, on
    # PostgreSQL: app.pg_loop.PgLoopPool).
    for _ in range(5):
        assert alice.get(f"/api/matches/{match_id}").status_code == 200
    assert pings == []
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 0.0)
    assert alice.get(f"/api/matches/{match_id}").status_code == 200
    assert len(pings) == 1


def test_connections_opened_under_load_are_kept_for_the_next_burst(app: FastAPI) -> None:
    """Every pooled connection stays open on its return: an overflow connection, closed
    as it came back, had to be opened again (a new server process) at the next burst."""
    engine = app.state.engine
    connects: list[Any] = []
    event.listen(engine, "connect", lambda *_args: connects.append(1))

    def burst(size: int) -> None:
        held = [engine.connect() for _ in range(size)]
        for connection in held:
            connection.execute(text("SELECT 1"))
        for connection in held:
            connection.close()

    size = db.POOL_SIZE - 1  # one may be held by the app's listener or workers
    burst(size)
    opened = len(connects)
    assert opened >= size - engine.pool.checkedin()  # (some may have been open already)
    burst(size)
    assert len(connects) == opened  # none opened again
    assert engine.pool.checkedin() >= size
