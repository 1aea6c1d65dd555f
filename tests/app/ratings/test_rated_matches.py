"""Rated matches through the API (issue 31): who may create and join them, no takebacks,
and a finish that rates both accounts exactly as app/ratings/glicko2.py computes."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.models import Account, PlayerRating, RatingChange
from app.ratings.glicko2 import NEW, Result, rate_game
from tests.app.helpers import MORRIS_WIN, play

CLOCK = {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 0}
PASSWORD = "correct horse battery staple"


def sign_up(client: TestClient, username: str) -> None:
    response = client.post("/api/account", json={"username": username, "password": PASSWORD})
    assert response.status_code == 201, response.text


def create(client: TestClient, **extra: Any) -> Any:
    body = {"game": "morris", "name": "Ana", "side": "first", "rated": True, "time_control": CLOCK, **extra}
    return client.post("/api/matches", json=body)


def rated_game(alice: TestClient, bob: TestClient) -> str:
    sign_up(alice, "ana")
    sign_up(bob, "ben")
    response = create(alice)
    assert response.status_code == 201, response.text
    match_id = response.json()["id"]
    joined = bob.post(f"/api/matches/{match_id}/join", json={"name": "Ben"})
    assert joined.status_code == 200, joined.text
    return match_id


def ratings(app: FastAPI) -> dict[str, tuple[float, float, float, int]]:
    with app.state.sessions() as db:
        rows = db.execute(
            select(Account.username, PlayerRating).join(Account, Account.id == PlayerRating.account_id)
        )
        return {name: (r.rating, r.rd, r.volatility, r.games) for name, r in rows.all()}


def test_a_guest_cannot_create_a_rated_game(alice: TestClient) -> None:
    response = create(alice)
    assert response.status_code == 403
    assert "sign in" in response.json()["detail"]


def test_games_that_are_never_rated_are_refused_with_the_reason(alice: TestClient) -> None:
    sign_up(alice, "ana")
    untimed = create(alice, time_control=None)
    assert untimed.status_code == 422
    assert "time control" in untimed.json()["detail"]
    computer = create(alice, opponent={"level": 1})
    assert computer.status_code == 422
    assert "computer" in computer.json()["detail"]
    bilsang = create(alice, game="bilsang", options={})
    assert bilsang.status_code == 422
    assert "default rules" in bilsang.json()["detail"]


def test_a_guest_cannot_join_a_rated_game(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice, "ana")
    match_id = create(alice).json()["id"]
    response = bob.post(f"/api/matches/{match_id}/join", json={"name": "Guest"})
    assert response.status_code == 403
    assert "rated" in response.json()["detail"]
    assert bob.get(f"/api/matches/{match_id}").json()["status"] == "waiting"


def test_takebacks_are_refused_in_rated_games(alice: TestClient, bob: TestClient) -> None:
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    response = alice.post(f"/api/matches/{match_id}/takeback", json={"action": "offer"})
    assert response.status_code == 409
    assert "rated" in response.json()["detail"]


def test_a_rated_win_rates_both_accounts_as_the_module_does(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    assert bob.post(f"/api/matches/{match_id}/resign").status_code == 200
    after_a, after_b = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    assert ratings(app) == {
        "ana": (after_a.rating, after_a.rd, after_a.volatility, 1),
        "ben": (after_b.rating, after_b.rd, after_b.volatility, 1),
    }
    with app.state.sessions() as db:
        changes = {
            c.side: c.delta for c in db.scalars(select(RatingChange).where(RatingChange.match_id == match_id))
        }
    assert changes == {"w": after_a.rating - NEW.rating, "b": after_b.rating - NEW.rating}


def test_a_casual_game_between_accounts_changes_nothing(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    sign_up(alice, "ana")
    sign_up(bob, "ben")
    match_id = create(alice, rated=False).json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Ben"})
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    assert bob.post(f"/api/matches/{match_id}/resign").status_code == 200
    assert ratings(app) == {}


def test_an_aborted_rated_game_changes_nothing(app: FastAPI, alice: TestClient, bob: TestClient) -> None:
    match_id = rated_game(alice, bob)
    assert alice.post(f"/api/matches/{match_id}/abort").status_code == 200
    assert ratings(app) == {}


def test_the_state_says_rated_and_once_over_each_side_s_change(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    match_id = rated_game(alice, bob)
    playing = alice.get(f"/api/matches/{match_id}").json()
    assert playing["rated"] is True and playing["rating_changes"] is None
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    finished = bob.post(f"/api/matches/{match_id}/resign").json()
    after_a, after_b = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    expected = {
        "w": {"before": NEW.rating, "after": after_a.rating, "delta": after_a.rating - NEW.rating},
        "b": {"before": NEW.rating, "after": after_b.rating, "delta": after_b.rating - NEW.rating},
    }
    assert finished["rating_changes"] == expected
    assert alice.get(f"/api/matches/{match_id}").json()["rating_changes"] == expected


def test_a_rated_game_won_by_its_last_move_answers_with_the_changes(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = rated_game(alice, bob)
    players = [alice, bob]
    answer: dict[str, Any] = {}
    for index, move in enumerate(MORRIS_WIN):
        answer = play(players[index % 2], match_id, move)
    assert answer["status"] == "finished" and answer["result"]["winner"] == "w"
    after_a, _ = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    assert answer["rating_changes"]["w"]["after"] == after_a.rating


def test_a_casual_game_s_state_is_not_rated(alice: TestClient) -> None:
    sign_up(alice, "ana")
    match_id = create(alice, rated=False).json()["id"]
    state = alice.get(f"/api/matches/{match_id}").json()
    assert state["rated"] is False and state["rating_changes"] is None


def test_a_rated_draw_by_agreement_rates_both_as_the_module_does(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    assert alice.post(f"/api/matches/{match_id}/draw", json={"action": "offer"}).status_code == 200
    assert bob.post(f"/api/matches/{match_id}/draw", json={"action": "accept"}).status_code == 200
    after_a, after_b = rate_game(NEW, NEW, Result.DRAW, 0.0, 0.0)
    assert after_a.rating == NEW.rating  # equal new players: a draw moves only the RD
    assert ratings(app) == {
        "ana": (after_a.rating, after_a.rd, after_a.volatility, 1),
        "ben": (after_b.rating, after_b.rd, after_b.volatility, 1),
    }


def test_the_profile_answers_each_rating_unrounded(alice: TestClient, bob: TestClient) -> None:
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    bob.post(f"/api/matches/{match_id}/resign")
    after_a, _ = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    profile = bob.get("/api/users/ana").json()
    assert profile["ratings"] == {
        "morris": {
            "realtime": {
                "rating": after_a.rating,
                "rd": after_a.rd,
                "volatility": after_a.volatility,
                "games": 1,
                "provisional": True,
            }
        }
    }


def test_a_leaderboard_lists_settled_players_best_first(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice, "ana")
    with app.state.sessions.begin() as db:
        ids = dict(db.execute(select(Account.username, Account.id)).all())
        db.add(
            PlayerRating(
                account_id=ids["ana"],
                game="bobail",
                category="realtime",
                rating=1700.0,
                rd=60.0,
                volatility=0.06,
                games=12,
            )
        )
    for name, rd, played in (("ben", 60.0, 30), ("cy", 80.0, 30), ("di", 60.0, 9)):
        sign_up(TestClient(app), name)
        with app.state.sessions.begin() as db:
            account = db.scalar(select(Account.id).where(Account.username == name))
            db.add(
                PlayerRating(
                    account_id=account,
                    game="bobail",
                    category="realtime",
                    rating=1800.0,
                    rd=rd,
                    volatility=0.06,
                    games=played,
                )
            )
    board = alice.get("/api/leaderboards/bobail/realtime").json()
    assert [(e["rank"], e["username"], e["games"]) for e in board["entries"]] == [
        (1, "ben", 30),
        (2, "ana", 12),
    ]
    assert alice.get("/api/leaderboards/bobail/correspondence").json() == {"entries": []}
    assert alice.get("/api/leaderboards/chess/realtime").status_code == 404
    assert alice.get("/api/leaderboards/bobail/blitz").status_code == 404


def test_untimed_and_computer_games_between_accounts_change_nothing(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    """They cannot be asked for rated (above); played casually they rate nobody."""
    sign_up(alice, "ana")
    sign_up(bob, "ben")
    untimed = create(alice, rated=False, time_control=None).json()["id"]
    bob.post(f"/api/matches/{untimed}/join", json={"name": "Ben"})
    play(alice, untimed, "c5")
    play(bob, untimed, "a7")
    assert bob.post(f"/api/matches/{untimed}/resign").status_code == 200
    computer = create(alice, rated=False, opponent={"level": 1}).json()["id"]
    play(alice, computer, "c5")
    assert alice.post(f"/api/matches/{computer}/resign").status_code == 200
    assert ratings(app) == {}


def test_the_new_match_form_offers_and_takes_rated_when_signed_in(alice: TestClient, bob: TestClient) -> None:
    assert 'name="rated"' not in bob.get("/").text  # a guest is not offered it
    form = {"game": "morris", "name": "Ana", "side": "first", "time_control": "rt:300:0", "rated": "true"}
    refused = bob.post("/matches", data=form, follow_redirects=False)
    assert refused.status_code == 403
    sign_up(alice, "ana")
    assert 'name="rated"' in alice.get("/").text
    created = alice.post("/matches", data=form, follow_redirects=False)
    assert created.status_code == 303, created.text
    match_id = created.headers["location"].rsplit("/", 1)[1]
    assert alice.get(f"/api/matches/{match_id}").json()["rated"] is True


def test_a_rated_refusal_reads_in_spanish(alice: TestClient) -> None:
    form = {"game": "morris", "name": "Ana", "side": "first", "time_control": "rt:300:0", "rated": "true"}
    response = alice.post(
        "/matches",
        data=form,
        headers={"accept-language": "es", "accept": "text/html"},
        follow_redirects=False,
    )
    assert response.status_code == 403
    assert "inicia sesión para crear una partida puntuada" in response.text


def test_the_match_page_shows_rated_the_ratings_and_the_change_at_the_end(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = rated_game(alice, bob)
    page = alice.get(f"/matches/{match_id}").text
    assert "Rated game" in page
    assert page.count('<span class="rating">1500?</span>') == 2
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    bob.post(f"/api/matches/{match_id}/resign")
    after_a, after_b = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    page = alice.get(f"/matches/{match_id}").text
    gain, loss = round(after_a.rating - NEW.rating), round(NEW.rating - after_b.rating)
    assert f'<span class="rating-change">+{gain}</span>' in page
    assert f'<span class="rating-change">\u2212{loss}</span>' in page
    assert f'<span class="rating">{round(after_a.rating)}?</span>' in page
    spanish = alice.get(f"/matches/{match_id}", headers={"accept-language": "es"}).text
    assert "Partida puntuada" in spanish


def test_the_profile_page_lists_each_rating_with_its_mark_and_games(
    alice: TestClient, bob: TestClient
) -> None:
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    bob.post(f"/api/matches/{match_id}/resign")
    after_a, _ = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    page = bob.get("/@/ana").text
    assert f"<td>{round(after_a.rating)}?</td><td>1</td>" in page
    assert 'href="/leaderboard/morris"' in page
    assert "Puntuaciones" in bob.get("/@/ana", headers={"accept-language": "es"}).text


def test_the_leaderboard_page_has_a_tab_per_category(alice: TestClient) -> None:
    page = alice.get("/leaderboard/morris")
    assert page.status_code == 200
    assert 'href="/leaderboard/morris?category=correspondence"' in page.text
    assert 'aria-current="page">Real time' in page.text
    assert "Tiempo real" in alice.get("/leaderboard/morris", headers={"accept-language": "es"}).text
    assert alice.get("/leaderboard/chess", headers={"accept": "text/html"}).status_code == 404


def test_closing_an_account_takes_its_ratings_and_leaves_the_opponent_s_history(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    """Migration 0014's keys: the account's rows CASCADE, the opponent's row keeps no id."""
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    bob.post(f"/api/matches/{match_id}/resign")
    closed = alice.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert closed.status_code == 204, closed.text
    assert set(ratings(app)) == {"ben"}
    with app.state.sessions() as db:
        left = db.scalars(select(RatingChange)).all()
    assert [(c.side, c.opponent_id) for c in left] == [("b", None)]


def test_a_rated_game_s_rematch_is_rated(alice: TestClient, bob: TestClient) -> None:
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    bob.post(f"/api/matches/{match_id}/resign")
    rematch = alice.post(f"/api/matches/{match_id}/rematch").json()
    assert rematch["id"] != match_id and rematch["rated"] is True
