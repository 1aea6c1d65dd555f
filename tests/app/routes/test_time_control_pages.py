"""Time controls on the pages: the form, the lobby, the match page, My games, the rules."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.app.helpers import MORRIS_WIN, create, play

HTML = {"accept": "text/html"}


def form_create(client: TestClient, **fields: str) -> str:
    data = {"game": "morris", "name": "Alice", "side": "first", **fields}
    response = client.post("/matches", data=data, headers=HTML, follow_redirects=False)
    assert response.status_code == 303, response.text
    return response.headers["location"].rsplit("/", 1)[-1]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"time_control": "rt:300:3"}, {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 3}),
        (
            {"time_control": "rt:custom", "initial_minutes": "0.25", "increment_seconds": "2"},
            {"kind": "realtime", "initial_seconds": 15, "increment_seconds": 2},
        ),
        ({"time_control": "cd:5"}, {"kind": "correspondence", "days": 5}),
        ({"time_control": ""}, None),
        ({}, None),
    ],
)
def test_the_form_creates_the_time_control_chosen(
    alice: TestClient, fields: dict, expected: dict | None
) -> None:
    match_id = form_create(alice, **fields)
    assert alice.get(f"/api/matches/{match_id}").json()["time_control"] == expected


@pytest.mark.parametrize(
    "fields",
    [
        {"time_control": "rt:custom", "initial_minutes": "0.1", "increment_seconds": "0"},
        {"time_control": "rt:custom", "initial_minutes": "lots", "increment_seconds": "0"},
        {"time_control": "cd:4"},
        {"time_control": "rt:300"},
    ],
)
def test_a_bad_choice_is_a_readable_422(alice: TestClient, fields: dict) -> None:
    data = {"game": "morris", "name": "Alice", "side": "first", **fields}
    response = alice.post("/matches", data=data, headers=HTML, follow_redirects=False)
    assert response.status_code == 422
    assert "time" in response.text or "days" in response.text or "initial_seconds" in response.text
    assert alice.get("/api/me/matches").json() == {"matches": []}


def test_the_form_remembers_the_last_choice(alice: TestClient) -> None:
    form_create(alice, time_control="rt:custom", initial_minutes="2.5", increment_seconds="7")
    page = alice.get("/", headers=HTML).text
    assert '<option value="rt:custom" selected>' in page
    assert 'name="initial_minutes" min="0.25" max="180" step="0.25" value="2.5"' in page
    assert 'value="7"' in page


def test_seeks_show_their_time_control(alice: TestClient, bob: TestClient) -> None:
    create(
        alice, public=True, time_control={"kind": "realtime", "initial_seconds": 600, "increment_seconds": 5}
    )
    create(alice, public=True, time_control={"kind": "correspondence", "days": 3})
    create(alice, public=True)
    page = bob.get("/", headers=HTML).text
    assert "10+5" in page and "3 days per move" in page and "untimed" in page


def test_the_match_page_shows_both_clocks(alice: TestClient, bob: TestClient) -> None:
    match_id = create(
        alice, time_control={"kind": "realtime", "initial_seconds": 300, "increment_seconds": 3}
    )
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    page = bob.get(f"/matches/{match_id}", headers=HTML).text
    assert page.count("data-game-clock") == 3  # two clocks and White's grace countdown
    assert 'data-side="w" data-ms="300000"' in page and "5:00" in page
    assert "Abort (no result)" in page
    play(alice, match_id, MORRIS_WIN[0])
    play(bob, match_id, MORRIS_WIN[1])
    live = alice.get(f"/matches/{match_id}/live", headers=HTML).text
    assert live.count("data-game-clock") == 2 and 'data-running="true"' in live
    assert "Abort (no result)" not in live
    assert 'id="claims"' in live  # the polled claim slot, empty while Bob is here
    assert "Claim the win" not in alice.get(f"/matches/{match_id}/claims", headers=HTML).text


def test_an_untimed_match_page_has_no_clock(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice)
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    page = bob.get(f"/matches/{match_id}", headers=HTML).text
    assert "data-game-clock" not in page and 'id="claims"' not in page


def test_my_games_page_and_the_header_count(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    assert "nav-count" not in alice.get("/", headers=HTML).text
    match_id = create(alice, time_control={"kind": "correspondence", "days": 2})
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    page = alice.get("/games", headers=HTML).text
    assert "against Bob" in page and "Your move" in page and "left" in page
    assert 'class="nav-count"' in page and ">1</span>" in page
    assert "Their move" in bob.get("/games", headers=HTML).text
    assert "No games yet" in carol.get("/games", headers=HTML).text
    spanish = alice.get("/games", headers={**HTML, "accept-language": "es"}).text
    assert "Mis partidas" in spanish and "contra Bob" in spanish


@pytest.mark.parametrize(("lang", "words"), [("en", "Grace period"), ("es", "Tiempo de cortesía")])
def test_the_rules_explain_time_controls(alice: TestClient, lang: str, words: str) -> None:
    for game in ("bashni", "morris", "bobail", "bilsang"):
        page = alice.get(f"/rules/{game}", headers={**HTML, "accept-language": lang}).text
        assert words in page and 'id="time-controls"' in page


def test_my_games_says_an_aborted_match_was_aborted_not_drawn(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, time_control={"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0})
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    assert bob.post(f"/api/matches/{match_id}/abort").status_code == 200
    row = alice.get("/games", headers=HTML).text.split(f'data-match="{match_id}"')[1].split("</li>")[0]
    assert "Aborted" in row and "Draw" not in row
    spanish = alice.get("/games", headers={**HTML, "accept-language": "es"}).text
    assert "Anulada" in spanish.split(f'data-match="{match_id}"')[1].split("</li>")[0]


def test_my_games_names_the_computer_in_the_readers_language(alice: TestClient) -> None:
    created = alice.post(
        "/api/matches", json={"game": "bashni", "name": "Alice", "side": "first", "opponent": {"level": 3}}
    )
    assert created.status_code == 201, created.text
    assert "against Computer (level 3)" in alice.get("/games", headers=HTML).text
    spanish = alice.get("/games", headers={**HTML, "accept-language": "es"}).text
    assert "Computer" not in spanish and "contra " in spanish
    # The API keeps the seat's own name, as it always has.
    assert "_opponent_seat" not in alice.get("/api/me/matches").text
