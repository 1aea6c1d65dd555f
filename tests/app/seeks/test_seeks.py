"""Seeks: pairing rules, cancel, expiry, limits, the creator's event stream, OpenAPI."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.config import Settings
from app.main import create_app
from app.manage import migrate
from app.seeks import routes as seek_routes
from app.seeks.models import Seek
from app.seeks.pairing import Wish, compatible
from app.seeks.service import CORRESPONDENCE_LIFETIME, PRESENCE_GRACE, SeekService
from tests.app.conftest import database_url
from tests.app.matches.test_time_controls import FIVE_THREE, FakeClock

CORRESPONDENCE = {"kind": "correspondence", "days": 3}


def seek(
    client: TestClient, game: str = "morris", control: dict | None = FIVE_THREE, **extra: object
) -> dict:
    response = client.post(
        "/api/seeks", json={"game": game, "time_control": control, "rated": False, **extra}
    )
    assert response.status_code == 201, response.text
    return response.json()


def open_ids(client: TestClient) -> list[str]:
    return [s["id"] for s in client.get("/api/seeks").json()["seeks"]]


def test_a_compatible_seek_pairs_at_once_and_seats_both(alice: TestClient, bob: TestClient) -> None:
    waiting = seek(alice, name="Ana")
    assert waiting == {"id": waiting["id"], "status": "waiting"}
    listed = alice.get("/api/seeks").json()
    assert [
        (s["id"], s["name"], s["game"], s["time_control"], s["rated"], s["rating"], s["mine"])
        for s in listed["seeks"]
    ] == [(waiting["id"], "Ana", "morris", FIVE_THREE, False, None, True)]
    assert bob.get("/api/seeks").json()["seeks"][0]["mine"] is False
    assert listed["online"]["morris"] == 1

    paired = seek(bob, name="Bo")
    assert paired["status"] == "paired" and paired["id"] != waiting["id"]
    match = bob.get(f"/api/matches/{paired['match_id']}").json()
    assert match["status"] == "playing"
    assert match["time_control"]["initial_seconds"] == 300
    assert sorted(s["name"] for s in match["players"]) == ["Ana", "Bo"]
    for client in (alice, bob):  # each browser holds a seat in it
        assert paired["match_id"] in [m["id"] for m in client.get("/api/me/matches").json()["matches"]]
    assert open_ids(alice) == []


@pytest.mark.parametrize(
    "other",
    [
        {"game": "bashni"},
        {"time_control": {"kind": "realtime", "initial_seconds": 300, "increment_seconds": 2}},
        {"time_control": CORRESPONDENCE},
        {"time_control": None},
    ],
)
def test_a_different_game_or_time_control_does_not_pair(
    alice: TestClient, bob: TestClient, other: dict
) -> None:
    first = seek(alice)
    body = {"game": "morris", "time_control": FIVE_THREE, "rated": False, **other}
    second = bob.post("/api/seeks", json=body).json()
    assert second["status"] == "waiting"
    assert sorted(open_ids(alice)) == sorted([first["id"], second["id"]])


def test_never_yourself_and_the_oldest_first(alice: TestClient, bob: TestClient) -> None:
    older = seek(alice)
    newer = seek(alice)
    assert newer["status"] == "waiting"  # not paired with its own creator's seek
    paired = seek(bob)
    assert paired["status"] == "paired"
    assert open_ids(alice) == [newer["id"]]
    assert alice.get(f"/api/seeks/{older['id']}/events").text.count("event: paired") == 1


def test_rated_needs_an_account_and_bad_seeks_are_refused(alice: TestClient) -> None:
    rated = alice.post("/api/seeks", json={"game": "morris", "time_control": FIVE_THREE, "rated": True})
    assert rated.status_code == 403
    assert rated.json() == {"detail": "rated seeks need an account"}
    refusals = [
        ({"game": "chess"}, "unknown game"),
        ({"rating_range": [1400, 1600]}, "rating range is only for rated seeks"),
        ({"rating_range": [1600, 1400]}, "minimum must not be above its maximum"),
        ({"time_control": {"kind": "realtime", "initial_seconds": 5}}, "initial_seconds"),
        ({"name": "\u202e"}, "name"),
    ]
    for change, words in refusals:
        body = {"game": "morris", "time_control": FIVE_THREE, "rated": False, **change}
        response = alice.post("/api/seeks", json=body)
        assert response.status_code == 422, (change, response.text)
        assert words in response.json()["detail"], (change, response.text)
    assert open_ids(alice) == []


def test_cancel(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    mine = seek(alice)
    assert bob.delete(f"/api/seeks/{mine['id']}").status_code == 404  # not bob's
    assert bob.delete("/api/seeks/nothing-here").status_code == 404
    assert alice.delete(f"/api/seeks/{mine['id']}").status_code == 204
    assert open_ids(alice) == []
    assert seek(bob)["status"] == "waiting"  # the cancelled seek pairs with nobody
    paired = seek(carol)
    assert paired["status"] == "paired"
    assert carol.delete(f"/api/seeks/{paired['id']}").status_code == 409
    events = alice.get(f"/api/seeks/{mine['id']}/events").text
    assert "event: gone" in events and '"cancelled"' in events


def test_per_player_and_per_address_limits(app: FastAPI, alice: TestClient) -> None:
    for _ in range(3):
        seek(alice)
    fourth = alice.post("/api/seeks", json={"game": "morris", "time_control": FIVE_THREE})
    assert fourth.status_code == 409 and "three open seeks" in fourth.json()["detail"]
    others = [TestClient(app) for _ in range(3)]
    for client, game in zip(others[:2], ("bashni", "bilsang"), strict=True):
        for _ in range(3):
            seek(client, game=game, name="x")  # one player's seeks never pair with each other
    seek(others[2], game="bobail")
    tenth_from_here = others[2].post("/api/seeks", json={"game": "bobail", "time_control": FIVE_THREE})
    assert tenth_from_here.status_code == 409
    assert "your network" in tenth_from_here.json()["detail"]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def timed_app(tmp_path: Path, clock: FakeClock) -> Iterator[FastAPI]:
    url = database_url(tmp_path)
    migrate(url)
    yield create_app(Settings(database_url=url, secret_key="t", rate_limits=False), clock=clock)


def test_a_real_time_seek_dies_without_its_page_and_a_correspondence_one_after_7_days(
    timed_app: FastAPI, clock: FakeClock
) -> None:
    with TestClient(timed_app) as alice:
        bob = TestClient(timed_app)
        live = seek(alice)
        by_post = seek(alice, control=CORRESPONDENCE)
        clock.advance(seconds=PRESENCE_GRACE.total_seconds() - 1)
        assert open_ids(bob) == [live["id"], by_post["id"]]
        clock.advance(seconds=2)
        assert open_ids(bob) == [by_post["id"]]
        assert seek(bob)["status"] == "waiting"  # the dead real-time seek pairs with nobody
        assert "expired" in alice.get(f"/api/seeks/{live['id']}/events").text
        clock.advance(seconds=CORRESPONDENCE_LIFETIME.total_seconds())
        assert by_post["id"] not in open_ids(bob)
        assert seek(bob, control=CORRESPONDENCE)["status"] == "waiting"


def test_an_open_stream_keeps_a_real_time_seek_alive(timed_app: FastAPI, clock: FakeClock) -> None:
    with TestClient(timed_app) as alice:
        live = seek(alice)
        service: SeekService = timed_app.state.seeks
        for _ in range(4):  # the stream's stamps, as it sends them every few seconds
            clock.advance(seconds=20)
            service.seen(live["id"])
        assert open_ids(alice) == [live["id"]]
        clock.advance(seconds=31)
        service.seen(live["id"])  # too late: a dead seek stays dead
        assert open_ids(alice) == []


def test_the_waiting_creator_is_told_the_moment_it_pairs(
    app_in_thread: tuple[str, FastAPI], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Told by the pairing's wake-up, not by the stream's own look every few seconds:
    that look is put off for a minute here, and the client waits up to 30 s (httpx's
    default 5 s between bytes raced the look and the pairing on a loaded CI machine)."""
    monkeypatch.setattr(seek_routes, "SEEN_EVERY_SECONDS", 60.0)
    base, _app = app_in_thread
    with httpx.Client(base_url=base, timeout=30) as alice, httpx.Client(base_url=base, timeout=30) as bob:
        waiting = alice.post("/api/seeks", json={"game": "bobail", "time_control": FIVE_THREE}).json()
        heard: list[str] = []
        opened = threading.Event()

        def listen() -> None:
            with alice.stream("GET", f"/api/seeks/{waiting['id']}/events") as response:
                assert response.status_code == 200
                for line in response.iter_lines():
                    opened.set()
                    heard.append(line)
                    if line.startswith("data:") and heard[-2:-1] == ["event: paired"]:
                        return

        listener = threading.Thread(target=listen)
        listener.start()
        assert opened.wait(30)
        paired = bob.post("/api/seeks", json={"game": "bobail", "time_control": FIVE_THREE}).json()
        listener.join(timeout=30)
        assert not listener.is_alive()
        data = json.loads(heard[-1].removeprefix("data: "))
        assert data == {"match_id": paired["match_id"], "url": f"/matches/{paired['match_id']}"}
        # Only its creator may listen: anyone else is told there is no such seek.
        assert bob.get(f"/api/seeks/{waiting['id']}/events").status_code == 404


def waiting_seek(ident: str, wish: Wish, created_at: datetime, moment: datetime) -> Seek:
    """A waiting seek's row, alive at ``moment``, made of what the pairing rule reads."""
    return Seek(
        id=ident,
        game=wish.game,
        time_control=wish.time_control,
        rated=wish.rated,
        needs_presence=False,
        rating=wish.rating,
        range_min=wish.range_min,
        range_max=wish.range_max,
        name=ident,
        token_hash=wish.owner,
        status="waiting",
        created_at=created_at,
        last_seen_at=moment,
        expires_at=moment + CORRESPONDENCE_LIFETIME,
    )


def test_the_rating_ranges_hold_both_ways_in_sql(app: FastAPI, alice: TestClient) -> None:
    service = SeekService(app.state.sessions, app.state.matches, lambda *_: None, app.state.matches.clock)
    moment = service.clock()

    made = iter(range(100))

    def row(ident: str, owner: str, rating: int | None, low: int | None, high: int | None) -> Seek:
        wish = Wish("morris", "", True, owner, rating, low, high)
        return waiting_seek(ident, wish, moment + timedelta(seconds=next(made)), moment)

    with app.state.sessions.begin() as db:
        db.add_all(
            [
                row("wants-strong", "o1", 1500, 1700, None),  # only for 1700 and up
                row("is-weak", "o2", 1200, None, None),  # anyone, but rated 1200
                row("guest-ranged", "o3", None, 1400, 1600),
            ]
        )

    def partner(rating: int | None, low: int | None, high: int | None) -> str | None:
        with app.state.sessions() as db:
            found = db.scalars(service._partner_query(row("new", "me", rating, low, high), moment)).first()
            return found.id if found else None

    assert partner(1500, 1300, 1600) is None  # wants-strong refuses me, is-weak is out of my range
    assert partner(1500, 1000, 1600) == "is-weak"
    assert partner(1750, None, None) == "wants-strong"  # the oldest of those that admit me
    assert partner(1450, 1450, 1450) is None  # guest-ranged admits 1450 but has no rating to admit
    for mine, theirs, expected in [
        ((1500, 1700, None), (1800, None, None), True),
        ((1500, 1700, None), (1600, None, None), False),
        ((1500, None, None), (1800, None, 1400), False),
        ((None, None, None), (1800, None, None), True),
    ]:
        a = Wish("morris", "", True, "a", *mine)
        b = Wish("morris", "", True, "b", *theirs)
        assert compatible(a, b) is expected and compatible(b, a) is expected
    assert not compatible(Wish("morris", "", False, "a"), Wish("morris", "", False, "a"))


def test_the_openapi_document_lists_the_seeks_and_their_refusals(alice: TestClient) -> None:
    paths = alice.get("/openapi.json").json()["paths"]
    assert set(paths["/api/seeks"]["post"]["responses"]) >= {
        "201",
        "400",
        "403",
        "409",
        "413",
        "422",
        "429",
        "503",
    }
    assert set(paths["/api/seeks"]["get"]["responses"]) >= {"200", "429", "503"}
    assert set(paths["/api/seeks/{seek_id}"]["delete"]["responses"]) >= {"204", "404", "409"}
    assert set(paths["/api/seeks/{seek_id}/events"]["get"]["responses"]) >= {"200", "404"}
    assert "/seeks/panel" not in paths


def test_the_home_page_offers_play_anyone_and_the_panel_lists_the_seeks(
    alice: TestClient, bob: TestClient
) -> None:
    home = alice.get("/").text
    assert (
        "Play anyone" in home
        and 'hx-get="/seeks/panel"' in home
        and re.search(r"/static/seeks\.\w+\.js", home)
    )
    assert "Nobody is seeking an opponent right now." in alice.get("/seeks/panel").text
    seek(alice, name="<b>Ana</b>", control=CORRESPONDENCE)
    mine = alice.get("/seeks/panel").text
    assert "&lt;b&gt;Ana&lt;/b&gt;" in mine and "<b>Ana" not in mine  # escaped
    assert "3 days per move" in mine and "(yours)" in mine and "data-seek-answer" not in mine
    theirs = bob.get("/seeks/panel", headers={"Accept-Language": "es"}).text
    assert 'data-seek-answer data-game="morris" data-time-control="cd:3"' in theirs
    assert "Jugar" in theirs and "En línea ahora:" in theirs


def test_a_seeks_event_streams_count_against_the_per_client_cap(tmp_path: Path) -> None:
    import time

    import uvicorn

    from tests.live import free_port

    url = database_url(tmp_path)
    migrate(url)
    application = create_app(
        Settings(database_url=url, secret_key="t", rate_limits=False, streams_per_client=1)
    )
    server = uvicorn.Server(
        uvicorn.Config(application, host="127.0.0.1", port=free_port(), log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.config.port}", timeout=10) as alice:
            waiting = alice.post("/api/seeks", json={"game": "morris", "time_control": CORRESPONDENCE}).json()
            with alice.stream("GET", f"/api/seeks/{waiting['id']}/events") as first:
                assert first.status_code == 200
                second = alice.get(f"/api/seeks/{waiting['id']}/events", timeout=3)
                assert second.status_code == 429  # the one stream this client may hold is open
    finally:
        server.should_exit = True
        thread.join(timeout=10)


RATINGS = st.sampled_from([None, 1200, 1500, 1800])
BOUNDS = st.sampled_from([None, 1300, 1500, 1600])
WISHES = st.builds(
    Wish,
    game=st.sampled_from(["morris", "bobail"]),
    time_control=st.sampled_from(["", "5+3"]),
    rated=st.booleans(),
    owner=st.sampled_from(["o1", "o2", "o3"]),
    rating=RATINGS,
    range_min=BOUNDS,
    range_max=BOUNDS,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(waiting=st.lists(WISHES, max_size=6), mine=WISHES)
def test_the_sql_pairs_with_the_oldest_seek_the_pure_rule_admits(
    app: FastAPI, waiting: list[Wish], mine: Wish
) -> None:
    """``_partner_query`` (what pairs) against ``pairing.compatible`` (the rule as written):
    over random seeks, the partner found is the oldest waiting one the rule admits."""
    service = SeekService(app.state.sessions, app.state.matches, lambda *_: None, app.state.matches.clock)
    moment = service.clock()

    def row(ident: str, wish: Wish, age: int) -> Seek:
        return waiting_seek(ident, wish, moment - timedelta(seconds=100 - age), moment)

    expected = next((f"s{i}" for i, wish in enumerate(waiting) if compatible(mine, wish)), None)
    with app.state.sessions() as db:
        db.add_all(row(f"s{i}", wish, i) for i, wish in enumerate(waiting))
        db.flush()
        found = db.scalars(service._partner_query(row("new", mine, 99), moment)).first()
        partner = found.id if found else None
        db.rollback()  # nothing stays for the next example
    assert partner == expected
