"""A real SMTP server (aiosmtpd) on 127.0.0.1 for each email test, and the app pointed
at it with a clock the test moves."""

from __future__ import annotations

import email
import email.policy
import re
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.config import Settings
from app.mail.models import MailJob
from app.main import create_app
from tests.app.accounts.test_accounts_api import sign_up
from tests.app.conftest import database_url
from tests.live import free_port

#: Links in mails come from the configured origin, never from the request (testserver).
ORIGIN = "https://tablero.test"


class FakeClock:
    def __init__(self) -> None:
        self.moment = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


class Mailbox:
    """An aiosmtpd handler: keeps every message it accepts; ``answers`` (SMTP replies
    such as "451 try later") refuse the next DATA commands in turn."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []
        self.envelopes: list[tuple[str, list[str]]] = []
        self.answers: list[str] = []
        self.refused: list[str] = []
        self.arrived = threading.Condition()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        with self.arrived:
            if self.answers:
                answer = self.answers.pop(0)
                self.refused.append(answer)
                self.arrived.notify_all()
                return answer
            raw = envelope.content if isinstance(envelope.content, bytes) else str(envelope.content).encode()
            parsed = email.message_from_bytes(raw, policy=email.policy.default)
            assert isinstance(parsed, EmailMessage)
            self.messages.append(parsed)
            self.envelopes.append((str(envelope.mail_from), list(envelope.rcpt_tos)))
            self.arrived.notify_all()
        return "250 OK"

    def wait_for(self, count: int, seconds: float = 10.0) -> list[EmailMessage]:
        deadline = time.monotonic() + seconds
        with self.arrived:
            while len(self.messages) < count and time.monotonic() < deadline:
                self.arrived.wait(timeout=0.05)
            return list(self.messages)

    def wait_refused(self, count: int, seconds: float = 10.0) -> list[str]:
        deadline = time.monotonic() + seconds
        with self.arrived:
            while len(self.refused) < count and time.monotonic() < deadline:
                self.arrived.wait(timeout=0.05)
            return list(self.refused)


@pytest.fixture
def mailbox() -> Iterator[Mailbox]:
    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    box.port = controller.port  # type: ignore[attr-defined]
    yield box
    controller.stop()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def mail_settings(url: str, smtp_url: str | None, **extra: Any) -> Settings:
    return Settings(
        database_url=url,
        secret_key="test-secret",
        rate_limits=False,
        public_url=ORIGIN,
        smtp_url=smtp_url,
        mail_from=None,
        **extra,
    )


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return database_url(tmp_path)


@pytest.fixture
def mail_app(db_url: str, mailbox: Mailbox, clock: FakeClock) -> FastAPI:
    return create_app(mail_settings(db_url, f"smtp://127.0.0.1:{mailbox.port}"), clock=clock)  # type: ignore[attr-defined]


@pytest.fixture
def ana(mail_app: FastAPI) -> Iterator[TestClient]:
    """Ana, signed up, in the running app (its lifespan: the sender, the digest worker)."""
    with TestClient(mail_app) as client:
        sign_up(client, "ana")
        yield client


def link_in(message: EmailMessage, path: str) -> str:
    """The path and query of the link to ``path`` in the mail's text (its origin checked)."""
    body = message.get_content()
    found = re.search(rf"{ORIGIN}{re.escape(path)}\?token=\S+", body)
    assert found, body
    parts = urlsplit(found.group(0))
    return f"{parts.path}?{parts.query}"


def queued(app: FastAPI) -> list[MailJob]:
    with app.state.sessions() as db:
        return list(db.scalars(select(MailJob).order_by(MailJob.id)))


def verified(client: TestClient, mailbox: Mailbox, address: str = "ana@example.com") -> None:
    """Add ``address``, open the link the mail brings; the digest on."""
    count = len(mailbox.messages)
    assert client.put("/api/account/email", json={"email": address}).status_code == 202
    message = mailbox.wait_for(count + 1)[count]
    assert client.get(link_in(message, "/email/verify")).status_code == 200
    on = client.put("/api/account/email/digest", json={"digest": True})
    assert on.status_code == 200, on.text
