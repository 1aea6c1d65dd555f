"""On PostgreSQL every move is awaited on the event loop (``MatchService.play``,
``app.matches.statements.LoopStatements``), with no other executor to fall back on: the
same answers, rows and refusals as the same move played on the calling thread
(``MatchService.move``, for callers without an event loop); the time run out, the finish
hooks, no free connection, a dropped connection and a failed statement are all its own."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import exc as sa_exc
from sqlalchemy import text

import games
from app import db
from app.db import make_engine, make_sessionmaker
from app.matches.events import Publisher
from app.matches.model import Played
from app.matches.service import MatchService
from app.pg_loop import PgLoopPool, ReadElsewhere
from app.services.errors import Conflict, Forbidden, Invalid, NotFound
from tests.app.conftest import database_url
from tests.app.helpers import BASHNI_WIN, BOBAIL_WIN, MORRIS_WIN, started
from tests.app.matches.test_constant_work import long_quiet_line, recording
from tests.app.matches.test_time_controls import T0, FakeClock
from tests.pg import counting_getconn, give_back, hold_every_connection, terminate_connections

pytestmark = pytest.mark.skipif(
    not os.environ.get("TEST_DATABASE_URL"), reason="needs a PostgreSQL server (TEST_DATABASE_URL)"
)

T = TypeVar("T")
ALICE, BOB = "a" * 64, "b" * 64
BLITZ = {"kind": "realtime", "initial_seconds": 60, "increment_seconds": 2}
#: Morris: the position after the placing shuffles back to itself a third time (a draw).
REPEATING = "e4 g4 d7 a4 f2 d2 d3 c4 g1 c5 c3 d6 b2 b6 e5 g7 d1 a7".split() + (
    "e5-d5 d6-f6 d5-e5 f6-d6".split() * 2
)


@dataclass
class Service:
    svc: MatchService
    clock: FakeClock
    loop: asyncio.AbstractEventLoop
    settled: list[tuple[int, bool]] = field(default_factory=list)

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(coroutine)

    def on_loop(self, match_id: str, who: str, move: str, ply: int | None = None) -> Played:
        ply = self.svc.get(match_id).ply if ply is None else ply
        return self.run(self.svc.play(match_id, who, move, ply))

    def new_match(self, game: str = "morris", **extra: Any) -> str:
        """Alice (first side) creates it, Bob joins."""
        created = self.svc.create(game, "Alice", "first", ALICE, **extra).match.id
        self.svc.join(created, "Bob", BOB)
        return created


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    url = database_url(tmp_path)
    engine = make_engine(url)
    clock = FakeClock()

    def on_playing(_match_id: str, version: int) -> Callable[[Played | None], None]:
        return lambda played: found.settled.append((version, played is not None))

    svc = MatchService(
        make_sessionmaker(engine), Publisher(lambda _m, _v: None, playing=on_playing), clock=clock
    )
    loop = asyncio.new_event_loop()
    found = Service(svc, clock, loop)
    assert svc.pg_loop_pool is not None
    loop.run_until_complete(svc.pg_loop_pool.open())
    yield found
    loop.run_until_complete(svc.pg_loop_pool.close())
    loop.close()
    engine.dispose()


def rows(service: Service, match_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The match row and its moves' rows, without what names the match itself."""
    with service.svc.engine.connect() as conn:
        found = conn.execute(text("SELECT * FROM matches WHERE id = :id"), {"id": match_id}).one()
        match = dict(found._mapping)
        moves = [
            dict(row._mapping)
            for row in conn.execute(
                text("SELECT * FROM moves WHERE match_id = :id ORDER BY ply"), {"id": match_id}
            )
        ]
    for name in ("id", "created_at", "public_key", "client_key"):
        match.pop(name, None)
    for move in moves:
        move.pop("id")
        move.pop("match_id")
    return match, moves


def without_id(state: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in state.items() if key != "id"}


@pytest.mark.parametrize(
    ("game", "line", "extra"),
    [
        ("morris", MORRIS_WIN, {}),
        ("morris", REPEATING, {"time_control": BLITZ}),
        ("bashni", BASHNI_WIN, {}),
        ("bobail", BOBAIL_WIN, {"time_control": BLITZ}),
    ],
    ids=["morris-win", "morris-repetition-timed", "bashni-win", "bobail-win-timed"],
)
def test_a_game_on_the_loop_answers_and_writes_as_on_the_worker_thread(
    service: Service, game: str, line: list[str], extra: dict[str, Any]
) -> None:
    on_thread = service.new_match(game=game, **extra)
    on_loop = service.new_match(game=game, **extra)
    svc = service.svc
    for ply, move in enumerate(line):
        service.clock.moment = T0 + timedelta(seconds=3 * ply + 1, milliseconds=ply)
        who = (ALICE, BOB)[ply % 2]
        expected = svc.move(on_thread, who, move, ply)
        got = service.on_loop(on_loop, who, move, ply)
        assert without_id(got.state) == without_id(expected.state), (ply, move)
        assert (got.version, got.computer_to_move, got.timed) == (
            expected.version,
            expected.computer_to_move,
            expected.timed,
        )
    assert got.state["status"] == "finished"
    assert rows(service, on_loop) == rows(service, on_thread)
    # Each move told the event streams of its version, before and after its commit.
    assert service.settled == [(version, True) for version in range(3, 3 + len(line)) for _ in (0, 1)]


def test_refusals_on_the_loop_are_the_worker_threads_and_change_nothing(service: Service) -> None:
    match_id = service.new_match()
    service.on_loop(match_id, ALICE, "d6")
    before = rows(service, match_id)
    refusals: list[tuple[str, str, int, type[Exception], str]] = [
        ("no-such-match", BOB, 1, NotFound, "no match"),
        (match_id, "c" * 64, 1, Forbidden, "no seat"),
        (match_id, ALICE, 1, Conflict, "not your turn"),
        (match_id, BOB, 0, Conflict, "moved on"),
        (match_id, BOB, 1, Invalid, "illegal move"),
    ]
    for match, who, ply, kind, words in refusals:
        move = "d6" if kind is Invalid else "a7"
        with pytest.raises(kind, match=words):
            service.svc.move(match, who, move, ply)
        with pytest.raises(kind, match=words):
            service.on_loop(match, who, move, ply)
        assert rows(service, match_id) == before
    # Every connection went back to the pool out of its transaction.
    played = service.on_loop(match_id, BOB, "a7", 1)
    assert played.state["ply"] == 2


def test_a_move_after_the_deadline_ends_the_match_by_time_and_is_refused(service: Service) -> None:
    match_id = service.new_match(time_control=BLITZ)
    for ply, move in enumerate(MORRIS_WIN[:2]):
        service.on_loop(match_id, (ALICE, BOB)[ply % 2], move)
    service.clock.moment = T0 + timedelta(minutes=5)
    with pytest.raises(Conflict, match="time ran out"):
        service.on_loop(match_id, ALICE, MORRIS_WIN[2], 2)
    match = service.svc.get(match_id)
    assert (match.status, match.winner, match.reason, match.ply) == ("finished", "b", "timeout", 2)


def test_the_move_that_ends_a_game_runs_the_finish_hooks_in_its_own_transaction(service: Service) -> None:
    match_id = service.new_match()
    seen: list[tuple[str, int, int]] = []

    def hook(db: Any, match: Any) -> None:
        # It sees the move's own writes (the finished row, the last move's row) …
        moves = db.scalar(text("SELECT count(*) FROM moves WHERE match_id = :id"), {"id": match.id})
        seen.append((match.status, match.ply, moves))
        # … and what it writes commits with the move.
        db.execute(text("UPDATE matches SET reason = 'hooked' WHERE id = :id"), {"id": match.id})

    def failing(_db: Any, _match: Any) -> None:
        raise RuntimeError("a hook failed")

    service.svc.finish_hooks.extend([hook, failing])
    for ply, move in enumerate(MORRIS_WIN[:-1]):
        service.on_loop(match_id, (ALICE, BOB)[ply % 2], move)
    last = len(MORRIS_WIN) - 1
    who = (ALICE, BOB)[last % 2]
    before = rows(service, match_id)
    service.settled.clear()
    # A failing hook: nothing of the move is left, and nobody was told of it.
    with pytest.raises(RuntimeError, match="a hook failed"):
        service.on_loop(match_id, who, MORRIS_WIN[last], last)
    assert rows(service, match_id) == before and service.settled == []
    assert seen == [("finished", last + 1, last + 1)]
    service.svc.finish_hooks.remove(failing)
    played = service.on_loop(match_id, who, MORRIS_WIN[last], last)
    assert played.state["status"] == "finished"
    match, moves = rows(service, match_id)
    assert (match["status"], match["reason"], len(moves)) == ("finished", "hooked", last + 1)
    assert seen[1:] == [("finished", last + 1, last + 1)]
    # The lent connection goes back to the pool as it came: more games end alike.
    for _ in range(2):
        other = service.new_match()
        for ply, move in enumerate(MORRIS_WIN):
            played = service.on_loop(other, (ALICE, BOB)[ply % 2], move, ply)
        assert played.state["status"] == "finished"
        assert rows(service, other)[0]["reason"] == "hooked"
    assert len(seen) == 4


def test_a_connection_lent_to_sqlalchemy_comes_back_as_it_went(
    service: Service, caplog: pytest.LogCaptureFixture
) -> None:
    pool = service.svc.pg_loop_pool
    assert pool is not None

    async def lend_three_times_then_notice() -> list[int]:
        got = []
        async with pool.connection() as conn:
            for _ in range(3):
                await conn.execute("BEGIN")
                async with pool.orm_on(conn) as run:
                    got.append(await run(lambda sync: sync.execute(text("SELECT 1")).scalar_one()))
                    await conn.execute("COMMIT")
                assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            await conn.execute("DO $$ BEGIN RAISE NOTICE 'lent three times'; END $$")
        return got

    with caplog.at_level(logging.INFO, logger="sqlalchemy"):  # SQLAlchemy's is at WARNING
        assert service.run(lend_three_times_then_notice()) == [1, 1, 1]
    # SQLAlchemy's own dialect would have added a notice handler at each loan, and logged
    # the notice three times.
    assert not [record for record in caplog.records if "lent three times" in record.getMessage()]


def test_with_no_free_connection_a_move_waits_then_is_refused_as_unavailable(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = service.new_match()
    pool = service.svc.pg_loop_pool
    assert pool is not None
    monkeypatch.setattr(pool, "MOVE_WAIT_SECONDS", 0.05)
    before = rows(service, match_id)
    held = service.run(hold_every_connection(pool.pool))
    try:
        with pytest.raises(sa_exc.TimeoutError) as raised:
            service.on_loop(match_id, ALICE, "d6")
    finally:
        service.run(give_back(pool.pool, held))
    assert db.unavailable(raised.value)  # answered 503
    assert rows(service, match_id) == before and service.settled == []
    assert service.on_loop(match_id, ALICE, "d6").state["ply"] == 1


def test_a_failed_statement_before_the_commit_is_raised_and_changes_nothing(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = service.new_match()
    statements = service.svc.loop_statements
    assert statements is not None

    async def broken(*_args: Any) -> Any:
        raise psycopg.errors.AdminShutdown("the server is shutting down")

    monkeypatch.setattr(statements, "count_repeats", broken)
    before = rows(service, match_id)
    with pytest.raises(sa_exc.DBAPIError) as raised:
        service.on_loop(match_id, ALICE, "d6")
    assert db.unavailable(raised.value)  # answered 503
    assert rows(service, match_id) == before
    assert service.settled == []
    monkeypatch.undo()
    assert service.on_loop(match_id, ALICE, "d6").state["ply"] == 1


def test_a_connection_the_server_dropped_is_replaced_and_the_move_played(service: Service) -> None:
    match_id = service.new_match()
    service.on_loop(match_id, ALICE, "d6")
    pool = service.svc.pg_loop_pool
    assert pool is not None
    # Every connection of the pool open and idle, then all of them dropped by the server.
    service.run(give_back(pool.pool, service.run(hold_every_connection(pool.pool))))
    assert terminate_connections(service.svc.engine.url) >= pool.SIZE
    assert service.on_loop(match_id, BOB, "a7", 1).state["ply"] == 2
    assert rows(service, match_id)[0]["ply"] == 2


def test_a_failed_commit_is_raised_as_sqlalchemys_error_and_tells_the_streams(
    service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = service.new_match()
    statements = service.svc.loop_statements
    assert statements is not None

    async def lost(*_args: Any) -> None:
        raise psycopg.OperationalError("the server closed the connection")

    monkeypatch.setattr(statements, "write_and_commit", lost)
    before = rows(service, match_id)
    with pytest.raises(sa_exc.OperationalError) as raised:
        service.on_loop(match_id, ALICE, "d6")
    assert db.unavailable(raised.value)  # answered 503
    assert rows(service, match_id) == before
    assert service.settled == [(3, False)]


# Through HTTP: the app's own event loop.


def calling_thread_moves(matches: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The moves played through ``move`` or ``computer_move`` (a calling thread's) from now on."""
    played: list[str] = []
    for name in ("move", "computer_move"):
        original = getattr(matches, name)

        def on_a_thread(*args: Any, original: Any = original) -> Any:
            played.append(args[-2])
            return original(*args)

        monkeypatch.setattr(matches, name, on_a_thread)
    return played


def test_every_move_through_http_is_played_on_the_loop(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    matches = app.state.matches
    on_threads = calling_thread_moves(matches, monkeypatch)
    taken = counting_getconn(matches.pg_loop_pool.pool, monkeypatch)
    match_id = started(alice, bob)
    for ply, move in enumerate(MORRIS_WIN):
        client = (alice, bob)[ply % 2]
        if ply % 4 == 1:  # the page's own move, as its script posts it
            answer = client.post(
                f"/matches/{match_id}/moves", data={"move": move, "ply": ply}, headers={"HX-Request": "true"}
            )
        else:
            answer = client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
        assert answer.status_code == 200, answer.text
    state = alice.get(f"/api/matches/{match_id}").json()
    assert state["status"] == "finished" and state["moves"] == MORRIS_WIN
    # The ladder's finish hook is registered: the last move ran it, on the loop too.
    assert app.state.matches.finish_hooks
    assert on_threads == [] and len(taken) >= len(MORRIS_WIN)
    # The computer's replies as well.
    body = {"game": "morris", "name": "Alice", "side": "first", "opponent": {"level": 1}}
    against = alice.post("/api/matches", json=body)
    assert against.status_code == 201, against.text
    computer = against.json()["id"]
    assert alice.post(f"/api/matches/{computer}/moves", json={"move": "d6", "ply": 0}).status_code == 200
    for _ in range(200):
        if alice.get(f"/api/matches/{computer}").json()["ply"] == 2:
            break
        time.sleep(0.05)
    assert alice.get(f"/api/matches/{computer}").json()["ply"] == 2
    assert on_threads == []


def test_a_request_served_on_another_event_loop_never_takes_the_app_loops_connections(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A client of its own (no ``with``) serves each request on a new event loop, as
    # nothing under uvicorn does. Awaiting there a psycopg connection of the app's loop
    # could hang (CI's PostgreSQL run once did, at a test's shutdown): such a move is
    # played on the move thread, and its legal read through a worker thread.
    matches = app.state.matches
    match_id = started(alice, bob)
    on_threads = calling_thread_moves(matches, monkeypatch)
    taken = counting_getconn(matches.pg_loop_pool.pool, monkeypatch)
    elsewhere = TestClient(app)
    elsewhere.cookies = alice.cookies
    assert elsewhere.get(f"/api/matches/{match_id}/legal").json()["moves"]
    answer = elsewhere.post(f"/api/matches/{match_id}/moves", json={"move": "d6", "ply": 0})
    assert answer.status_code == 200 and answer.json()["moves"] == ["d6"]
    assert on_threads == ["d6"] and taken == []
    # The app's own loop still plays on the loop.
    assert bob.post(f"/api/matches/{match_id}/moves", json={"move": "d2", "ply": 1}).status_code == 200
    assert on_threads == ["d6"] and len(taken) >= 1


def test_the_pool_refuses_its_connections_to_another_event_loop(service: Service) -> None:
    pool = service.svc.pg_loop_pool
    assert pool is not None and service.run(pool.first("SELECT 1", {})) == (1,)
    other = asyncio.new_event_loop()
    try:
        with pytest.raises(ReadElsewhere, match="another event loop"):
            other.run_until_complete(pool.first("SELECT 1", {}))
        with pytest.raises(sa_exc.TimeoutError, match="another event loop"):
            other.run_until_complete(pool.move_connection().__aenter__())
        assert not other.run_until_complete(_opened(pool))
    finally:
        other.close()
    assert service.run(_opened(pool)) and not pool.opened  # no loop runs here


async def _opened(pool: PgLoopPool) -> bool:
    return pool.opened


def test_through_http_a_move_finding_no_free_connection_is_answered_503(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    matches = app.state.matches
    monkeypatch.setattr(matches.pg_loop_pool, "MOVE_WAIT_SECONDS", 0.05)
    match_id = started(alice, bob)
    pool = matches.pg_loop_pool.pool
    held = alice.portal.call(hold_every_connection, pool)  # type: ignore[union-attr]
    try:
        unguarded = TestClient(app, raise_server_exceptions=False)
        unguarded.portal = alice.portal  # served on the app's loop, whose pool is full
        unguarded.cookies = alice.cookies
        answer = unguarded.post(f"/api/matches/{match_id}/moves", json={"move": "d6", "ply": 0})
    finally:
        alice.portal.call(give_back, pool, held)  # type: ignore[union-attr]
    assert answer.status_code == 503, answer.text
    assert alice.get(f"/api/matches/{match_id}").json()["ply"] == 0
    answer = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d6", "ply": 0})
    assert answer.status_code == 200 and answer.json()["moves"] == ["d6"]


def test_through_http_moves_are_played_after_the_servers_connections_died(
    app: FastAPI, alice: TestClient, bob: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    match_id = started(alice, bob)
    monkeypatch.setattr(db, "PING_IDLE_SECONDS", 0.0)  # SQLAlchemy's pool pings first
    assert terminate_connections(app.state.engine.url) > 0
    for ply, move in enumerate(MORRIS_WIN[:3]):
        answer = (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
        assert answer.status_code == 200, answer.text
        assert answer.json()["ply"] == ply + 1


def test_a_move_on_the_loop_sends_the_same_statements_at_ply_150_as_at_ply_2(service: Service) -> None:
    line = long_quiet_line(games.get("morris"), 152, seed=3)
    match_id = service.new_match()
    counted: dict[int, list[str]] = {}
    for ply, move in enumerate(line):
        seen: list[str] = []
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(psycopg.AsyncCursor, "execute", recording(psycopg.AsyncCursor.execute, seen))
            played = service.on_loop(match_id, (ALICE, BOB)[ply % 2], move, ply)
        assert played.state["status"] == "playing"
        counted[ply] = seen
    assert counted[150] == counted[2]
    assert counted[2][0] == "BEGIN" and counted[2][-1] == "COMMIT"
    reads_of_moves = [statement for statement in counted[150] if "FROM moves" in statement]
    assert len(reads_of_moves) == 1 and "count(*)" in reads_of_moves[0]
