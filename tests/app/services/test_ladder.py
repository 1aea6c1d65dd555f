"""The Bashni ladder: scoring, handicaps, the server's think-time clock, runs and the board."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

import games
from app.config import Settings
from app.main import create_app
from app.matches.service import MatchService
from app.models import Match
from app.services.ladder import LadderService, score
from tests.app.conftest import database_url
from tests.app.helpers import BASHNI_WIN


class FakeClock:
    def __init__(self) -> None:
        self.moment = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, seconds: float) -> None:
        self.moment += timedelta(seconds=seconds)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def quiet_app(tmp_path: Path, clock: FakeClock) -> FastAPI:
    """The app without its lifespan: no computer worker, so tests play the computer's moves."""
    url = database_url(tmp_path)
    return create_app(Settings(database_url=url, secret_key="t", computer_thinker="first-legal"), clock=clock)


@pytest.fixture
def player(quiet_app: FastAPI) -> Iterator[TestClient]:
    yield TestClient(quiet_app)  # not entered: the lifespan (and the worker) stays off


def services(app: FastAPI) -> tuple[MatchService, LadderService]:
    return app.state.matches, app.state.ladder


def start(player: TestClient, name: str = "Ann") -> dict:
    response = player.post("/api/ladder/runs", json={"name": name})
    assert response.status_code == 201, response.text
    return response.json()


def force_result(app: FastAPI, match_id: str, winner: str | None) -> None:
    """End a game as if it had been played out (for runs longer than a test can play)."""
    matches, _ladder = services(app)
    with matches.sessions.begin() as db:
        match = matches._lock(db, match_id)
        matches._finish(db, match, winner, "no-moves")
        matches._touch(match)


# ------------------------------------------------------------------ scoring


def test_score_follows_rules_md() -> None:
    assert score(0, 0) == 0
    assert score(0, 123456) == 0
    assert score(1, 0) == 10000 + 9999
    # Average 12.34 s = 123.4 tenths, rounded down to 123.
    assert score(2, 24680) == 20000 + 9999 - 123
    assert score(1, 99) == 10000 + 9999  # 0.99 tenths rounds down to 0
    assert score(1, 100) == 10000 + 9998
    # The bonus never goes below zero, however slow.
    assert score(3, 3 * 2_000_000) == 30000


def test_average_counts_won_games_only(player: TestClient, quiet_app: FastAPI, clock: FakeClock) -> None:
    run = start(player)
    clock.advance(30)
    force_result(quiet_app, run["match_id"], "w")
    won = player.get(f"/api/ladder/runs/{run['id']}").json()
    assert won["wins"] == 1 and won["think_ms_won"] == 0  # no move made: no think time recorded
    # The second game is lost after a long think: it changes nothing in the average.
    second = won["match_id"]
    clock.advance(500)
    player.post(f"/api/matches/{second}/moves", json={"move": "c3-d4", "ply": 0})
    force_result(quiet_app, second, "b")
    lost = player.get(f"/api/ladder/runs/{run['id']}").json()
    assert lost["status"] == "finished" and lost["think_ms_won"] == 0 and lost["score"] == 10000 + 9999


# ---------------------------------------------------------------- the clock


def test_only_the_players_turns_count(player: TestClient, quiet_app: FastAPI, clock: FakeClock) -> None:
    matches, _ = services(quiet_app)
    run = start(player)
    match_id = run["match_id"]
    line = BASHNI_WIN
    expected_ms = 0
    for ply, text in enumerate(line):
        if ply % 2 == 0:
            clock.advance(2.5)  # the player thinks…
            expected_ms += 2500
            response = player.post(f"/api/matches/{match_id}/moves", json={"move": text, "ply": ply})
            assert response.status_code == 200, response.text
        else:
            clock.advance(40)  # …the computer's thinking is not the player's
            matches.computer_move(match_id, text, ply)
    state = player.get(f"/api/matches/{match_id}").json()
    assert state["result"] == {"winner": "w", "reason": "no-moves"}
    after = player.get(f"/api/ladder/runs/{run['id']}").json()
    assert after["wins"] == 1 and after["opponent"] == 2 and after["status"] == "playing"
    assert after["think_ms_won"] == expected_ms == 15 * 2500
    assert after["score"] == 10000 + 9999 - expected_ms // 100
    assert after["match_id"] != match_id


def test_time_away_from_the_page_counts(player: TestClient, quiet_app: FastAPI, clock: FakeClock) -> None:
    run = start(player)
    clock.advance(3600)  # the player closed the tab for an hour; the clock kept running
    player.post(f"/api/matches/{run['match_id']}/moves", json={"move": "c3-d4", "ply": 0})
    state = player.get(f"/api/matches/{run['match_id']}")
    matches, _ = services(quiet_app)
    moves = matches.get(run["match_id"]).moves
    assert state.json()["moves"] == ["c3-d4"]
    assert moves[0].think_ms == 3_600_000


def test_browser_reports_of_time_are_ignored(
    player: TestClient, quiet_app: FastAPI, clock: FakeClock
) -> None:
    run = start(player)
    clock.advance(7)
    body = {"move": "c3-d4", "ply": 0, "think_ms": 1, "elapsed": 0}
    assert player.post(f"/api/matches/{run['match_id']}/moves", json=body).status_code == 200
    matches, _ = services(quiet_app)
    assert matches.get(run["match_id"]).moves[0].think_ms == 7000


# -------------------------------------------------------------- the run


def test_a_loss_or_a_draw_ends_the_run(player: TestClient, quiet_app: FastAPI) -> None:
    for result in ("b", None):
        run = start(player)
        force_result(quiet_app, run["match_id"], result)
        after = player.get(f"/api/ladder/runs/{run['id']}").json()
        assert after["status"] == "finished" and after["wins"] == 0 and after["score"] == 0


def test_handicaps_from_opponent_8_and_the_run_ends_at_18_wins(
    player: TestClient, quiet_app: FastAPI
) -> None:
    bashni = games.get("bashni")
    order = "a1 c1 e1 g1 b2 d2 f2 h2 a3 c3 e3 g3".split()
    run = start(player)
    matches, _ = services(quiet_app)
    for opponent in range(1, 19):
        current = player.get(f"/api/ladder/runs/{run['id']}").json()
        assert current["opponent"] == opponent and current["status"] == "playing"
        match: Match = matches.get(current["match_id"])
        assert [s.ai_level for s in match.seats if s.side == "b"] == [opponent]
        start_position = bashni.parse_position(match.initial_position)
        missing = max(0, opponent - 7)
        white_squares = {sq for sq in order if start_position.stacks[_sq(sq)]}
        assert white_squares == set(order[missing:]), opponent
        assert match.initial_position == bashni.format_position(bashni.initial(handicap=missing))
        assert start_position.side == 0  # White, the player, moves first
        force_result(quiet_app, current["match_id"], "w")
    final = player.get(f"/api/ladder/runs/{run['id']}").json()
    assert final["status"] == "finished" and final["wins"] == 18 and final["opponent"] == 18
    assert final["score"] == 18 * 10000 + 9999


def _sq(name: str) -> int:
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def test_only_the_runs_browser_moves(player: TestClient, quiet_app: FastAPI) -> None:
    run = start(player)
    stranger = TestClient(quiet_app)
    response = stranger.post(f"/api/matches/{run['match_id']}/moves", json={"move": "c3-d4", "ply": 0})
    assert response.status_code == 403
    assert player.post(f"/api/matches/{run['match_id']}/draw", json={"action": "offer"}).status_code == 409


def test_leaderboard_orders_finished_runs_and_pages(player: TestClient, quiet_app: FastAPI) -> None:
    results = {"Ann": ["w", "w", "b"], "Bea": ["w", "b"], "Cid": ["b"], "Dan": ["w", "w", "w", None]}
    for name, outcomes in results.items():
        run = start(player, name)
        for outcome in outcomes:
            current = player.get(f"/api/ladder/runs/{run['id']}").json()
            force_result(quiet_app, current["match_id"], outcome)
    start(player, "Eve")  # still playing: not on the board
    board = player.get("/api/ladder/leaderboard").json()
    assert [e["name"] for e in board["entries"]] == ["Dan", "Ann", "Bea", "Cid"]
    assert [e["rank"] for e in board["entries"]] == [1, 2, 3, 4]
    assert board["entries"][0]["wins"] == 3 and board["entries"][0]["score"] == 39999
    assert board["entries"][3]["avg_think_ms"] is None
    assert set(board["entries"][0]) == {
        "rank",
        "name",
        "wins",
        "avg_think_ms",
        "score",
        "finished_at",
        "run_id",
        "account",  # added by accounts (issue 30): null for a guest's run
    }
    page = player.get("/ladder/leaderboard", headers={"accept": "text/html"}).text
    assert 'class="mine"' in page  # this browser's best run is highlighted
    assert player.get("/api/ladder/leaderboard?page=0").status_code == 422


def test_unknown_run_is_404(player: TestClient) -> None:
    assert player.get("/api/ladder/runs/nope").status_code == 404
    assert player.post("/api/ladder/runs", json={"name": " "}).status_code == 422


def test_runs_in_progress_are_shown_beside_the_ranking(player: TestClient, quiet_app: FastAPI) -> None:
    """Issue 34: the board said "No finished runs yet" while a run with a score was going."""
    run = start(player, "Gil")
    force_result(quiet_app, run["match_id"], "w")  # one win: playing opponent 2 with a score
    going = player.get(f"/api/ladder/runs/{run['id']}").json()
    assert going["status"] == "playing" and going["score"] == 19999
    start(player, "Hal")  # just started: opponent 1, score 0

    board = player.get("/api/ladder/leaderboard").json()
    assert board["entries"] == [] and board["pages"] == 1  # the ranking is still of finished runs
    assert [(r["name"], r["opponent"], r["wins"], r["score"]) for r in board["in_progress"]] == [
        ("Gil", 2, 1, 19999),
        ("Hal", 1, 0, 0),
    ]
    assert board["in_progress"][0]["run_id"] == run["id"] and board["in_progress"][0]["account"] is None

    for lang, going_words, reached, empty in (
        ("en", "Runs in progress", "opponent 2 of 18", "No finished runs yet"),
        ("es", "Escaladas en curso", "rival 2 de 18", "Todavía no hay escaladas terminadas"),
    ):
        player.cookies.set("lang", lang)
        page = player.get("/ladder/leaderboard").text
        assert going_words in page and reached in page and "19999" in page
        assert empty not in page
    player.cookies.delete("lang")

    # Once it ends it is ranked, and no longer in progress.
    force_result(quiet_app, going["match_id"], "b")
    board = player.get("/api/ladder/leaderboard").json()
    assert [e["name"] for e in board["entries"]] == ["Gil"]
    assert [r["name"] for r in board["in_progress"]] == ["Hal"]


def test_a_finished_ladder_game_says_its_result_before_the_way_on(
    player: TestClient, quiet_app: FastAPI
) -> None:
    """Issue 34: "Next: opponent 2 →" stood above the game's own result line."""
    run = start(player, "Ivo")
    first = run["match_id"]
    force_result(quiet_app, first, "w")
    for lang, won, way_on in (
        ("en", "Ivo wins", "Next: opponent 2"),
        ("es", "Gana Ivo", "Siguiente: rival 2"),
    ):
        player.cookies.set("lang", lang)
        for path in (f"/matches/{first}", f"/matches/{first}/live"):
            page = player.get(path).text
            assert won in page and way_on in page, (lang, path)
            assert page.index('class="banner result"') < page.index(way_on), (lang, path)
    # The run's end, told after the result of the game that ended it.
    second = player.get(f"/api/ladder/runs/{run['id']}").json()["match_id"]
    force_result(quiet_app, second, "b")
    for lang, over in (("en", "The run is over"), ("es", "La escalada terminó")):
        player.cookies.set("lang", lang)
        ended = player.get(f"/matches/{second}").text
        assert ended.index('class="banner result"') < ended.index(over), lang
    player.cookies.delete("lang")
