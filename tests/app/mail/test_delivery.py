"""A mail server that refuses, answers 4xx, hangs or is down: the job is retried with
backoff (or dropped for good on a 5xx), and moves are never held up by it. Without
SMTP_URL nothing of email is offered. The address is personal data: exported, deleted."""

from __future__ import annotations

import socket
import threading
import time
from datetime import timedelta

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.mail import sender as mail_sender
from app.mail.models import AccountEmail, MailJob, MailSent
from app.main import create_app
from tests.app.accounts.test_accounts_api import PASSWORD, sign_up
from tests.app.helpers import started
from tests.app.mail.conftest import FakeClock, Mailbox, mail_settings, queued, verified
from tests.live import free_port

THREE_DAYS = {"kind": "correspondence", "days": 3}


def wait_until(check, seconds: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert check()


def test_a_4xx_is_retried_with_backoff_and_a_5xx_dropped(
    mail_app: FastAPI, ana: TestClient, mailbox: Mailbox, clock: FakeClock
) -> None:
    mailbox.answers = ["451 4.3.0 try again later"]
    ana.put("/api/account/email", json={"email": "ana@example.com"})
    assert mailbox.wait_refused(1) == ["451 4.3.0 try again later"]
    wait_until(lambda: [j.attempts for j in queued(mail_app)] == [1])
    [job] = queued(mail_app)
    assert job.due_at.replace(tzinfo=clock().tzinfo) == clock() + timedelta(seconds=5)
    assert mailbox.wait_for(1, seconds=0.5) == []  # not due yet on the app's clock
    clock.advance(seconds=5)
    mail_app.state.mail_sender.wake()
    [message] = mailbox.wait_for(1)
    assert message["To"] == "ana@example.com"
    wait_until(lambda: queued(mail_app) == [])

    mailbox.answers = ["550 5.1.1 no such mailbox"]
    ana.put("/api/account/email", json={"email": "nobody@example.com"})
    assert mailbox.wait_refused(2)[1].startswith("550")
    wait_until(lambda: queued(mail_app) == [])  # dropped, not retried
    assert len(mailbox.messages) == 1


def test_a_server_that_is_down_or_hangs_costs_the_moves_nothing(
    db_url: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A "mail server" that accepts connections and never says a word.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.extend(iter(lambda: silent.accept()[0], None)), daemon=True).start()
    monkeypatch.setattr(mail_sender, "SEND_TIMEOUT_SECONDS", 2.0)
    app = create_app(mail_settings(db_url, f"smtp://127.0.0.1:{silent.getsockname()[1]}"), clock=clock)
    with TestClient(app) as ana:
        bob = TestClient(app)
        sign_up(ana, "ana")
        assert ana.put("/api/account/email", json={"email": "ana@example.com"}).status_code == 202
        match_id = started(ana, bob, "morris", time_control=THREE_DAYS)
        # The sender is waiting on the silent server now; moves answer at once.
        for n, move in enumerate(["d2", "a1", "d6", "g1", "b4", "g7"]):
            mover = ana if n % 2 == 0 else bob
            began = time.monotonic()
            moved = mover.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": n})
            assert moved.status_code == 200, moved.text
            assert time.monotonic() - began < 1.0
        wait_until(lambda: [j.attempts for j in queued(app)] == [1], seconds=10)
    silent.close()

    # Nothing listening at all: the same, retried, the backoff doubling.
    down = create_app(mail_settings(db_url, f"smtp://127.0.0.1:{free_port()}"), clock=clock)
    with TestClient(down):
        clock.advance(seconds=5)  # the first retry is due
        down.state.mail_sender.wake()
        wait_until(lambda: [j.attempts for j in queued(down)] == [2])
        [job] = queued(down)
        assert job.due_at.replace(tzinfo=clock().tzinfo) == clock() + timedelta(seconds=10)


def test_without_smtp_url_no_email_is_offered(app: FastAPI, alice: TestClient) -> None:
    assert app.state.email is None and app.state.mail_sender is None and app.state.digest_worker is None
    sign_up(alice, "ana")
    for answer in (
        alice.put("/api/account/email", json={"email": "ana@example.com"}),
        alice.delete("/api/account/email"),
        alice.put("/api/account/email/digest", json={"digest": True}),
    ):
        assert answer.status_code == 404
        assert answer.json()["detail"] == "email is not offered on this site"
    assert alice.get("/api/account").json()["email"] is None
    page = alice.get("/account", headers={"Accept": "text/html"})
    assert page.status_code == 200 and 'id="email-h"' not in page.text
    assert alice.get("/email/verify?token=1.2.x", headers={"Accept": "text/html"}).status_code == 404
    with app.state.sessions() as db:
        assert db.scalars(select(MailJob)).all() == []


def test_the_address_is_exported_and_deleted_with_the_account(
    mail_app: FastAPI, ana: TestClient, mailbox: Mailbox
) -> None:
    verified(ana, mailbox)
    exported = ana.get("/api/account/export").json()["email"]
    assert exported["address"] == "ana@example.com" and exported["digest"] is True
    assert exported["verified_at"]
    assert ana.request("DELETE", "/api/account", json={"password": PASSWORD}).status_code == 204
    with mail_app.state.sessions() as db:
        assert db.scalars(select(AccountEmail)).all() == []
        assert db.scalars(select(MailJob)).all() == []
        assert [s.account_id for s in db.scalars(select(MailSent))] == [None]


def test_the_settings_page_adds_verifies_and_switches(
    mail_app: FastAPI, ana: TestClient, mailbox: Mailbox
) -> None:
    html = {"Accept": "text/html"}
    page = ana.get("/account", headers=html)
    assert 'id="email-h"' in page.text and "No email address." in page.text
    refused = ana.post(
        "/account/email", data={"email": "ana@example.com\r\nBcc: x@example.org"}, headers=html
    )
    assert refused.status_code == 422 and "one line, without control characters" in refused.text
    added = ana.post("/account/email", data={"email": "<b>ana</b>@example.com"}, headers=html)
    assert added.status_code == 422 and "<b>ana</b>" not in added.text
    added = ana.post("/account/email", data={"email": "ana@example.com"}, headers=html)
    assert added.status_code == 200 and "a link to confirm it is on its way" in added.text
    assert "waiting for confirmation" in added.text
    from tests.app.mail.conftest import link_in

    assert ana.get(link_in(mailbox.wait_for(1)[0], "/email/verify")).status_code == 200
    on = ana.post("/account/email/digest", data={"digest": "on"}, headers=html)
    assert on.status_code == 200 and "The daily email is on." in on.text
    assert ana.get("/api/account").json()["email"]["digest"] is True
    spanish = ana.get("/account", headers={**html, "Accept-Language": "es"})
    assert "Correo electrónico" in spanish.text and "confirmada" in spanish.text
    gone = ana.post("/account/email/remove", headers=html)
    assert gone.status_code == 200 and "Your email address is removed." in gone.text
    assert ana.get("/api/account").json()["email"] is None
