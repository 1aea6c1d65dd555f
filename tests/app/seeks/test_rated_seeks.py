"""Rated seeks (issues 31 and 32): an account seeks a rated game with an optional range
of opponent ratings; it pairs with another account's rated seek when each rating lies
in the other's range, and the match they are sent to is rated."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.models import Account, PlayerRating
from tests.app.matches.test_time_controls import FIVE_THREE
from tests.app.ratings.test_rated_matches import sign_up


def rated_seek(client: TestClient, control: dict[str, Any] | None = FIVE_THREE, **extra: Any) -> Any:
    return client.post("/api/seeks", json={"game": "morris", "time_control": control, "rated": True, **extra})


def set_rating(app: FastAPI, username: str, rating: float) -> None:
    with app.state.sessions.begin() as db:
        account = db.query(Account).filter(Account.username == username).one()
        db.add(
            PlayerRating(
                account_id=account.id,
                game="morris",
                category="realtime",
                rating=rating,
                rd=80.0,
                volatility=0.06,
                games=12,
            )
        )


def test_two_accounts_pair_into_a_rated_match(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice, "ana")
    sign_up(bob, "ben")
    waiting = rated_seek(alice)
    assert waiting.status_code == 201, waiting.text
    listed = bob.get("/api/seeks").json()["seeks"]
    assert [(s["rated"], s["rating"]) for s in listed] == [(True, 1500)]
    paired = rated_seek(bob).json()
    assert paired["status"] == "paired"
    state = bob.get(f"/api/matches/{paired['match_id']}").json()
    assert state["rated"] is True
    assert state["status"] == "playing"


def test_a_rated_seek_does_not_pair_with_a_casual_one(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice, "ana")
    sign_up(bob, "ben")
    assert rated_seek(alice).json()["status"] == "waiting"
    casual = bob.post("/api/seeks", json={"game": "morris", "time_control": FIVE_THREE, "rated": False})
    assert casual.json()["status"] == "waiting"


def test_ranges_are_checked_both_ways(
    app: FastAPI, alice: TestClient, bob: TestClient, carol: TestClient
) -> None:
    sign_up(alice, "ana")
    sign_up(bob, "ben")
    sign_up(carol, "cid")
    set_rating(app, "ana", 1800)
    set_rating(app, "ben", 1420)
    set_rating(app, "cid", 1650)
    # Ana wants 1600-2000: Ben (1420) is outside it, Cid is inside.
    assert rated_seek(alice, rating_range=[1600, 2000]).json()["status"] == "waiting"
    assert rated_seek(bob).json()["status"] == "waiting"
    # Cid wants 1300-1500: Ana (1800) is outside Cid's range, Ben inside; Cid is inside Ana's,
    # but the pairing needs both ways, so Cid pairs with Ben (who has no range), not Ana.
    paired = rated_seek(carol, rating_range=[1300, 1500]).json()
    assert paired["status"] == "paired"
    names = sorted(p["name"] for p in carol.get(f"/api/matches/{paired['match_id']}").json()["players"])
    assert "Ana" not in names and len(names) == 2
    assert [s["rating"] for s in alice.get("/api/seeks").json()["seeks"]] == [1800]


def test_a_guest_cannot_seek_or_answer_a_rated_game(
    alice: TestClient, bob: TestClient, carol: TestClient
) -> None:
    refused = rated_seek(bob)
    assert refused.status_code == 403
    assert refused.json() == {"detail": "rated seeks need an account"}
    sign_up(alice, "ana")
    rated_seek(alice)
    panel = bob.get("/seeks/panel").text
    assert "sign in to play it" in panel
    assert 'data-rated="true"' not in panel
    sign_up(carol, "cid")  # another account is offered the rated seek's Play button
    assert 'data-rated="true"' in carol.get("/seeks/panel").text


def test_an_untimed_rated_seek_is_refused_with_the_reason(alice: TestClient) -> None:
    sign_up(alice, "ana")
    untimed = rated_seek(alice, control=None)
    assert untimed.status_code == 422
    assert "time control" in untimed.json()["detail"]
    unknown = rated_seek(alice, game="chess")
    assert unknown.status_code == 422
    assert "unknown game" in unknown.json()["detail"]
    assert alice.get("/api/seeks").json()["seeks"] == []


def test_the_home_page_offers_the_rated_box_to_accounts_only(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice, "ana")
    assert "data-seek-rated" in alice.get("/").text
    assert "data-seek-rated" not in bob.get("/").text
    assert (
        "Las partidas puntuadas necesitan una cuenta." in bob.get("/", headers={"accept-language": "es"}).text
    )
