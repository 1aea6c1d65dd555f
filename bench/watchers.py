"""One match watched by many event streams: how late the last watcher sees a move, and
what the watchers cost the server per move.

Run with ``.venv/bin/python bench/watchers.py`` (not part of CI; figures in
docs/benchmarks.md). It starts uvicorn on a fresh SQLite database (or ``--database-url``),
creates one Morris match with two players, opens ``--watchers`` event streams on it from
browsers without a seat (plain sockets, so that the client stays light), and then the
players make ``--moves`` moves, one every ``--interval`` seconds. For every move and
watcher it records when the watcher has the new view, from the moment the move's
``200`` reached the player, and the server's CPU over the moves.

``--mode`` is what a watcher does, as a browser would:

- ``push``: the stream is ``/events?view=live``; the event ``live`` carries the view;
- ``refetch``: on each ``changed`` event the watcher fetches ``/matches/{id}/live`` on a
  connection of its own (what the match page did before views were pushed);
- ``events``: only the ``changed`` events (a program following the match).

``--app-dir`` serves another checkout's ``app`` (the code before a change).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from harness import ROOT, Server, cpu_seconds, descendants, postgres_postmaster, served
from machine import cpu_model
from move_cost import endless_line

ID_LINE = re.compile(rb"^id: (\d+)", re.M)
EVENT = re.compile(rb"id: (\d+)\nevent: (\w+)\n")
LIVE_VERSION = re.compile(rb'id="live"[^>]*data-version="(\d+)"')


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


class Watcher:
    """One browser without a seat: its stream, and (refetch) a second connection."""

    def __init__(self, host: str, port: int, match_id: str, mode: str) -> None:
        self.host, self.port, self.match_id, self.mode = host, port, match_id, mode
        #: version -> perf_counter() when this watcher first had a view at least that new
        self.seen: dict[int, float] = {}
        self.newest = 0
        self.subscribed = asyncio.Event()
        self.errors = 0

    def _have(self, version: int) -> None:
        if version > self.newest:
            now = time.perf_counter()
            for v in range(self.newest + 1, version + 1):
                self.seen[v] = now
            self.newest = version

    async def run(self) -> None:
        path = f"/matches/{self.match_id}/events" + ("?view=live" if self.mode == "push" else "")
        reader, writer = await asyncio.open_connection(self.host, self.port)
        fetch: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
        if self.mode == "refetch":
            fetch = await asyncio.open_connection(self.host, self.port)
        request = f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: text/event-stream\r\n\r\n"
        writer.write(request.encode())
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        buffer = b""
        try:
            while True:
                chunk = await reader.read(65536)
                if not chunk:
                    return
                buffer += chunk
                if b"retry:" in buffer:
                    self.subscribed.set()
                *messages, buffer = buffer.split(b"\n\n")
                for message in messages:
                    found = EVENT.search(message)
                    if found is None:
                        continue
                    version, kind = int(found[1]), found[2]
                    wanted = b"live" if self.mode == "push" else b"changed"
                    if self.mode != "refetch" and kind == wanted:
                        self._have(version)
                    elif self.mode == "refetch" and kind == b"changed" and version > self.newest:
                        assert fetch is not None
                        self._have(await self._refetch(*fetch))
        except (ConnectionError, asyncio.IncompleteReadError):
            self.errors += 1
        finally:
            writer.close()
            if fetch is not None:
                fetch[1].close()

    async def _refetch(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> int:
        path = f"/matches/{self.match_id}/live"
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {self.host}\r\nHX-Request: true\r\n\r\n".encode())
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"content-length: (\d+)", head, re.I)[1])  # type: ignore[index]
        body = await reader.readexactly(length)
        found = LIVE_VERSION.search(body)
        return int(found[1]) if found else 0


async def bench(args: argparse.Namespace, server: Server, pids: list[int]) -> dict[str, Any]:
    alice = httpx.AsyncClient(base_url=server.url, timeout=60)
    bob = httpx.AsyncClient(base_url=server.url, timeout=60)
    created = await alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
    match_id = created.json()["id"]
    (await bob.post(f"/api/matches/{match_id}/join", json={"name": "B"})).raise_for_status()
    watchers = [Watcher("127.0.0.1", server.port, match_id, args.mode) for _ in range(args.watchers)]
    tasks = []
    for index, watcher in enumerate(watchers):
        tasks.append(asyncio.create_task(watcher.run()))
        if index % 50 == 49:
            await asyncio.sleep(0.05)  # do not flood the listen backlog
    await asyncio.wait_for(asyncio.gather(*(w.subscribed.wait() for w in watchers)), timeout=120)
    await asyncio.sleep(2.0)  # catch-up events delivered, streams idle
    line = endless_line(args.moves, seed=3)
    acked: dict[int, float] = {}
    sent: dict[int, float] = {}
    cpu_before = sum(cpu_seconds(pids).values())
    started = time.perf_counter()
    for ply, move in enumerate(line):
        client = alice if ply % 2 == 0 else bob
        began = time.perf_counter()
        answer = await client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
        acked[answer.json()["version"]] = time.perf_counter()
        sent[answer.json()["version"]] = began
        await asyncio.sleep(args.interval)
    cpu_after = sum(cpu_seconds(pids).values())
    elapsed = time.perf_counter() - started
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await alice.aclose()
    await bob.aclose()

    delays, last, missed = [], [], 0
    from_send, last_from_send = [], []
    for version, at in acked.items():
        per_move, per_move_sent = [], []
        for watcher in watchers:
            when = watcher.seen.get(version)
            if when is None:
                missed += 1
            else:
                per_move.append((when - at) * 1000)
                per_move_sent.append((when - sent[version]) * 1000)
        delays += per_move
        from_send += per_move_sent
        if per_move:
            last.append(max(per_move))
            last_from_send.append(max(per_move_sent))
    # The idle server's own CPU over the same time (keep-alives, the worker's polling) is
    # small; it is counted in, as in bench/load.py.
    return {
        "mode": args.mode,
        "watchers": args.watchers,
        "moves": len(acked),
        "delay_p50_ms": round(percentile(delays, 0.5), 1),
        "delay_p99_ms": round(percentile(delays, 0.99), 1),
        "last_watcher_median_ms": round(percentile(last, 0.5), 1),
        # per move, in order: which moves make the tail
        "last_from_send_ms": [round(t, 1) for t in last_from_send],
        "last_watcher_max_ms": round(max(last), 1) if last else None,
        # From sending the move instead: an upper bound that includes playing it; the 200
        # itself can come after the events, queued behind them on the server's loop.
        "from_send_p50_ms": round(percentile(from_send, 0.5), 1),
        "from_send_p99_ms": round(percentile(from_send, 0.99), 1),
        "last_from_send_median_ms": round(percentile(last_from_send, 0.5), 1),
        "missed": missed,
        "stream_errors": sum(w.errors for w in watchers),
        "server_cpu_ms_per_move": round((cpu_after - cpu_before) / len(acked) * 1000, 1),
        "window_s": round(elapsed, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: a fresh SQLite file in a temporary directory")
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--interval", type=float, default=1.5, help="seconds between moves")
    parser.add_argument("--mode", choices=("push", "refetch", "events"), default="push")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="serve the app of another checkout")
    parser.add_argument("--uvicorn-args", default="", help='more uvicorn options, e.g. "--http httptools"')
    parser.add_argument("--json", type=Path, help="append the result as one JSON line to this file")
    args = parser.parse_args(argv)

    extra = args.uvicorn_args.split()
    # A new database (PostgreSQL: on that server), dropped at the end.
    with served(
        args.database_url, prefix="tablero-watchers-", app_dir=args.app_dir, uvicorn_args=extra
    ) as server:
        pids = server.pids()
        if server.database_url.startswith("postgresql"):
            postmaster = postgres_postmaster(server.database_url)
            pids += descendants(postmaster) if postmaster else []
        result = asyncio.run(bench(args, server, pids))
    result.update(
        app=str(args.app_dir),
        load_average=os.getloadavg(),
        cpu=cpu_model(),
        time=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    )
    print(json.dumps(result))
    if args.json:
        with args.json.open("a", encoding="utf-8") as out:
            out.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
