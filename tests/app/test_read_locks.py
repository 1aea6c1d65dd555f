"""Pages and API reads that only read never take SQLite's writer lock.

On SQLite a plain session begins with ``BEGIN IMMEDIATE`` (app/db.py), the one lock every
move needs. Every page's header counts "your move in N" and the home page lists the
lobby: each took that lock, so page views queued behind moves and made moves queue.
They now read through ``db.read_session``. Counted here are the writer-lock BEGINs and
writes that a request's own code makes (the app's workers write meanwhile)."""

from __future__ import annotations

from traceback import extract_stack
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import event

from tests.app.accounts.test_accounts_api import sign_up
from tests.app.helpers import started


def writes_during(app: FastAPI, call: Any) -> list[str]:
    if app.state.sessions.kw["bind"].dialect.name != "sqlite":
        pytest.skip("the writer lock is SQLite's (PostgreSQL reads take no lock)")
    engine = app.state.sessions.kw["bind"]
    seen: list[str] = []

    def watch(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        words = statement.lstrip().split(None, 2)
        if words and (
            words[0].upper() in {"UPDATE", "INSERT", "DELETE"} or words[:2] == ["BEGIN", "IMMEDIATE"]
        ):
            # The request's own code: its frames are in app/ but not in a worker's loop.
            stack = [f.filename for f in extract_stack()]
            if not any(name.endswith(("work_queue.py", "heartbeat.py")) for name in stack):
                seen.append(statement)

    event.listen(engine, "before_cursor_execute", watch)
    try:
        call()
    finally:
        event.remove(engine, "before_cursor_execute", watch)
    return seen


READ_ONLY = [
    "/",
    "/games",
    "/leaderboard",
    "/leaderboard/morris",
    "/api/leaderboards",
    "/api/leaderboards/morris/realtime",
    "/@/ana",
    "/api/users/ana",
    "/puzzles/bobail",
    "/matches/{match}",
    "/matches/{match}/live",
    "/api/matches/{match}",
]


@pytest.mark.parametrize("path", READ_ONLY)
def test_a_read_only_page_takes_no_writer_lock(
    app: FastAPI, alice: TestClient, bob: TestClient, path: str
) -> None:
    sign_up(alice, "ana")
    match_id = started(alice, bob, "morris")  # in "My games" and in the header's count
    path = path.format(match=match_id)
    alice.get(path)  # once: a first visit may remember things (a session's last sight)
    answers: list[int] = []
    assert (
        writes_during(app, lambda: answers.append(alice.get(path, follow_redirects=False).status_code)) == []
    )
    assert answers[0] in (200, 303)
