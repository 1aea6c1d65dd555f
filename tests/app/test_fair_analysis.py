"""Fair analysis (issue 27, item 3): quotas, sampling, round robin, the best move's lane.

Before: one client's review of a long record held every review process, and another
user's ``GET /api/positions/{game}/best`` got no answer within 90 s (0.08 s idle).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import games
from app.config import Settings
from app.fairness import Waiting
from app.main import create_app
from app.manage import migrate
from app.review_queue import MAX_OPEN_REVIEWS, MAX_REVIEW_POSITIONS, FairPool, reviewed_positions
from games import records
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN

FLOODER, OTHER = "203.0.113.7", "198.51.100.9"
#: The stated bound on the other address's best move while one address floods reviews:
#: its own search (0.65 s idle and 1.05 s during the flood, measured at a load average of
#: 13 on 2 cores), never a review's queue (the code before took 87.7 s in this test).
BEST_BOUND_SECONDS = 5.0


def bilsang_record(seed: int) -> str:
    """A random Bilsang game (about a hundred plies: the quiet rule ends it)."""
    game = games.get("bilsang")
    state, rnd, moves = game.initial(), random.Random(seed), []
    start = game.format_position(state)
    while len(moves) < 400 and game.outcome(state) is None:
        move = rnd.choice(sorted(game.legal_moves(state), key=game.format_move))
        moves.append(game.format_move(move))
        state = game.apply(state, move)
    return records.write(records.GameRecord("bilsang", start, tuple(moves)))


def morris_record(plies: int) -> str:
    start = games.get("morris").format_position(games.get("morris").initial())
    return records.write(records.GameRecord("morris", start, tuple(MORRIS_WIN[:plies])))


def imported(client: TestClient, text: str) -> str:
    answer = client.post("/api/records", content=text, headers={"content-type": "text/plain"})
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def app_for(tmp_path: Path, use_pool: bool = True) -> object:
    url = database_url(tmp_path)
    migrate(url)
    settings = Settings(database_url=url, secret_key="t", rate_limits=False, computer_processes=2)
    app = create_app(settings)
    if not use_pool:
        app.state.review_worker.use_pool = False
    return app


def test_quotas_of_open_reviews_per_player_and_per_address(tmp_path: Path) -> None:
    app = app_for(tmp_path, use_pool=False)
    # No lifespan: the worker never runs, every review stays queued.
    one = TestClient(app, client=(FLOODER, 1), cookies={"tablero_player": "1" * 43})
    ids = [imported(one, morris_record(plies)) for plies in range(2, 9)]
    for record_id in ids[:MAX_OPEN_REVIEWS]:
        assert one.post(f"/api/records/{record_id}/review").status_code == 202
    refused = one.post(f"/api/records/{ids[MAX_OPEN_REVIEWS]}/review")
    assert refused.status_code == 409 and "two reviews waiting" in refused.json()["detail"]
    # Asking again for a review already queued costs nothing.
    assert one.post(f"/api/records/{ids[0]}/review").status_code == 202
    # More cookies from the same address: four open reviews per address.
    two = TestClient(app, client=(FLOODER, 2), cookies={"tablero_player": "2" * 43})
    three = TestClient(app, client=(FLOODER, 3), cookies={"tablero_player": "3" * 43})
    assert two.post(f"/api/records/{ids[2]}/review").status_code == 202
    assert two.post(f"/api/records/{ids[3]}/review").status_code == 202
    crowded = three.post(f"/api/records/{ids[4]}/review")
    assert crowded.status_code == 409 and "your network" in crowded.json()["detail"]
    # Another address is not held back by them.
    assert TestClient(app, client=(OTHER, 1)).post(f"/api/records/{ids[4]}/review").status_code == 202


def test_a_long_line_is_sampled_in_pairs() -> None:
    assert reviewed_positions(12) == tuple(range(12))
    chosen = reviewed_positions(1001)
    assert len(chosen) <= MAX_REVIEW_POSITIONS
    assert chosen[0] == 0 and chosen[-1] == 1000
    # Every sampled move has the position before it: it can still be marked.
    odd = [p for p in chosen if p - 1 not in chosen and p + 1 not in chosen]
    assert odd == []


def test_the_pool_serves_requesters_in_turn() -> None:
    """Five jobs of one address queued first, then one of another: with one slot the
    other's runs second, not sixth."""
    order: list[str] = []

    def job(name: str) -> str:
        time.sleep(0.05)
        order.append(name)
        return name

    async def scenario() -> None:
        pool = FairPool(1, lambda: None)
        flood = [pool.run(Waiting("", f"p{n}", FLOODER), job, f"flood{n}") for n in range(5)]
        tasks = [asyncio.ensure_future(c) for c in flood]
        await asyncio.sleep(0)
        tasks.append(asyncio.ensure_future(pool.run(Waiting("", "q", OTHER), job, "other")))
        await asyncio.gather(*tasks)

    asyncio.run(scenario())
    assert order.index("other") == 1, order


@pytest.mark.slow
def test_a_review_flood_does_not_starve_another_address(tmp_path: Path) -> None:
    app = app_for(tmp_path)
    position = games.get("bashni").format_position(games.get("bashni").initial())
    with TestClient(app, client=(OTHER, 1)) as other:
        # The lane's process starts on first use; its cold start is not what is measured.
        started = time.monotonic()
        assert other.get("/api/positions/bashni/best", params={"position": position}).status_code == 200
        print(f"\nidle, with the lane's process started on the way: {time.monotonic() - started:.2f} s")
        started = time.monotonic()
        assert other.get("/api/positions/bashni/best", params={"position": position}).status_code == 200
        print(f"idle: {time.monotonic() - started:.2f} s")
        flood = [TestClient(app, client=(FLOODER, n)) for n in range(2)]
        long_ids = [imported(flood[n // 2], bilsang_record(n)) for n in range(4)]
        for n, record_id in enumerate(long_ids):
            assert flood[n // 2].post(f"/api/records/{record_id}/review").status_code == 202
        # The flood is under way: the review process is busy.
        stop = time.monotonic() + 60
        while app.state.review_worker.computed == 0:
            assert time.monotonic() < stop, "the flood's reviews never started"
            time.sleep(0.1)

        started = time.monotonic()
        best = other.get("/api/positions/bashni/best", params={"position": position})
        waited = time.monotonic() - started
        assert best.status_code == 200, best.text
        print(f"the other address's best move took {waited:.2f} s during the flood")
        assert waited < BEST_BOUND_SECONDS, waited

        # A short review asked after the four long ones is done before any of them:
        # the round robin gives its address every other position.
        short = imported(other, morris_record(4))
        started = time.monotonic()
        assert other.post(f"/api/records/{short}/review").status_code == 202
        while other.get(f"/api/records/{short}/review").json()["status"] != "done":
            assert time.monotonic() - started < 120
            time.sleep(0.2)
        took = time.monotonic() - started
        longs = [other.get(f"/api/records/{r}/review").json() for r in long_ids]
        print(f"the short review took {took:.1f} s; the long ones stood at {[r['done'] for r in longs]}")
        assert all(r["status"] != "done" for r in longs), longs


def test_a_cancelled_wait_frees_its_turn() -> None:
    """A caller that stops waiting (a closed request) does not hold a slot."""
    ran: list[str] = []
    gate = threading.Event()

    def job(name: str) -> str:
        gate.wait(5)
        ran.append(name)
        return name

    async def scenario() -> None:
        pool = FairPool(1, lambda: None)
        first = asyncio.ensure_future(pool.run(Waiting("", "a", "x"), job, "first"))
        gone = asyncio.ensure_future(pool.run(Waiting("", "b", "y"), job, "gone"))
        last = asyncio.ensure_future(pool.run(Waiting("", "c", "z"), job, "last"))
        await asyncio.sleep(0.05)
        gone.cancel()
        gate.set()
        assert await first == "first" and await last == "last"

    asyncio.run(scenario())
    assert ran == ["first", "last"]
