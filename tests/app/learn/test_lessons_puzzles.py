"""The puzzles' JSON API and pages (issue 29) on the shipped set."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

import games
from games.puzzles import store


def first_puzzle(game_name: str) -> dict:
    rows = store.load(game_name)
    if not rows:
        pytest.skip(f"no {game_name} puzzles shipped")
    return rows[0]


def wrong_first_move(row: dict) -> str:
    game = games.get(row["game"])
    state = game.parse_position(row["position"])
    right = row["line"][0].split("x")[0] if row["game"] == "morris" else row["line"][0]
    return next(t for t in game.move_texts(state) if not t.startswith(right))


@pytest.mark.parametrize("game_name", games.names())
def test_summary_next_attempt_solution(alice: TestClient, game_name: str) -> None:
    row = first_puzzle(game_name)
    summary = alice.get(f"/api/puzzles/{game_name}").json()
    assert summary["count"] == len(store.load(game_name)) and isinstance(summary["themes"], dict)
    shown = alice.get(f"/api/puzzles/{game_name}/next").json()
    assert shown["game"] == game_name and set(shown) == {
        "id",
        "game",
        "position",
        "to_move",
        "rating",
        "themes",
    }
    path = f"/api/puzzles/{row['id']}/attempt"
    assert alice.post(path, json={"moves": [wrong_first_move(row)]}).json() == {
        "correct": False,
        "reply": None,
        "solved": False,
        "rating": None,  # a guest is not rated (tests/app/learn/test_puzzle_ratings.py)
    }
    line = row["line"]
    for index in range(0, len(line), 2):
        answer = alice.post(path, json={"moves": line[: index + 1]}).json()
        assert answer["correct"]
        last = index == len(line) - 1
        assert answer["solved"] is last
        assert answer["reply"] == (None if last else line[index + 1])
    assert alice.get(f"/api/puzzles/{row['id']}/solution").json() == {"line": line}


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("get", "/api/puzzles/chess", None, 404),
        ("get", "/api/puzzles/chess/next", None, 404),
        ("get", "/api/puzzles/mo0000000000/solution", None, 404),
        ("post", "/api/puzzles/mo0000000000/attempt", {"moves": ["d1"]}, 404),
    ],
)
def test_refusals(alice: TestClient, method: str, path: str, body: object, status: int) -> None:
    answer = alice.get(path) if method == "get" else alice.post(path, json=body)
    assert answer.status_code == status, answer.text


def test_a_bad_line_is_refused(alice: TestClient) -> None:
    row = first_puzzle("morris")
    path = f"/api/puzzles/{row['id']}/attempt"
    assert alice.post(path, json={"moves": []}).status_code == 422
    assert alice.post(path, json={"moves": ["zz"]}).status_code == 422
    assert alice.post(path, json={"moves": [wrong_first_move(row), "d1", "d2"]}).status_code == 422


def test_in_the_openapi_document(alice: TestClient) -> None:
    paths = alice.get("/openapi.json").json()["paths"]
    assert {"404", "422"} <= set(paths["/api/puzzles/{game}"]["get"]["responses"])
    assert {"404", "422"} <= set(paths["/api/puzzles/{game}/next"]["get"]["responses"])
    assert {"404", "422"} <= set(paths["/api/puzzles/{puzzle_id}/attempt"]["post"]["responses"])
    assert {"404"} <= set(paths["/api/puzzles/{puzzle_id}/solution"]["get"]["responses"])


def test_pages(alice: TestClient) -> None:
    row = first_puzzle("morris")
    assert "/puzzles/morris" in alice.get("/puzzles").text
    redirect = alice.get("/puzzles/morris", follow_redirects=False)
    assert redirect.status_code == 303 and redirect.headers["location"].startswith("/puzzles/morris?id=")
    page = alice.get(f"/puzzles/morris?id={row['id']}")
    assert page.status_code == 200 and f'data-submit="/puzzles/{row["id"]}/click"' in page.text
    game = games.get("morris")
    state = game.parse_position(row["position"])
    wrong = game.clicks(game.parse_move(state, wrong_first_move(row)))
    answer = alice.post(
        f"/puzzles/{row['id']}/click",
        data={"taps": " ".join(wrong), "moves": "[]"},
        headers={"HX-Request": "true"},
    )
    assert "Not the move. Try again." in answer.text
    right = game.clicks(game.parse_move(state, row["line"][0]))
    answer = alice.post(
        f"/puzzles/{row['id']}/click",
        data={"taps": " ".join(right), "moves": "[]"},
        headers={"HX-Request": "true"},
    )
    assert ("Solved!" in answer.text) if len(row["line"]) == 1 else ("Right." in answer.text)
    shown = alice.post(f"/puzzles/{row['id']}/solution", headers={"HX-Request": "true"})
    assert "The solution:" in shown.text
    assert alice.get("/puzzles/bashni?id=mo0000000000").status_code == 404


def test_the_home_page_offers_each_games_puzzle_of_the_day(alice: TestClient) -> None:
    """Issue 29: a daily puzzle per game on the home page, the one /puzzles names too."""
    import datetime

    from app.learn import puzzle_service

    today = datetime.datetime.now(datetime.UTC).date()
    home = alice.get("/").text
    index = alice.get("/puzzles").text
    offered = 0
    for game in games.all():
        day = puzzle_service.daily(game.name, today)
        if day is None:
            assert f"/puzzles/{game.name}?id=" not in home
            continue
        link = f'href="/puzzles/{game.name}?id={day["id"]}"'
        assert link in home and link in index
        assert alice.get(f"/puzzles/{game.name}?id={day['id']}").status_code == 200
        offered += 1
    assert offered >= 3  # Bashni, Morris and Bobail ship puzzles
