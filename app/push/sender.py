"""The worker that sends queued pushes: encrypted (aes128gcm, RFC 8291), VAPID-signed
(RFC 8292), with TTL, Urgency and Topic (RFC 8030).

A 2xx is done; 404 or 410 means the subscription is dead and it is deleted; 429, a 5xx
or no answer is retried with exponential backoff (``Retry-After`` honoured) up to
``MAX_ATTEMPTS``; any other answer drops the push. The endpoint is checked against the
allowlist again before each send, redirects are never followed, and a send has a short
timeout: a slow push service delays only other pushes, never a move (the worker runs in
its own thread, after the commit).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import requests
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush
from sqlalchemy import delete, update
from sqlalchemy.orm import Session, sessionmaker

from app.push.allowlist import check_endpoint
from app.push.models import PushJob, PushSubscription
from app.services.errors import Invalid
from app.work_queue import JobWorker, claimable, lease_free

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 6
FIRST_BACKOFF_SECONDS = 1.0
MAX_BACKOFF_SECONDS = 600.0
SEND_TIMEOUT_SECONDS = 10.0
LEASE = timedelta(seconds=60)


@dataclass(frozen=True)
class Claimed:
    job_id: int
    subscription_id: int
    endpoint: str
    p256dh: str
    auth: str
    payload: str
    topic: str
    urgency: str
    ttl: int
    attempts: int
    #: The lease this claim set: settling matches it too, since the id alone may name
    #: another job by then (the lease ran out, another process sent and deleted this
    #: one, and SQLite gave its id to a new job).
    lease: datetime


def no_redirects() -> requests.Session:
    session = requests.Session()
    session.max_redirects = 0
    session.trust_env = False  # no proxy from the environment between us and the push service
    return session


class PushSender(JobWorker[Claimed]):
    failure = "a push round failed"

    def __init__(
        self,
        sessions: sessionmaker[Session],
        vapid: Callable[[], Vapid02],
        subject: str,
        hosts: Callable[[], tuple[str, ...]],
        clock: Callable[[], datetime],
        poll_seconds: float = 2.0,
    ) -> None:
        super().__init__(poll_seconds=poll_seconds)
        self.sessions = sessions
        self.vapid = vapid
        self.subject = subject
        self.hosts = hosts
        self.clock = clock
        self.http = no_redirects()
        #: Called on every poll (wiring: PushService.refresh_anyone).
        self.on_poll: Callable[[], None] = lambda: None

    def claim(self) -> Claimed | None:
        self.on_poll()
        moment = self.clock()
        with self.sessions.begin() as db:
            job = db.scalars(
                claimable(
                    PushJob,
                    PushJob.due_at <= moment,
                    lease_free(PushJob.claimed_until, moment),
                    order_by=PushJob.due_at,
                    limit=1,
                )
            ).first()
            if job is None:
                return None
            subscription = db.get(PushSubscription, job.subscription_id)
            if subscription is None:
                db.delete(job)
                return None
            job.claimed_until = lease = moment + LEASE
            return Claimed(
                job.id,
                subscription.id,
                subscription.endpoint,
                subscription.p256dh,
                subscription.auth,
                job.payload,
                job.topic,
                job.urgency,
                job.ttl,
                job.attempts,
                lease,
            )

    async def work(self, job: Claimed) -> None:
        status, retry_after = await asyncio.to_thread(self.send, job)
        await asyncio.to_thread(self.settle, job, status, retry_after)

    def send(self, job: Claimed) -> tuple[int | None, float | None]:
        """The push service's status (``None``: no answer) and its Retry-After, if any."""
        try:
            check_endpoint(job.endpoint, self.hosts())
        except Invalid:
            return 403, None  # no longer allowed: never sent
        parts = urlsplit(job.endpoint)
        claims: dict[str, Any] = {"sub": self.subject, "aud": f"{parts.scheme}://{parts.netloc}"}
        try:
            response = webpush(
                {"endpoint": job.endpoint, "keys": {"p256dh": job.p256dh, "auth": job.auth}},
                data=job.payload,
                vapid_private_key=self.vapid(),
                vapid_claims=claims,
                content_encoding="aes128gcm",
                ttl=job.ttl,
                headers={"Urgency": job.urgency, "Topic": job.topic},
                timeout=SEND_TIMEOUT_SECONDS,
                requests_session=self.http,
            )
        except WebPushException as exc:
            if exc.response is None:
                return None, None
            return exc.response.status_code, _retry_after(exc.response.headers.get("Retry-After"))
        except (requests.RequestException, ValueError):
            log.warning("push to %s failed", parts.hostname, exc_info=True)
            return None, None
        assert not isinstance(response, str)
        return response.status_code, None

    def settle(self, job: Claimed, status: int | None, retry_after: float | None) -> None:
        ours = (PushJob.id == job.job_id, PushJob.claimed_until == job.lease)
        with self.sessions.begin() as db:
            if status is not None and 200 <= status < 300:
                db.execute(delete(PushJob).where(*ours))
            elif status in (404, 410):
                db.execute(delete(PushSubscription).where(PushSubscription.id == job.subscription_id))
            elif (status is None or status == 429 or status >= 500) and job.attempts + 1 < MAX_ATTEMPTS:
                wait = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2**job.attempts)
                wait = max(wait, min(retry_after or 0.0, MAX_BACKOFF_SECONDS))
                db.execute(
                    update(PushJob)
                    .where(*ours)
                    .values(
                        attempts=job.attempts + 1,
                        due_at=self.clock() + timedelta(seconds=wait),
                        claimed_until=None,
                    )
                )
            else:
                db.execute(delete(PushJob).where(*ours))


def _retry_after(value: str | None) -> float | None:
    try:
        return float(value) if value else None
    except ValueError:
        return None
