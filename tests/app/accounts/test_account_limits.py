"""Checking a password is limited per address, successful or not: each check is an
Argon2id hash (64 MiB, tens of milliseconds), and before this limit one address holding
one account could sign in without end, holding the server's memory and CPU. Failed
sign-ins also have their own per-username limit (app/accounts/limits.py), and sign-ups
their per-address count in the database (service.SIGN_UPS)."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

from tests.app.test_hardening import make_app

PASSWORD = "correct horse battery staple"


def frozen_limits(tmp_path: Path) -> TestClient:
    app = make_app(tmp_path, rate_limits=True)
    frozen = time.time()  # wall time, as the shared buckets count (app/rate_limits.py)
    for buckets in app.state.limiter.buckets.values():
        buckets.clock = lambda: frozen  # no refill while the test runs, however slow the machine
    return TestClient(app)


def test_sign_ins_and_the_sign_up_page_share_the_limit(tmp_path: Path) -> None:
    with frozen_limits(tmp_path) as client:
        assert client.post("/api/account", json={"username": "ana", "password": PASSWORD}).status_code == 201
        for _ in range(5):
            assert (
                client.post("/api/session", json={"username": "ana", "password": PASSWORD}).status_code == 200
            )
        for n in range(4):
            assert (
                client.post("/signup", data={"username": f"web{n}", "password": PASSWORD}).status_code == 200
            )
        refused = client.post("/signin", data={"username": "ana", "password": PASSWORD})
        assert refused.status_code == 429
        assert client.post("/api/session", json={"username": "ana", "password": PASSWORD}).status_code == 429
