"""A move's writes are all or nothing: when one of them fails, the match row, the moves
and the event streams are as they were, whichever database plays it (on PostgreSQL the
writes and the commit go to the server in one pipeline from the event loop,
app.matches.statements.LoopStatements; on SQLite one Core transaction)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text

from tests.app.helpers import play, started


def test_a_move_whose_insert_fails_changes_nothing(app: FastAPI, alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    play(alice, match_id, "d6")
    before = alice.get(f"/api/matches/{match_id}").json()
    # A stray row already holds the next ply: the move's INSERT breaks (match_id, ply)'s
    # uniqueness, after the checks passed and before the UPDATE.
    with app.state.engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO moves (match_id, ply, side, notation, position_after, created_at) "
                "VALUES (:id, 2, 'b', 'x', 'x', CURRENT_TIMESTAMP)"
            ),
            {"id": match_id},
        )
    unguarded = TestClient(app, raise_server_exceptions=False)
    unguarded.cookies = bob.cookies
    answer = unguarded.post(f"/api/matches/{match_id}/moves", json={"move": "a7", "ply": 1})
    assert answer.status_code == 500, answer.text
    after = alice.get(f"/api/matches/{match_id}").json()
    # The same match row (ply, position, version, turn…); its list of moves is read from
    # the moves table, stray row and all.
    assert after.pop("moves") == ["d6", "x"]
    before.pop("moves")
    assert after == before
    with app.state.engine.connect() as conn:
        plies = conn.execute(
            text("SELECT ply, notation FROM moves WHERE match_id = :id ORDER BY ply"), {"id": match_id}
        ).all()
    assert [tuple(row) for row in plies] == [(1, "d6"), (2, "x")]
    # The match still takes a move once the stray row is gone.
    with app.state.engine.begin() as conn:
        conn.execute(text("DELETE FROM moves WHERE match_id = :id AND ply = 2"), {"id": match_id})
    assert play(bob, match_id, "a7")["ply"] == 2
