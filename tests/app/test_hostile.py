"""Hostile and broken requests: each gets a readable 4xx and changes nothing."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.rate_limits import TokenBuckets
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN, create, play, started

JSON = {"content-type": "application/json"}


def snapshot(client: TestClient, match_id: str) -> dict:
    return client.get(f"/api/matches/{match_id}").json()


@pytest.fixture
def match_id(alice: TestClient, bob: TestClient) -> str:
    match_id = started(alice, bob)
    play(alice, match_id, "d1")
    return match_id


def hostile_cases(match_id: str) -> list[tuple[str, str, str, dict, object, int, str]]:
    """(who, method, path, headers, body, status, words in the message)."""
    moves = f"/api/matches/{match_id}/moves"
    return [
        ("bob", "post", moves, JSON, b"{not json", 422, "JSON"),
        ("bob", "post", moves, JSON, b'{"move": "a1", "ply": 1', 422, "JSON"),
        ("bob", "post", moves, JSON, b"[1, 2]", 422, "valid dictionary"),
        ("bob", "post", moves, JSON, b'{"move": ["a1"], "ply": 1}', 422, "move"),
        ("bob", "post", moves, JSON, b'{"move": "a1", "ply": -4}', 422, "ply"),
        ("bob", "post", moves, JSON, b'{"move": "a1", "ply": 1e400}', 422, "ply"),
        ("bob", "post", moves, JSON, b'{"move": "\xff\xfe", "ply": 1}', 400, "parsing"),
        ("bob", "post", moves, JSON, b'{"move": "' + b"a" * 70000 + b'", "ply": 1}', 413, "over"),
        ("bob", "post", moves, JSON, b'{"move": "a1\\u0000", "ply": 1}', 422, "move"),
        ("bob", "post", moves, JSON, b'{"move": "a1", "ply": 0}', 409, "ply"),
        ("bob", "post", moves, JSON, b'{"move": "a1", "ply": 1, "ply": 0}', 409, "ply"),
        ("alice", "post", moves, JSON, b'{"move": "a1", "ply": 1}', 409, "not your turn"),
        ("carol", "post", moves, JSON, b'{"move": "a1", "ply": 1}', 403, "no seat"),
        ("forged", "post", moves, JSON, b'{"move": "a1", "ply": 1}', 403, "no seat"),
        ("bob", "post", "/api/matches/nope/moves", JSON, b'{"move": "a1", "ply": 1}', 404, "no match"),
        ("bob", "post", f"/api/matches/{match_id}/draw", JSON, b'{"action": "surrender"}', 422, "action"),
        ("bob", "post", f"/api/matches/{match_id}/join", JSON, b'{"name": "Eve"}', 200, ""),
        ("carol", "post", f"/api/matches/{match_id}/join", JSON, b'{"name": "Eve"}', 409, "both seats"),
        (
            "bob",
            "post",
            "/api/matches",
            JSON,
            b'{"game": "go", "name": "A", "side": "first"}',
            422,
            "unknown game",
        ),
        (
            "bob",
            "post",
            "/api/matches",
            JSON,
            b'{"game": "morris", "name": "", "side": "first"}',
            422,
            "name",
        ),
        (
            "bob",
            "post",
            "/api/matches",
            JSON,
            b'{"game": "morris", "name": "\\u200b", "side": "first"}',
            422,
            "",
        ),
        ("bob", "get", f"/api/matches/{match_id}/../../etc/passwd", {}, None, 404, ""),
        ("bob", "post", f"/matches/{match_id}/moves", {}, {"move": "x" * 5000, "ply": "1"}, 422, "move"),
        ("bob", "post", f"/matches/{match_id}/act", {}, {"action": "explode"}, 422, "not known"),
        (
            "bob",
            "post",
            moves,
            {**JSON, "origin": "https://evil.example"},
            b'{"move": "a1", "ply": 1}',
            403,
            "cross-site",
        ),
        # Not even a URL (urlsplit refuses an unclosed IPv6 bracket): not this site either.
        ("bob", "post", moves, {**JSON, "origin": "http://["}, b'{"move": "a1", "ply": 1}', 403, "cross"),
        ("bob", "post", moves, {**JSON, "referer": "http://[::1"}, b'{"move": "a1", "ply": 1}', 403, "cross"),
    ]


def test_hostile_requests_get_a_readable_4xx_and_change_nothing(
    alice: TestClient, bob: TestClient, carol: TestClient, match_id: str
) -> None:
    forged = TestClient(alice.app, cookies={"tablero_player": "f" * 43})
    clients = {"alice": alice, "bob": bob, "carol": carol, "forged": forged}
    before = snapshot(alice, match_id)
    for who, method, path, headers, body, status, words in hostile_cases(match_id):
        client = clients[who]
        if isinstance(body, dict):
            response = client.request(method, path, data=body, headers=headers, follow_redirects=False)
        else:
            response = client.request(method, path, content=body, headers=headers, follow_redirects=False)
        assert response.status_code == status, (path, body, response.status_code, response.text[:300])
        if status >= 400:
            detail = response.json()["detail"]
            assert isinstance(detail, str) and detail, (path, body)
            assert words.lower() in detail.lower(), (path, body, detail)
        assert snapshot(alice, match_id)["moves"] == before["moves"], (path, body)
    assert snapshot(alice, match_id) == before


def test_moves_on_a_finished_match_are_refused(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    for ply, move in enumerate(MORRIS_WIN):
        play((alice, bob)[ply % 2], match_id, move)
    finished = snapshot(alice, match_id)
    response = bob.post(f"/api/matches/{match_id}/moves", json={"move": "a1", "ply": finished["ply"]})
    assert response.status_code == 409 and "over" in response.json()["detail"]
    assert snapshot(alice, match_id) == finished


def test_a_replayed_request_is_refused(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob)
    body = {"move": "d1", "ply": 0}
    assert alice.post(f"/api/matches/{match_id}/moves", json=body).status_code == 200
    again = alice.post(f"/api/matches/{match_id}/moves", json=body)
    assert again.status_code == 409
    assert snapshot(alice, match_id)["moves"] == ["d1"]


@pytest.mark.parametrize(
    "name", ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "{{ 7*7 }}", "Ann & Bob's"]
)
def test_names_are_escaped_everywhere(alice: TestClient, bob: TestClient, name: str) -> None:
    response = alice.post(
        "/api/matches", json={"game": "morris", "name": name, "side": "first", "public": True}
    )
    match_id = response.json()["id"]
    bob.post(f"/api/matches/{match_id}/join", json={"name": name})
    for page in (
        alice.get(f"/matches/{match_id}", headers={"accept": "text/html"}).text,
        bob.get("/", headers={"accept": "text/html"}).text,
        alice.get(f"/matches/{match_id}/live", headers={"accept": "text/html"}).text,
    ):
        assert name not in page or name == html.escape(name, quote=True)
        assert "<script>alert" not in page and "<img src=x" not in page
    assert snapshot(alice, match_id)["players"][0]["name"] == name  # stored as given, shown escaped


def test_names_over_32_or_with_control_characters(alice: TestClient) -> None:
    for name in ("x" * 33, "bell\x07", "nul\x00", "rtl\u202eoverride", "\u200b"):
        response = alice.post("/api/matches", json={"game": "morris", "name": name, "side": "first"})
        assert response.status_code == 422, name
    # Whitespace of any kind (tabs, newlines) folds to single spaces rather than failing.
    tabbed = alice.post("/api/matches", json={"game": "morris", "name": "tab\there\n", "side": "first"})
    assert snapshot(alice, tabbed.json()["id"])["players"][0]["name"] == "tab here"
    # Inner runs of spaces collapse; the trimmed name may be exactly 32 characters.
    response = alice.post(
        "/api/matches", json={"game": "morris", "name": "  " + "y" * 32 + "  ", "side": "first"}
    )
    assert response.status_code == 201


def test_form_posts_from_another_site_are_refused(alice: TestClient) -> None:
    response = alice.post(
        "/matches",
        data={"game": "morris", "name": "A", "side": "first"},
        headers={"origin": "https://evil.example"},
        follow_redirects=False,
    )
    assert response.status_code == 403
    same_site = alice.post(
        "/matches",
        data={"game": "morris", "name": "A", "side": "first"},
        headers={"origin": "http://testserver"},
        follow_redirects=False,
    )
    assert same_site.status_code == 303


def test_security_headers_and_cookie_flags(alice: TestClient) -> None:
    page = alice.get("/", headers={"accept": "text/html"})
    csp = page.headers["content-security-policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in page.text  # no inline scripts for the policy to block
    created = alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
    cookie = created.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    token = alice.cookies["tablero_player"]
    assert len(token) >= 43  # 256 random bits, base64url


def test_secure_cookies_when_configured(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    app = create_app(Settings(database_url=url, secure_cookies=True, rate_limits=False))
    created = TestClient(app).post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
    assert "Secure" in created.headers["set-cookie"]


def test_rate_limits_answer_429_with_retry_after(tmp_path: Path) -> None:
    url = database_url(tmp_path)
    client = TestClient(create_app(Settings(database_url=url)))
    statuses = [
        client.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"}).status_code
        for _ in range(25)
    ]
    assert statuses[:20] == [201] * 20
    assert 429 in statuses[20:]
    refused = client.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
    assert "slow down" in refused.json()["detail"]
    # Reading is never limited.
    assert client.get("/api/ladder/leaderboard").status_code == 200


def test_token_buckets_refill() -> None:
    now = [0.0]
    buckets = TokenBuckets(per_second=2, burst=2, clock=lambda: now[0])
    assert buckets.take("a") == 0 and buckets.take("a") == 0
    assert buckets.take("a") == pytest.approx(0.5)
    assert buckets.take("b") == 0  # another client has its own bucket
    now[0] += 0.5
    assert buckets.take("a") == 0


def test_a_stranger_cannot_act_in_a_match(alice: TestClient, carol: TestClient) -> None:
    match_id = create(alice)
    before = snapshot(alice, match_id)
    for path, body in [
        ("resign", None),
        ("draw", {"action": "offer"}),
        ("takeback", {"action": "offer"}),
        ("rematch", None),
    ]:
        response = carol.post(f"/api/matches/{match_id}/{path}", json=body)
        assert response.status_code in (403, 409), path
    assert snapshot(alice, match_id) == before
