"""Games against the computer: its replies arrive by themselves, through the same path."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import games
from app.config import Settings
from app.main import create_app
from tests.app.conftest import database_url


def wait_for(client: TestClient, match_id: str, ply: int, seconds: float = 20) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = client.get(f"/api/matches/{match_id}").json()
        if state["ply"] >= ply:
            return state
        time.sleep(0.05)
    raise AssertionError(f"the computer did not reach ply {ply}: {state}")


def make_app(tmp_path: Path, thinker: str) -> FastAPI:
    url = database_url(tmp_path)
    return create_app(
        Settings(database_url=url, secret_key="t", computer_thinker=thinker, computer_processes=1)
    )


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(tmp_path, "first-legal")) as client:
        yield client


def test_the_computer_replies_and_plays_first_when_it_has_white(scripted: TestClient) -> None:
    body = {"game": "morris", "name": "Ann", "side": "second", "opponent": {"level": 2}}
    created = scripted.post("/api/matches", json=body)
    assert created.status_code == 201 and created.json()["seat"] == "b"
    match_id = created.json()["id"]
    state = wait_for(scripted, match_id, 1)
    assert state["status"] == "playing" and state["moves"] == ["a1"]  # first legal, sorted
    assert {p["name"]: p["computer"] for p in state["players"]} == {"Ann": False, "Computer 2": True}
    scripted.post(f"/api/matches/{match_id}/moves", json={"move": "g7", "ply": 1})
    assert wait_for(scripted, match_id, 3)["moves"][:3] == ["a1", "g7", "a4"]


def test_a_ladder_run_goes_on_against_the_worker(scripted: TestClient) -> None:
    run = scripted.post("/api/ladder/runs", json={"name": "Ann"}).json()
    match_id = run["match_id"]
    scripted.post(f"/api/matches/{match_id}/moves", json={"move": "c3-d4", "ply": 0})
    state = wait_for(scripted, match_id, 2)
    assert state["moves"][0] == "c3-d4" and state["to_move"] == "w"


def test_a_computer_turn_left_over_from_a_crash_is_played_on_start(tmp_path: Path) -> None:
    app = make_app(tmp_path, "first-legal")
    cold = TestClient(app)  # no lifespan: nobody plays the computer's moves yet
    body = {"game": "bobail", "name": "Ann", "side": "second", "opponent": {"level": 1}}
    match_id = cold.post("/api/matches", json=body).json()["id"]
    time.sleep(0.2)
    assert cold.get(f"/api/matches/{match_id}").json()["ply"] == 0
    with TestClient(app) as warm:  # the worker starts and finds the waiting turn
        assert wait_for(warm, match_id, 1)["ply"] == 1


def test_the_real_search_answers(tmp_path: Path) -> None:
    with TestClient(make_app(tmp_path, "search")) as client:
        body = {"game": "bashni", "name": "Ann", "side": "second", "opponent": {"level": 3}}
        match_id = client.post("/api/matches", json=body).json()["id"]
        state = wait_for(client, match_id, 1, seconds=60)
        assert state["moves"][0] in client.get(f"/api/matches/{match_id}").json()["moves"]
        assert state["to_move"] == "b"


def test_levels_the_game_does_not_have_are_refused(scripted: TestClient) -> None:
    body = {"game": "morris", "name": "Ann", "side": "first", "opponent": {"level": 9}}
    response = scripted.post("/api/matches", json=body)
    assert response.status_code == 422 and "level" in response.json()["detail"]


def test_the_computer_is_told_the_match_s_earlier_positions(tmp_path: Path) -> None:
    app = make_app(tmp_path, "first-legal")
    cold = TestClient(app)  # no lifespan: the worker's turn is claimed by hand below
    body = {"game": "bilsang", "name": "Ann", "side": "first", "opponent": {"level": 4}}
    match_id = cold.post("/api/matches", json=body).json()["id"]
    start = cold.get(f"/api/matches/{match_id}").json()["position"]
    assert app.state.computer.claim() is None  # Ann moves first: nothing to think about
    bilsang = games.get("bilsang")
    move = bilsang.move_texts(bilsang.parse_position(start))[0]
    after = cold.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": 0}).json()
    job = app.state.computer.claim()
    assert job is not None and job.match_id == match_id
    assert job.position == after["position"]
    assert job.history == (start,)
