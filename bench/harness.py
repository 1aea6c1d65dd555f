"""The server the benchmarks measure: a fresh migrated database, uvicorn on a free port,
and the CPU its processes use, read from /proc.

Every benchmark that talks to a real server (load.py, move_cost.py, watchers.py,
tap_latency.py, screenshots.py) starts it here, so they all measure the same server:
the options the Makefile and the Dockerfile serve with, rate limits off (every client is
127.0.0.1), and no thinker pool (no computer seats are played).

Scripts in bench/ run with bench/ on ``sys.path``: ``from harness import served``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # app and tests.pg, for scripts run as bench/NAME.py
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: A shared, loaded machine can take half a minute just to import the app.
START_SECONDS = 90.0


# ------------------------------------------------------------------ the database


@contextlib.contextmanager
def database(url: str | None = None, prefix: str = "tablero-bench-") -> Iterator[str]:
    """A migrated database's URL for the duration of the block.

    ``None``: a fresh SQLite file in a temporary folder, removed afterwards; a PostgreSQL
    URL names a server on which a new database is made and then dropped; any other URL
    is used as it is.
    """
    from app.manage import migrate

    with contextlib.ExitStack() as cleanup:
        if url is None:
            folder = cleanup.enter_context(tempfile.TemporaryDirectory(prefix=prefix))
            url = f"sqlite:///{folder}/bench.db"
        elif url.startswith("postgresql"):
            from tests.pg import drop_created, fresh_database

            url = fresh_database(url)
            cleanup.callback(drop_created)
        migrate(url)
        yield url


def postgres_postmaster(database_url: str) -> int | None:
    """The local PostgreSQL server's postmaster pid (to count its CPU), if it is local."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    if make_url(database_url).host not in ("127.0.0.1", "localhost", None):
        return None
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            backend = int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())
        with open(f"/proc/{backend}/stat", encoding="ascii") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError):
        return None
    finally:
        engine.dispose()


# ------------------------------------------------------------------ the server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """uvicorn with ``workers`` processes on a migrated database, started and stopped here."""

    def __init__(
        self,
        database_url: str,
        workers: int = 1,
        env: Mapping[str, str] | None = None,
        app_dir: Path = ROOT,
        uvicorn_args: Sequence[str] = (),
    ) -> None:
        self.database_url = database_url
        #: more uvicorn options (``--http httptools``, ``--timeout-keep-alive 75``)
        self.uvicorn_args = list(uvicorn_args)
        self.workers = workers
        self.env = dict(env or {})
        #: the checkout whose ``app`` package is served (another one: a candidate change)
        self.app_dir = app_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = START_SECONDS) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            # One key for every worker process (the "continue on another device" links).
            "SECRET_KEY": "load-bench-secret",
            # No computer seats here: keep each worker from starting a thinker pool.
            "TABLERO_TEST_OPPONENT": "first-legal",
            "COMPUTER_PROCESSES": "1",
            # Every client here is 127.0.0.1: per-address rate limits would refuse most moves.
            "RATE_LIMITS": "off",
            # ...and so would the cap on open event streams per address (1,000 watchers).
            "STREAMS_PER_CLIENT": "100000",
            **self.env,
        }
        command = [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "app.main:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--log-level",
            "warning",
            "--no-access-log",
            # Event streams never end by themselves: do not wait for them when stopping.
            "--timeout-graceful-shutdown",
            "3",
            # As the Makefile and the Dockerfile serve it: idle connections outlive httpx's.
            "--timeout-keep-alive",
            "75",
        ]
        if self.workers > 1:
            command += ["--workers", str(self.workers)]
        command += self.uvicorn_args
        self.process = subprocess.Popen(command, cwd=self.app_dir, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                self.process = None
                raise RuntimeError(f"uvicorn exited with {code}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    if self.workers > 1:
                        time.sleep(2.0)  # the other workers finish importing too
                    return
            time.sleep(0.2)
        # Never leave a half-started server behind: it would hold a port and a core.
        self.stop()
        raise RuntimeError("the server did not start")

    def pids(self) -> list[int]:
        """The server's processes now: uvicorn and every process below it."""
        assert self.process is not None
        return descendants(self.process.pid)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None


@contextlib.contextmanager
def served(
    database_url: str | None = None,
    *,
    prefix: str = "tablero-bench-",
    workers: int = 1,
    env: Mapping[str, str] | None = None,
    app_dir: Path = ROOT,
    uvicorn_args: Sequence[str] = (),
) -> Iterator[Server]:
    """A started server on :func:`database` ``(database_url, prefix)``; stopped, and the
    database removed, when the block ends."""
    with database(database_url, prefix) as url:
        server = Server(url, workers, env, app_dir=app_dir, uvicorn_args=uvicorn_args)
        server.start()
        try:
            yield server
        finally:
            server.stop()


# ------------------------------------------------------------------ CPU from /proc


def descendants(root: int) -> list[int]:
    """``root`` and every process below it (uvicorn's workers, PostgreSQL's backends)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        parents.setdefault(ppid, []).append(int(entry))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(parents.get(pid, ()))
    return found


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """User + system CPU seconds of each of these processes that still exists."""
    found = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
    return found


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as stat:
        values = [int(v) for v in stat.readline().split()[1:8]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values) - idle) / CLOCK_TICKS, sum(values) / CLOCK_TICKS
