"""The master level (issue 35) on the site: offered, named, timed by the clock, and kept
from crowding other players' computer replies out of the pool."""

from __future__ import annotations

import asyncio

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.computer import ComputerWorker
from app.texts import computer_name


def create(client: TestClient, game: str, level: int, **extra: object) -> str:
    body = {"game": game, "name": "Ann", "side": "second", "opponent": {"level": level}, **extra}
    answer = client.post("/api/matches", json=body)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["id"])


@pytest.mark.parametrize(("game", "master"), [("bashni", 19), ("morris", 5), ("bobail", 5), ("bilsang", 5)])
def test_the_master_level_is_offered_and_the_next_is_refused(app: FastAPI, game: str, master: int) -> None:
    client = TestClient(app)  # no lifespan: nobody thinks, the turn stays waiting
    create(client, game, master)
    body = {"game": game, "name": "Ann", "opponent": {"level": master + 1}}
    assert client.post("/api/matches", json=body).status_code == 422
    schema = client.get("/openapi.json").json()["components"]["schemas"]
    assert schema["Opponent"]["properties"]["level"]["maximum"] == 19
    assert schema["SmallOpponent"]["properties"]["level"]["maximum"] == 5


def test_the_master_is_named_in_both_languages() -> None:
    english, spanish = (lambda text: text), {"Computer (master)": "Computadora (maestra)"}.__getitem__
    assert computer_name("bashni", 19, english) == "Computer (master)"
    assert computer_name("morris", 5, spanish) == "Computadora (maestra)"
    # the ladder's opponents keep their numbers
    assert computer_name("bashni", 18, english) == "Computer (level 18)"


def test_the_new_match_form_offers_the_master(app: FastAPI) -> None:
    client = TestClient(app)
    page = client.get("/").text
    assert 'value="master"' in page and "master (thinks 2 s)" in page
    spanish = client.get("/", headers={"Accept-Language": "es"}).text
    assert "maestra (piensa 2 s)" in spanish


def test_one_process_stays_free_of_master_searches_for_the_other_levels(app: FastAPI) -> None:
    # Three players' turns wait, oldest first: two masters, then a level-1 reply.
    ann, bob, carol = TestClient(app), TestClient(app), TestClient(app)
    first = create(ann, "bashni", 19)
    second = create(bob, "morris", 5)
    quick = create(carol, "morris", 1)
    worker = ComputerWorker(app.state.sessions, app.state.matches, thinker="first-legal", processes=2)
    job = worker.claim()
    assert job is not None and job.match_id == first and job.seconds == 2.0
    # The second master waits: the other process is kept for everything else.
    other = worker.claim()
    assert other is not None and other.match_id == quick and other.seconds is None
    assert worker.claim() is None
    asyncio.run(worker.work(job))  # the first master's reply is played
    after = worker.claim()
    assert after is not None and after.match_id == second


def test_on_a_real_time_clock_the_master_thinks_a_share_of_what_it_has_left(app: FastAPI) -> None:
    blitz = {"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0}
    match_id = create(TestClient(app), "bashni", 19, time_control=blitz)
    worker = ComputerWorker(app.state.sessions, app.state.matches, thinker="first-legal", processes=2)
    job = worker.claim()
    assert job is not None and job.match_id == match_id
    assert job.seconds == pytest.approx(1.5)  # 60 s / 40
