"""HTML pages: lobby, rules, health, and the match page driven by form posts and moves."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from fastapi.testclient import TestClient

import games
from tests.app.helpers import MORRIS_WIN, create, started

HTML = {"accept": "text/html"}
HX = {"hx-request": "true"}


def test_healthz(alice: TestClient) -> None:
    response = alice.get("/healthz")
    assert response.status_code == 200 and response.text == "ok"


def test_lobby_lists_the_four_games_with_rules_links(alice: TestClient) -> None:
    page = alice.get("/", headers=HTML).text
    for game in games.all():
        assert game.title.replace("'", "&#39;") in page
        assert f'href="/rules/{game.name}"' in page


def test_rules_pages_mark_house_rules_in_both_languages(alice: TestClient) -> None:
    for game in games.names():
        english = alice.get(f"/rules/{game}", headers={**HTML, "accept-language": "en"})
        assert english.status_code == 200
        assert 'class="house"' in english.text and "House rule" in english.text
        spanish = alice.get(f"/rules/{game}", headers={**HTML, "accept-language": "es-AR,es;q=0.9"})
        assert "Regla de la casa" in spanish.text and 'lang="es"' in spanish.text
    assert alice.get("/rules/chess", headers=HTML).status_code == 404


def test_language_follows_accept_language_and_the_switch_is_remembered(alice: TestClient) -> None:
    assert "Jugar" in alice.get("/", headers={**HTML, "accept-language": "es-ES"}).text
    assert "Play a friend" in alice.get("/", headers={**HTML, "accept-language": "de, en;q=0.5"}).text
    switched = alice.get("/lang/es?next=/rules/morris", follow_redirects=False)
    assert switched.status_code == 303 and switched.headers["location"] == "/rules/morris"
    assert 'lang="es"' in alice.get("/", headers={**HTML, "accept-language": "en"}).text
    # Only same-site paths are followed.
    assert alice.get("/lang/en?next=//evil.example", follow_redirects=False).headers["location"] == "/"


def test_create_and_join_by_forms(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    created = alice.post(
        "/matches",
        data={"game": "morris", "name": "Ann", "side": "first", "public": "true"},
        follow_redirects=False,
    )
    assert created.status_code == 303
    url = created.headers["location"]
    match_id = url.rsplit("/", 1)[1]
    page = alice.get(url, headers=HTML).text
    assert "Waiting for an opponent" in page and "invite-url" in page and "continue-url" in page
    # The public match is listed in the lobby, joinable.
    assert f"/matches/{match_id}/join" in bob.get("/", headers=HTML).text
    invited = bob.get(url, headers=HTML).text
    assert "Take the free seat" in invited and "continue-url" not in invited
    bob.post(f"/matches/{match_id}/join", data={"name": "Ben"})
    assert "Your move" in alice.get(url, headers=HTML).text
    spectator = carol.get(url, headers=HTML).text
    assert "Take the free seat" not in spectator and "Ann to move" in spectator


def taps_of(page: str) -> set[str]:
    return set(re.findall(r'data-point="([^"]+)"[^>]*tabindex="0"', page))


def click_tree(page: str) -> dict[str, Any]:
    """The click tree the page's board carries for static/play.js (``data-clicks``)."""
    found = re.search(r'data-clicks="([^"]*)"', page)
    assert found is not None, "no click tree on the board"
    return json.loads(html.unescape(found.group(1)))


def play(client: TestClient, match_id: str, move: str, ply: int, **headers: str) -> Any:
    """The page's move: ``{move, ply}`` posted to its one door for moves."""
    return client.post(f"/matches/{match_id}/moves", data={"move": move, "ply": ply}, headers=headers or HX)


def test_moves_from_the_page_are_posted_whole_and_answered_with_the_live_part(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = started(alice, bob)
    page = alice.get(f"/matches/{match_id}", headers=HTML).text
    assert len(taps_of(page)) == 24
    assert "hx-post" not in page.split('id="live"', 1)[1].split("</svg>", 1)[0]  # no point posts
    assert taps_of(bob.get(f"/matches/{match_id}", headers=HTML).text) == set()  # not Bob's turn
    after = play(alice, match_id, "d1", 0)
    assert after.status_code == 200 and 'id="live"' in after.text and 'data-ply="1"' in after.text
    assert alice.get(f"/api/matches/{match_id}").json()["moves"] == ["d1"]
    assert taps_of(after.text) == set()
    # A move that cannot be played is refused, with the reason in the live part.
    refused = play(bob, match_id, "d1", 1)
    assert refused.status_code == 200 and "illegal move" in refused.text
    assert alice.get(f"/api/matches/{match_id}").json()["ply"] == 1
    # Capitals, as a phone or a screen reader may type them, are the same move.
    play(bob, match_id, "A1", 1)
    assert alice.get(f"/api/matches/{match_id}").json()["moves"] == ["d1", "a1"]


def test_a_mills_removal_is_in_the_click_tree_and_played_as_one_move(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = started(alice, bob)
    for ply, move in enumerate("c5 a7 d5 e5 d6 d7 b6 e4".split()):
        (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
    tree = click_tree(alice.get(f"/matches/{match_id}", headers=HTML).text)
    # Black has a7 e5 d7 e4 on the board, none in a mill: any may go.
    assert set(tree["next"]["f6"]["next"]) == {"a7", "e5", "d7", "e4"}
    assert tree["next"]["f6"]["next"]["e5"]["move"] == "f6xe5"
    play(alice, match_id, "f6xe5", 8)
    assert alice.get(f"/api/matches/{match_id}").json()["moves"][-1] == "f6xe5"


def test_a_stale_move_is_refused_with_a_message(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    page = play(alice, match_id, "d1", 5).text
    assert "moved on" in page
    assert alice.get(f"/api/matches/{match_id}").json()["ply"] == 0


def test_the_move_door_answers_json_to_a_program_and_redirects_a_plain_form(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = started(alice, bob)
    answer = play(alice, match_id, "d1", 0, accept="application/json")
    assert answer.status_code == 200
    assert answer.json() == alice.get(f"/api/matches/{match_id}").json() | {
        key: answer.json()[key] for key in ("clocks_at", "away")
    }
    refused = play(alice, match_id, "a1", 1, accept="application/json")
    assert refused.status_code == 409 and "not your turn" in refused.json()["detail"]
    # Without scripts: a form post, answered with the page (303), or the page with the reason.
    form = bob.post(
        f"/matches/{match_id}/moves", data={"move": "a1", "ply": 1}, headers=HTML, follow_redirects=False
    )
    assert form.status_code == 303 and form.headers["location"] == f"/matches/{match_id}"
    again = bob.post(f"/matches/{match_id}/moves", data={"move": "a4", "ply": 1}, headers=HTML)
    assert again.status_code == 409 and "moved on" in again.text and "<html" in again.text
    assert alice.get(f"/api/matches/{match_id}").json()["moves"] == ["d1", "a1"]


def test_without_scripts_the_player_to_move_has_a_form_for_the_move(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = started(alice, bob)
    mine = alice.get(f"/matches/{match_id}", headers=HTML).text
    form = mine.split("<noscript>", 1)[1].split("</noscript>", 1)[0]
    assert f'action="/matches/{match_id}/moves"' in form and 'name="move"' in form
    assert 'name="ply" value="0"' in form
    assert "<noscript>" not in bob.get(f"/matches/{match_id}", headers=HTML).text  # not Bob's move


def test_the_old_tap_route_is_gone(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    gone = alice.post(f"/matches/{match_id}/click", data={"taps": "d1", "ply": 0}, headers=HX)
    assert gone.status_code in (404, 405)
    assert alice.get(f"/api/matches/{match_id}").json()["ply"] == 0


def test_finished_match_shows_the_result_and_replays(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    for ply, move in enumerate(MORRIS_WIN):
        (alice, bob)[ply % 2].post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
    page = alice.get(f"/matches/{match_id}", headers=HTML).text
    assert "Alice wins" in page and "fewer than three pieces left" in page
    assert "Rematch" in page
    replay = alice.get(f"/matches/{match_id}?at=3", headers=HTML).text
    assert "after ply 3 of 25" in replay
    assert replay.count("piece side-") == 3


def test_actions_from_the_page(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    hx = {"hx-request": "true"}
    alice.post(f"/matches/{match_id}/act", data={"action": "draw-offer"}, headers=hx)
    assert "offers a draw" in bob.get(f"/matches/{match_id}", headers=HTML).text
    page = bob.post(f"/matches/{match_id}/act", data={"action": "draw-accept"}, headers=hx).text
    assert "draw agreed" in page
    # A rematch is offered first; it starts when the opponent accepts.
    offered = alice.post(f"/matches/{match_id}/act", data={"action": "rematch"}, follow_redirects=False)
    assert offered.status_code == 303 and offered.headers["location"] == f"/matches/{match_id}"
    assert "You offered a rematch" in alice.get(f"/matches/{match_id}", headers=HTML).text
    assert "Alice offers a rematch" in bob.get(f"/matches/{match_id}", headers=HTML).text
    rematch = bob.post(f"/matches/{match_id}/act", data={"action": "rematch-accept"}, follow_redirects=False)
    assert rematch.status_code == 303 and rematch.headers["location"] != f"/matches/{match_id}"
    assert "Your move" in bob.get(rematch.headers["location"], headers=HTML).text


def test_continue_link_moves_the_seat(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    match_id = create(alice)
    page = alice.get(f"/matches/{match_id}", headers=HTML).text
    link = re.search(r'id="continue-url" readonly value="([^"]+)"', page).group(1)
    assert link.startswith("http://localhost:8000/")  # the configured origin, not the request's host
    path = link.removeprefix("http://localhost:8000")
    # Opening the link asks; confirming (a POST) moves the seat.
    assert carol.get(path, follow_redirects=False).status_code == 200
    assert carol.post(path, follow_redirects=False).status_code == 303
    assert carol.post(f"/api/matches/{match_id}/draw", json={"action": "offer"}).status_code == 409
    state = carol.get(f"/matches/{match_id}", headers=HTML).text
    assert "(you)" in state
    forged = path[:-4] + "0000"
    assert bob.get(forged, follow_redirects=False).status_code == 404
    assert bob.post(forged, follow_redirects=False).status_code == 404


def test_unknown_match_page_is_a_readable_404(alice: TestClient) -> None:
    response = alice.get("/matches/nope", headers=HTML)
    assert response.status_code == 404 and "no match" in response.text
