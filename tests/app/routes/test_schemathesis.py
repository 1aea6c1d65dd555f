"""Property-based API testing from the app's own OpenAPI document (Schemathesis).

Every operation gets generated requests, valid and broken; none may answer 5xx,
and every answer must match the schema the document gives for it. (Schemathesis'
own pytest plugin does not run under our pytest version, so the operations are
walked here with Hypothesis directly.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import content_type_conformance, response_schema_conformance

from app.config import Settings
from app.main import create_app
from tests.app.conftest import database_url

CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture
def api_schema(tmp_path: Path) -> schemathesis.BaseSchema:
    url = database_url(tmp_path)
    app = create_app(
        Settings(database_url=url, secret_key="s", rate_limits=False, computer_thinker="first-legal")
    )
    return schemathesis.openapi.from_asgi("/openapi.json", app)


def operations(schema: schemathesis.BaseSchema) -> list:
    found = [result.ok() for result in schema.get_all_operations()]
    assert len(found) >= 12, "the JSON API's operations should all be documented"
    return found


def test_no_server_errors_and_answers_match_the_schema(api_schema: schemathesis.BaseSchema) -> None:
    statuses: set[int] = set()
    for operation in operations(api_schema):

        @given(case=operation.as_strategy())
        @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case: schemathesis.Case) -> None:
            statuses.add(case.call_and_validate(checks=CHECKS).status_code)

        run()
    # The generated requests reached the handlers, not just the validators. (No 422: the
    # document now says exactly what the server accepts, so schema-valid data is taken;
    # tests/test_schemathesis_cli.py also sends data the schema forbids.)
    assert {200, 201, 404} <= statuses, statuses


def test_calls_on_a_real_match_stay_within_the_schema(api_schema: schemathesis.BaseSchema) -> None:
    """Generated bodies against a match that exists, so more than 404s get exercised."""
    from fastapi.testclient import TestClient

    client = TestClient(api_schema.app)
    match_id = client.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"}).json()["id"]
    cookie = f"tablero_player={client.cookies['tablero_player']}"
    statuses: set[int] = set()
    for operation in operations(api_schema):
        if "{match_id}" not in operation.path:
            continue
        if operation.path.endswith("/events"):
            # An endless stream on a real match: each generated call waited out the
            # client's 10 s (200 s of the suite). tests/app/routes/test_events.py and
            # test_stream_pushes.py read it; the CLI's run still sends it generated data.
            continue

        @given(case=operation.as_strategy(path_parameters={"match_id": match_id}), extra=st.just(None))
        @settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        def run(case: schemathesis.Case, extra: None) -> None:
            statuses.add(case.call_and_validate(checks=CHECKS, headers={"cookie": cookie}).status_code)

        run()
    assert 200 in statuses and 409 in statuses, statuses
