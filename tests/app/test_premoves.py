"""GET /matches/{id}/premoves: the paths the waiting player may queue (issue 34, item 7)."""

from __future__ import annotations

from fastapi.testclient import TestClient

import games
from app.premoves import premove_tree
from app.services.clicks import follow
from tests.app.helpers import create

REALTIME = {"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0}


def ends(tree: dict, path: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    found = {path} if tree.get("end") and not tree.get("next") else set()
    for point, child in tree.get("next", {}).items():
        found |= ends(child, (*path, point))
    return found


def test_only_the_waiting_player_gets_the_paths(
    alice: TestClient, bob: TestClient, carol: TestClient
) -> None:
    match_id = create(alice, time_control=REALTIME)
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    got = bob.get(f"/matches/{match_id}/premoves")
    assert got.status_code == 200 and got.json()["ply"] == 0
    # White places first: Black may queue a placement on any point (all 24 are empty now).
    assert len(ends(got.json()["tree"])) == 24
    assert alice.get(f"/matches/{match_id}/premoves").status_code == 409  # her own turn
    assert carol.get(f"/matches/{match_id}/premoves").status_code == 403  # no seat


def test_every_path_is_a_move_after_some_reply_and_only_those() -> None:
    game = games.get("bashni")
    state = game.play(game.initial(), "c3-d4")
    tree = premove_tree("bashni", game.format_position(state))
    possible = set()
    for reply in game.legal_moves(state):
        after = game.apply(state, reply)
        for move in game.legal_moves(after):
            possible |= {tuple(p) for p in game.click_paths(move)}
    assert ends(tree) == {p for p in possible if not any(q[: len(p)] == p and q != p for q in possible)}
    # And the server plays such taps only when they are a move in the position that came.
    after = game.play(state, "f6-g5")
    for path in ends(tree):
        result = follow(game, after, path)
        assert (result.complete is not None) == any(
            tuple(p) == path for m in game.legal_moves(after) for p in game.click_paths(m)
        )
