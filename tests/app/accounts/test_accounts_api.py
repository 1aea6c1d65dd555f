"""The accounts' JSON API (issue 30): usernames, passwords, sessions, claiming."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.accounts.identity import SESSION_COOKIE
from app.models import Account, AccountSession, Seat
from tests.app.helpers import MORRIS_WIN, create, play, started

PASSWORD = "correct horse battery"


def sign_up(client: TestClient, username: str = "ana", password: str = PASSWORD) -> dict:
    response = client.post("/api/account", json={"username": username, "password": password})
    assert response.status_code == 201, response.text
    return response.json()


def sign_in(client: TestClient, username: str = "ana", password: str = PASSWORD) -> int:
    return client.post("/api/session", json={"username": username, "password": password}).status_code


@pytest.mark.parametrize(
    ("username", "rule"),
    [
        ("a", "2 to 20 characters"),
        ("a" * 21, "2 to 20 characters"),
        ("ana maría", "only letters a-z, digits, _ and -"),
        ("añá", "only letters a-z, digits, _ and -"),
        ("9lives", "starts with a letter"),
        ("_ana", "starts with a letter"),
        ("ana__b", "no two _ or - in a row"),
        ("ana-_b", "no two _ or - in a row"),
        ("Admin", "reserved"),
        ("computer", "reserved"),
        ("Strongest", "reserved"),
        ("tablero", "reserved"),
    ],
)
def test_each_username_rule_is_refused_by_name(alice: TestClient, username: str, rule: str) -> None:
    response = alice.post("/api/account", json={"username": username, "password": PASSWORD})
    assert response.status_code == 422
    assert rule in response.json()["detail"]
    assert SESSION_COOKIE not in response.cookies


def test_a_taken_username_is_409_whatever_its_case(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice, "Ana_b")
    response = bob.post("/api/account", json={"username": "aNA_B", "password": PASSWORD})
    assert response.status_code == 409
    assert "taken" in response.json()["detail"]


def test_a_short_password_is_refused(alice: TestClient) -> None:
    response = alice.post("/api/account", json={"username": "ana", "password": "short"})
    assert response.status_code == 422
    assert "at least 8" in response.json()["detail"]


def test_password_sign_up_then_sign_in(alice: TestClient, bob: TestClient) -> None:
    created = sign_up(alice, "Ana")
    assert created["username"] == "Ana"
    assert len(created["recovery_codes"]) == 10
    me = alice.get("/api/account").json()
    assert me["username"] == "Ana" and me["has_password"] is True and me["passkeys"] == []
    assert me["created_at"]
    assert bob.get("/api/account").status_code == 401
    assert sign_in(bob, "ana") == 200  # the name's case does not matter
    assert bob.get("/api/account").json()["username"] == "Ana"
    assert bob.delete("/api/session").status_code == 204
    assert bob.get("/api/account").status_code == 401


def test_the_session_cookie_is_httponly_and_lax(alice: TestClient) -> None:
    response = alice.post("/api/account", json={"username": "ana", "password": PASSWORD})
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(SESSION_COOKIE + "=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie


def test_unknown_user_and_wrong_password_get_the_same_answer(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice)
    wrong = bob.post("/api/session", json={"username": "ana", "password": "not the password"})
    unknown = bob.post("/api/session", json={"username": "nobody", "password": "not the password"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert wrong.headers.keys() == unknown.headers.keys()
    # A name no account can have (NUL, controls) is refused alike, never a 500: PostgreSQL
    # refuses NUL in text, and Schemathesis sent one.
    for odd in ("\x00", "ana\x00", "\u202eana"):
        answer = bob.post("/api/session", json={"username": odd, "password": "not the password"})
        assert (answer.status_code, answer.json()) == (401, unknown.json()), odd


def test_failed_sign_ins_are_limited_per_account(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice)
    for _ in range(5):
        assert sign_in(bob, "ana", "wrong password") == 401
    refused = bob.post("/api/session", json={"username": "ana", "password": PASSWORD})
    assert refused.status_code == 429  # even the right password, until the window ends
    assert 1 <= int(refused.headers["retry-after"]) <= 15 * 60
    # An unknown name is limited exactly the same way: the limit tells nothing.
    for _ in range(5):
        assert sign_in(bob, "nobody", "wrong password") == 401
    assert sign_in(bob, "nobody", "wrong password") == 429


def test_failed_sign_ins_are_limited_per_address(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice)
    for n in range(20):
        assert sign_in(bob, f"name{n}", "wrong password") == 401
    assert sign_in(bob, "ana", PASSWORD) == 429


def test_the_limit_is_shared_by_every_process(app: FastAPI, alice: TestClient, tmp_path) -> None:
    """A second app on the same database (another process's view) sees the same counts."""
    from app.config import Settings
    from app.main import create_app

    sign_up(alice)
    for _ in range(5):
        assert sign_in(alice, "ana", "wrong password") == 401
    other = create_app(Settings(database_url=app.state.settings.database_url, secret_key="test-secret"))
    with TestClient(other) as client:
        assert sign_in(client, "ana", PASSWORD) == 429


def test_sign_in_gives_a_new_session_id_and_ends_the_old_one(alice: TestClient, bob: TestClient) -> None:
    sign_up(alice)
    assert sign_in(bob) == 200
    first = bob.cookies[SESSION_COOKIE]
    assert sign_in(bob) == 200
    second = bob.cookies[SESSION_COOKIE]
    assert second != first
    planted = TestClient(bob.app).get("/api/account", headers={"cookie": f"{SESSION_COOKIE}={first}"})
    assert planted.status_code == 401
    # A session id the browser brought (planted by someone) is never the one signed in.
    victim = TestClient(bob.app)
    answer = victim.post(
        "/api/session",
        json={"username": "ana", "password": PASSWORD},
        headers={"cookie": f"{SESSION_COOKIE}={'x' * 43}"},
    )
    assert answer.status_code == 200
    assert answer.cookies[SESSION_COOKIE] not in ("", "x" * 43)


def test_sign_out_everywhere_else(
    app: FastAPI, alice: TestClient, bob: TestClient, carol: TestClient
) -> None:
    sign_up(alice)
    assert sign_in(bob) == 200 and sign_in(carol) == 200
    devices = alice.get("/api/account/sessions").json()["devices"]
    assert len(devices) == 3 and sum(d["current"] for d in devices) == 1
    assert alice.delete("/api/account/sessions").json() == {"ended": 2}
    assert bob.get("/api/account").status_code == 401
    assert carol.get("/api/account").status_code == 401
    assert alice.get("/api/account").status_code == 200


def test_recovery_codes_work_once(alice: TestClient, bob: TestClient) -> None:
    codes = sign_up(alice)["recovery_codes"]
    body = {"username": "ana", "recovery_code": codes[3].upper()}
    assert bob.post("/api/session", json=body).status_code == 200
    assert bob.get("/api/account").json()["username"] == "ana"
    again = TestClient(bob.app).post("/api/session", json=body)
    assert again.status_code == 401
    # New codes replace the old ones.
    fresh = alice.post("/api/account/recovery-codes").json()["codes"]
    assert (
        TestClient(bob.app).post("/api/session", json={**body, "recovery_code": codes[4]}).status_code == 401
    )
    assert (
        TestClient(bob.app).post("/api/session", json={**body, "recovery_code": fresh[0]}).status_code == 200
    )


def test_a_game_in_play_is_claimed_at_sign_up_and_goes_on(
    app: FastAPI, alice: TestClient, bob: TestClient
) -> None:
    match_id = started(alice, bob)
    play(alice, match_id, MORRIS_WIN[0])
    sign_up(alice)  # in the middle of the game
    play(bob, match_id, MORRIS_WIN[1])
    play(alice, match_id, MORRIS_WIN[2])  # the same browser plays on, now as the account
    with app.state.sessions() as db:
        holder = db.scalar(select(Account.holder))
        seat = db.scalar(select(Seat).where(Seat.match_id == match_id, Seat.side == "w"))
        assert seat.token_hash == holder
    # Another device signed in to the account sees it and may play it.
    phone = TestClient(app)
    assert sign_in(phone) == 200
    mine = phone.get("/api/me/matches").json()["matches"]
    assert [m["id"] for m in mine] == [match_id]
    play(bob, match_id, MORRIS_WIN[3])
    play(phone, match_id, MORRIS_WIN[4])
    # Signing out leaves the game with the account: the guest browser no longer holds it.
    alice.delete("/api/session")
    assert alice.get("/api/me/matches").json()["matches"] == []
    assert phone.get("/api/me/matches").json()["matches"][0]["id"] == match_id


def test_a_seat_created_signed_in_belongs_to_the_account(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice)
    match_id = create(alice)
    with app.state.sessions() as db:
        holder = db.scalar(select(Account.holder))
        assert db.scalar(select(Seat.token_hash).where(Seat.match_id == match_id)) == holder


def test_ladder_runs_are_claimed_and_started_runs_belong_to_the_account(
    app: FastAPI, alice: TestClient
) -> None:
    before = alice.post("/api/ladder/runs", json={"name": "Ana"}).json()["id"]
    sign_up(alice)
    after = alice.post("/api/ladder/runs", json={"name": "Ana"})
    assert after.status_code == 201
    from app.models import LadderRun

    with app.state.sessions() as db:
        holder = db.scalar(select(Account.holder))
        owners = set(db.scalars(select(LadderRun.token_hash)).all())
        assert owners == {holder}
        assert db.get(LadderRun, before).token_hash == holder


def test_a_session_row_stores_only_a_hash(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice)
    cookie = alice.cookies[SESSION_COOKIE]
    with app.state.sessions() as db:
        row = db.scalar(select(AccountSession))
        assert row.id_hash != cookie and cookie not in row.id_hash
        password_hash = db.scalar(select(Account.password_hash))
        assert password_hash.startswith("$argon2id$") and PASSWORD not in password_hash


def test_failures_whose_window_ended_are_swept(app: FastAPI) -> None:
    """Every wrong name tried leaves a row; those of ended windows go with the next failure."""
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from app.accounts.limits import FailureLimit, record_failure
    from app.db import make_engine
    from app.models import SignInFailure

    window = FailureLimit().window
    t0 = datetime(2026, 12, 4, 12, tzinfo=UTC)
    engine = make_engine(app.state.settings.database_url)
    try:
        with Session(engine) as db, db.begin():
            record_failure(db, ["user:old", "addr:a"], t0, window)
        with Session(engine) as db, db.begin():
            record_failure(db, ["user:recent"], t0 + window - timedelta(seconds=1), window)
            record_failure(db, ["user:new", "addr:a"], t0 + window + timedelta(seconds=1), window)
        with Session(engine) as db:
            rows = dict(db.execute(select(SignInFailure.key, SignInFailure.count)).tuples().all())
    finally:
        engine.dispose()
    # The ended window's row is gone; the address's started again at 1 (as before).
    assert rows == {"user:recent": 1, "user:new": 1, "addr:a": 1}
