"""A real uvicorn process serving the app, for tests that need real sockets."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from app.config import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
        self.process: subprocess.Popen[bytes] | None = None

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
        # A shared, loaded machine can take half a minute just to import the app.
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.1)
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
