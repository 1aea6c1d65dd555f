"""The JSON API's time controls: what POST /api/matches accepts, what every state shows."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.app.helpers import MORRIS_WIN, create, play


@pytest.mark.parametrize(
    "control",
    [
        {"kind": "realtime", "initial_seconds": 900, "increment_seconds": 10},
        {"kind": "realtime", "initial_seconds": 15, "increment_seconds": 0},
        {"kind": "correspondence", "days": 7},
        None,
    ],
)
def test_the_time_control_is_kept_as_given(alice: TestClient, bob: TestClient, control: dict | None) -> None:
    match_id = create(alice, time_control=control)
    state = alice.get(f"/api/matches/{match_id}").json()
    assert state["time_control"] == control
    assert state["clock_running"] is None and state["deadline"] is None  # nobody joined yet
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    state = bob.get(f"/api/matches/{match_id}").json()
    if control is None:
        assert state["clocks"] is None and state["deadline"] is None
    else:
        allowance = control.get("initial_seconds", 0) * 1000 or control.get("days", 0) * 86_400_000
        # Real time: a grace period first; correspondence: White's days run from the join.
        assert state["clocks"]["b"] == allowance
        assert allowance - 60_000 < state["clocks"]["w"] <= allowance
        assert (state["clocks"]["w"] == allowance) is (control["kind"] == "realtime")
        assert state["deadline"] is not None and state["clocks_at"] is not None
        assert state["grace"] is (control["kind"] == "realtime")


@pytest.mark.parametrize(
    ("control", "words"),
    [
        ({"kind": "realtime", "initial_seconds": 10}, "initial_seconds"),
        ({"kind": "realtime", "initial_seconds": 60, "increment_seconds": 500}, "increment_seconds"),
        ({"kind": "realtime"}, "initial_seconds"),
        ({"kind": "correspondence", "days": 4}, "days"),
        ({"kind": "sudden"}, "kind"),
        ("5+3", "time_control"),
    ],
)
def test_bad_time_controls_are_readable_422s(alice: TestClient, control: object, words: str) -> None:
    response = alice.post(
        "/api/matches", json={"game": "morris", "name": "Alice", "side": "first", "time_control": control}
    )
    assert response.status_code == 422
    assert words in response.json()["detail"]
    assert alice.get("/api/me/matches").json() == {"matches": []}


def test_abort_before_both_moved_over_the_api(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, time_control={"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0})
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    assert alice.get(f"/api/matches/{match_id}").json()["abortable"] is True
    aborted = bob.post(f"/api/matches/{match_id}/abort")
    assert aborted.status_code == 200
    assert aborted.json()["result"] == {"winner": None, "reason": "aborted"}
    assert bob.post(f"/api/matches/{match_id}/abort").status_code == 409


def test_claims_are_refused_while_the_opponent_is_here(alice: TestClient, bob: TestClient) -> None:
    match_id = create(alice, time_control={"kind": "realtime", "initial_seconds": 60, "increment_seconds": 0})
    bob.post(f"/api/matches/{match_id}/join", json={"name": "Bob"})
    play(alice, match_id, MORRIS_WIN[0])
    answer = alice.post(f"/api/matches/{match_id}/claim", json={"claim": "win"})
    assert answer.status_code == 409 and "away" in answer.json()["detail"]
    assert alice.post(f"/api/matches/{match_id}/claim", json={"claim": "everything"}).status_code == 422


def test_my_matches(alice: TestClient, bob: TestClient, carol: TestClient) -> None:
    waiting = create(alice)
    playing = create(alice, time_control={"kind": "correspondence", "days": 1})
    bob.post(f"/api/matches/{playing}/join", json={"name": "Bob"})
    rows = alice.get("/api/me/matches").json()["matches"]
    assert [(r["id"], r["your_move"], r["opponent"]) for r in rows] == [
        (playing, True, "Bob"),
        (waiting, False, None),
    ]
    assert rows[0]["deadline"] is not None and rows[0]["time_control"] == {
        "kind": "correspondence",
        "days": 1,
    }
    assert [r["id"] for r in bob.get("/api/me/matches").json()["matches"]] == [playing]
    assert carol.get("/api/me/matches").json() == {"matches": []}


def test_the_openapi_document_describes_time_controls(alice: TestClient) -> None:
    doc = alice.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    assert {"RealtimeControl", "CorrespondenceControl", "MyMatches"} <= set(schemas)
    assert "time_control" in schemas["MorrisCreate"]["properties"]
    assert {"clocks", "clock_running", "deadline", "time_control"} <= set(
        schemas["MatchPublic"]["properties"]
    )
    assert "/api/me/matches" in doc["paths"] and "/api/matches/{match_id}/claim" in doc["paths"]
