from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.manage import migrate
from tests.live import free_port


def database_url(tmp_path: Path) -> str:
    """A fresh database: SQLite in tmp_path, or a new schema-less PostgreSQL database.

    TEST_DATABASE_URL (a PostgreSQL server URL) makes every test run against
    PostgreSQL instead; see tests/pg.py.
    """
    server = os.environ.get("TEST_DATABASE_URL")
    if server:
        from tests.pg import fresh_database

        return fresh_database(server)
    return f"sqlite:///{tmp_path / 'tablero.db'}"


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    url = database_url(tmp_path)
    migrate(url)
    # Rate limits have their own tests; here one address plays many matches quickly.
    return create_app(Settings(database_url=url, secret_key="test-secret", rate_limits=False))


@pytest.fixture
def alice(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client


# The app's lifespan (its computer worker, its event listener) runs once, with
# alice; the other browsers are plain clients of the same running app.


@pytest.fixture
def bob(app: FastAPI, alice: TestClient) -> TestClient:
    return TestClient(app)


@pytest.fixture
def carol(app: FastAPI, alice: TestClient) -> TestClient:
    return TestClient(app)


@pytest.fixture
def app_in_thread(tmp_path: Path) -> Iterator[tuple[str, FastAPI]]:
    """The app in a uvicorn thread of this process, so that its functions can be watched."""
    url = database_url(tmp_path)
    migrate(url)
    application = create_app(Settings(database_url=url, secret_key="test-secret", rate_limits=False))
    config = uvicorn.Config(application, host="127.0.0.1", port=free_port(), log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    yield f"http://127.0.0.1:{server.config.port}", application
    server.should_exit = True
    thread.join(timeout=10)
