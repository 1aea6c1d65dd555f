"""Moderation (issue 33): the role by command, the page with the open reports and their
lines, and each decision — time out 15 minutes, mute for good, dismiss — logged."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.chat.models import ModerationEntry
from app.manage import grant_moderator, main
from tests.app.accounts.test_accounts_api import sign_up
from tests.app.chat.conftest import Chat, established, lines, say
from tests.app.helpers import started

HTML = {"accept": "text/html"}


def reported(chat: Chat) -> tuple[str, int, TestClient]:
    """ana says a rude line to bo, who reports it; mo is a moderator. (match, report, mo)"""
    established(chat, (chat.alice, "ana"), (chat.bob, "bo"))
    match_id = started(chat.alice, chat.bob)
    say(chat.bob, match_id, phrase="hello")
    line = say(chat.alice, match_id, text="<b>you stink</b>").json()
    report = chat.bob.post(
        "/api/reports", json={"username": "ana", "reason": "rude & <rude>", "line_id": line["id"]}
    )
    assert report.status_code == 201
    mo = chat.carol
    sign_up(mo, "mo")
    grant_moderator("mo", chat.app.state.settings.database_url)
    return match_id, report.json()["id"], mo


def test_the_command_grants_the_role(chat: Chat, capsys: pytest.CaptureFixture[str]) -> None:
    sign_up(chat.alice, "ana")
    assert chat.alice.get("/moderation", headers=HTML).status_code == 403
    url = chat.app.state.settings.database_url
    import os

    os.environ["DATABASE_URL"] = url
    try:
        assert main(["moderator", "ANA"]) == 0
        assert "ana is a moderator" in capsys.readouterr().out
        assert main(["moderator", "nobody"]) == 1
    finally:
        del os.environ["DATABASE_URL"]
    assert chat.alice.get("/moderation", headers=HTML).status_code == 200


def test_the_page_lists_open_reports_with_their_lines_escaped(chat: Chat) -> None:
    _match_id, report_id, mo = reported(chat)
    page = mo.get("/moderation", headers=HTML)
    assert page.status_code == 200
    assert f"Report {report_id}: ana" in page.text
    assert "&lt;b&gt;you stink&lt;/b&gt;" in page.text and "<b>you stink</b>" not in page.text
    assert "rude &amp; &lt;rude&gt;" in page.text
    assert "Hello" in page.text  # the line before it
    for other in (chat.alice, chat.bob, TestClient(chat.app)):
        assert other.get("/moderation", headers=HTML).status_code == 403
        assert other.post(f"/moderation/reports/{report_id}", data={"action": "dismiss"}).status_code == 403


def test_a_timeout_keeps_the_account_out_of_chat_for_15_minutes(chat: Chat) -> None:
    match_id, report_id, mo = reported(chat)
    done = mo.post(f"/moderation/reports/{report_id}", data={"action": "timeout"}, follow_redirects=False)
    assert done.status_code == 303
    chat.clock.advance(minutes=14)
    out = say(chat.alice, match_id, phrase="sorry")
    assert out.status_code == 403 and "you may write again in 1 min" in out.json()["detail"]
    chat.clock.advance(minutes=1, seconds=1)
    assert say(chat.alice, match_id, phrase="sorry").status_code == 201
    assert f"Report {report_id}" not in mo.get("/moderation", headers=HTML).text  # no longer open


def test_a_muted_account_is_shown_to_itself_only(chat: Chat) -> None:
    match_id, report_id, mo = reported(chat)
    mo.post(f"/moderation/reports/{report_id}", data={"action": "mute"})
    said = say(chat.alice, match_id, text="still here")
    assert said.status_code == 201
    assert "still here" in [x["text"] for x in lines(chat.alice, match_id)]
    assert "still here" not in [x["text"] for x in lines(chat.bob, match_id)]
    # Its earlier lines too, the reported one with them; the others' stay.
    assert [x["text"] for x in lines(chat.bob, match_id)] == ["Hello"]
    assert "<b>you stink</b>" in [x["text"] for x in lines(chat.alice, match_id)]


def test_dismissing_changes_nothing_and_a_decision_is_made_once(chat: Chat) -> None:
    match_id, report_id, mo = reported(chat)
    mo.post(f"/moderation/reports/{report_id}", data={"action": "dismiss"})
    assert say(chat.alice, match_id, text="fine now").status_code == 201
    assert "fine now" in [x["text"] for x in lines(chat.bob, match_id)]
    again = mo.post(f"/moderation/reports/{report_id}", data={"action": "mute"}, headers=HTML)
    assert again.status_code == 409
    assert mo.post("/moderation/reports/999", data={"action": "mute"}).status_code == 404
    assert mo.post(f"/moderation/reports/{report_id}", data={"action": "ban"}).status_code == 422


def test_every_decision_is_logged_with_who_and_when(chat: Chat) -> None:
    match_id, first, mo = reported(chat)
    second = chat.bob.post("/api/reports", json={"username": "ana", "reason": "again"}).json()["id"]
    third = chat.bob.post("/api/reports", json={"username": "ana", "reason": "and again"}).json()["id"]
    mo.post(f"/moderation/reports/{first}", data={"action": "timeout"})
    chat.clock.advance(minutes=1)
    mo.post(f"/moderation/reports/{second}", data={"action": "mute"})
    mo.post(f"/moderation/reports/{third}", data={"action": "dismiss"})
    with chat.app.state.sessions() as db:
        log = list(db.scalars(select(ModerationEntry).order_by(ModerationEntry.id)))
    assert [(e.moderator_name, e.action, e.target_name, e.report_id) for e in log] == [
        ("mo", "timeout", "ana", first),
        ("mo", "mute", "ana", second),
        ("mo", "dismiss", "ana", third),
    ]
    assert log[1].at.replace(tzinfo=None) == chat.clock().replace(tzinfo=None)
    page = mo.get("/moderation", headers=HTML).text
    assert "Time out for 15 minutes" in page and "Mute for good" in page and "No open reports." in page
    assert match_id


def test_a_moderators_account_page_links_the_reports(chat: Chat) -> None:
    sign_up(chat.alice, "ana")
    assert 'href="/moderation"' not in chat.alice.get("/account").text
    grant_moderator("ana", chat.app.state.settings.database_url)
    page = chat.alice.get("/account").text
    assert 'href="/moderation"' in page and "Moderation: open reports" in page
