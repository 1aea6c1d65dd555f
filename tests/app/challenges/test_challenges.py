"""Challenges (issue 32, item 2) through the API and the pages: an account challenges
another, who accepts (a match with both seated, exactly once) or declines with a reason;
the challenger can cancel; real-time challenges die when the challenger leaves, all after
24 hours; the header counts them; closing an account takes its challenges."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.challenges.models import Challenge
from app.config import Settings
from app.main import create_app
from app.models import Account, Base
from app.services.errors import ServiceError
from tests.app.conftest import database_url
from tests.app.matches.test_time_controls import FIVE_THREE, FakeClock
from tests.app.ratings.test_rated_matches import PASSWORD, sign_up

DAYS = {"kind": "correspondence", "days": 3}


def challenge(client: TestClient, to: str = "ben", **extra: Any) -> Any:
    body = {"to": to, "game": "morris", "time_control": FIVE_THREE, "side": "first", **extra}
    return client.post("/api/challenges", json=body)


@pytest.fixture
def pair(alice: TestClient, bob: TestClient) -> tuple[TestClient, TestClient]:
    sign_up(alice, "ana")
    sign_up(bob, "ben")
    return alice, bob


def test_a_challenge_accepted_seats_both_with_the_challengers_side(
    pair: tuple[TestClient, TestClient],
) -> None:
    ana, ben = pair
    made = challenge(ana, rated=True)
    assert made.status_code == 201, made.text
    shown = made.json()
    assert (shown["from"], shown["to"], shown["status"], shown["rated"]) == ("ana", "ben", "pending", True)
    incoming = ben.get("/api/challenges").json()["incoming"]
    assert [c["id"] for c in incoming] == [shown["id"]]
    assert ana.get("/api/challenges").json()["incoming"] == []

    accepted = ben.post(f"/api/challenges/{shown['id']}/accept")
    assert accepted.status_code == 200, accepted.text
    match = ben.get(f"/api/matches/{accepted.json()['match_id']}").json()
    assert match["status"] == "playing" and match["rated"] is True
    assert match["time_control"]["initial_seconds"] == 300
    sides = {p["side"]: p["name"] for p in match["players"]}
    assert sides == {"w": "ana", "b": "ben"}  # Ana asked to play first
    mine = ana.get("/api/challenges").json()["outgoing"][0]
    assert (mine["status"], mine["match_id"]) == ("accepted", accepted.json()["match_id"])
    again = ben.post(f"/api/challenges/{shown['id']}/accept")
    assert again.status_code == 409


def test_a_decline_carries_its_reason_and_ends_the_challenge(pair: tuple[TestClient, TestClient]) -> None:
    ana, ben = pair
    made = challenge(ana).json()
    assert ben.post(f"/api/challenges/{made['id']}/decline", json={"reason": "too_fast"}).status_code == 204
    mine = ana.get("/api/challenges").json()["outgoing"][0]
    assert (mine["status"], mine["decline_reason"]) == ("declined", "too_fast")
    assert ben.post(f"/api/challenges/{made['id']}/accept").status_code == 409
    assert ben.get("/api/challenges").json()["incoming"] == []
    page = ana.get("/challenges", headers={"accept-language": "es"}).text
    assert "demasiado rápido" in page


def test_only_the_challenger_cancels_and_only_the_challenged_answers(
    pair: tuple[TestClient, TestClient], carol: TestClient
) -> None:
    ana, ben = pair
    sign_up(carol, "cid")
    made = challenge(ana).json()
    assert carol.delete(f"/api/challenges/{made['id']}").status_code == 404
    assert carol.post(f"/api/challenges/{made['id']}/accept").status_code == 404
    assert ana.post(f"/api/challenges/{made['id']}/accept").status_code == 404  # not hers to answer
    assert ben.delete(f"/api/challenges/{made['id']}").status_code == 404  # not his to cancel
    assert ana.delete(f"/api/challenges/{made['id']}").status_code == 204
    assert ben.post(f"/api/challenges/{made['id']}/accept").status_code == 409
    assert ana.get("/api/challenges").json()["outgoing"][0]["status"] == "cancelled"


def test_bad_challenges_are_refused_and_change_nothing(
    app: FastAPI, pair: tuple[TestClient, TestClient], carol: TestClient
) -> None:
    ana, _ben = pair
    assert challenge(carol).status_code == 401  # a guest
    cases = [
        ({"to": "ana"}, 422, "yourself"),
        ({"to": "nobody"}, 404, "no player named nobody"),
        ({"game": "chess"}, 422, "unknown game"),
        ({"side": "left"}, 422, ""),
        ({"rated": True, "time_control": None}, 422, "time control"),
        ({"time_control": {"kind": "realtime", "initial_seconds": 1, "increment_seconds": 0}}, 422, ""),
    ]
    for change, status, words in cases:
        answer = challenge(ana, **change)
        assert answer.status_code == status, (change, answer.text)
        if words:
            assert words in answer.json()["detail"]
    with app.state.sessions() as db:
        assert db.scalar(select(func.count()).select_from(Challenge)) == 0
    made = challenge(ana).json()
    assert challenge(ana).status_code == 409  # one pending challenge per pair
    bad_reason = _ben_declines(pair, made["id"], {"reason": "rude"})
    assert bad_reason.status_code == 422
    assert ana.get("/api/challenges").json()["outgoing"][0]["status"] == "pending"


def _ben_declines(pair: tuple[TestClient, TestClient], challenge_id: str, body: dict[str, Any]) -> Any:
    return pair[1].post(f"/api/challenges/{challenge_id}/decline", json=body)


def test_five_pending_challenges_at_most(app: FastAPI, alice: TestClient) -> None:
    sign_up(alice, "ana")
    for n in range(6):
        other = TestClient(app)
        sign_up(other, f"rival{n}")
    answers = [challenge(alice, to=f"rival{n}").status_code for n in range(6)]
    assert answers == [201] * 5 + [409]


# ------------------------------------------------------------------ lifetimes


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def timed(tmp_path: Path, clock: FakeClock) -> Iterator[tuple[TestClient, TestClient]]:
    url = database_url(tmp_path)
    application = create_app(Settings(database_url=url, secret_key="t", rate_limits=False), clock=clock)
    with TestClient(application) as ana:
        ben = TestClient(application)
        sign_up(ana, "ana")
        sign_up(ben, "ben")
        yield ana, ben


def test_a_real_time_challenge_dies_when_the_challenger_leaves(
    timed: tuple[TestClient, TestClient], clock: FakeClock
) -> None:
    ana, ben = timed
    kept = challenge(ana).json()
    clock.advance(seconds=25)
    assert ana.get("/challenges/badge").status_code == 200  # a page of hers polls: still here
    clock.advance(seconds=25)
    assert [c["id"] for c in ben.get("/api/challenges").json()["incoming"]] == [kept["id"]]
    clock.advance(seconds=31)  # no page of hers asked since
    assert ben.get("/api/challenges").json()["incoming"] == []
    assert ben.post(f"/api/challenges/{kept['id']}/accept").status_code == 409
    assert ana.get("/api/challenges").json()["outgoing"][0]["status"] == "expired"


def test_a_correspondence_challenge_waits_a_day(
    timed: tuple[TestClient, TestClient], clock: FakeClock
) -> None:
    ana, ben = timed
    made = challenge(ana, time_control=DAYS).json()
    clock.advance(hours=23)
    assert len(ben.get("/api/challenges").json()["incoming"]) == 1
    clock.advance(hours=1, seconds=1)
    assert ben.get("/api/challenges").json()["incoming"] == []
    assert ben.post(f"/api/challenges/{made['id']}/accept").status_code == 409


# ------------------------------------------------------------------ exactly once


def test_two_accepts_at_once_make_one_match(app: FastAPI, pair: tuple[TestClient, TestClient]) -> None:
    ana, _ben = pair
    made = challenge(ana, time_control=DAYS).json()
    service = app.state.challenges
    with app.state.sessions() as db:
        account = db.scalar(select(Account).where(Account.username == "ben"))
        db.expunge(account)
    results: list[object] = []
    start = threading.Barrier(4)

    def accept() -> None:
        start.wait()
        try:
            results.append(service.accept(account, made["id"]))
        except ServiceError as exc:
            results.append(exc.status_code)

    threads = [threading.Thread(target=accept) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    made_matches = [r for r in results if isinstance(r, str)]
    assert len(made_matches) == 1 and sorted(r for r in results if r == 409) == [409] * 3, results


# ------------------------------------------------------------------ pages


def test_the_header_counts_challenges_and_the_challenger_is_sent_to_the_match(
    pair: tuple[TestClient, TestClient],
) -> None:
    ana, ben = pair
    assert 'hx-get="/challenges/badge"' in ben.get("/").text
    assert "nav-count" not in ben.get("/challenges/badge").text
    made = challenge(ana).json()
    badge = ben.get("/challenges/badge", headers={"accept-language": "es"}).text
    assert ">1</span>" in badge and "1 desafío para ti" in badge
    match_id = ben.post(f"/api/challenges/{made['id']}/accept").json()["match_id"]
    panel = ana.get("/challenges/panel", headers={"HX-Request": "true"})
    assert panel.headers["hx-redirect"] == f"/matches/{match_id}"
    assert "hx-redirect" not in ana.get("/challenges/panel").headers  # told once


def test_the_profile_form_challenges_and_the_page_answers(pair: tuple[TestClient, TestClient]) -> None:
    ana, ben = pair
    profile = ana.get("/@/ben").text
    assert "Challenge ben" in profile
    assert "Challenge ana" not in ana.get("/@/ana").text  # not oneself
    sent = ana.post(
        "/challenges", data={"to": "ben", "game": "bobail", "time_control": "cd:3", "side": "random"}
    )
    assert sent.status_code == 200 and "Bobail" in sent.text  # redirected to /challenges
    refused = ana.post("/challenges", data={"to": "ben", "game": "bobail", "time_control": "cd:3"})
    assert refused.status_code == 409 and "already challenged" in refused.text
    page = ben.get("/challenges").text
    challenge_id = ben.get("/api/challenges").json()["incoming"][0]["id"]
    assert f'action="/challenges/{challenge_id}/answer"' in page
    played = ben.post(f"/challenges/{challenge_id}/answer", data={"action": "accept"})
    assert played.status_code == 200 and "/matches/" in str(played.url)


def test_closing_an_account_takes_its_challenges(app: FastAPI, pair: tuple[TestClient, TestClient]) -> None:
    ana, ben = pair
    challenge(ana)
    challenge(ben, to="ana", time_control=DAYS)
    closed = ana.request("DELETE", "/api/account", json={"password": PASSWORD})
    assert closed.status_code in (200, 204), closed.text
    with app.state.sessions() as db:
        assert db.scalar(select(func.count()).select_from(Challenge)) == 0
    assert ben.get("/api/challenges").json() == {"incoming": [], "outgoing": []}


def test_migration_0017_creates_exactly_the_models_table(app: FastAPI, alice: TestClient) -> None:
    with app.state.sessions() as db:
        differences = compare_metadata(MigrationContext.configure(db.connection()), Base.metadata)
    assert [d for d in differences if "challenge" in repr(d) or "warned_ply" in repr(d)] == []


def test_migration_0017_goes_down_and_up_again(tmp_path: Path) -> None:
    from alembic import command
    from sqlalchemy import create_engine, inspect

    from app.manage import alembic_config, migrate

    url = f"sqlite:///{tmp_path / 'm.db'}"
    migrate(url)
    command.downgrade(alembic_config(url), "0014")
    engine = create_engine(url)
    assert "challenges" not in inspect(engine).get_table_names()
    engine.dispose()
    command.upgrade(alembic_config(url), "0017")
    engine = create_engine(url)
    keys = {k["referred_table"] for k in inspect(engine).get_foreign_keys("challenges")}
    assert keys == {"accounts"}
    engine.dispose()


def test_a_block_either_way_stops_challenges(pair: tuple[TestClient, TestClient]) -> None:
    """Issue 33's block list: 'it cannot challenge you' (and one does not challenge an
    account one blocked)."""
    ana, ben = pair
    assert ben.post("/api/users/ana/block").status_code == 204
    refused = challenge(ana)
    assert refused.status_code == 403
    assert refused.json()["detail"] == "this player does not take challenges from you"
    assert challenge(ben, to="ana").status_code == 403
    assert ben.get("/api/challenges").json()["incoming"] == []
    assert ben.delete("/api/users/ana/block").status_code == 204
    assert challenge(ana).status_code == 201


def test_the_export_lists_challenges_made_and_received(pair: tuple[TestClient, TestClient]) -> None:
    ana, ben = pair
    made = challenge(ana).json()
    assert ben.post(f"/api/challenges/{made['id']}/decline", json={"reason": "later"}).status_code == 204
    mine = ana.get("/api/account/export").json()["challenges"]
    assert [(c["made"], c["other"], c["status"]) for c in mine] == [(True, "ben", "declined")]
    theirs = ben.get("/api/account/export").json()["challenges"]
    assert [(c["made"], c["other"], c["decline_reason"]) for c in theirs] == [(False, "ana", "later")]


def test_the_header_poll_writes_nothing_when_nothing_is_pending(app: FastAPI, alice: TestClient) -> None:
    """Every signed-in page polls the badge every 10 s. Before, each poll took SQLite's one
    writer lock (``BEGIN IMMEDIATE``) twice: for the session lookup, which every request
    of a signed-in player makes, and for an update that matched nothing. Now a poll with
    nothing of the account's alive only reads."""
    from traceback import extract_stack

    from sqlalchemy import event

    sign_up(alice, "ana")
    alice.get("/challenges/badge")  # the session's own bookkeeping, once
    engine = app.state.sessions.kw["bind"]
    writes: list[str] = []

    def watch(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        words = statement.lstrip().split(None, 2)
        if words and (
            words[0].upper() in {"UPDATE", "INSERT", "DELETE"} or words[:2] == ["BEGIN", "IMMEDIATE"]
        ):
            # Only the requests' own: the app's workers (its heartbeat) write meanwhile.
            stack = extract_stack()
            if any("/app/challenges/" in f.filename or "/app/accounts/" in f.filename for f in stack):
                writes.append(statement)

    event.listen(engine, "before_cursor_execute", watch)
    try:
        for _ in range(3):
            assert alice.get("/challenges/badge").status_code == 200
            assert alice.get("/challenges/panel", headers={"HX-Request": "true"}).status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", watch)
    assert writes == []


def test_the_challenges_page_poll_stamps_presence_once(
    pair: tuple[TestClient, TestClient], app: FastAPI
) -> None:
    """With a live challenge of hers, one poll of the challenges page is one update of
    its presence (before: two, waiting_for's and the lists')."""
    from sqlalchemy import event

    ana, _ben = pair
    assert challenge(ana).status_code == 201
    engine = app.state.sessions.kw["bind"]
    updates: list[str] = []

    def watch(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE CHALLENGES"):
            updates.append(statement)

    event.listen(engine, "before_cursor_execute", watch)
    try:
        assert ana.get("/challenges/panel", headers={"HX-Request": "true"}).status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", watch)
    assert len(updates) == 1


def test_the_header_poll_keeps_a_live_challenge_alive(
    pair: tuple[TestClient, TestClient], app: FastAPI
) -> None:
    ana, _ben = pair
    made = challenge(ana).json()
    with app.state.sessions() as db:
        before = db.get(Challenge, made["id"]).last_seen_at
    ana.get("/challenges/badge")
    with app.state.sessions() as db:
        assert db.get(Challenge, made["id"]).last_seen_at >= before
        seen = db.get(Challenge, made["id"]).last_seen_at
    assert seen is not None


def test_on_the_challenges_page_the_header_poll_also_sends_the_challenger_to_the_match(
    pair: tuple[TestClient, TestClient],
) -> None:
    """The acceptance is told once, to the first poll: when that was the header's on the
    challenges page, the page stayed put with a link (CI's browser test waited 30 s for
    the redirect). Now the header's poll redirects there too; elsewhere it shows a link."""
    ana, ben = pair
    first = challenge(ana).json()
    match_id = ben.post(f"/api/challenges/{first['id']}/accept").json()["match_id"]
    on_page = {"HX-Request": "true", "HX-Current-URL": "http://testserver/challenges"}
    badge = ana.get("/challenges/badge", headers=on_page)
    assert badge.status_code == 204 and badge.headers["hx-redirect"] == f"/matches/{match_id}"

    second = challenge(ana, game="bobail").json()
    other_match = ben.post(f"/api/challenges/{second['id']}/accept").json()["match_id"]
    elsewhere = {"HX-Request": "true", "HX-Current-URL": "http://testserver/rules/bobail"}
    badge = ana.get("/challenges/badge", headers=elsewhere)
    assert badge.status_code == 200 and f'href="/matches/{other_match}"' in badge.text


def test_a_match_page_header_does_not_poll_its_stream_sends_the_badge(
    pair: tuple[TestClient, TestClient],
) -> None:
    """On a match page the header's badge comes through the page's event stream
    (app/routes/stream_notes.py): neither the page nor the header it fetches again after a
    sign-in elsewhere (/whoami) polls; every other page's header does."""
    ana, _ben = pair
    match_id = ana.post("/api/matches", json={"game": "morris", "name": "Ana", "side": "first"}).json()["id"]
    page = ana.get(f"/matches/{match_id}").text
    assert 'class="challenge-badge"' in page and 'hx-get="/challenges/badge"' not in page
    on_match = {"HX-Request": "true", "HX-Current-URL": f"http://testserver/matches/{match_id}"}
    assert 'hx-get="/challenges/badge"' not in ana.get("/whoami?in_game=1", headers=on_match).text
    on_review = {"HX-Request": "true", "HX-Current-URL": f"http://testserver/matches/{match_id}/analysis"}
    assert 'hx-get="/challenges/badge"' in ana.get("/whoami?in_game=1", headers=on_review).text
    assert 'hx-get="/challenges/badge"' in ana.get("/games").text
