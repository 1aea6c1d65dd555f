"""Two app processes on one PostgreSQL database: events cross over, moves serialise.

Needs TEST_DATABASE_URL (a PostgreSQL server; .ci/run starts one), since SQLite and the
in-process broker serve a single process only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from app.db import make_engine
from app.manage import migrate
from app.pg_events import PgBroker
from tests.app.routes.test_stream_pushes import Listener, count_is
from tests.live import LiveServer

pytestmark = pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"),
    reason="needs PostgreSQL: set TEST_DATABASE_URL=postgresql+psycopg://user:pass@host:port/postgres",
)

SEAT_COOKIE = "tablero_player"


@pytest.fixture(scope="module")
def pg_url() -> str:
    from tests.pg import fresh_database

    url = fresh_database(os.environ["TEST_DATABASE_URL"])
    migrate(url)
    return url


@pytest.fixture(scope="module")
def servers(pg_url: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    a, b = LiveServer(pg_url), LiveServer(pg_url)
    # Start both at once: each takes seconds to import the app.
    with ThreadPoolExecutor(2) as pool:
        for started in [pool.submit(a.start), pool.submit(b.start)]:
            started.result()
    yield a, b
    a.stop()
    b.stop()


def new_match(a: LiveServer, b: LiveServer) -> tuple[str, httpx.Client, httpx.Client]:
    """A Morris match created through ``a`` (Alice, white) and joined through ``b`` (Bob)."""
    alice, bob = httpx.Client(base_url=a.url), httpx.Client(base_url=b.url)
    created = alice.post("/api/matches", json={"game": "morris", "name": "Alice", "side": "first"})
    assert created.status_code == 201, created.text
    assert SEAT_COOKIE in alice.cookies
    match_id = created.json()["id"]
    joined = bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    assert joined.status_code == 200, joined.text
    return match_id, alice, bob


def test_a_move_on_one_process_reaches_a_stream_on_the_other(
    servers: tuple[LiveServer, LiveServer],
) -> None:
    a, b = servers
    match_id, alice, _bob = new_match(a, b)
    version = alice.get(f"/api/matches/{match_id}").json()["version"]

    subscribed = threading.Event()
    received: list[tuple[float, dict]] = []

    def listen() -> None:
        # Having seen ``version``, the stream on B stays quiet until the next change.
        headers = {"Last-Event-ID": str(version)}
        url = f"{b.url}/matches/{match_id}/events"
        with httpx.stream("GET", url, headers=headers, timeout=10) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            event: dict = {}
            for line in response.iter_lines():
                if line.startswith("retry:"):
                    subscribed.set()  # sent from inside the subscription
                elif line.startswith("id: "):
                    event["id"] = int(line[4:])
                elif line.startswith("data: "):
                    event["data"] = json.loads(line[6:])
                elif line == "" and "id" in event:
                    received.append((time.monotonic(), event))
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    assert subscribed.wait(10), "the event stream on B did not open"

    sent = time.monotonic()
    moved = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0})
    assert moved.status_code == 200, moved.text
    listener.join(timeout=5)

    assert received, "B's stream heard nothing of the move made on A"
    arrived, event = received[0]
    latency = arrived - sent
    print(f"\ncross-process delivery: {latency * 1000:.1f} ms from POST on A to the event on B")
    assert event["id"] == moved.json()["version"] > version
    assert event["data"]["ply"] == 1
    assert latency < 1.0


def test_fifty_copies_of_one_move_over_two_processes_apply_once(
    servers: tuple[LiveServer, LiveServer],
) -> None:
    a, b = servers
    match_id, alice, _bob = new_match(a, b)
    cookie = alice.cookies[SEAT_COOKIE]
    copies = 50
    released: list[float] = []
    gate = threading.Barrier(copies, action=lambda: released.append(time.monotonic()))

    def submit(i: int) -> int:
        server = (a, b)[i % 2]
        with httpx.Client(base_url=server.url, cookies={SEAT_COOKIE: cookie}, timeout=30) as client:
            gate.wait()
            return client.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0}).status_code

    with ThreadPoolExecutor(copies) as pool:
        statuses = Counter(pool.map(submit, range(copies)))
    took = time.monotonic() - released[0]
    print(f"\n{copies} concurrent submissions over two processes: {dict(statuses)} in {took:.2f}s")

    assert statuses == Counter({200: 1, 409: copies - 1})
    state = alice.get(f"/api/matches/{match_id}").json()
    assert state["moves"] == ["d1"]
    assert state["ply"] == 1
    assert b.url != a.url and httpx.get(f"{b.url}/api/matches/{match_id}").json()["moves"] == ["d1"]


def test_the_listener_reconnects_and_catches_up_on_what_it_missed(
    servers: tuple[LiveServer, LiveServer], pg_url: str
) -> None:
    a, b = servers
    match_id, alice, bob = new_match(a, b)
    engine = make_engine(pg_url)
    broker = PgBroker(engine, reconnect_seconds=(1.0, 1.0))
    assert broker.start(wait_seconds=10)
    thread = broker._thread
    played = [("d1", 0, alice), ("a1", 1, bob), ("d2", 2, alice)]

    def play(move: str, ply: int, client: httpx.Client) -> int:
        response = client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
        assert response.status_code == 200, response.text
        return response.json()["version"]

    async def scenario() -> None:
        async with broker.subscribe(match_id) as queue:
            # Heard live from another process.
            version = await asyncio.to_thread(play, *played[0])
            assert await asyncio.wait_for(queue.get(), 2) == version

            # Its connection dies; a move made meanwhile is caught up on reconnection.
            with engine.connect() as conn:
                killed = conn.execute(
                    text("SELECT pg_terminate_backend(:pid, 5000)"), {"pid": broker.backend_pid}
                ).scalar()
            assert killed
            version = await asyncio.to_thread(play, *played[1])
            assert await asyncio.wait_for(queue.get(), 10) == version
            assert broker.connections == 2

            # And it goes on listening.
            version = await asyncio.to_thread(play, *played[2])
            assert await asyncio.wait_for(queue.get(), 2) == version

    try:
        asyncio.run(scenario())
    finally:
        broker.stop()
        engine.dispose()
    assert thread is not None and not thread.is_alive()
    assert not broker.listening


def test_a_page_counts_the_spectators_of_every_process(servers: tuple[LiveServer, LiveServer]) -> None:
    a, b = servers
    match_id, alice, _bob = new_match(a, b)
    version = alice.get(f"/api/matches/{match_id}").json()["version"]
    path = f"/matches/{match_id}/events?view=live&since={version}"
    player = Listener(b.url + path, dict(alice.cookies))  # Alice's page, served by B
    time.sleep(0.5)
    watchers = [Listener(a.url + path), Listener(a.url + path), Listener(b.url + path)]
    # Two spectators on A and one on B: both processes' pages say three.
    assert player.wait_for(count_is(3), 10) is not None
    assert watchers[0].wait_for(count_is(3), 10) is not None
    for watcher in watchers[:2]:
        watcher.close()
    assert player.wait_for(count_is(1), 10) is not None
    watchers[2].close()
    assert player.wait_for(count_is(0), 10) is not None
    player.close()


def spectated_meanwhile(broker: PgBroker, match_id: str, scenario: Any) -> None:
    """Runs ``scenario`` (a coroutine function) while one spectator's stream of
    ``match_id`` is open in ``broker``'s process."""

    async def watching() -> None:
        async with broker.subscribe(match_id, spectator=True):
            await scenario()

    asyncio.run(watching())


async def until(found: Any, wanted: int, seconds: float) -> None:
    """Returns once ``found()`` gives ``wanted``; fails after ``seconds``."""
    started = time.monotonic()
    while (seen := found()) != wanted:
        assert time.monotonic() - started < seconds, f"still {seen}, not {wanted}"
        await asyncio.sleep(0.05)


@contextlib.contextmanager
def two_processes(pg_url: str, count_seconds: float) -> Iterator[tuple[PgBroker, PgBroker]]:
    """Two processes' brokers on the database (neither started), stopped afterwards."""
    engine = make_engine(pg_url)
    pair = PgBroker(engine, count_seconds=count_seconds), PgBroker(engine, count_seconds=count_seconds)
    try:
        yield pair
    finally:
        for broker in pair:
            broker.stop()
        engine.dispose()


def test_a_process_that_starts_later_asks_for_the_counts(pg_url: str) -> None:
    match_id = f"m{uuid.uuid4().hex}"
    # Counts told again only every minute: the late one learns them by asking.
    with two_processes(pg_url, count_seconds=60) as (first, late):
        assert first.start(wait_seconds=10)

        async def scenario() -> None:
            await asyncio.sleep(2)  # the first process has told its count, to nobody yet
            assert await asyncio.to_thread(late.start, 10)
            # Its question is answered within a poll or two; without it, the next telling
            # would come a minute later.
            await until(lambda: late.spectators(match_id), 1, 10)

        spectated_meanwhile(first, match_id, scenario)


def test_the_count_of_a_process_that_died_is_forgotten(pg_url: str) -> None:
    match_id = f"m{uuid.uuid4().hex}"
    with two_processes(pg_url, count_seconds=1) as (dying, living):
        assert dying.start(wait_seconds=10) and living.start(wait_seconds=10)

        async def scenario() -> None:
            await until(lambda: living.spectators(match_id), 1, 5)
            dying.stop()  # gone without telling anyone: its stream still open, never closed
            assert living.spectators(match_id) == 1  # heard within the last 3 s (count_seconds × 3)
            await until(lambda: living.spectators(match_id), 0, 6)

        spectated_meanwhile(dying, match_id, scenario)
