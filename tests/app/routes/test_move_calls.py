"""app.routes.move_calls answers the move's two calls exactly as the FastAPI routes do.

Two apps share one database: the site as built, and the same app with the ``MoveCalls``
layer taken out, so that FastAPI's routes answer everything. Every request here goes to
both and must get the same status, body and headers; a counter on the routes' shared
functions shows which of the two answered.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.routes import api
from app.routes.move_calls import MoveCalls
from tests.app.conftest import database_url
from tests.app.helpers import started

#: Headers that differ from one answer to the next whatever serves it.
VARYING = {"date"}


@pytest.fixture
def routed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often FastAPI's routes ran the move's calls (``MoveCalls`` has its own references)."""
    counts: Counter[str] = Counter()
    for name in ("legal_moves_of", "play_move_for"):
        original = getattr(api, name)

        async def counted(*args: Any, _original: Any = original, _name: str = name) -> Any:
            counts[_name] += 1
            return await _original(*args)

        monkeypatch.setattr(api, name, counted)
    return counts


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[tuple[dict[str, TestClient], dict[str, TestClient]]]:
    """(fast, plain): Alice's and Bob's browsers on each app, the same database behind both."""
    url = database_url(tmp_path)
    apps: list[FastAPI] = []
    for _ in range(2):
        apps.append(create_app(Settings(database_url=url, secret_key="test-secret", rate_limits=False)))
    fast, plain = apps
    assert any(m.cls is MoveCalls for m in fast.user_middleware)
    plain.user_middleware = [m for m in plain.user_middleware if m.cls is not MoveCalls]
    with TestClient(fast) as fast_alice, TestClient(plain) as plain_alice:
        yield (
            {"alice": fast_alice, "bob": TestClient(fast), "carol": TestClient(fast)},
            {"alice": plain_alice, "bob": TestClient(plain), "carol": TestClient(plain)},
        )


def answer(response: Any, match_ids: tuple[str, ...] = ()) -> tuple[int, str, list[tuple[str, str]]]:
    body = response.text
    for number, match_id in enumerate(match_ids):
        body = body.replace(match_id, f"<match {number}>")
    headers = sorted((k, v) for k, v in response.headers.items() if k not in VARYING)
    return response.status_code, body, headers


def test_accepted_moves_get_the_same_answers_without_fastapis_routes(
    pair: tuple[dict[str, TestClient], dict[str, TestClient]], routed: Counter[str]
) -> None:
    fast, plain = pair
    fast_id = started(fast["alice"], fast["bob"], "bobail")
    plain_id = started(plain["alice"], plain["bob"], "bobail")
    # Other fields are ignored, a charset is allowed: as the route's model says.
    ways = [
        lambda move, ply: {"json": {"move": move, "ply": ply}},
        lambda move, ply: {
            "content": json.dumps({"move": move, "ply": ply, "note": "hi"}),
            "headers": {"content-type": "application/json; charset=utf-8"},
        },
        lambda move, ply: {"json": {"move": move, "ply": ply}},
    ]
    for ply, (mover, way) in enumerate(zip(["alice", "bob", "alice"], ways, strict=True)):
        seen = []
        for browsers, match_id in ((fast, fast_id), (plain, plain_id)):
            legal = browsers[mover].get(f"/api/matches/{match_id}/legal")
            first = legal.json()["moves"][0]  # the same position in both matches
            played = browsers[mover].post(f"/api/matches/{match_id}/moves", **way(first, ply))
            assert played.status_code == 200, played.text
            seen.append((answer(legal, (match_id,)), answer(played, (match_id,))))
        assert seen[0] == seen[1]
    # The plain app's routes served its six calls; the fast app's never ran.
    assert routed == Counter({"legal_moves_of": 3, "play_move_for": 3})


REFUSED_MOVES: list[tuple[str, str, dict[str, Any], int]] = [
    # (who, path's match, request, status)
    ("alice", "unknown", {"json": {"move": "d6", "ply": 0}}, 404),
    ("carol", "match", {"json": {"move": "d6", "ply": 0}}, 403),
    ("alice", "match", {"json": {"move": "d6", "ply": 5}}, 409),
    ("bob", "match", {"json": {"move": "d6", "ply": 0}}, 409),
    ("alice", "match", {"json": {"move": "z9", "ply": 0}}, 422),
    ("alice", "match", {"json": {"move": "d6-d7", "ply": 0}}, 422),
    ("alice", "waiting", {"json": {"move": "d6", "ply": 0}}, 409),
]

#: Bodies the layer leaves to FastAPI, whose validation names what is wrong.
DECLINED_BODIES: list[dict[str, Any]] = [
    {"content": "{not json", "headers": {"content-type": "application/json"}},
    {"json": {"move": "d6"}},
    {"json": {"move": "d6", "ply": -1}},
    {"json": {"move": "", "ply": 0}},
    {"json": {"move": "d6", "ply": "zero"}},
    {"json": ["d6", 0]},
    {"content": json.dumps({"move": "d6", "ply": 0}), "headers": {"content-type": "text/plain"}},
    {"content": json.dumps({"move": "d6", "ply": 0})},
    {"content": b""},
]


def test_refusals_get_the_same_answers_and_change_nothing(
    pair: tuple[dict[str, TestClient], dict[str, TestClient]], routed: Counter[str]
) -> None:
    fast, plain = pair
    match_id = started(fast["alice"], fast["bob"])  # both apps see it: one database
    waiting = fast["alice"].post("/api/matches", json={"game": "morris", "name": "Alice"}).json()["id"]
    places = {"match": match_id, "unknown": "no-such-match", "waiting": waiting}
    for name, browser in fast.items():
        plain[name].cookies = browser.cookies  # the same browsers, on the other app
    before = fast["alice"].get(f"/api/matches/{match_id}").json()

    for where in places.values():
        legal = [answer(b["alice"].get(f"/api/matches/{where}/legal")) for b in (fast, plain)]
        assert legal[0] == legal[1]
    assert routed["legal_moves_of"] == len(places)

    for who, where, request, status in REFUSED_MOVES:
        seen = [answer(b[who].post(f"/api/matches/{places[where]}/moves", **request)) for b in (fast, plain)]
        assert seen[0][0] == status, seen[0]
        assert seen[0] == seen[1], (who, where, request)
    assert routed["play_move_for"] == len(REFUSED_MOVES)

    for request in DECLINED_BODIES:
        seen = [answer(b["alice"].post(f"/api/matches/{match_id}/moves", **request)) for b in (fast, plain)]
        assert seen[0][0] == 422, (request, seen[0])
        assert seen[0] == seen[1], request
    assert routed["play_move_for"] == len(REFUSED_MOVES)  # validation refused them first

    assert fast["alice"].get(f"/api/matches/{match_id}").json() == before


def test_methods_and_paths_the_layer_does_not_serve_reach_fastapi(
    pair: tuple[dict[str, TestClient], dict[str, TestClient]],
) -> None:
    fast, plain = pair
    match_id = started(fast["alice"], fast["bob"])
    plain["alice"].cookies = fast["alice"].cookies
    for method, path in [
        ("POST", f"/api/matches/{match_id}/legal"),
        ("GET", f"/api/matches/{match_id}/moves"),
        ("GET", f"/api/matches/{match_id}/legal/"),
        ("HEAD", f"/api/matches/{match_id}/legal"),
        ("GET", f"/api/matches/{match_id}/extra/legal"),
    ]:
        seen = [answer(b["alice"].request(method, path, follow_redirects=False)) for b in (fast, plain)]
        assert seen[0] == seen[1], (method, path)
        assert seen[0][0] in {404, 405, 307}, (method, path, seen[0])
