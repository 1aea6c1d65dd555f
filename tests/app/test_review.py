"""The computer's review: queued, computed once by the worker processes, marks and graph."""

from __future__ import annotations

import json
import re
import time
from datetime import UTC, datetime, timedelta

from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.models import Review
from app.review import (
    BLUNDER,
    INACCURACY,
    MIN_POSITION_SECONDS,
    POSITION_SECONDS,
    REVIEW_SECONDS,
    ReviewWorker,
    mark_plies,
    position_seconds,
)
from app.services.records import line_of_record
from tests.app.helpers import play, started

#: Bobail: White's third move (ply 3) lets Black win at once (White is left without a
#: move), where White had a forced win; found by trying every move of a seeded game.
PLANTED = "1. c3-c2 a1-a4 c2-e2 e5-e3 2. e2-c4 c1-d2 c4-e2 b5-d3 0-1"
BLUNDER_PLY = 3


def wait_done(client: TestClient, url: str, seconds: float = 240) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        state = client.get(url).json()
        if state["status"] == "done":
            return state
        assert state["status"] in ("queued", "running"), state.get("error")
        assert 0 <= state["done"] <= state["total"]
        time.sleep(0.5)
    raise AssertionError(f"the review did not finish: {state}")


def test_a_planted_blunder_is_marked_with_the_better_move(alice: TestClient) -> None:
    imported = alice.post("/api/records?game=bobail", content=PLANTED)
    assert imported.status_code == 201, imported.text
    record_id = imported.json()["id"]
    assert alice.get(f"/api/records/{record_id}/review").status_code == 404  # nobody asked yet
    asked = alice.post(f"/api/records/{record_id}/review")
    assert asked.status_code == 202 and asked.json()["total"] == 5
    review = wait_done(alice, f"/api/records/{record_id}/review")
    plies = {p["ply"]: p for p in review["plies"]}
    assert sorted(plies) == [0, 1, 2, 3, 4]
    blunder = plies[BLUNDER_PLY]
    assert blunder["mark"] == "blunder"
    played = imported.json()["moves"][BLUNDER_PLY - 1]
    assert blunder["better"] and blunder["better"] != played
    # White was winning (a forced win, found when the machine gives the search its time) ...
    assert plies[BLUNDER_PLY - 1]["chance"] - blunder["chance"] >= BLUNDER
    assert blunder["win_in"] == -1 and blunder["chance"] == 0.0  # ... and now Black wins at once
    assert plies[4]["win_in"] == 0 and plies[4]["best"] is None  # the game is over

    page = alice.get(f"/records/{record_id}?at={BLUNDER_PLY}")
    graph = re.search(r'<svg class="eval-graph".*?</svg>', page.text, re.S)
    assert graph is not None
    assert len(re.findall(r'<circle class="pt', graph.group(0))) == 4  # one point per ply
    assert 'data-ply="3"' in graph.group(0) and "pt blunder" in graph.group(0)
    assert "Better was " + blunder["better"] in page.text
    assert 'class="point hint' in page.text or " hint" in page.text


def test_asking_again_computes_nothing_more(alice: TestClient, bob: TestClient) -> None:
    record_id = alice.post("/api/records?game=bobail", content=PLANTED).json()["id"]
    alice.post(f"/api/records/{record_id}/review")
    first = wait_done(alice, f"/api/records/{record_id}/review")
    worker: ReviewWorker = alice.app.state.review_worker  # type: ignore[attr-defined]
    computed = worker.computed
    again = bob.post(f"/api/records/{record_id}/review")
    assert again.status_code == 202 and again.json() == first
    # The same game imported once more is the same line of play: the same review.
    twin = bob.post("/api/records?game=bobail", content=PLANTED).json()["id"]
    assert bob.post(f"/api/records/{twin}/review").json() == first
    time.sleep(1.5)
    assert worker.computed == computed
    with alice.app.state.sessions() as db:  # type: ignore[attr-defined]
        assert db.query(Review).count() == 1


def test_a_match_is_reviewed_only_once_it_is_over(alice: TestClient, bob: TestClient) -> None:
    match_id = started(alice, bob, "bobail")
    play(alice, match_id, "c3-c4 c1-e3")
    refused = alice.post(f"/api/matches/{match_id}/review")
    assert refused.status_code == 409
    play(bob, match_id, "c4-c1")
    assert alice.get(f"/api/matches/{match_id}").json()["status"] == "finished"
    assert alice.post(f"/api/matches/{match_id}/review").status_code == 202
    review = wait_done(alice, f"/api/matches/{match_id}/review")
    assert review["plies"][-1]["win_in"] == 0 and review["plies"][-1]["chance"] == 100.0


def result(chance: float, best: str | None, first_to_move: bool) -> dict:
    return {
        "score": 0.0,
        "win_in": None,
        "chance": chance,
        "best": best,
        "depth": 3,
        "first_to_move": first_to_move,
    }


def test_marks_follow_the_documented_thresholds() -> None:
    """White's winning chance falls by the amounts below after White's move 'm'."""
    for drop, mark in [
        (INACCURACY - 0.1, None),
        (INACCURACY, "inaccuracy"),
        (BLUNDER - 0.1, "inaccuracy"),
        (BLUNDER, "blunder"),
    ]:
        marked = mark_plies("morris", ("m",), [result(60.0, "best", True), result(60.0 - drop, "x", False)])
        assert marked[1]["mark"] == mark, drop
        assert marked[1]["better"] == ("best" if mark else None)
    # Black's move is judged from Black's side: White's chance rising is Black's loss.
    black = mark_plies("morris", ("m",), [result(40.0, "best", False), result(70.0, "x", True)])
    assert black[1]["mark"] == "blunder"
    # The move the search itself chose is never marked, whatever the noise between depths.
    same = mark_plies("morris", ("best",), [result(60.0, "best", True), result(20.0, "x", False)])
    assert same[1]["mark"] is None


def test_a_crashed_workers_review_is_taken_over_after_its_lease(app: FastAPI) -> None:
    """Claimed and leased; after the lease another worker gets only what is left to do.

    No lifespan here (a plain client), so the app's own worker never runs.
    """
    client = TestClient(app)
    record_id = client.post("/api/records?game=bobail", content=PLANTED).json()["id"]
    line = line_of_record(app.state.records.get(record_id))
    app.state.reviews.request(line)
    moment = [datetime(2030, 1, 1, tzinfo=UTC)]
    first = ReviewWorker(app.state.sessions, clock=lambda: moment[0], use_pool=False)
    second = ReviewWorker(app.state.sessions, clock=lambda: moment[0], use_pool=False)
    job = first.claim()
    assert job is not None and job.missing == (0, 1, 2, 3, 4)
    assert second.claim() is None  # leased to the first
    first._store(
        job, {0: {"score": 1.0, "win_in": None, "chance": 50.0, "best": "x", "depth": 1, "ms": 1}}, False
    )
    assert client.get(f"/api/records/{record_id}/review").json()["done"] == 1  # progress is visible
    moment[0] += first.lease + timedelta(seconds=1)  # the first worker died: its lease runs out
    retaken = second.claim()
    assert retaken is not None and retaken.key == job.key
    assert retaken.missing == (1, 2, 3, 4)
    with app.state.sessions() as db:
        assert json.loads(db.get(Review, job.key).results)[0]["best"] == "x"


def test_a_long_game_shares_the_review_budget_between_its_positions() -> None:
    # A short game gets the full search at every position; a long one stays within budget.
    assert position_seconds(10, 2) == POSITION_SECONDS
    long = position_seconds(101, 2)
    assert long < POSITION_SECONDS and 101 * long / 2 <= REVIEW_SECONDS + 1e-9
    assert position_seconds(100_000, 2) == MIN_POSITION_SECONDS
    assert position_seconds(101, 4) > long  # more processes, more time for each position
