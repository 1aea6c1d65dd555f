"""Puzzle ratings (issue 29): the Glicko-2 module rates an account's first attempt at a
puzzle against the puzzle; guests are never rated; the rows go with the account."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

import games
from app.learn import puzzle_ratings
from app.learn.models import PuzzleAttempt, PuzzlePlayer, PuzzleRating
from app.models import Account, Base
from app.ratings.glicko2 import NEW, Rating, Result, rate_game
from games.puzzles import store
from tests.app.accounts.test_accounts_api import PASSWORD, sign_up

GAME = "bobail"  # the game with the most shipped puzzles


def rows() -> tuple[dict[str, Any], ...]:
    found = store.load(GAME)
    assert len(found) >= 10, "the shipped Bobail set is the test's material"
    return found


def wrong_first_move(row: dict[str, Any]) -> str:
    game = games.get(row["game"])
    state = game.parse_position(row["position"])
    return next(t for t in game.move_texts(state) if t != row["line"][0])


def solve(client: TestClient, row: dict[str, Any]) -> dict[str, Any]:
    line = row["line"]
    answer: dict[str, Any] = {}
    for end in range(1, len(line) + 1, 2):
        answer = client.post(f"/api/puzzles/{row['id']}/attempt", json={"moves": line[:end]}).json()
        assert answer["correct"], answer
    assert answer["solved"]
    return answer


def counted(app: FastAPI, model: type) -> int:
    with app.state.sessions() as db:
        return db.scalar(select(func.count()).select_from(model)) or 0


def test_the_migration_makes_exactly_the_models_tables(app: FastAPI, alice: TestClient) -> None:
    with app.state.sessions() as db:
        differences = compare_metadata(MigrationContext.configure(db.connection()), Base.metadata)
    assert [d for d in differences if "puzzle" in repr(d)] == []


def test_a_first_solve_is_a_win_rated_exactly_by_the_module(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice)
    row = rows()[0]
    answer = solve(alice, row)
    want_player, want_puzzle = rate_game(NEW, Rating(float(row["rating"])), Result.A_WINS, 0, 0)
    assert answer["rating"] == round(want_player.rating) and want_player.rating > 1500
    with app.state.sessions() as db:
        stored = db.scalars(select(PuzzleRating)).one()
        assert abs(stored.rating - want_puzzle.rating) < 1e-9 and stored.attempts == 1 and stored.solved == 1
        player = db.scalars(select(PuzzlePlayer)).one()
        assert abs(player.rating - want_player.rating) < 1e-9 and abs(player.rd - want_player.rd) < 1e-9
    # The puzzle's API shows its new rating.
    assert alice.get(f"/api/puzzles/{GAME}/next").json()["rating"] in {
        round(want_puzzle.rating),
        *(round(r["rating"]) for r in rows()),
    }


def test_a_wrong_move_loses_and_a_later_solve_changes_nothing(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice)
    row = rows()[1]
    wrong = alice.post(f"/api/puzzles/{row['id']}/attempt", json={"moves": [wrong_first_move(row)]}).json()
    want_player, _ = rate_game(NEW, Rating(float(row["rating"])), Result.B_WINS, 0, 0)
    assert wrong["correct"] is False and wrong["rating"] == round(want_player.rating) < 1500
    again = solve(alice, row)
    assert again["rating"] == wrong["rating"]  # only the first attempt is rated
    assert counted(app, PuzzleAttempt) == 1


def test_asking_for_the_solution_counts_as_failing(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice)
    row = rows()[2]
    assert alice.get(f"/api/puzzles/{row['id']}/solution").json()["line"] == row["line"]
    assert solve(alice, row)["rating"] < 1500
    with app.state.sessions() as db:
        assert db.scalars(select(PuzzleAttempt)).one().solved is False


def test_guests_are_not_rated(app: FastAPI, alice: TestClient) -> None:
    row = rows()[3]
    assert solve(alice, row)["rating"] is None
    wrong = alice.post(f"/api/puzzles/{row['id']}/attempt", json={"moves": [wrong_first_move(row)]})
    assert wrong.json()["rating"] is None
    alice.get(f"/api/puzzles/{row['id']}/solution")
    assert counted(app, PuzzleAttempt) == counted(app, PuzzleRating) == counted(app, PuzzlePlayer) == 0


def test_the_next_puzzle_is_one_not_yet_attempted(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice)
    seen = set()
    for _ in range(8):
        puzzle = alice.get(f"/api/puzzles/{GAME}/next").json()
        assert puzzle["id"] not in seen
        seen.add(puzzle["id"])
        alice.get(f"/api/puzzles/{puzzle['id']}/solution")  # attempted (failed)


def test_the_page_says_the_change(alice: TestClient) -> None:
    sign_up(alice)
    row = rows()[4]
    game = games.get(GAME)
    state = game.parse_position(row["position"])
    taps = game.clicks(game.parse_move(state, wrong_first_move(row)))
    page = alice.post(
        f"/puzzles/{row['id']}/click",
        data={"taps": " ".join(taps), "moves": "[]"},
        headers={"HX-Request": "true"},
    )
    assert "Not the move. Try again. Your puzzle rating:" in page.text and "(\u2212" in page.text


def test_export_lists_them_and_closing_the_account_deletes_them(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice)
    row = rows()[5]
    solve(alice, row)
    data = alice.get("/api/account/export").json()
    assert set(data["puzzle_ratings"]) == {GAME}
    assert [a["puzzle"] for a in data["puzzle_attempts"]] == [row["id"]]
    assert alice.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 204
    assert counted(app, PuzzleAttempt) == counted(app, PuzzlePlayer) == 0
    assert counted(app, PuzzleRating) == 1  # the puzzle's own rating is nobody's data


def test_one_account_racing_on_one_puzzle_is_rated_once(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice)
    with app.state.sessions() as db:
        account_id = db.scalar(select(Account.id))
    row = rows()[6]
    with app.state.sessions.begin() as db:
        assert puzzle_ratings.record(db, account_id, row, solved=True) is not None
    with app.state.sessions.begin() as db:
        assert puzzle_ratings.record(db, account_id, row, solved=False) is None
    assert counted(app, PuzzleAttempt) == 1
