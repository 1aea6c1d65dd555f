from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def create(client: TestClient, game: str = "morris", side: str = "first", **extra: Any) -> str:
    response = client.post("/api/matches", json={"game": game, "name": "Alice", "side": side, **extra})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def started(alice: TestClient, bob: TestClient, game: str = "morris") -> str:
    match_id = create(alice, game)
    response = bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    assert response.status_code == 200, response.text
    return match_id


def play(client: TestClient, match_id: str, move: str) -> dict[str, Any]:
    ply = client.get(f"/api/matches/{match_id}").json()["ply"]
    response = client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
    assert response.status_code == 200, response.text
    return response.json()


#: A short game of Nine Men's Morris that White wins by reducing Black to two pieces
#: (found by a greedy search over the engine and replayed through the server).
MORRIS_WIN = (
    "c5 a7 d5 e5 d6 d7 b6 e4 f6xe5 c4 e5xa7 g4 f2 g1 f4xe4 c3 e3 d3 "
    "f4-e4xg4 d7-g7 e4-f4xc4 c3-c4 f4-e4xd3 c4-a4 e4-f4xa4"
).split()
