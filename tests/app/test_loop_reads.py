"""GET /legal on SQLite reads on the event loop's thread (app.db.LoopReads), with the
same answers as the read on a worker thread, and falls back to that thread when SQLite
is busy instead of making the event loop wait."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from app import db
from app.db import LoopReads
from app.services.errors import NotFound
from tests.app.helpers import MORRIS_WIN, create, play, started
from tests.pg import give_back, hold_every_connection, terminate_connections

ON_POSTGRESQL = bool(os.environ.get("TEST_DATABASE_URL"))
sqlite_only = pytest.mark.skipif(ON_POSTGRESQL, reason="SQLite's own connections")


def worker_reads(matches: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the threads that read the legal moves through ``matches.legal`` (the
    worker threads' read) from now on."""
    threads: list[str] = []
    original = matches.legal

    def on_a_worker(match: str) -> Any:
        threads.append(threading.current_thread().name)
        return original(match)

    monkeypatch.setattr(matches, "legal", on_a_worker)
    return threads


@sqlite_only
def test_the_loop_read_answers_as_the_worker_threads_read(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    matches = app.state.matches
    assert matches.loop_reads is not None
    playing = started(alice, bob)
    play(alice, playing, "d6")
    waiting = create(alice)
    finished = started(alice, bob)
    for number, move in enumerate(MORRIS_WIN):
        play(alice if number % 2 == 0 else bob, finished, move)
    assert alice.get(f"/api/matches/{finished}").json()["status"] == "finished"
    for match_id in (playing, waiting, finished):
        assert matches.legal_here(match_id) == matches.legal(match_id)
    assert matches.legal_here(playing)["moves"]  # the legal moves, not an empty list
    with pytest.raises(NotFound):
        matches.legal_here("no-such-match")


def test_a_loop_read_gives_up_when_sqlite_is_busy_and_leaves_no_snapshot_open(tmp_path: Path) -> None:
    path = str(tmp_path / "busy.db")
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute("CREATE TABLE t (x)")
    holder.executemany("INSERT INTO t VALUES (?)", [(n,) for n in range(100)])
    reads = LoopReads(path)
    try:
        assert reads.first("SELECT x FROM t WHERE rowid = ?", (5,)) == (4,)
        # No read left open: a checkpoint that must wait for every reader is not held up.
        assert holder.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
        assert reads.first("SELECT x FROM t WHERE rowid = ?", (500,)) is None
        # Exclusive mode keeps every other connection out, readers too (SQLITE_BUSY); it
        # can only be had with no other connection open.
        reads.close()
        holder.close()
        holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("INSERT INTO t VALUES (1)")
        late = LoopReads(path)
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            late.first("SELECT count(*) FROM t", ())
        late.close()
    finally:
        holder.close()
        reads.close()


@sqlite_only
def test_a_busy_database_sends_the_read_to_the_worker_thread(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    matches = app.state.matches
    match_id = started(alice, bob)
    expected = matches.legal(match_id)

    def busy(_sql: str, _parameters: tuple[Any, ...]) -> None:
        raise sqlite3.OperationalError("database is locked")  # as the test above gets it

    threads = worker_reads(matches, monkeypatch)
    monkeypatch.setattr(matches.loop_reads, "first", busy)
    answer = alice.get(f"/api/matches/{match_id}/legal")
    assert answer.status_code == 200, answer.text
    assert answer.json() == expected
    assert threads and threads[0].startswith("db-reads")


def test_only_an_sqlite_file_is_read_on_the_loop(app: FastAPI) -> None:
    assert (app.state.matches.loop_reads is None) == ON_POSTGRESQL
    for url in ("sqlite://", "sqlite:///:memory:", "sqlite:///file:x?mode=memory&uri=true"):
        assert LoopReads.of(create_engine(url)) is None
    assert LoopReads.of(create_engine("sqlite:////tmp/x.db")) is not None


# PostgreSQL: GET /legal awaits its read on the event loop (app.pg_loop.PgLoopPool).

postgresql_only = pytest.mark.skipif(
    not ON_POSTGRESQL, reason="needs a PostgreSQL server (TEST_DATABASE_URL)"
)


@postgresql_only
def test_on_postgresql_the_legal_moves_are_read_on_the_loop_with_the_worker_threads_answers(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    matches = app.state.matches
    assert matches.pg_loop_pool is not None and matches.loop_reads is None
    playing = started(alice, bob)
    play(alice, playing, "d6")
    waiting = create(alice)
    finished = started(alice, bob)
    for number, move in enumerate(MORRIS_WIN):
        play(alice if number % 2 == 0 else bob, finished, move)
    expected = {match_id: matches.legal(match_id) for match_id in (playing, waiting, finished)}
    assert expected[playing]["moves"] and expected[finished]["moves"] == []

    def not_on_a_worker(_match_id: str) -> Any:
        raise AssertionError("read on a worker thread")

    monkeypatch.setattr(matches, "legal", not_on_a_worker)
    for match_id, answer in expected.items():
        got = alice.get(f"/api/matches/{match_id}/legal")
        assert got.status_code == 200, got.text
        assert got.json() == answer
    missing = alice.get("/api/matches/no-such-match/legal")
    assert missing.status_code == 404, missing.text


@postgresql_only
def test_on_postgresql_a_read_finding_no_free_connection_goes_to_a_worker_thread(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    matches = app.state.matches
    match_id = started(alice, bob)
    expected = matches.legal(match_id)
    threads = worker_reads(matches, monkeypatch)
    pool = matches.pg_loop_pool.pool
    # On the app's own event loop, which the pool belongs to.
    held = alice.portal.call(hold_every_connection, pool)  # type: ignore[union-attr]
    try:
        answer = alice.get(f"/api/matches/{match_id}/legal")
    finally:
        alice.portal.call(give_back, pool, held)  # type: ignore[union-attr]
    assert answer.status_code == 200, answer.text
    assert answer.json() == expected
    assert threads and threads[0].startswith("db-reads")
    threads.clear()
    assert alice.get(f"/api/matches/{match_id}/legal").json() == expected
    assert threads == []  # a connection was free again


@postgresql_only
def test_on_postgresql_legal_moves_are_answered_after_the_servers_connections_died(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = started(alice, bob)
    # SQLAlchemy's pool, which the worker thread reads through, then pings every
    # connection first (test_db_ping.py); the loop's own pool finds its dead ones itself.
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 0.0)
    expected = app.state.matches.legal(match_id)
    assert terminate_connections(app.state.engine.url) > 0
    for _ in range(3):  # the dead loop connection's read goes to a worker thread, then anew
        answer = alice.get(f"/api/matches/{match_id}/legal")
        assert answer.status_code == 200, answer.text
        assert answer.json() == expected
