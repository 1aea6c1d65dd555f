"""Puts email into the app: with ``SMTP_URL`` the service, the sender and the digest
worker; without it none of them (``app.state.email`` is None: every email operation
answers 404), only the service that reads unsubscribe links, which needs no server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from fastapi import FastAPI

from app.config import Settings
from app.mail import smtp
from app.mail.digest import Digests, DigestWorker
from app.mail.sender import MailSender
from app.mail.service import EmailService
from app.work_queue import QueueWorker


def install(app: FastAPI, settings: Settings, clock: Callable[[], datetime]) -> None:
    state = app.state
    state.email = state.mail_sender = state.digest_worker = None
    state.email_links = EmailService(state.sessions, settings.secret_key, settings.origin, clock)
    if not settings.smtp_url:
        return
    server = smtp.parse(settings.smtp_url)  # a bad URL stops the app here, at start
    if any(c in settings.sender for c in "\r\n"):
        raise ValueError("MAIL_FROM must be one line")
    sender = MailSender(state.sessions, server, settings.sender, clock)
    service = EmailService(state.sessions, settings.secret_key, settings.origin, clock, wake=sender.wake)
    state.email, state.email_links, state.mail_sender = service, service, sender
    state.digest_worker = DigestWorker(Digests(service, clock))


def workers(app: FastAPI) -> list[QueueWorker]:
    """The email workers to start with the app (none without ``SMTP_URL``)."""
    return [w for w in (app.state.mail_sender, app.state.digest_worker) if w is not None]
