"""Fresh PostgreSQL databases for tests (used when TEST_DATABASE_URL is set).

TEST_DATABASE_URL names a PostgreSQL server and a role that may create databases,
e.g. ``postgresql+psycopg://tablero:tablero@127.0.0.1:54329/postgres`` (.ci/run starts
one). Every test gets a database of its own, made here: ``fresh_database`` an empty
one (the caller applies the migrations), ``migrated_database`` a copy of one migrated
once per test process (``CREATE DATABASE … TEMPLATE``, cheaper than running the
migrations again). tests/pg_cleanup.py drops each when the fixture or test that made it
ends; what is left (the template) is dropped when the test process ends.
"""

from __future__ import annotations

import atexit
import os
import uuid
from typing import Any

import psycopg
from psycopg import sql
from sqlalchemy.engine import URL, make_url

#: Databases made by this process, dropped at exit.
_created: list[tuple[URL, str]] = []


def _connect(url: URL) -> psycopg.Connection:
    """An autocommit psycopg connection to ``url`` (CREATE/DROP DATABASE need one)."""
    return psycopg.connect(
        host=url.host,
        port=url.port,
        user=url.username,
        password=url.password,
        dbname=url.database,
        autocommit=True,
        connect_timeout=10,
        **{k: str(v) for k, v in url.query.items()},
    )


def maintenance_url(server_url: str) -> URL:
    """The server URL with a database to connect to for administration (default ``postgres``)."""
    url = make_url(server_url)
    if url.get_backend_name() != "postgresql":
        raise ValueError(f"TEST_DATABASE_URL must be a PostgreSQL URL, not {url.get_backend_name()}")
    return url.set(database=url.database or "postgres")


def fresh_database(server_url: str, template: str | None = None) -> str:
    """Create a new, uniquely named database, empty or a copy of ``template``; return
    its SQLAlchemy URL."""
    server = maintenance_url(server_url)
    name = f"tablero_test_{os.getpid()}_{uuid.uuid4().hex[:12]}"
    create = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template is not None:
        create = sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
            sql.Identifier(name), sql.Identifier(template)
        )
    with _connect(server) as conn:
        conn.execute(create)
    if not _created:
        atexit.register(drop_created)
    _created.append((server, name))
    url = server.set(drivername="postgresql+psycopg", database=name)
    return url.render_as_string(hide_password=False)


#: The migrated database of this process that ``migrated_database`` copies (its name).
_template: list[str] = []


def migrated_database(server_url: str) -> str:
    """A new database with the migrations applied: a copy of a template migrated the
    first time this process asks (nobody connects to the template after that, as a copy
    requires). Its SQLAlchemy URL."""
    if not _template:
        from app.manage import migrate

        url = fresh_database(server_url)
        migrate(url)  # its engine is disposed after: no connection stays on the template
        _template.append(make_url(url).database or "")
    return fresh_database(server_url, template=_template[0])


def created() -> list[str]:
    """The names of the databases this process made and has not dropped, the template
    (which later copies need) left out."""
    return [name for _, name in _created if name not in _template]


def drop(names: list[str]) -> None:
    """Drop these databases of this process's (best effort: a failure only leaves one
    behind, for the sweep of a later run). ``WITH (FORCE)`` ends what is still connected."""
    wanted = set(names)
    for server, name in [entry for entry in _created if entry[1] in wanted]:
        _created.remove((server, name))
        try:
            with _connect(server) as conn:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        except psycopg.Error:
            pass


def drop_created() -> None:
    """Drop every database this process made, the template too (at exit)."""
    drop([name for _, name in _created])


def sweep_abandoned(server_url: str) -> list[str]:
    """Drop the test databases that a test process of this machine made and could not
    drop because it was killed (its pid, in the name, no longer runs); their names.

    Without this, every killed run left its databases on the server for good: a
    reused CI server once held 8,556 of them, 75 GB, and filled the disk."""
    server = maintenance_url(server_url)
    with _connect(server) as conn:
        names = [
            row[0]
            for row in conn.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE 'tablero\\_test\\_%'"
            ).fetchall()
        ]
    abandoned = []
    for name in names:
        pid = name.split("_")[2]
        if pid.isdigit() and not _running(int(pid)):
            abandoned.append(name)
    for name in abandoned:
        try:
            with _connect(server) as conn:
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        except psycopg.Error:
            pass
    return abandoned


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: running
    return True


def terminate_connections(url: URL) -> int:
    """Ends every server process connected to ``url``'s database, as a restart of the
    server would, and says how many there were."""
    with _connect(url.set(database="postgres")) as conn:
        killed = conn.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            (url.database,),
        ).fetchall()
    return len(killed)


async def hold_every_connection(pool: Any) -> list[Any]:
    """Every connection of a psycopg_pool ``AsyncConnectionPool``, taken on its own loop."""
    return [await pool.getconn() for _ in range(pool.max_size)]


async def give_back(pool: Any, held: list[Any]) -> None:
    for connection in held:
        await pool.putconn(connection)


def counting_getconn(pool: Any, monkeypatch: Any) -> list[int]:
    """From now on (until ``monkeypatch`` undoes it), one entry per connection taken from
    a psycopg_pool ``AsyncConnectionPool``."""
    taken: list[int] = []
    getconn = pool.getconn

    async def counted(*args: Any, **kwargs: Any) -> Any:
        taken.append(1)
        return await getconn(*args, **kwargs)

    monkeypatch.setattr(pool, "getconn", counted)
    return taken
