"""A running app with a test clock, and what the chat's tests share."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.config import Settings
from app.main import create_app
from tests.app.accounts.test_accounts_api import sign_up
from tests.app.conftest import database_url
from tests.app.helpers import MORRIS_WIN, started
from tests.app.matches.test_time_controls import T0, FakeClock


@dataclass
class Chat:
    app: FastAPI
    clock: FakeClock
    alice: TestClient
    bob: TestClient
    carol: TestClient

    def client(self) -> TestClient:
        return TestClient(self.app)


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[Chat]:
    clock = FakeClock(T0)
    settings = Settings(database_url=database_url(tmp_path), secret_key="t", rate_limits=False)
    app = create_app(settings, clock=clock)
    with TestClient(app) as alice:
        yield Chat(app, clock, alice, TestClient(app), TestClient(app))


def say(client: TestClient, match_id: str, room: str = "players", **line: Any) -> Any:
    return client.post(f"/api/matches/{match_id}/chat", json={"room": room, **line})


def lines(client: TestClient, match_id: str, room: str = "players") -> Any:
    response = client.get(f"/api/matches/{match_id}/chat", params={"room": room})
    assert response.status_code == 200, response.text
    return response.json()["lines"]


def finish_games(a: TestClient, b: TestClient, n: int) -> None:
    """``n`` games between ``a`` and ``b`` that both moved in, ended by ``a`` resigning."""
    for _ in range(n):
        match_id = started(a, b)
        for k, move in enumerate(MORRIS_WIN[:2]):
            response = (a if k % 2 == 0 else b).post(
                f"/api/matches/{match_id}/moves", json={"move": move, "ply": k}
            )
            assert response.status_code == 200, response.text
        assert a.post(f"/api/matches/{match_id}/resign").status_code == 200


def established(chat: Chat, *clients_and_names: tuple[TestClient, str]) -> None:
    """Sign the clients up, give each 3 finished games, and let a day and a minute pass:
    their accounts may then write free text."""
    for client, name in clients_and_names:
        sign_up(client, name)
    first, second = (
        clients_and_names[0][0],
        (clients_and_names[1][0] if len(clients_and_names) > 1 else chat.carol),
    )
    finish_games(first, second, 3)
    chat.clock.advance(days=1, minutes=1)
