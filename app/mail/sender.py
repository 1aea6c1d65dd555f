"""The worker that sends queued mail through the operator's server (``SMTP_URL``).

A job is claimed ``FOR UPDATE SKIP LOCKED`` with a lease (two processes never send the
same one), checked against the account's address as it is now (a mail for an address
since changed or removed, or a digest since unsubscribed, is dropped unsent), and sent
with a timeout by aiosmtplib on the event loop: a slow or failing server holds up only
other mail, never a request. Accepted: done. Refused for good (a 5xx): dropped. No
answer, a 4xx or a dropped connection: retried with exponential backoff up to
``MAX_ATTEMPTS``, then dropped.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage

import aiosmtplib
from sqlalchemy import delete, update
from sqlalchemy.orm import Session, sessionmaker

from app.mail import addresses
from app.mail.models import AccountEmail, MailJob
from app.mail.smtp import SmtpServer
from app.work_queue import JobWorker, claimable, lease_free

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 8
FIRST_BACKOFF_SECONDS = 5.0
MAX_BACKOFF_SECONDS = 3600.0
SEND_TIMEOUT_SECONDS = 20.0
LEASE = timedelta(seconds=120)


@dataclass(frozen=True)
class Claimed:
    job_id: int
    to_address: str
    subject: str
    body: str
    unsubscribe: str | None
    attempts: int
    #: The claim's lease: the job is settled only if it is still this claim's. SQLite
    #: gives a deleted row's id to the next row, so "the job with this id" could be a
    #: newer mail queued while this one was being sent (a changed address deletes the old).
    lease: datetime


def message(sender: str, job: Claimed) -> EmailMessage:
    """The mail as sent. The default policy refuses CR or LF in a header value, a second
    guard after ``addresses.check``."""
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = job.to_address
    mail["Subject"] = job.subject
    mail["Date"] = email.utils.formatdate(usegmt=True)
    domain = email.utils.parseaddr(sender)[1].rpartition("@")[2] or "localhost"
    mail["Message-ID"] = email.utils.make_msgid(domain=domain)
    mail["Auto-Submitted"] = "auto-generated"
    if job.unsubscribe:
        # RFC 2369 and RFC 8058: mail programs offer "unsubscribe", one click, a POST.
        mail["List-Unsubscribe"] = f"<{job.unsubscribe}>"
        mail["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    mail.set_content(job.body)
    return mail


class MailSender(JobWorker[Claimed]):
    failure = "a mail round failed"

    def __init__(
        self,
        sessions: sessionmaker[Session],
        server: SmtpServer,
        sender: str,
        clock: Callable[[], datetime],
        poll_seconds: float = 5.0,
    ) -> None:
        super().__init__(poll_seconds=poll_seconds)
        self.sessions = sessions
        self.server = server
        self.sender = sender
        self.clock = clock

    def claim(self) -> Claimed | None:
        moment = self.clock()
        with self.sessions.begin() as db:
            while True:
                job = db.scalars(
                    claimable(
                        MailJob,
                        MailJob.due_at <= moment,
                        lease_free(MailJob.claimed_until, moment),
                        order_by=MailJob.due_at,
                        limit=1,
                    )
                ).first()
                if job is None:
                    return None
                if self._still_wanted(db, job):
                    job.claimed_until = lease = moment + LEASE
                    return Claimed(
                        job.id, job.to_address, job.subject, job.body, job.unsubscribe, job.attempts, lease
                    )
                db.delete(job)
                db.flush()

    @staticmethod
    def _still_wanted(db: Session, job: MailJob) -> bool:
        row = db.get(AccountEmail, job.account_id)
        if row is None or addresses.key(row.address) != addresses.key(job.to_address):
            return False
        if job.kind == "digest":
            return row.verified_at is not None and row.digest
        return row.verified_at is None

    async def work(self, job: Claimed) -> None:
        outcome = await self.send(job)
        await asyncio.to_thread(self.settle, job, outcome)

    async def send(self, job: Claimed) -> str:
        """ "sent", "refused" (for good) or "failed" (try again)."""
        server = self.server
        try:
            await aiosmtplib.send(
                message(self.sender, job),
                hostname=server.hostname,
                port=server.port,
                username=server.username,
                password=server.password,
                use_tls=server.use_tls,
                start_tls=server.start_tls,
                timeout=SEND_TIMEOUT_SECONDS,
            )
        except aiosmtplib.SMTPRecipientsRefused as exc:
            codes = [refusal.code for refusal in exc.recipients]
            return "refused" if all(code >= 500 for code in codes) else "failed"
        except aiosmtplib.SMTPResponseException as exc:
            log.warning("the mail server answered %s", exc.code)
            return "refused" if exc.code >= 500 else "failed"
        except (aiosmtplib.SMTPException, OSError, TimeoutError):
            log.warning("the mail server could not be reached", exc_info=True)
            return "failed"
        return "sent"

    def settle(self, job: Claimed, outcome: str) -> None:
        this = (MailJob.id == job.job_id, MailJob.claimed_until == job.lease)
        with self.sessions.begin() as db:
            if outcome == "failed" and job.attempts + 1 < MAX_ATTEMPTS:
                wait = min(MAX_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2**job.attempts)
                db.execute(
                    update(MailJob)
                    .where(*this)
                    .values(
                        attempts=job.attempts + 1,
                        due_at=self.clock() + timedelta(seconds=wait),
                        claimed_until=None,
                    )
                )
            else:
                if outcome != "sent":
                    log.warning("a mail was dropped after %s attempts", job.attempts + 1)
                db.execute(delete(MailJob).where(*this))
