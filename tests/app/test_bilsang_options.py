"""Bilsang rule options on matches: the API's ``options``, the form's rules choice, the pages."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.app.helpers import create, play

HTML = {"accept": "text/html"}
START = "1 - 0 0 0 0 0,0;1,0;2,0;3,0;4,0;0,1;1,1;2,1;3,1;4,1;0,2;1,2;2,2;3,2;4,2;0,3;1,3;2,3;3,3;4,3 -"


def state(client: TestClient, match_id: str) -> dict:
    return client.get(f"/api/matches/{match_id}").json()


def test_a_new_bilsang_match_defaults_to_line_quiet_300(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, "bilsang")
    assert state(alice, match_id)["position"] == START + " line,quiet=300"
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    legal = alice.get(f"/api/matches/{match_id}/legal").json()["moves"]
    assert len(legal) == 9 and "h 4,0+ 0,0-" in legal and "h 4,0+ 0,3-" not in legal


@pytest.mark.parametrize(
    ("options", "position"),
    [
        ({"line": True, "quiet": 300}, START + " line,quiet=300"),
        ({"line": True, "quiet": 1000}, START + " line,quiet=1000"),
        ({}, START),
        ({"line": False}, START),
        ({"quiet": 500}, START + " quiet=500"),
        (None, START + " line,quiet=300"),
    ],
)
def test_options_go_into_the_position(alice: TestClient, options: dict | None, position: str) -> None:
    match_id = create(alice, "bilsang", options=options)
    assert state(alice, match_id)["position"] == position


def test_free_pairs_play_the_rules_without_options(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, "bilsang", options={})
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    after = play(alice, match_id, "h 4,0+ 0,3-")  # a pair of two rows: only with free pairs
    assert after["position"].endswith(" 5,0;-1,3")


@pytest.mark.parametrize(
    ("options", "needle"),
    [
        ({"quiet": 99}, "quiet"),
        ({"quiet": 1001}, "quiet"),
        ({"line": "yes"}, "options"),
        ({"quiet": "300"}, "options"),
        ({"colour": True}, "colour"),
    ],
)
def test_bad_options_are_refused(alice: TestClient, options: dict, needle: str) -> None:
    response = alice.post("/api/matches", json={"game": "bilsang", "name": "A", "options": options})
    assert response.status_code == 422
    assert needle in response.json()["detail"]


def test_a_rematch_keeps_the_options(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, "bilsang", options={"line": True, "quiet": 1000})
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    bob.post(f"/api/matches/{match_id}/resign")
    fresh = alice.post(f"/api/matches/{match_id}/rematch").json()
    assert fresh["position"] == START + " line,quiet=1000"


def test_options_are_in_the_openapi_document(alice: TestClient) -> None:
    schema = alice.get("/openapi.json").json()["components"]["schemas"]["BilsangCreate"]
    options = schema["properties"]["options"]
    assert "line" in options["description"] and "quiet" in options["description"]
    assert options["examples"] == [{"line": True, "quiet": 300}]


def _create_by_form(client: TestClient, **fields: str) -> str:
    created = client.post(
        "/matches", data={"game": "bilsang", "name": "Ann", "side": "first", **fields}, follow_redirects=False
    )
    assert created.status_code == 303, created.text
    return created.headers["location"].rsplit("/", 1)[1]


@pytest.mark.parametrize(
    ("rules", "field"),
    [("line", " line,quiet=300"), ("free", ""), ("long", " line,quiet=1000"), (None, " line,quiet=300")],
)
def test_the_form_rules_choice(alice: TestClient, rules: str | None, field: str) -> None:
    match_id = _create_by_form(alice, **({} if rules is None else {"rules": rules}))
    assert state(alice, match_id)["position"] == START + field


def test_the_form_refuses_unknown_rules_and_other_games_ignore_them(alice: TestClient) -> None:
    bogus = {"game": "bilsang", "name": "Ann", "rules": "bogus"}
    response = alice.post("/matches", data=bogus, headers=HTML, follow_redirects=False)
    assert response.status_code == 422
    assert "choose the rules for Bilsang" in response.text
    other = {"game": "morris", "name": "Ann", "rules": "free"}
    morris = alice.post("/matches", data=other, follow_redirects=False)
    assert morris.status_code == 303


def test_the_lobby_offers_the_three_rule_sets(alice: TestClient) -> None:
    page = alice.get("/", headers=HTML).text
    assert 'name="rules"' in page
    for label in (
        "same-line pairs (recommended)",
        "free pairs (almost always drawn)",
        "long game (same-line, quiet 1000)",
    ):
        assert label in page
    # Short labels for a phone's select; what they leave out is the hint under it.
    assert "the long game after 1000; free pairs are the rules without options." in page


def test_the_match_page_shows_the_rules_and_warns_of_free_pairs(alice: TestClient) -> None:
    line = alice.get(f"/matches/{_create_by_form(alice)}", headers=HTML).text
    assert "Rules: same-line pairs; the game ends after 300 plies without a removal." in line
    assert "rule-options warning" not in line
    free = alice.get(f"/matches/{_create_by_form(alice, rules='free')}", headers=HTML).text
    assert "rule-options warning" in free and "almost every game is drawn at 100 plies" in free
    morris = alice.get(f"/matches/{create(alice)}", headers=HTML).text
    assert "rule-options" not in morris


def test_the_match_page_in_spanish(alice: TestClient) -> None:
    alice.cookies.set("lang", "es")
    page = alice.get(f"/matches/{_create_by_form(alice, rules='long')}", headers=HTML).text
    assert "tras 1000 jugadas sin retirar ninguna boya" in page


@pytest.mark.parametrize(("lang", "needle"), [("en", "Same-line pairs"), ("es", "Parejas en la misma línea")])
def test_the_rules_page_explains_the_options(alice: TestClient, lang: str, needle: str) -> None:
    alice.cookies.set("lang", lang)
    page = alice.get("/rules/bilsang", headers=HTML).text
    assert 'id="options"' in page and needle in page and "line,quiet=300" in page


def test_options_for_a_game_without_them_are_refused(alice: TestClient) -> None:
    response = alice.post("/api/matches", json={"game": "morris", "name": "A", "options": {"line": True}})
    assert response.status_code == 422
    assert "options" in response.json()["detail"]
    # null is "none chosen", as before
    none_chosen = {"game": "morris", "name": "A", "options": None}
    assert alice.post("/api/matches", json=none_chosen).status_code == 201
