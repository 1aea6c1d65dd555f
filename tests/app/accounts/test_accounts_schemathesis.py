"""Schemathesis on the accounts' operations while signed in, so that more than 401s are
exercised (tests/app/routes/test_schemathesis.py walks every operation signed out)."""

from __future__ import annotations

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

from tests.app.routes.test_schemathesis import CHECKS, api_schema, operations  # noqa: F401

#: Closing the account, signing out, or signing (up or) in anew would end the session the
#: other calls use (a new sign-in ends the browser's old session); the signed-out walk
#: covers these.
ENDING = {
    ("DELETE", "/api/account"),
    ("DELETE", "/api/session"),
    ("DELETE", "/api/account/sessions"),
    ("POST", "/api/account"),
    ("POST", "/api/session"),
    ("POST", "/api/account/passkey"),
    ("POST", "/api/session/passkey"),
}


def test_account_calls_signed_in_stay_within_the_schema(api_schema: schemathesis.BaseSchema) -> None:  # noqa: F811
    client = TestClient(api_schema.app)
    answer = client.post("/api/account", json={"username": "ana", "password": "correct horse battery"})
    assert answer.status_code == 201
    cookie = f"tablero_session={client.cookies['tablero_session']}"
    statuses: dict[str, set[int]] = {}
    for operation in operations(api_schema):
        path = operation.path
        if (
            not path.startswith(("/api/account", "/api/session", "/api/users"))
            or (
                operation.method.upper(),
                path,
            )
            in ENDING
        ):
            continue

        @given(case=operation.as_strategy())
        @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case: schemathesis.Case) -> None:
            code = case.call_and_validate(checks=CHECKS, headers={"cookie": cookie}).status_code
            statuses.setdefault(f"{case.method} {case.operation.path}", set()).add(code)

        run()
    assert 200 in statuses["GET /api/account"], statuses
    assert 200 in statuses["GET /api/account/export"], statuses
    assert 200 in statuses["GET /api/account/sessions"], statuses
    assert statuses["PUT /api/account/preferences"] & {200}, statuses
