"""Housekeeping: expired seeks, abandoned computer games and ladder runs, retention."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from app.services.cleanup import Cleanup
from tests.app.conftest import database_url


def test_cleanup_expires_abandons_and_forgets(tmp_path: Path) -> None:
    moment = [datetime(2026, 1, 1, tzinfo=UTC)]
    url = database_url(tmp_path)
    app = create_app(
        Settings(database_url=url, rate_limits=False, computer_thinker="first-legal"), clock=lambda: moment[0]
    )
    client = TestClient(app)  # no lifespan: the computer does not reply, White is to move
    seek = client.post("/api/matches", json={"game": "morris", "name": "A", "public": True}).json()["id"]
    vs_computer = client.post(
        "/api/matches", json={"game": "morris", "name": "A", "opponent": {"level": 1}, "side": "first"}
    ).json()["id"]
    run = client.post("/api/ladder/runs", json={"name": "A"}).json()
    cleanup = Cleanup(app.state.matches)

    moment[0] += timedelta(hours=23)
    fresh = cleanup.run_once()
    assert (fresh.expired, fresh.abandoned) == (0, 0)

    moment[0] += timedelta(hours=2)
    swept = cleanup.run_once()
    # The player never moved against the computer: aborted, no result. The ladder's game
    # cannot be aborted: lost.
    assert (swept.expired, swept.abandoned, swept.aborted) == (1, 1, 1)
    expired = client.get(f"/api/matches/{seek}").json()
    assert expired["status"] == "finished" and expired["result"] == {"winner": None, "reason": "expired"}
    lobby = app.state.matches.lobby()
    assert seek not in {m.id for m in lobby["open"] + lobby["finished"]}
    assert client.get(f"/api/matches/{vs_computer}").json()["result"] == {
        "winner": None,
        "reason": "aborted",
    }
    # The ladder's own rule: a lost game ends the run.
    assert client.get(f"/api/ladder/runs/{run['id']}").json()["status"] == "finished"
    page = client.get(f"/matches/{seek}", headers={"accept": "text/html"}).text
    assert "nobody joined in time" in page
    # Running again (another process, say) changes nothing more.
    assert cleanup.run_once().expired == 0

    moment[0] += timedelta(days=8)
    assert cleanup.run_once().deleted == 1  # the expired seek; played games are kept a year
    assert client.get(f"/api/matches/{seek}").status_code == 404
    moment[0] += timedelta(days=366)
    assert cleanup.run_once().deleted == 1  # the computer game; the ladder's game stays
    assert client.get(f"/api/matches/{run['match_id']}").status_code == 200
