"""Ratings on the pages (issue 31): the profile's history chart and table, the rated
games' changes in its game list, the lobby's rated/casual and ratings, and the board
across games (page and API)."""

from __future__ import annotations

import re
from datetime import date

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.models import Account, PlayerRating
from app.ratings.glicko2 import NEW, Result, rate_game
from app.ratings.history import BOTTOM, HEIGHT, LEFT, RIGHT, TOP, WIDTH, Point, chart, daily
from tests.app.helpers import play
from tests.app.ratings.test_rated_matches import create, rated_game, sign_up


def resigned_game(alice: TestClient, bob: TestClient) -> str:
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    assert bob.post(f"/api/matches/{match_id}/resign").status_code == 200
    return match_id


# ------------------------------------------------------------------ the chart's geometry


def test_one_point_per_day_is_that_days_last_rating() -> None:
    changes = [(date(2026, 1, 1), 1600.0), (date(2026, 1, 1), 1620.0), (date(2026, 1, 3), 1590.0)]
    assert daily(changes) == [Point(date(2026, 1, 1), 1620.0), Point(date(2026, 1, 3), 1590.0)]


def test_the_chart_puts_days_along_x_and_higher_ratings_higher() -> None:
    points = [
        Point(date(2026, 1, 1), 1500.0),
        Point(date(2026, 1, 2), 1700.0),
        Point(date(2026, 1, 11), 1600.0),
    ]
    drawn = chart("morris", "realtime", points)
    (x1, y1), (x2, y2), (x3, y3) = drawn.dots
    assert (x1, x3) == (LEFT, WIDTH - RIGHT)  # first and last day on the frame's edges
    assert x2 == round(LEFT + (WIDTH - LEFT - RIGHT) / 10, 1)  # day 1 of 10
    assert y2 < y3 < y1  # SVG's y grows downwards
    assert drawn.low < 1500 and drawn.high > 1700
    assert all(TOP <= y <= HEIGHT - BOTTOM for _x, y in drawn.dots)
    assert drawn.line == " ".join(f"{x},{y}" for x, y in drawn.dots)


def test_a_single_day_is_drawn_in_the_middle() -> None:
    ((x, y),) = chart("morris", "realtime", [Point(date(2026, 1, 1), 1500.0)]).dots
    assert x == round(LEFT + (WIDTH - LEFT - RIGHT) / 2, 1)
    assert TOP < y < HEIGHT - BOTTOM


# ------------------------------------------------------------------ the profile


def test_the_profile_draws_the_history_and_lists_each_rated_games_change(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = resigned_game(alice, bob)
    after_a, _after_b = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    page = alice.get("/@/ana").text
    assert '<figure class="rating-chart">' in page
    assert re.search(r'<polyline points="[\d.]+,[\d.]+"/>', page)  # one day, one point
    assert f"<td>{round(after_a.rating)}</td>" in page.split('class="rating-history"')[1]
    gain = round(after_a.rating - NEW.rating)
    assert f'href="/matches/{match_id}"' in page
    assert f"(rated +{gain})" in page
    loss = bob.get("/@/ben").text
    assert "(rated \u2212" in loss


def test_the_profile_in_spanish(alice: TestClient, bob: TestClient) -> None:
    resigned_game(alice, bob)
    page = alice.get("/@/ana", headers={"accept-language": "es"}).text
    assert "Historial de puntuación" in page
    assert "El historial en una tabla" in page
    assert "(puntuada +" in page


def test_a_profile_without_rated_games_has_no_chart(alice: TestClient) -> None:
    sign_up(alice, "ana")
    page = alice.get("/@/ana").text
    assert "rating-chart" not in page
    assert "No rated games yet." in page


# ------------------------------------------------------------------ the lobby


def test_the_lobby_says_rated_or_casual_and_shows_each_accounts_rating(
    alice: TestClient, bob: TestClient
) -> None:
    sign_up(alice, "ana")
    sign_up(bob, "ben")
    rated = create(alice, public=True).json()["id"]
    casual = create(alice, public=True, rated=False).json()["id"]
    lobby = bob.get("/").text
    rated_row = next(li for li in lobby.split("<li>") if f"/matches/{rated}/join" in li)
    casual_row = next(li for li in lobby.split("<li>") if f"/matches/{casual}/join" in li)
    assert ">Rated<" in rated_row and "(1500?)" in rated_row
    assert ">Casual<" in casual_row and "1500" not in casual_row
    assert "Puntuada" in bob.get("/", headers={"accept-language": "es"}).text


def test_the_lobby_shows_ratings_after_rated_games(alice: TestClient, bob: TestClient) -> None:
    resigned_game(alice, bob)
    after_a, _ = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    created = create(alice, public=True)
    assert created.status_code == 201, created.text
    lobby = bob.get("/").text
    row = next(li for li in lobby.split("<li>") if f"/matches/{created.json()['id']}/join" in li)
    assert f"({round(after_a.rating)}?)" in row  # one game leaves it provisional


# ------------------------------------------------------------------ the board across games


def settle(app: FastAPI, username: str, ratings: dict[tuple[str, str], tuple[float, float]]) -> None:
    with app.state.sessions() as db:
        account = db.query(Account).filter(Account.username == username).one()
        for (game, category), (rating, rd) in ratings.items():
            db.add(
                PlayerRating(
                    account_id=account.id,
                    game=game,
                    category=category,
                    rating=rating,
                    rd=rd,
                    volatility=0.06,
                    games=20,
                )
            )
        db.commit()


def test_the_board_across_games_ranks_settled_players_by_their_mean(
    app: FastAPI, alice: TestClient, bob: TestClient, carol: TestClient
) -> None:
    for client, name in ((alice, "ana"), (bob, "ben"), (carol, "cid")):
        sign_up(client, name)
    # ana: two games settled, the better of morris's two speeds counts.
    settle(
        app,
        "ana",
        {
            ("morris", "realtime"): (1700, 60),
            ("morris", "correspondence"): (1800, 80),
            ("bashni", "realtime"): (1600, 90),
        },
    )
    # ben: a higher mean, two games.
    settle(app, "ben", {("morris", "realtime"): (1900, 60), ("bobail", "realtime"): (1750, 100)})
    # cid: only one game settled (the other provisional): not on this board.
    settle(app, "cid", {("morris", "realtime"): (2000, 60), ("bashni", "realtime"): (2000, 110)})
    entries = alice.get("/api/leaderboards").json()["entries"]
    assert [(e["rank"], e["username"]) for e in entries] == [(1, "ben"), (2, "ana")]
    assert entries[0]["average"] == (1900 + 1750) / 2
    assert entries[1]["ratings"] == {"bashni": 1600, "morris": 1800}
    page = alice.get("/leaderboard").text.split('<section class="ratings-board">')[1]  # not the header
    assert page.index("/@/ben") < page.index("/@/ana")
    assert "/@/cid" not in page
    assert 'href="/leaderboard/bilsang"' in page
    assert "Entre juegos" in alice.get("/leaderboard", headers={"accept-language": "es"}).text


def test_the_board_across_games_is_empty_at_first(alice: TestClient) -> None:
    assert alice.get("/api/leaderboards").json() == {"entries": []}
    assert "Nobody is settled in two games yet." in alice.get("/leaderboard").text


def test_the_match_page_offers_no_takeback_in_a_rated_game(alice: TestClient, bob: TestClient) -> None:
    rated = rated_game(alice, bob)
    play(alice, rated, "c5")
    assert "Ask to take back" not in alice.get(f"/matches/{rated}").text
    casual = create(alice, rated=False).json()["id"]
    bob.post(f"/api/matches/{casual}/join", json={"name": "Ben"})
    play(alice, casual, "c5")
    assert "Ask to take back" in alice.get(f"/matches/{casual}").text
