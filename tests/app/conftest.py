from __future__ import annotations

import atexit
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.manage import migrate
from tests.live import free_port


@cache
def sqlite_template() -> Path:
    """A SQLite database migrated once per test process, for every test to copy."""
    folder = Path(tempfile.mkdtemp(prefix="tablero-template-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = folder / "template.db"
    migrate(f"sqlite:///{path}")
    return path


def database_url(tmp_path: Path) -> str:
    """A fresh database with the migrations applied: a copy of a template migrated once
    per test process (SQLite in tmp_path; with TEST_DATABASE_URL, a PostgreSQL server URL,
    a new PostgreSQL database, see tests/pg.py), so a test pays a copy, not the migrations.
    A test may still call ``migrate`` on it: that finds it up to date.
    """
    server = os.environ.get("TEST_DATABASE_URL")
    if server:
        from tests.pg import migrated_database

        return migrated_database(server)
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "tablero.db"
    # The backup API copies what the template holds even if part of it is in its WAL.
    with sqlite3.connect(sqlite_template()) as source, sqlite3.connect(path) as copy:
        source.backup(copy)
    source.close()
    copy.close()
    return f"sqlite:///{path}"


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    url = database_url(tmp_path)
    # Rate limits have their own tests; here one address plays many matches quickly.
    return create_app(Settings(database_url=url, secret_key="test-secret", rate_limits=False))


@pytest.fixture
def alice(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as client:
        yield client


# The app's lifespan (its computer worker, its event listener) runs once, with
# alice; the other browsers are clients of the same running app, served on its event
# loop as uvicorn serves every browser (a client of its own would serve each request
# on a new loop, where PostgreSQL's loop executor is not open: app.pg_loop).


def browser(alice: TestClient) -> TestClient:
    """Another browser of alice's running app, served on the app's own event loop."""
    client = TestClient(alice.app)
    client.portal = alice.portal
    return client


@pytest.fixture
def bob(alice: TestClient) -> TestClient:
    return browser(alice)


@pytest.fixture
def carol(alice: TestClient) -> TestClient:
    return browser(alice)


@pytest.fixture
def app_in_thread(tmp_path: Path) -> Iterator[tuple[str, FastAPI]]:
    """The app in a uvicorn thread of this process, so that its functions can be watched."""
    url = database_url(tmp_path)
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
