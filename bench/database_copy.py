"""What giving one test its database costs: migrating a new one (as every test did) against
copying a template migrated once per test process (tests.app.conftest.database_url).

    PYTHONPATH=. python bench/database_copy.py [N]
    TEST_DATABASE_URL=postgresql+psycopg://… PYTHONPATH=. python bench/database_copy.py [N]

Two interleaved rounds of N databases each way; CPU time of this process (on PostgreSQL
the server's work is not in it, only in the wall time).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from app.manage import migrate
from tests.app.conftest import database_url

SERVER = os.environ.get("TEST_DATABASE_URL")


def migrated_each_time() -> None:
    if SERVER:
        from tests.pg import fresh_database

        url = fresh_database(SERVER)
    else:
        url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'tablero.db'}"
    migrate(url)


def copied() -> None:
    database_url(Path(tempfile.mkdtemp()))


def measure(name: str, make: Callable[[], None], count: int) -> None:
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        make()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(f"{name:>20}: {cpu / count * 1000:6.1f} ms CPU, {wall / count * 1000:7.1f} ms wall per database")


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    migrated_each_time()  # imports, and the template below: not measured
    copied()
    print("PostgreSQL" if SERVER else "SQLite", f"({count} databases a round)")
    for _ in range(2):
        measure("migrated each time", migrated_each_time, count)
        measure("template copied", copied, count)


if __name__ == "__main__":
    main()
