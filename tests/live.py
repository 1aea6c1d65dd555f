"""A real uvicorn process serving the app, for tests that need real sockets."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from app.config import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Forked:
    """A server forked by the zygote (tests/zygote.py), with the part of ``Popen``'s
    interface the tests use. It is not this process's child: it is watched by pid (the
    zygote reaps it as it ends, so a pid that answers is alive)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def poll(self) -> int | None:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return 0
        return None

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"pid {self.pid}", timeout or 0)
            time.sleep(0.02)
        return 0

    def _signal(self, number: int) -> None:
        with contextlib.suppress(ProcessLookupError):  # it has ended already
            os.kill(self.pid, number)


class Zygote:
    """This test process's zygote, started on first use and ended with the process."""

    _lock = threading.Lock()
    _process: subprocess.Popen[bytes] | None = None
    _channel: socket.socket | None = None

    @classmethod
    def fork(cls, port: int, env: dict[str, str]) -> Forked:
        with cls._lock:
            if cls._process is None or cls._process.poll() is not None or cls._channel is None:
                ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                cls._process = subprocess.Popen(
                    [sys.executable, "-m", "tests.zygote", str(theirs.fileno())],
                    cwd=ROOT,
                    pass_fds=[theirs.fileno()],
                )
                theirs.close()
                atexit.register(cls._process.kill)
                ours.settimeout(120)  # importing the app on a loaded machine
                if ours.recv(16) != b"ready":
                    raise RuntimeError("the test servers' zygote did not start")
                cls._channel = ours
            # The server's output goes to this test's standard error, as a child's would.
            request = json.dumps({"port": port, "env": env}).encode()
            socket.send_fds(cls._channel, [request], [2])
            return Forked(int(json.loads(cls._channel.recv(1 << 16))["pid"]))


#: Read by the app when it is imported, so a server given one is started on its own.
READ_AT_IMPORT = frozenset({"REQUEST_SECONDS"})


class LiveServer:
    """uvicorn serving the app on a free port, against its own database."""

    def __init__(
        self,
        database_url: str,
        env: dict[str, str] | None = None,
        nofile: int | None = None,
        args: tuple[str, ...] = (),
        log: Path | None = None,
    ) -> None:
        self.database_url = database_url
        self.env = env or {}
        #: A lowered limit on open files (soft and hard), as a small host would have.
        self.nofile = nofile
        #: More uvicorn options (the ones ``make run`` gives, for a test of them).
        self.args = args
        #: Where the server's output goes (the tests' own output when None).
        self.log = log
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | Forked | None = None

    def start(self) -> None:
        # Every test browser shares 127.0.0.1, so per-address rate limits stay off here.
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "SECRET_KEY": "e2e-secret",
            "RATE_LIMITS": "off",
            # Links people copy (invites) point here: the app never builds them from a header.
            "PUBLIC_URL": self.url,
            **self.env,
        }
        if not (self.args or self.nofile or self.log or READ_AT_IMPORT & self.env.keys()):
            self.process = Zygote.fork(self.port, env)
            self._wait_until_up()
            return
        log_file = self.log.open("ab") if self.log is not None else None
        self.process = subprocess.Popen(
            [
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
                # Event streams never end by themselves: do not wait long for them.
                "--timeout-graceful-shutdown",
                "3",
                *self.args,
            ],
            cwd=ROOT,
            env=env,
            preexec_fn=self._limit_files if self.nofile else None,
            stdout=log_file,
            stderr=subprocess.STDOUT if log_file is not None else None,
        )
        if log_file is not None:
            log_file.close()  # the server holds its own copy
        self._wait_until_up()

    def _wait_until_up(self) -> None:
        # A shared, loaded machine can take half a minute just to import the app.
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                if self.process is None or self.process.poll() is not None:
                    break  # it ended: its output says why
                time.sleep(0.05)
        # Never leave a half-started server behind: it would hold a port and a core.
        self.stop(kill=True)
        raise RuntimeError("the server did not start")

    def _limit_files(self) -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, self.nofile))

    def stop(self, kill: bool = False) -> None:
        if self.process is None:
            return
        if kill:
            self.process.kill()
        else:
            self.process.terminate()
        self.process.wait(timeout=10)
        self.process = None
