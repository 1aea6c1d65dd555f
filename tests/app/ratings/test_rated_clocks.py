"""Rated games that end by the clock (issue 31): a loss on time, and a claim against a
player who left (abandonment: a loss for the leaver), rated as the module computes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.ratings.glicko2 import NEW, Result, rate_game
from tests.app.conftest import database_url
from tests.app.helpers import play
from tests.app.matches.test_time_controls import T0, FakeClock
from tests.app.ratings.test_rated_matches import rated_game, ratings

#: Presence is written after the request, at most once a second (app/presence.py).
FLUSHED = 1.6


@pytest.fixture
def clocked(tmp_path: Path) -> Iterator[tuple[TestClient, TestClient, FakeClock]]:
    clock = FakeClock(T0)
    settings = Settings(database_url=database_url(tmp_path), secret_key="t", rate_limits=False)
    with TestClient(create_app(settings, clock=clock)) as alice:
        yield alice, TestClient(alice.app), clock


def test_a_loss_on_time_is_rated(clocked: tuple[TestClient, TestClient, FakeClock]) -> None:
    alice, bob, clock = clocked
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    clock.advance(seconds=301)  # White's five minutes run out
    state = bob.get(f"/api/matches/{match_id}").json()
    assert state["status"] == "finished" and state["result"] == {"winner": "b", "reason": "timeout"}
    _, after_b = rate_game(NEW, NEW, Result.B_WINS, 0.0, 0.0)
    assert state["rating_changes"]["b"]["after"] == after_b.rating
    assert ratings(alice.app)["ben"] == (after_b.rating, after_b.rd, after_b.volatility, 1)


def test_an_abandonment_claim_is_a_rated_loss_for_the_leaver(
    clocked: tuple[TestClient, TestClient, FakeClock],
) -> None:
    alice, bob, clock = clocked
    match_id = rated_game(alice, bob)
    play(alice, match_id, "c5")
    play(bob, match_id, "a7")
    play(alice, match_id, "d5")
    time.sleep(FLUSHED)  # Bob's last presence is written at T0
    clock.advance(seconds=61)  # Bob, to move, has been away a minute
    claimed = alice.post(f"/api/matches/{match_id}/claim", json={"claim": "win"})
    assert claimed.status_code == 200, claimed.text
    assert claimed.json()["result"] == {"winner": "w", "reason": "abandonment"}
    after_a, after_b = rate_game(NEW, NEW, Result.A_WINS, 0.0, 0.0)
    assert ratings(alice.app) == {
        "ana": (after_a.rating, after_a.rd, after_a.volatility, 1),
        "ben": (after_b.rating, after_b.rd, after_b.volatility, 1),
    }
