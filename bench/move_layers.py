"""CPU per move through the whole ASGI app, in one process, with and without a layer.

Run with ``.venv/bin/python bench/move_layers.py`` (not part of CI; figures in
docs/benchmarks.md). No uvicorn and no sockets: the client calls the app's ASGI callable
with hand-built messages, so its own cost per move is a few microseconds. Each variant is
the same app (its own SQLite database in a temporary directory) with one of the move
path's layers taken out:

- ``full``: the site as built;
- ``no-move-calls``: without ``app.routes.move_calls.MoveCalls`` (FastAPI's routes answer);
- ``no-loop-reads``: ``GET /legal`` read on a worker thread, not on the event loop.

Thirty matches (Morris, Bobail, Bashni) per variant make random legal moves: ``GET
/legal``, then ``POST /moves`` by the side to move (a finished match is replaced). The
variants take turns, ``--batch`` moves at a time for ``--rounds`` rounds, so the
machine's drifting speed touches them alike; the CPU of the whole process
(``time.process_time``: the event loop and the worker threads) is divided by the moves.
Reported: each variant's median over the rounds and the median of its per-round ratio to
the first variant.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from harness import ROOT  # bench/ is on sys.path

sys.path.insert(0, str(ROOT))

from app.config import Settings
from app.main import create_app
from app.manage import migrate
from app.routes.move_calls import MoveCalls

GAMES = ("morris", "bobail", "bashni")
Answer = tuple[int, list[tuple[bytes, bytes]], bytes]


def variant(name: str, url: str) -> FastAPI:
    app = create_app(Settings(database_url=url, secret_key="bench", rate_limits=False))
    if name == "no-move-calls":
        app.user_middleware = [m for m in app.user_middleware if m.cls is not MoveCalls]
    elif name == "no-loop-reads":
        app.state.matches.loop_reads = None
    elif name != "full":
        raise SystemExit(f"unknown variant {name!r}")
    return app


async def call(
    app: FastAPI, method: str, path: str, body: bytes = b"", cookie: bytes | None = None
) -> Answer:
    headers = [(b"host", b"bench")]
    if body:
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if cookie:
        headers.append((b"cookie", cookie))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("bench", 80),
        "state": {},
    }
    pending = [{"type": "http.request", "body": body, "more_body": False}]
    started: dict[str, Any] = {}
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop()
        await asyncio.Event().wait()  # the client never goes away
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            started.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return started["status"], started["headers"], b"".join(chunks)


def cookie_of(headers: list[tuple[bytes, bytes]]) -> bytes:
    return next(value.split(b";")[0] for key, value in headers if key == b"set-cookie")


async def player(app: FastAPI, rng: random.Random) -> Callable[[int], Awaitable[tuple[float, int]]]:
    """``play(n)``: ``n`` moves over the app's matches; (CPU seconds, moves)."""

    async def new_match(game: str) -> list[Any]:
        status, headers, body = await call(
            app, "POST", "/api/matches", json.dumps({"game": game, "name": "A"}).encode()
        )
        assert status == 201, body
        created = json.loads(body)
        match_id = created["id"]
        cookies = {created["seat"]: cookie_of(headers)}
        status, headers, body = await call(app, "POST", f"/api/matches/{match_id}/join", b'{"name": "B"}')
        assert status == 200, body
        cookies[json.loads(body)["seat"]] = cookie_of(headers)
        _, _, body = await call(app, "GET", f"/api/matches/{match_id}")
        return [match_id, cookies, json.loads(body)["to_move"]]

    matches = [await new_match(GAMES[n % 3]) for n in range(30)]

    async def one_move(match: list[Any]) -> bool:
        match_id, cookies, to_move = match
        _, _, body = await call(app, "GET", f"/api/matches/{match_id}/legal")
        legal = json.loads(body)
        if not legal["moves"]:
            return False
        move = json.dumps({"move": rng.choice(legal["moves"]), "ply": legal["ply"]}).encode()
        status, _, body = await call(app, "POST", f"/api/matches/{match_id}/moves", move, cookies[to_move])
        assert status == 200, body
        match[2] = json.loads(body)["to_move"]
        return True

    async def play(count: int) -> tuple[float, int]:
        done = 0
        started = time.process_time()
        while done < count:
            for index, match in enumerate(matches):
                if await one_move(match):
                    done += 1
                else:
                    matches[index] = await new_match(GAMES[index % 3])
                if done >= count:
                    break
        return time.process_time() - started, done

    return play


async def run(names: list[str], rounds: int, batch: int) -> dict[str, list[float]]:
    per: dict[str, list[float]] = {name: [] for name in names}
    async with AsyncExitStack() as stack:
        plays = []
        for name in names:
            url = f"sqlite:///{Path(tempfile.mkdtemp(prefix='tablero-layers-')) / 'bench.db'}"
            migrate(url)
            app = variant(name, url)
            await stack.enter_async_context(app.router.lifespan_context(app))
            play = await player(app, random.Random(1))
            await play(200)  # warm: every template, cache and connection in place
            plays.append((name, play))
        for number in range(rounds):
            for name, play in plays if number % 2 == 0 else plays[::-1]:
                cpu, done = await play(batch)
                per[name].append(cpu / done * 1000)
    return per


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "variants", nargs="+", help="full, no-move-calls, no-loop-reads (first: the reference)"
    )
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--batch", type=int, default=150, help="moves per variant per round")
    args = parser.parse_args(argv)
    per = asyncio.run(run(args.variants, args.rounds, args.batch))
    first = args.variants[0]
    for name, figures in per.items():
        ratios = [mine / theirs for mine, theirs in zip(figures, per[first], strict=True)]
        print(
            f"{name}: median {statistics.median(figures):.3f} ms CPU per move "
            f"({min(figures):.3f}-{max(figures):.3f}), per-round ratio to {first}: "
            f"median {statistics.median(ratios):.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
