"""The JSON API of DESIGN.md: every action and every refusal."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.app.helpers import MORRIS_WIN, create, play, started


def test_create_sets_an_httponly_cookie_and_returns_the_seat(alice: TestClient) -> None:
    response = alice.post("/api/matches", json={"game": "morris", "name": "  Alice  ", "side": "second"})
    assert response.status_code == 201
    body = response.json()
    assert body["seat"] == "b"
    assert body["invite_url"].endswith(f"/matches/{body['id']}")
    assert "tablero_player" not in body["invite_url"]
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "samesite=lax" in cookie.lower()
    state = alice.get(f"/api/matches/{body['id']}").json()
    assert state["status"] == "waiting"
    assert state["players"] == [
        {"side": "b", "name": "Alice", "computer": False, "level": None, "label": None}
    ]
    assert state["to_move"] == "w"
    assert state["position"] == "w ........................ 9 9 0"


def test_random_side_gives_one_of_the_two(alice: TestClient) -> None:
    seats = {
        alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "random"}).json()["seat"]
        for _ in range(30)
    }
    assert seats == {"w", "b"}


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"game": "chess", "name": "A", "side": "first"}, "unknown game"),
        ({"game": "morris", "name": "   ", "side": "first"}, "display name is required"),
        ({"game": "morris", "name": "x" * 33, "side": "first"}, "at most 32"),
        ({"game": "morris", "name": "a\x07b", "side": "first"}, "control"),
        ({"game": "morris", "name": "A", "side": "left"}, "side"),
        ({"game": "morris", "side": "first"}, "name"),
    ],
)
def test_create_refusals(alice: TestClient, body: dict, needle: str) -> None:
    response = alice.post("/api/matches", json=body)
    assert response.status_code == 422
    assert needle in response.json()["detail"]


def test_join_takes_the_free_seat_then_refuses(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    match_id = create(alice)
    response = bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    assert response.status_code == 200 and response.json() == {"seat": "b"}
    assert alice.get(f"/api/matches/{match_id}").json()["status"] == "playing"
    again = carol.post(f"/api/matches/{match_id}/join", json={"name": "Carol"})
    assert again.status_code == 409
    assert "both seats" in again.json()["detail"]
    # The seat holder joining again keeps their seat rather than failing.
    assert bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"}).json() == {"seat": "b"}


def test_unknown_match_is_404(alice: TestClient) -> None:
    for method, path, body in [
        ("get", "/api/matches/nope", None),
        ("get", "/api/matches/nope/legal", None),
        ("post", "/api/matches/nope/join", {"name": "A"}),
        ("post", "/api/matches/nope/moves", {"move": "d1", "ply": 0}),
        ("post", "/api/matches/nope/resign", None),
    ]:
        response = alice.request(method, path, json=body)
        assert response.status_code == 404, path
        assert "no match" in response.json()["detail"]


def test_moves_legal_and_state(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    legal = alice.get(f"/api/matches/{match_id}/legal").json()
    assert legal["ply"] == 0 and len(legal["moves"]) == 24 and legal["moves"] == sorted(legal["moves"])
    state = play(alice, match_id, "d1")
    assert state["ply"] == 1 and state["moves"] == ["d1"] and state["to_move"] == "b"
    state = play(bob, match_id, "a1")
    assert state["moves"] == ["d1", "a1"]


def test_move_refusals_change_nothing(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    match_id = started(alice, bob)
    play(alice, match_id, "d1")
    before = alice.get(f"/api/matches/{match_id}").json()
    cases = [
        (alice, {"move": "a1", "ply": 1}, 409, "not your turn"),
        (bob, {"move": "a1", "ply": 0}, 409, "ply"),
        (bob, {"move": "d1", "ply": 1}, 422, "illegal"),
        (bob, {"move": "zz-9", "ply": 1}, 422, "malformed"),
        (carol, {"move": "a1", "ply": 1}, 403, "no seat"),
        (bob, {"move": "a1"}, 422, "ply"),
        (bob, {"move": 5, "ply": 1}, 422, "move"),
        (bob, {"move": "a1", "ply": "one"}, 422, "ply"),
    ]
    for client, body, status, needle in cases:
        response = client.post(f"/api/matches/{match_id}/moves", json=body)
        assert response.status_code == status, (body, response.text)
        assert needle in response.json()["detail"], (body, response.text)
    assert alice.get(f"/api/matches/{match_id}").json() == before


def test_moves_before_an_opponent_joins_are_refused(alice: TestClient) -> None:
    match_id = create(alice)
    response = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0})
    assert response.status_code == 409 and "waiting" in response.json()["detail"]


def test_resign_ends_the_match_and_further_moves_are_refused(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    state = bob.post(f"/api/matches/{match_id}/resign").json()
    assert state["status"] == "finished"
    assert state["result"] == {"winner": "w", "reason": "resignation"}
    response = alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0})
    assert response.status_code == 409 and "over" in response.json()["detail"]
    assert alice.post(f"/api/matches/{match_id}/resign").status_code == 409
    assert alice.get(f"/api/matches/{match_id}/legal").json()["moves"] == []


def test_draw_offer_accept_decline(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    match_id = started(alice, bob)
    url = f"/api/matches/{match_id}/draw"
    assert bob.post(url, json={"action": "accept"}).status_code == 409  # nothing to accept
    assert alice.post(url, json={"action": "offer"}).json()["draw_offer"] == "w"
    assert alice.post(url, json={"action": "offer"}).status_code == 409
    assert alice.post(url, json={"action": "accept"}).status_code == 409  # not your own
    assert carol.post(url, json={"action": "offer"}).status_code == 403
    assert bob.post(url, json={"action": "decline"}).json()["draw_offer"] is None
    alice.post(url, json={"action": "offer"})
    play(alice, match_id, "d1")  # a move withdraws the offer
    assert alice.get(f"/api/matches/{match_id}").json()["draw_offer"] is None
    bob.post(url, json={"action": "offer"})
    state = alice.post(url, json={"action": "accept"}).json()
    assert state["status"] == "finished" and state["result"] == {"winner": None, "reason": "agreement"}
    assert alice.post(url, json={"action": "bogus"}).status_code == 422


def test_takeback(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    url = f"/api/matches/{match_id}/takeback"
    assert alice.post(url, json={"action": "offer"}).status_code == 409  # no move yet
    play(alice, match_id, "d1")
    assert bob.post(url, json={"action": "offer"}).status_code == 409  # not bob's move
    assert alice.post(url, json={"action": "offer"}).json()["takeback_offer"] == "w"
    assert bob.post(url, json={"action": "decline"}).json()["moves"] == ["d1"]
    alice.post(url, json={"action": "offer"})
    state = bob.post(url, json={"action": "accept"}).json()
    assert state["moves"] == [] and state["ply"] == 0 and state["to_move"] == "w"
    assert state["position"] == "w ........................ 9 9 0"
    # Play goes on from the restored position, and the ply numbers stay contiguous.
    assert play(alice, match_id, "g7")["moves"] == ["g7"]


def test_rematch_swaps_sides(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    match_id = started(alice, bob)
    assert alice.post(f"/api/matches/{match_id}/rematch").status_code == 409  # still playing
    bob.post(f"/api/matches/{match_id}/resign")
    assert carol.post(f"/api/matches/{match_id}/rematch").status_code == 403
    fresh = alice.post(f"/api/matches/{match_id}/rematch").json()
    assert fresh["id"] != match_id and fresh["status"] == "playing"
    assert {p["name"]: p["side"] for p in fresh["players"]} == {"Alice": "b", "Bob": "w"}
    # Asking twice finds the same rematch; and Bob (now White) can move in it at once.
    assert bob.post(f"/api/matches/{match_id}/rematch").json()["id"] == fresh["id"]
    assert play(bob, fresh["id"], "d1")["moves"] == ["d1"]
    assert alice.get(f"/api/matches/{match_id}").json()["rematch_id"] == fresh["id"]


def test_a_full_game_to_a_win(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    clients = (alice, bob)
    for ply, move in enumerate(MORRIS_WIN):
        state = play(clients[ply % 2], match_id, move)
    assert state["status"] == "finished"
    assert state["result"] == {"winner": "w", "reason": "too-few-pieces"}
    assert state["moves"] == MORRIS_WIN


def test_repetition_ends_the_match_as_a_draw(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    placing = "e4 g4 d7 a4 f2 d2 d3 c4 g1 c5 c3 d6 b2 b6 e5 g7 d1 a7".split()
    shuffle = "e5-d5 d6-f6 d5-e5 f6-d6".split() * 2
    clients = (alice, bob)
    for ply, move in enumerate(placing + shuffle[:-1]):
        state = play(clients[ply % 2], match_id, move)
        assert state["status"] == "playing"
    # The position after the placing phase now occurs for the third time.
    state = play(bob, match_id, shuffle[-1])
    assert state["status"] == "finished"
    assert state["result"] == {"winner": None, "reason": "repetition"}


def test_openapi_lists_the_contract(alice: TestClient) -> None:
    paths = alice.get("/openapi.json").json()["paths"]
    for path in [
        "/api/matches",
        "/api/matches/{match_id}/join",
        "/api/matches/{match_id}",
        "/api/matches/{match_id}/legal",
        "/api/matches/{match_id}/moves",
        "/api/matches/{match_id}/resign",
        "/api/matches/{match_id}/draw",
        "/api/matches/{match_id}/takeback",
        "/api/matches/{match_id}/rematch",
        "/matches/{match_id}/events",
    ]:
        assert path in paths, path
