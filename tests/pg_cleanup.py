"""A pytest plugin: each PostgreSQL test database is dropped when what made it ends.

A database made while a fixture is set up lives as long as that fixture (a module's
server keeps its database through the module); one made in a test's body lives until
that test's teardown. The drop waits until the test's whole teardown has run, so a
fixture's own teardown (a server stopping, a lifespan ending) still finds its
database. Before this, every database lived until its test process ended: about
9 MB each, a PostgreSQL run of the suite held some 16 GB at its end, and CI's disk
ran out at 85 %.

Loaded by tests/conftest.py; it does nothing without TEST_DATABASE_URL.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from typing import Any

import pytest

from tests import pg

#: Databases whose fixture or test has ended, dropped after the test's teardown.
_ended: list[str] = []
#: Databases already owned by a fixture (the innermost that was being set up).
_owned: set[str] = set()


def pytest_sessionstart(session: pytest.Session) -> None:
    server = os.environ.get("TEST_DATABASE_URL")
    # Once per run, by the process that leads it (not by each xdist worker).
    if server and not hasattr(session.config, "workerinput"):
        pg.sweep_abandoned(server)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, Any, Any]:
    before = set(pg.created())
    try:
        return (yield)
    finally:
        made = [name for name in pg.created() if name not in before and name not in _owned]
        if made:
            _owned.update(made)
            fixturedef.addfinalizer(lambda: _ended.extend(made))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    before = set(pg.created())
    try:
        return (yield)
    finally:
        _ended.extend(name for name in pg.created() if name not in before and name not in _owned)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    try:
        return (yield)
    finally:
        if _ended:
            _owned.difference_update(_ended)
            pg.drop(list(_ended))
            _ended.clear()
