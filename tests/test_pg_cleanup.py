"""The PostgreSQL run drops each test's database when the test ends, not when its
process does (tests/pg_cleanup.py): a run of the whole suite once filled CI's disk."""

from __future__ import annotations

import os
import subprocess
import uuid

import psycopg
import pytest
from psycopg import sql

from tests import pg

pytestmark = pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"), reason="about PostgreSQL test databases"
)

INNER = """
import os

import psycopg
import pytest

from tests import pg

SERVER = os.environ["TEST_DATABASE_URL"]
seen = {}


def exists(url):
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(%(maintenance)r) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %%s", (name,)).fetchone() is not None


@pytest.fixture(scope="module")
def shared():
    url = pg.migrated_database(SERVER)
    yield url
    assert exists(url), "dropped before its fixture's teardown"


@pytest.fixture
def own():
    url = pg.migrated_database(SERVER)
    yield url
    assert exists(url), "dropped before its fixture's teardown"


def test_first(shared, own):
    seen["shared"], seen["own"] = shared, own
    seen["body"] = pg.fresh_database(SERVER)
    assert exists(own) and exists(seen["body"])


def test_second(shared, own):
    assert shared == seen["shared"] and exists(shared)
    assert not exists(seen["own"]), "the first test's fixture database outlived the test"
    assert not exists(seen["body"]), "the first test's own database outlived the test"
"""


def databases() -> set[str]:
    """The test databases of this process (another xdist worker makes and drops its own
    meanwhile)."""
    with psycopg.connect(maintenance()) as conn:
        names = {row[0] for row in conn.execute("SELECT datname FROM pg_database").fetchall()}
    return {name for name in names if name.startswith(f"tablero_test_{os.getpid()}_")}


def exists(name: str) -> bool:
    with psycopg.connect(maintenance()) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
    return found is not None


def maintenance() -> str:
    return (
        pg.maintenance_url(os.environ["TEST_DATABASE_URL"])
        .set(drivername="postgresql")
        .render_as_string(hide_password=False)
    )


def test_each_database_is_dropped_when_its_test_or_fixture_ends(pytester: pytest.Pytester) -> None:
    pg.migrated_database(os.environ["TEST_DATABASE_URL"])  # this process's template, made now
    before = databases()
    pytester.makepyfile(test_inner=INNER % {"maintenance": maintenance()})

    result = pytester.runpytest_inprocess("-p", "tests.pg_cleanup", "-p", "no:cacheprovider")

    result.assert_outcomes(passed=2)
    assert databases() == before  # the module's database too, at the module's end


def test_the_sweep_drops_the_databases_of_dead_test_processes_only() -> None:
    server = os.environ["TEST_DATABASE_URL"]
    dead = subprocess.Popen(["true"])
    dead.wait()
    abandoned = f"tablero_test_{dead.pid}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(maintenance(), autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(abandoned)))
    ours = pg.fresh_database(server).rsplit("/", 1)[1]  # named with this live process's pid

    swept = pg.sweep_abandoned(server)

    assert abandoned in swept and ours not in swept
    assert not exists(abandoned) and exists(ours)
