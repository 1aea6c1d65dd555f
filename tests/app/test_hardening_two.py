"""Issue 27 (hardening, round two): each case as a regression test that failed before its fix."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

HTML = {"accept": "text/html"}
FORM = {"game": "morris", "name": "Alice", "side": "first"}


@pytest.mark.parametrize("minutes", ["inf", "-inf", "nan", "1e309"])
def test_a_custom_time_that_is_no_number_is_a_readable_422(alice: TestClient, minutes: str) -> None:
    # inf was a 500: round(inf * 60) raises OverflowError, which nothing caught.
    data = {**FORM, "time_control": "rt:custom", "initial_minutes": minutes, "increment_seconds": "0"}
    answer = alice.post("/matches", data=data, headers=HTML, follow_redirects=False)
    assert answer.status_code == 422
    assert "custom time in minutes" in answer.text
    assert alice.get("/api/me/matches").json() == {"matches": []}


def test_a_cjk_custom_time_on_an_untimed_game_is_not_written_into_a_cookie(alice: TestClient) -> None:
    # The tablero_tc cookie was the raw text: a header holds Latin-1 only, so this was a 500.
    data = {**FORM, "time_control": "", "initial_minutes": "十五分", "increment_seconds": "秒"}
    answer = alice.post("/matches", data=data, headers=HTML, follow_redirects=False)
    assert answer.status_code == 303
    page = alice.get("/", headers=HTML).text
    assert 'name="initial_minutes" min="0.25" max="180" step="0.25" value="15"' in page


def test_an_unknown_time_control_choice_is_refused_not_taken_for_untimed(alice: TestClient) -> None:
    data = {**FORM, "time_control": "zz:9"}
    answer = alice.post("/matches", data=data, headers=HTML, follow_redirects=False)
    assert answer.status_code == 422
    assert alice.get("/api/me/matches").json() == {"matches": []}


def test_the_remembered_time_control_is_the_checked_one(alice: TestClient) -> None:
    data = {**FORM, "time_control": "rt:custom", "initial_minutes": "2,50", "increment_seconds": "07"}
    assert alice.post("/matches", data=data, headers=HTML, follow_redirects=False).status_code == 303
    page = alice.get("/", headers=HTML).text
    assert '<option value="rt:custom" selected>' in page
    assert 'value="2.5" inputmode="decimal"' in page
    assert 'value="7" inputmode="numeric"' in page
