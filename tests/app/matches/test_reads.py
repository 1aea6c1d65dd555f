"""One-statement reads on PostgreSQL run in autocommit: no BEGIN before them and no
ROLLBACK after, two round trips saved on every GET /legal and event stream."""

from __future__ import annotations

import os
import threading
from typing import Any

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from psycopg import pq
from sqlalchemy import event

from tests.app.helpers import started

pytestmark = pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"), reason="PostgreSQL's transactions")


def test_the_legal_moves_are_read_without_opening_a_transaction(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = started(alice, bob)
    statuses: list[pq.TransactionStatus] = []

    legal_sql = app.state.matches._legal_sql
    here = threading.get_ident()

    # Only the legal read's own statement, on this thread: the site's background sweeps
    # (clocks, presence) read the matches table on their own threads meanwhile.
    def after(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement == legal_sql and threading.get_ident() == here:
            statuses.append(conn.connection.driver_connection.info.transaction_status)

    # The read on a worker thread (where a read on the event loop falls back to).
    engine = app.state.engine
    event.listen(engine, "after_cursor_execute", after)
    try:
        assert app.state.matches.legal(match_id)["moves"]
    finally:
        event.remove(engine, "after_cursor_execute", after)
    assert statuses == [pq.TransactionStatus.IDLE]  # INTRANS: a transaction left to roll back

    # GET /legal's read on the event loop (app.pg_loop.PgLoopPool).
    statuses.clear()
    execute = psycopg.AsyncCursor.execute

    async def execute_and_look(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        result = await execute(cursor, query, *args, **kwargs)
        if str(query) == legal_sql:
            statuses.append(cursor.connection.info.transaction_status)
        return result

    monkeypatch.setattr(psycopg.AsyncCursor, "execute", execute_and_look)
    assert alice.get(f"/api/matches/{match_id}/legal").status_code == 200
    assert statuses == [pq.TransactionStatus.IDLE]
