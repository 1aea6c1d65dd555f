"""Games against the computer: idle ones end after 24 h (the test clock), and the refusal
of one game too many lists the games going, each with its resign button."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.config import Settings
from app.fairness import MAX_COMPUTER_GAMES, MAX_COMPUTER_GAMES_PER_ADDRESS
from app.main import create_app
from app.manage import migrate
from app.models import Match
from app.services.cleanup import Cleanup
from tests.app.conftest import database_url

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
VS_COMPUTER = {"game": "morris", "name": "Ana", "opponent": {"level": 1}}
HTML = {"accept": "text/html"}


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def app(tmp_path: Path, clock: Clock) -> FastAPI:
    url = database_url(tmp_path)
    migrate(url)
    settings = Settings(
        database_url=url, rate_limits=False, computer_thinker="first-legal", computer_processes=1
    )
    return create_app(settings, clock=clock)


def wait_for_ply(client: TestClient, match_id: str, ply: int) -> None:
    deadline = time.monotonic() + 20
    while client.get(f"/api/matches/{match_id}").json()["ply"] < ply:
        assert time.monotonic() < deadline, "the computer did not reply"
        time.sleep(0.05)


def play_first_legal(client: TestClient, match_id: str) -> None:
    state = client.get(f"/api/matches/{match_id}").json()
    move = client.get(f"/api/matches/{match_id}/legal").json()["moves"][0]
    played = client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": state["ply"]})
    assert played.status_code == 200, played.text


def result(client: TestClient, match_id: str) -> dict | None:
    return client.get(f"/api/matches/{match_id}").json()["result"]


def test_an_idle_computer_game_ends_after_24_hours(app: FastAPI, clock: Clock) -> None:
    with TestClient(app) as client:  # the lifespan: the computer replies
        played = client.post("/api/matches", json={**VS_COMPUTER, "side": "first"}).json()["id"]
        play_first_legal(client, played)
        wait_for_ply(client, played, 2)  # both sides moved; the player's turn
        second = client.post("/api/matches", json={**VS_COMPUTER, "side": "second"}).json()["id"]
        wait_for_ply(client, second, 1)  # the computer opened; the player never moved
        cleanup = Cleanup(app.state.matches)

        clock.now += timedelta(hours=23, minutes=59)
        early = cleanup.run_once()
        assert (early.abandoned, early.aborted) == (0, 0)
        assert result(client, played) is None and result(client, second) is None

        clock.now += timedelta(minutes=2)
        swept = cleanup.run_once()
        assert (swept.abandoned, swept.aborted) == (1, 1)
        # Both sides had moved: the idle player lost, as by resigning.
        assert result(client, played) == {"winner": "b", "reason": "abandoned"}
        # Before both sides moved: no result.
        assert result(client, second) == {"winner": None, "reason": "aborted"}
        assert cleanup.run_once().abandoned == 0  # once only


def test_a_computer_turn_never_played_ends_too(app: FastAPI, clock: Clock) -> None:
    """Failed before this change: only the player's turn was swept, so a game waiting on a
    computer that never answered stayed "playing" for ever and counted against the limit."""
    client = TestClient(app)  # no lifespan: no worker plays the computer's turn
    match_id = client.post("/api/matches", json={**VS_COMPUTER, "side": "first"}).json()["id"]
    play_first_legal(client, match_id)
    assert client.get(f"/api/matches/{match_id}").json()["to_move"] == "b"
    clock.now += timedelta(hours=25)
    swept = Cleanup(app.state.matches).run_once()
    assert swept.aborted == 1
    assert result(client, match_id) == {"winner": None, "reason": "aborted"}


def test_one_game_that_cannot_be_judged_does_not_stop_the_sweep(app: FastAPI, clock: Clock) -> None:
    """Failed before this change: the exception ended the whole run, every run."""
    client = TestClient(app)
    broken = client.post("/api/matches", json={**VS_COMPUTER, "side": "first"}).json()["id"]
    fine = client.post("/api/matches", json={**VS_COMPUTER, "side": "first"}).json()["id"]
    with app.state.sessions.begin() as db:
        # Older, so the sweep meets it first.
        db.execute(
            update(Match)
            .where(Match.id == broken)
            .values(position="not a position", turn_started_at=T0 - timedelta(hours=1))
        )
    clock.now += timedelta(hours=25)
    swept = Cleanup(app.state.matches).run_once()
    assert swept.aborted == 1
    assert result(client, fine) == {"winner": None, "reason": "aborted"}


def test_the_sweep_runs_soon_after_start(tmp_path: Path, clock: Clock) -> None:
    """Failed before this change: the first sweep came a whole interval (10 minutes)
    after start, so a server restarted more often never swept."""
    url = database_url(tmp_path)
    migrate(url)
    app = create_app(
        Settings(database_url=url, rate_limits=False, computer_thinker="first-legal"), clock=clock
    )
    setup = TestClient(app)
    # The player's turn (a computer's turn would be played at start, and the game be fresh).
    match_id = setup.post("/api/matches", json={**VS_COMPUTER, "side": "first"}).json()["id"]
    clock.now += timedelta(days=2)
    with TestClient(app) as client:
        deadline = time.monotonic() + 30
        while result(client, match_id) is None:
            assert time.monotonic() < deadline, "no sweep within 30 s of the start"
            time.sleep(0.2)
        assert result(client, match_id) == {"winner": None, "reason": "aborted"}


def fill_up(client: TestClient) -> list[str]:
    made = []
    for _ in range(MAX_COMPUTER_GAMES):
        created = client.post("/api/matches", json={**VS_COMPUTER, "side": "first"})
        assert created.status_code == 201, created.text
        made.append(created.json()["id"])
    return made


def test_the_refusal_lists_the_games_going_with_their_resign_calls(app: FastAPI) -> None:
    client = TestClient(app)
    made = fill_up(client)
    refused = client.post("/api/matches", json=VS_COMPUTER)
    assert refused.status_code == 409
    body = refused.json()
    assert body["detail"] == (
        f"you already have {MAX_COMPUTER_GAMES} games against the computer going; finish or resign one first"
    )
    assert {g["id"] for g in body["games"]} == set(made)
    first = body["games"][0]
    assert first["game"] == "morris" and first["opponent"] == "Computer 1" and first["level"] == 1
    assert first["url"] == f"/matches/{first['id']}" and first["your_move"] is True
    # The listed call resigns, and then there is room again.
    resigned = client.post(first["resign"])
    assert resigned.status_code == 200 and resigned.json()["result"]["reason"] == "resignation"
    assert client.post("/api/matches", json=VS_COMPUTER).status_code == 201
    # The ladder is refused the same way, with the same list.
    ladder = client.post("/api/ladder/runs", json={"name": "Ana"})
    assert ladder.status_code == 409 and len(ladder.json()["games"]) == MAX_COMPUTER_GAMES
    # Another player's refusal lists only their own games (none of these).
    other = TestClient(app)
    assert other.post("/api/matches", json=VS_COMPUTER).status_code == 201


def test_the_refusal_page_offers_a_resign_button_per_game(app: FastAPI) -> None:
    client = TestClient(app)
    made = fill_up(client)
    for lang, heading in (
        ("en", "Your games against the computer"),
        ("es", "Tus partidas contra la computadora"),
    ):
        page = client.post(
            "/matches",
            data={"game": "morris", "name": "Ana", "opponent": "easy"},
            headers={**HTML, "accept-language": lang},
            follow_redirects=False,
        )
        assert page.status_code == 409
        assert heading in page.text
        forms = re.findall(r'<form method="post" action="/matches/([^/]+)/act"', page.text)
        assert set(forms) == set(made)
    page_form = client.post(
        f"/matches/{made[0]}/act", data={"action": "resign"}, headers=HTML, follow_redirects=False
    )
    assert page_form.status_code == 303
    assert result(client, made[0])["reason"] == "resignation"


def test_one_address_is_capped_whatever_its_cookies(app: FastAPI) -> None:
    players = MAX_COMPUTER_GAMES_PER_ADDRESS // MAX_COMPUTER_GAMES
    for _ in range(players):
        fill_up(TestClient(app))  # a new browser each time, one address
    refused = TestClient(app).post("/api/matches", json=VS_COMPUTER)
    assert refused.status_code == 409
    assert refused.json()["detail"] == "too many games against the computer from your network are going"


def test_the_openapi_document_names_the_list(app: FastAPI) -> None:
    doc = TestClient(app).get("/openapi.json").json()
    for path in ("/api/matches", "/api/ladder/runs"):
        ref = doc["paths"][path]["post"]["responses"]["409"]["content"]["application/json"]["schema"]["$ref"]
        assert ref.endswith("/ComputerGamesRefusal")
    games = doc["components"]["schemas"]["ComputerGamesRefusal"]["properties"]["games"]
    assert "RunningComputerGame" in str(games)
