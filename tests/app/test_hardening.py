"""Issue 17: each defect an outside attack and chaos test found, pinned by a test."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.config import Settings
from app.main import create_app
from tests.app.conftest import database_url
from tests.app.helpers import create, started

HTML = {"accept": "text/html"}
CJK, EMOJI = "李小龍", "🎲 Ana 😀"


def make_app(tmp_path: Path, clock: Any = None, **settings: Any) -> FastAPI:
    url = database_url(tmp_path)
    base: dict[str, Any] = {"database_url": url, "secret_key": "test-secret", "rate_limits": False}
    base.update(settings)
    return create_app(Settings(**base), clock=clock)


# ------------------------------------------------ 1. names outside Latin-1


@pytest.mark.parametrize("name", [CJK, EMOJI])
def test_forms_take_any_unicode_name_and_hand_over_the_seat(
    alice: TestClient, bob: TestClient, name: str
) -> None:
    created = alice.post(
        "/matches", data={"game": "morris", "name": name, "side": "first"}, follow_redirects=False
    )
    assert created.status_code == 303, created.text
    match_id = created.headers["location"].rsplit("/", 1)[1]
    # The seat cookie arrived: the creator holds the seat, and the name is remembered.
    assert "continue-url" in alice.get(f"/matches/{match_id}", headers=HTML).text
    assert f'value="{name}"' in alice.get("/", headers=HTML).text

    joined = bob.post(f"/matches/{match_id}/join", data={"name": name}, follow_redirects=False)
    assert joined.status_code == 303, joined.text
    assert alice.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0}).status_code == 200
    # Bob holds the seat he joined: he can move.
    assert bob.post(f"/api/matches/{match_id}/moves", json={"move": "a1", "ply": 1}).status_code == 200
    assert [p["name"] for p in alice.get(f"/api/matches/{match_id}").json()["players"]] == [name, name]


def test_ladder_run_by_form_with_an_emoji_name(alice: TestClient) -> None:
    started_run = alice.post("/ladder/runs", data={"name": EMOJI}, follow_redirects=False)
    assert started_run.status_code == 303, started_run.text
    run_id = started_run.headers["location"].rsplit("/", 1)[1]
    run = alice.get(f"/api/ladder/runs/{run_id}").json()
    assert run["name"] == EMOJI
    # The run's game is this browser's: White's seat is ours.
    page = alice.get(f"/matches/{run['match_id']}", headers=HTML).text
    assert "(you)" in page


def test_a_cookie_that_cannot_be_set_commits_nothing(
    alice: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import app.routes.pages as pages

    def broken(response: Any, name: str) -> None:
        raise RuntimeError("cookie failed")

    monkeypatch.setattr(pages, "remember_name", broken)
    before = len(alice.app.state.matches.lobby()["open"])
    client = TestClient(alice.app, raise_server_exceptions=False)
    answer = client.post(
        "/matches", data={"game": "morris", "name": "Ann", "side": "first", "public": "true"}
    )
    assert answer.status_code == 500
    assert len(alice.app.state.matches.lobby()["open"]) == before


# ------------------------------------------------ 6. the continue link


def continue_path(client: TestClient, match_id: str) -> str:
    page = client.get(f"/matches/{match_id}", headers=HTML).text
    link = re.search(r'id="continue-url" readonly value="([^"]+)"', page).group(1)
    return "/" + link.split("/", 3)[3] if link.startswith("http") else link


def test_continue_link_asks_first_and_moves_the_seat_once(
    alice: TestClient, bob: TestClient, carol: TestClient
) -> None:
    match_id = started(alice, bob)
    path = continue_path(alice, match_id)
    # Opening the link (a preview, a mail scanner) moves nothing: it asks.
    page = carol.get(path, headers=HTML)
    assert page.status_code == 200 and 'method="post"' in page.text
    assert page.headers["cache-control"] == "no-store"
    assert "(you)" in alice.get(f"/matches/{match_id}", headers=HTML).text
    # Confirming moves it.
    moved = carol.post(path, follow_redirects=False)
    assert moved.status_code == 303
    assert carol.post(f"/api/matches/{match_id}/moves", json={"move": "d1", "ply": 0}).status_code == 200
    # The old device is told, and can no longer play.
    old = alice.get(f"/matches/{match_id}", headers=HTML).text
    assert "moved to another device" in old
    # Used once: a replay from a third browser is refused and the seat stays.
    dave = TestClient(alice.app)
    assert dave.post(path, follow_redirects=False).status_code == 404
    assert "(you)" not in dave.get(f"/matches/{match_id}", headers=HTML).text
    assert carol.get(f"/api/matches/{match_id}").json()["ply"] == 1


def test_continue_link_expires_after_a_day(tmp_path: Path) -> None:
    moment = [datetime(2026, 1, 1, tzinfo=UTC)]
    app = make_app(tmp_path, clock=lambda: moment[0])
    with TestClient(app) as alice:
        match_id = create(alice)
        path = continue_path(alice, match_id)
        moment[0] += timedelta(hours=25)
        other = TestClient(app)
        assert other.get(path, headers=HTML).status_code == 404
        assert other.post(path, follow_redirects=False).status_code == 404


def test_continue_link_with_a_non_ascii_code_is_a_404(alice: TestClient, carol: TestClient) -> None:
    match_id = create(alice)
    path = continue_path(alice, match_id)
    bad = path[: path.rindex("/") + 1] + "é" * 32
    assert carol.get(bad, headers=HTML).status_code == 404
    assert carol.post(bad, follow_redirects=False).status_code == 404


def test_pages_that_show_the_continue_link_are_not_stored(alice: TestClient) -> None:
    match_id = create(alice)
    assert alice.get(f"/matches/{match_id}", headers=HTML).headers["cache-control"] == "no-store"
    assert alice.get(f"/matches/{match_id}/live", headers=HTML).headers["cache-control"] == "no-store"


# ------------------------------------------------ 7. errors and the database


def test_a_500_carries_the_security_headers_and_a_readable_message(
    alice: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("unexpected")

    monkeypatch.setattr(alice.app.state.matches, "lobby", boom)
    client = TestClient(alice.app, raise_server_exceptions=False)
    page = client.get("/", headers=HTML)
    assert page.status_code == 500
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    assert "went wrong" in page.text and "<html" in page.text
    api = client.get("/api/matches/x")  # a JSON route through the same failure
    monkeypatch.setattr(alice.app.state.matches, "get", boom)
    api = client.get("/api/matches/x")
    assert api.status_code == 500 and "went wrong" in api.json()["detail"]
    assert api.headers["x-content-type-options"] == "nosniff"


@pytest.fixture
def read_only_app(tmp_path: Path) -> Iterator[FastAPI]:
    app = make_app(tmp_path)
    engine = app.state.engine

    @event.listens_for(engine, "connect")
    def read_only(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        if engine.dialect.name == "sqlite":
            cursor.execute("PRAGMA query_only=ON")
        else:
            cursor.execute("SET default_transaction_read_only = on")
        cursor.close()
        # psycopg opened a transaction for the SET; the pool's reset-on-return would roll it
        # back, and the setting with it.
        dbapi_connection.commit()

    yield app


def test_a_database_that_cannot_be_written_is_a_503_with_retry_after(read_only_app: FastAPI) -> None:
    client = TestClient(read_only_app, raise_server_exceptions=False)
    api = client.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
    assert api.status_code == 503, api.text
    assert int(api.headers["retry-after"]) >= 1
    assert "database" in api.json()["detail"]
    assert "content-security-policy" in api.headers
    page = client.post("/matches", data={"game": "morris", "name": "A"}, headers=HTML)
    assert page.status_code == 503 and "try again" in page.text
    assert client.get("/healthz").status_code == 503


def test_healthz_writes(alice: TestClient) -> None:
    assert alice.get("/healthz").text == "ok"


# ------------------------------------------------ 8. the API and its document


def test_405_says_which_methods_are_allowed(alice: TestClient) -> None:
    response = alice.request("TRACE", "/api/matches")
    assert response.status_code == 405
    assert "POST" in response.headers["allow"]


def test_a_big_chunked_body_is_a_413(alice: TestClient) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"move": "'
        for _ in range(100):
            yield b"a" * 1024
        yield b'", "ply": 0}'

    response = alice.post(
        "/api/matches/x/moves", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413, response.text
    assert "over" in response.json()["detail"]


def test_the_schema_gives_the_name_rule_the_server_applies(alice: TestClient) -> None:
    schema = alice.get("/openapi.json").json()
    name = schema["components"]["schemas"]["MatchJoin"]["properties"]["name"]
    pattern = re.compile(name["pattern"])
    for ok in ("A", "  " + "y" * 32 + "  ", "tab\there", CJK, EMOJI):
        assert pattern.search(ok), ok
        assert alice.post("/api/matches", json={"game": "morris", "name": ok}).status_code == 201
    for bad in ("", "   ", "x" * 33, "bell\x07", "rtl\u202e", "\u200b"):
        assert not pattern.search(bad), bad
        assert alice.post("/api/matches", json={"game": "morris", "name": bad}).status_code == 422


def test_every_api_operation_documents_its_refusals(alice: TestClient) -> None:
    schema = alice.get("/openapi.json").json()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            codes = set(operation["responses"])
            assert {"429", "503"} <= codes, (method, path, codes)
            if method == "post":
                assert {"400", "413", "422"} <= codes, (method, path, codes)
    assert "404" in schema["paths"]["/matches/{match_id}/events"]["get"]["responses"]


# ------------------------------------------------ 10. smaller


def test_links_use_the_public_url_not_the_host_header(tmp_path: Path) -> None:
    app = make_app(tmp_path, public_url="https://tablero.example")
    client = TestClient(app)
    # Another host is not served at all (issue 27): 400, nothing made.
    evil = {"host": "evil.example"}
    refused = client.post("/api/matches", json={"game": "morris", "name": "A"}, headers=evil)
    assert refused.status_code == 400 and "host name" in refused.json()["detail"]
    assert client.get("/api/me/matches").json() == {"matches": []}
    # The site's own host (and the test suite's, ALLOWED_HOSTS): links from PUBLIC_URL.
    own = {"host": "tablero.example"}
    created = client.post("/api/matches", json={"game": "morris", "name": "A"}, headers=own)
    assert created.json()["invite_url"] == f"https://tablero.example/matches/{created.json()['id']}"
    page = client.get(f"/matches/{created.json()['id']}", headers=HTML).text
    assert "testserver" not in page
    assert 'value="https://tablero.example/matches/' in page


def test_refused_form_actions_without_htmx_show_the_message(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    response = bob.post(f"/matches/{match_id}/act", data={"action": "takeback-offer"}, headers=HTML)
    assert response.status_code == 409
    assert "your own last move" in response.text


def test_the_404_page_does_not_echo_a_huge_id(alice: TestClient) -> None:
    response = alice.get("/matches/" + "x" * 20000, headers=HTML)
    assert response.status_code == 404
    assert len(response.text) < 8000
    assert alice.get("/api/matches/" + "x" * 20000).status_code == 404
    assert len(alice.get("/api/matches/" + "x" * 20000).text) < 500


def test_more_security_headers(alice: TestClient, tmp_path: Path) -> None:
    page = alice.get("/", headers=HTML)
    assert "camera=()" in page.headers["permissions-policy"]
    assert page.headers["cross-origin-opener-policy"] == "same-origin"
    assert page.headers["cross-origin-resource-policy"] == "same-origin"
    assert "strict-transport-security" not in page.headers
    secure = TestClient(make_app(tmp_path / "s", secure_cookies=True), base_url="https://testserver")
    assert "max-age=" in secure.get("/", headers=HTML).headers["strict-transport-security"]


# ------------------------------------------------ 2. rate-limit keys


def test_rate_limit_keys_are_valid_and_short() -> None:
    from app.rate_limits import TokenBuckets, client_key

    assert client_key("203.0.113.7") == "203.0.113.7"
    assert client_key("::ffff:203.0.113.7") == "203.0.113.7"
    # One IPv6 client has a whole /64: it is one key.
    assert client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    forged = [client_key("x" * 7000 + str(i)) for i in range(50)]
    assert all(len(k) <= 64 for k in forged)
    buckets = TokenBuckets(per_second=1, burst=1, max_keys=100)
    for i in range(5000):
        buckets.take(f"k{i}" + "y" * 7000)
    assert len(buckets) == 100
    assert all(len(k) <= 64 for k in buckets.known_keys())


# ------------------------------------------------ 3. rematches are creates


def test_rematches_count_against_the_create_limit(tmp_path: Path) -> None:
    app = make_app(tmp_path, rate_limits=True, computer_thinker="first-legal")
    frozen = time.time()  # wall time, as the shared buckets count (app/rate_limits.py)
    for buckets in app.state.limiter.buckets.values():
        buckets.clock = lambda: frozen  # no refill while the test runs, however slow the machine
    with TestClient(app) as client:
        match_id = create(client, opponent={"level": 1})
        statuses = []
        for _ in range(30):
            client.post(f"/api/matches/{match_id}/resign")
            answer = client.post(f"/api/matches/{match_id}/rematch")
            statuses.append(answer.status_code)
            if answer.status_code != 200:
                break
            match_id = answer.json()["id"]
        # The create and 19 rematches use the burst of 20; the next rematch is refused.
        assert statuses == [200] * 19 + [429], statuses
        # The page's rematch button is counted as well.
        page = client.post(f"/matches/{match_id}/act", data={"action": "rematch"}, headers=HTML)
        assert page.status_code == 429


# ------------------------------------------------ 9 (part). seeks and computer games per client


def test_one_client_cannot_fill_the_lobby(alice: TestClient, bob: TestClient) -> None:
    made = [
        alice.post("/api/matches", json={"game": "morris", "name": "A", "public": True}).status_code
        for _ in range(5)
    ]
    assert made == [201, 201, 201, 409, 409]
    # Private invitations are not seeks; another client still has room.
    assert alice.post("/api/matches", json={"game": "morris", "name": "A"}).status_code == 201
    assert bob.post("/api/matches", json={"game": "morris", "name": "B", "public": True}).status_code == 201
    assert len(alice.app.state.matches.lobby()["open"]) == 4
    # One address, many browsers (cookies dropped): ten seeks, then no more.
    for _ in range(6):
        TestClient(alice.app).post("/api/matches", json={"game": "morris", "name": "C", "public": True})
    refused = TestClient(alice.app).post("/api/matches", json={"game": "morris", "name": "D", "public": True})
    assert refused.status_code == 409 and "network" in refused.json()["detail"]
    assert len(alice.app.state.matches.lobby()["open"]) == 10


def test_open_games_against_the_computer_are_capped_per_player(alice: TestClient) -> None:
    body = {"game": "morris", "name": "A", "opponent": {"level": 1}}
    made = [alice.post("/api/matches", json=body).status_code for _ in range(11)]
    assert made == [201] * 10 + [409]
    assert alice.post("/api/ladder/runs", json={"name": "A"}).status_code == 409
