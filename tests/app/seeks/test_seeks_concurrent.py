"""Fifty seeks at once through two app processes on one PostgreSQL: each pairs exactly once.

Needs TEST_DATABASE_URL (SQLite has one writer and one process anyway).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import text

from app.db import make_engine
from app.manage import migrate
from tests.live import LiveServer

pytestmark = pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"),
    reason="needs PostgreSQL: set TEST_DATABASE_URL=postgresql+psycopg://user:pass@host:port/postgres",
)

SEEKERS = 50
FIVE_THREE = {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 3}


@pytest.fixture(scope="module")
def pg_url() -> str:
    from tests.pg import fresh_database

    url = fresh_database(os.environ["TEST_DATABASE_URL"])
    migrate(url)
    return url


@pytest.fixture(scope="module")
def servers(pg_url: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    a, b = LiveServer(pg_url), LiveServer(pg_url)
    with ThreadPoolExecutor(2) as pool:
        for started in [pool.submit(a.start), pool.submit(b.start)]:
            started.result()
    yield a, b
    a.stop()
    b.stop()


def test_fifty_parallel_seeks_make_twenty_five_matches(
    servers: tuple[LiveServer, LiveServer], pg_url: str
) -> None:
    clients = [httpx.Client(base_url=servers[i % 2].url, timeout=30) for i in range(SEEKERS)]

    def post(i: int) -> dict:
        response = clients[i].post(
            "/api/seeks", json={"game": "morris", "time_control": FIVE_THREE, "name": f"P{i}"}
        )
        assert response.status_code == 201, response.text
        return response.json()

    with ThreadPoolExecutor(SEEKERS) as pool:
        answers = list(pool.map(post, range(SEEKERS)))

    statuses = Counter(a["status"] for a in answers)
    # No two compatible seeks ever wait together: every other one pairs with one waiting.
    assert statuses == {"waiting": SEEKERS // 2, "paired": SEEKERS // 2}
    match_ids = [a["match_id"] for a in answers if a["status"] == "paired"]
    assert len(set(match_ids)) == SEEKERS // 2
    engine = make_engine(pg_url)
    with engine.connect() as conn:
        seeks = conn.execute(text("SELECT status, match_id, token_hash FROM seeks")).all()
        seats = conn.execute(
            text("SELECT match_id, token_hash FROM seats WHERE match_id = ANY(:ids)"), {"ids": match_ids}
        ).all()
        statuses_of_matches = (
            conn.execute(text("SELECT status FROM matches WHERE id = ANY(:ids)"), {"ids": match_ids})
            .scalars()
            .all()
        )
    engine.dispose()
    assert Counter(status for status, _m, _t in seeks) == {"paired": SEEKERS}
    # Each match has the two players whose seeks name it; each player is in exactly one.
    per_match = Counter(match_id for _s, match_id, _t in seeks)
    assert set(per_match.values()) == {2} and set(per_match) == set(match_ids)
    assert sorted((m, t) for _s, m, t in seeks) == sorted((m, t) for m, t in seats)
    assert len({t for _m, t in seats}) == SEEKERS
    assert statuses_of_matches == ["playing"] * (SEEKERS // 2)
    # Nothing is left open.
    assert clients[0].get("/api/seeks").json()["seeks"] == []
