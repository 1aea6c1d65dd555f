from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient


def create(client: TestClient, game: str = "morris", side: str = "first", **extra: Any) -> str:
    response = client.post("/api/matches", json={"game": game, "name": "Alice", "side": side, **extra})
    assert response.status_code == 201, response.text
    return response.json()["id"]


def started(alice: TestClient, bob: TestClient, game: str = "morris", **extra: Any) -> str:
    match_id = create(alice, game, **extra)
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

#: A short Bashni game that White wins (Black is left without a legal move), found by a
#: cooperative search over the engine.
BASHNI_WIN = (
    "c3-d4 f6-g5 d4-e5 d6:f4 g3:e5 b6-c5 e3-d4 c5:e3 f2:d4 a7-b6 e5-d6 c7:e5:g3 h2:f4 "
    "b6-c5 d4:b6 d8-c7 b6:d8:f6:h4 g7-f6 h4:e7:b4 h6-g5 f4:h6 f8-e7 b4:f8 b8-c7 b2-c3 "
    "h8-g7 f8-b4 c7-d6 h6:f8:c5"
).split()

#: Bobail: White parks an electron so that Black's only Neutron slide south ends on
#: rank 1, which wins for White whoever moved it.
BOBAIL_WIN = ["c3-c4 c1-e3", "c4-c1"]


def bilsang_quiet_game(seed: int = 0) -> list[str]:
    """A seeded random Bilsang game with free pairs; with no removal it ends at 100 plies, drawn."""
    import random

    import games

    game = games.get("bilsang")
    rng = random.Random(seed)
    state, line = game.initial(), []
    while game.outcome(state) is None:
        move = rng.choice(game.legal_moves(state))
        line.append(game.format_move(move))
        state = game.apply(state, move)
    return line
