"""The computer's worker processes end with the server, even after kill -9 (issue 17)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx

from tests.app.conftest import database_url
from tests.live import LiveServer


def children(pid: int) -> set[int]:
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_worker_processes_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    server = LiveServer(url, env={"TABLERO_TEST_OPPONENT": "search", "COMPUTER_PROCESSES": "1"})
    server.start()
    assert server.process is not None
    pid = server.process.pid
    body = {"game": "morris", "name": "A", "side": "second", "opponent": {"level": 1}}
    match_id = httpx.post(server.url + "/api/matches", json=body).json()["id"]
    deadline = time.monotonic() + 60
    while httpx.get(f"{server.url}/api/matches/{match_id}").json()["ply"] == 0:
        assert time.monotonic() < deadline, "the computer never replied"
        time.sleep(0.2)
    workers = {c for c in children(pid) if alive(c)}
    assert workers, "the computer's pool should run in child processes"
    server.stop(kill=True)
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(w) for w in workers), "worker processes outlived the server"
