"""One-statement reads on PostgreSQL run in autocommit: no BEGIN before them and no
ROLLBACK after, two round trips saved on every GET /legal and event stream."""

from __future__ import annotations

import os
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from psycopg import pq
from sqlalchemy import event

from tests.app.helpers import started

pytestmark = pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"), reason="PostgreSQL's transactions")


def test_the_legal_moves_are_read_without_opening_a_transaction(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    match_id = started(alice, bob)
    statuses: list[pq.TransactionStatus] = []

    def after(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if "FROM matches" in statement:
            statuses.append(conn.connection.driver_connection.info.transaction_status)

    engine = app.state.engine
    event.listen(engine, "after_cursor_execute", after)
    try:
        assert alice.get(f"/api/matches/{match_id}/legal").status_code == 200
    finally:
        event.remove(engine, "after_cursor_execute", after)
    assert statuses == [pq.TransactionStatus.IDLE]  # INTRANS: a transaction left to roll back
