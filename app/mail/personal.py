"""The email rows as personal data: in the account's export, gone when it closes.

Read and deleted in the caller's session (``app/accounts/data.py``), whether or not the
site sends email now: an address stored while ``SMTP_URL`` was set is still the
account's data after it is unset.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from app.mail.models import AccountEmail, MailJob, MailSent


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).isoformat()


def export(db: Session, account_id: int) -> dict[str, Any] | None:
    """The account's address and its state, or None without one."""
    row = db.get(AccountEmail, account_id)
    if row is None:
        return None
    queued = db.scalar(select(func.count()).select_from(MailJob).where(MailJob.account_id == account_id))
    return {
        "address": row.address,
        "verified_at": _iso(row.verified_at),
        "digest": row.digest,
        "last_digest_at": _iso(row.last_digest_at),
        "added_at": _iso(row.created_at),
        "mails_queued": queued or 0,
    }


def forget(db: Session, account_id: int) -> None:
    """The address and every mail still queued go; a counted verification mail keeps only
    its HMAC of the address (the limit per address), no longer the account's."""
    db.execute(delete(MailJob).where(MailJob.account_id == account_id))
    db.execute(delete(AccountEmail).where(AccountEmail.account_id == account_id))
    db.execute(update(MailSent).where(MailSent.account_id == account_id).values(account_id=None))
