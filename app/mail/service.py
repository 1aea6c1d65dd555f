"""The account's address: add or change it (a verification mail is queued), remove it,
verify it by its link, turn the digest on or off, unsubscribe by link.

Limits: at most ``PER_ACCOUNT`` verification mails a day per account (then 429, the
account's own business), and ``PER_ADDRESS`` a day to one address whichever accounts ask
(past it the answer is the same 202 and nothing is sent: a limit that answered otherwise
would tell whether someone else had asked, and the owner of an address is not mailed
without end by strangers). Counted in ``mail_sends`` in the database, so every process
sees the same counts. A mail is queued in the transaction that asks for it and sent by
``sender.MailSender`` after the commit.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.service import Unauthorized, aware, preferences_of
from app.mail import addresses, links, writing
from app.mail.models import AccountEmail, MailJob, MailSent
from app.models import Account
from app.rate_limits import TooManyRequests
from app.services.errors import Conflict, ServiceError
from app.texts import N_

PER_ACCOUNT = 5
PER_ADDRESS = 3
WINDOW = timedelta(hours=24)


class BadLink(ServiceError):
    """A link from a mail that is tampered with, expired, or for an address since changed."""

    status_code = 400


BAD_VERIFY = N_("this confirmation link is not valid any more; add the address again to get a new one")
BAD_UNSUBSCRIBE = N_(
    "this unsubscribe link is not valid; turn the daily email off in your account's settings"
)


def language_of(account: Account) -> str:
    return str(preferences_of(account).get("language") or "en")


def state_of(row: AccountEmail | None) -> dict[str, Any] | None:
    """``GET /api/account``'s ``email``: the address, whether it is verified, the digest."""
    if row is None:
        return None
    return {"address": row.address, "verified": row.verified_at is not None, "digest": row.digest}


class EmailService:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        secret: str,
        origin: str,
        clock: Callable[[], datetime],
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.sessions = sessions
        self.secret = secret
        self.origin = origin
        self.clock = clock
        self.wake = wake

    def link(self, path: str, token: str) -> str:
        return f"{self.origin}{path}?token={quote(token)}"

    def address_hash(self, address: str) -> str:
        """An HMAC of the address (keyed by the site's secret): counted, never readable."""
        message = addresses.key(address).encode()
        return hmac.new(self.secret.encode(), b"mail-limit:" + message, hashlib.sha256).hexdigest()

    def state(self, account_id: int) -> dict[str, Any] | None:
        with self.sessions() as db:
            return state_of(db.get(AccountEmail, account_id))

    # ------------------------------------------------------------ changes

    def set_address(self, account_id: int, typed: str) -> dict[str, Any]:
        """Store the address unverified and queue its verification mail (the same verified
        address again changes nothing and sends nothing)."""
        address = addresses.check(typed)
        now = self.clock()
        queued = False
        with self.sessions.begin() as db:
            # The account's row locked: two requests of one account count one after the other.
            account = db.get(Account, account_id, with_for_update=True)
            if account is None:
                raise Unauthorized(N_("you are not signed in"))
            row = db.get(AccountEmail, account_id)
            if (
                row is not None
                and row.verified_at is not None
                and addresses.key(row.address) == addresses.key(address)
            ):
                return state_of(row) or {}
            since = now - WINDOW
            db.execute(delete(MailSent).where(MailSent.created_at <= since))
            mine = db.scalar(
                select(func.count())
                .select_from(MailSent)
                .where(MailSent.account_id == account_id, MailSent.created_at > since)
            )
            if (mine or 0) >= PER_ACCOUNT:
                first = db.scalar(
                    select(func.min(MailSent.created_at)).where(
                        MailSent.account_id == account_id, MailSent.created_at > since
                    )
                )
                wait = (aware(first) + WINDOW - now).total_seconds() if first else WINDOW.total_seconds()
                raise TooManyRequests(max(1, math.ceil(wait)))
            if row is None:
                row = AccountEmail(account_id=account_id, address=address, created_at=now)
                db.add(row)
            row.address, row.verified_at, row.digest, row.last_digest_at = address, None, False, None
            # Mail queued for the old address is for nobody now (its links are dead).
            db.execute(delete(MailJob).where(MailJob.account_id == account_id))
            hashed = self.address_hash(address)
            theirs = db.scalar(
                select(func.count())
                .select_from(MailSent)
                .where(MailSent.address_hash == hashed, MailSent.created_at > since)
            )
            db.add(MailSent(account_id=account_id, address_hash=hashed, created_at=now))
            if (theirs or 0) < PER_ADDRESS:
                token = links.make(self.secret, links.VERIFY, account_id, address, now)
                mail = writing.verification(
                    language_of(account), account.username, self.link("/email/verify", token)
                )
                self.queue(db, account_id, "verify", address, mail, now)
                queued = True
            answer = state_of(row) or {}
        if queued:
            self.wake()
        return answer

    def remove(self, account_id: int) -> None:
        with self.sessions.begin() as db:
            db.execute(delete(MailJob).where(MailJob.account_id == account_id))
            db.execute(delete(AccountEmail).where(AccountEmail.account_id == account_id))

    def set_digest(self, account_id: int, on: bool) -> dict[str, Any]:
        with self.sessions.begin() as db:
            row = db.get(AccountEmail, account_id)
            if row is None:
                raise Conflict(N_("add an email address first"))
            if row.verified_at is None:
                raise Conflict(N_("confirm your email address first: open the link we sent to it"))
            row.digest = on
            return state_of(row) or {}

    # ------------------------------------------------------------ links

    def _by_link(self, db: Session, purpose: str, token: str) -> AccountEmail | None:
        parsed = links.parse(token)
        if parsed is None:
            return None
        row = db.get(AccountEmail, parsed.account_id, with_for_update=True)
        if row is None or not links.valid(self.secret, purpose, parsed, row.address, self.clock()):
            return None
        return row

    def verify(self, token: str) -> str:
        """Mark the address the link was sent to verified; its address (``BadLink`` if not valid)."""
        with self.sessions.begin() as db:
            row = self._by_link(db, links.VERIFY, token)
            if row is None:
                raise BadLink(BAD_VERIFY)
            if row.verified_at is None:
                row.verified_at = self.clock()
            return row.address

    def unsubscribe(self, token: str) -> None:
        """Turn the digest off for the account and address the link names (``BadLink`` if not valid)."""
        with self.sessions.begin() as db:
            row = self._by_link(db, links.UNSUBSCRIBE, token)
            if row is None:
                raise BadLink(BAD_UNSUBSCRIBE)
            db.execute(
                update(AccountEmail).where(AccountEmail.account_id == row.account_id).values(digest=False)
            )

    def unsubscribe_link(self, account_id: int, address: str) -> str:
        return self.link(
            "/email/unsubscribe", links.make(self.secret, links.UNSUBSCRIBE, account_id, address)
        )

    # ------------------------------------------------------------ the queue

    def queue(
        self, db: Session, account_id: int, kind: str, address: str, mail: writing.Mail, now: datetime
    ) -> None:
        db.add(
            MailJob(
                account_id=account_id,
                kind=kind,
                to_address=address,
                subject=mail.subject[:200],
                body=mail.body,
                unsubscribe=mail.unsubscribe,
                attempts=0,
                due_at=now,
                created_at=now,
            )
        )
