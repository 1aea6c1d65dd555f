"""The create and account rate limits hold across processes: their buckets are rows of
one database (app/rate_limits.py, ``SharedBuckets``), not each process's memory, where
N processes allowed N times the rate. On SQLite and, with TEST_DATABASE_URL, on
PostgreSQL (the second CI run)."""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.main import create_app
from app.models import Match, RateBucket
from app.rate_limits import DEFAULT_LIMITS, SharedBuckets, TokenBuckets, hashed_key
from app.services.cleanup import BUCKETS_KEPT, Cleanup
from tests.app.conftest import database_url


@contextmanager
def two_processes(tmp_path: Path) -> Iterator[tuple[TestClient, TestClient]]:
    """Two apps on one database, as two replicas are, each with its own memory; one
    client (the same address) talking to each. Their buckets' clocks stand still, so
    nothing refills while the test runs, however slow the machine."""
    url = database_url(tmp_path)
    frozen = time.time()
    with ExitStack() as stack:
        clients = []
        for _ in range(2):
            app: FastAPI = create_app(Settings(database_url=url, secret_key="test-secret", rate_limits=True))
            for buckets in app.state.limiter.buckets.values():
                buckets.clock = lambda: frozen
            clients.append(stack.enter_context(TestClient(app)))
        yield clients[0], clients[1]


def test_matches_created_through_one_process_count_in_the_other(tmp_path: Path) -> None:
    burst = DEFAULT_LIMITS["create"].burst
    body = {"game": "morris", "name": "A", "side": "first"}
    with two_processes(tmp_path) as (one, other):
        # Half the burst on each: before, each process had a whole burst of its own.
        for client in [one, other] * (burst // 2):
            assert client.post("/api/matches", json=body).status_code == 201
        for client in (one, other):
            refused = client.post("/api/matches", json=body)
            assert refused.status_code == 429, refused.text
            assert int(refused.headers["retry-after"]) >= 1
            assert refused.json() == {"detail": "too many requests; please slow down"}


def test_password_checks_through_one_process_count_in_the_other(tmp_path: Path) -> None:
    burst = DEFAULT_LIMITS["account"].burst
    with two_processes(tmp_path) as (one, other):
        for i in range(burst):
            client = one if i % 2 else other
            # Unknown names, each its own: the per-name failure limit stays out of it.
            answer = client.post("/api/session", json={"username": f"nobody{i}", "password": "x" * 12})
            assert answer.status_code == 401, answer.text
        refused = one.post("/api/session", json={"username": "nobody-else", "password": "x" * 12})
        assert refused.status_code == 429, refused.text
        # The move limit is each process's own (it guards that process's CPU).
        assert set(one.app.state.limiter.buckets) >= {"move", "analysis"}  # type: ignore[attr-defined]
        assert isinstance(one.app.state.limiter.buckets["move"], TokenBuckets)  # type: ignore[attr-defined]


def test_the_database_buckets_count_as_the_memory_ones(tmp_path: Path) -> None:
    """The same requests, at the same moments, get the same answers from a bucket in
    memory and one in the database: a burst, then the steady rate, per key."""
    with two_processes(tmp_path) as (one, _other):
        sessions = one.app.state.sessions  # type: ignore[attr-defined]
        now = [1_000_000.0]
        shared = SharedBuckets(sessions, "test", per_second=2.0, burst=3, secret="s", clock=lambda: now[0])
        memory = TokenBuckets(per_second=2.0, burst=3, clock=lambda: now[0])
        rng = random.Random(28)
        refused = 0
        for _ in range(300):
            now[0] += rng.choice([0.0, 0.0, 0.05, 0.2, 0.5, 1.7])
            key = rng.choice(["198.51.100.1", "198.51.100.2", "2001:db8::/64"])
            expected = memory.take(key)
            assert shared.take(key) == pytest.approx(expected, abs=1e-6), (key, now[0])
            refused += expected > 0
        assert 30 < refused < 270  # the sequence met both answers often


def test_a_bucket_holds_no_address_and_goes_once_full(tmp_path: Path) -> None:
    with two_processes(tmp_path) as (one, _other):
        app = one.app
        sessions = app.state.sessions  # type: ignore[attr-defined]
        buckets = SharedBuckets(sessions, "create", per_second=0.5, burst=20, secret="test-secret")
        assert buckets.take("198.51.100.7") == 0.0
        buckets.clock = lambda: time.time() - BUCKETS_KEPT.total_seconds() - 60  # an old one
        assert buckets.take("203.0.113.9") == 0.0
        with sessions() as db:
            rows = {(row.kind, row.key) for row in db.scalars(select(RateBucket))}
        assert ("create", hashed_key("198.51.100.7", "test-secret")) in rows
        assert not any("198.51.100" in key or "203.0.113" in key for _kind, key in rows)

        swept = Cleanup(app.state.matches).run_once()  # type: ignore[attr-defined]
        assert swept.buckets >= 1
        with sessions() as db:
            left = {row.key for row in db.scalars(select(RateBucket))}
        assert hashed_key("203.0.113.9", "test-secret") not in left
        assert hashed_key("198.51.100.7", "test-secret") in left


def test_what_is_stored_of_an_address_cannot_be_undone_without_the_secret(tmp_path: Path) -> None:
    """A plain hash of an IPv4 address is undone by hashing all 2³² of them: what a
    match and a bucket keep is an HMAC under the site's SECRET_KEY, the same in every
    process of the site and another under another key."""
    with two_processes(tmp_path) as (one, other):
        created = one.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
        assert created.status_code == 201, created.text
        one.post("/api/session", json={"username": "nobody", "password": "x" * 12})
        other.post("/api/session", json={"username": "nobody", "password": "x" * 12})
        sessions = one.app.state.sessions  # type: ignore[attr-defined]
        with sessions() as db:
            match = db.get(Match, created.json()["id"])
            assert match is not None
            keys = {row.key for row in db.scalars(select(RateBucket))}
        address = "testclient"  # what the test client's requests come from
        plain = hashlib.sha256(address.encode()).hexdigest()[:32]
        assert match.client_key == hashed_key(address, "test-secret") != plain
        assert keys == {hashed_key(address, "test-secret")}  # one bucket row per kind, both processes'
        assert hashed_key(address, "another-secret") != match.client_key
