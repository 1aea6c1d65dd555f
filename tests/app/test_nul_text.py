"""A NUL character in a text that reaches the database is a clear 4xx, never a 500.

PostgreSQL refuses NUL in text where SQLite stores it, so these fail on PostgreSQL only
(the second CI run) when a field goes to the database unchecked; Schemathesis found each.
"""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy.exc import DataError
from starlette.requests import Request

from app.errors import refusal


def test_a_passkey_answer_for_a_ceremony_id_with_nul_is_refused(alice: TestClient) -> None:
    answer = alice.post("/api/session/passkey", json={"ceremony": "\x00", "credential": {}})
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.json()["detail"]


def test_removing_a_push_subscription_with_nul_in_its_endpoint_is_not_found(alice: TestClient) -> None:
    # A seat gives the browser its guest token, so the removal reaches the subscriptions.
    created = alice.post("/api/matches", json={"game": "morris", "name": "Alice", "side": "first"})
    assert created.status_code == 201 and alice.cookies, created.text
    answer = alice.request("DELETE", "/api/push/subscriptions", json={"endpoint": "https://a\x00b"})
    assert answer.status_code == 404, answer.text


def test_the_net_for_any_other_nul_answers_422() -> None:
    request = Request(
        {
            "type": "http",
            "method": "POST",
            "path": "/api/x",
            "headers": [(b"accept", b"application/json")],
            "query_string": b"",
        }
    )
    refused = DataError("SELECT 1", {}, Exception("PostgreSQL text fields cannot contain NUL (0x00) bytes"))
    answer = refusal(request, refused)
    assert answer is not None and answer.status_code == 422
    assert b"NUL" in answer.body
