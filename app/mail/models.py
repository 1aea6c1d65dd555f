"""The email tables (migration 0016). Alembic owns the schema."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from app.models import Base, utcnow


class AccountEmail(Base):
    """An account's one address. Not unique across accounts: a second account may add an
    address another has (the answer must not say whether one does), and only a click on
    the link sent to it verifies it for that account."""

    __tablename__ = "account_emails"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    #: As typed (the domain is compared without regard to case: ``addresses.key``).
    address: Mapped[str] = mapped_column(String(254))
    verified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: Opted in to the daily digest (only ever true once verified).
    digest: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    #: When the last digest was queued: the next waits 24 hours (claimed by a conditional
    #: UPDATE, so two processes never queue two).
    last_digest_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MailJob(Base):
    """One email to send, queued with the change that asks for it; the sender's queue."""

    __tablename__ = "mail_jobs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: Whose mail: closing the account deletes what is still queued (CASCADE).
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # verify | digest
    to_address: Mapped[str] = mapped_column(String(254))
    subject: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    #: The digest's unsubscribe link (List-Unsubscribe); none on a verification mail.
    unsubscribe: Mapped[str | None] = mapped_column(Text)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    due_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class MailSent(Base):
    """One verification mail queued: the limits per account and per address count these
    (swept after a day). The address is kept only as an HMAC with the site's key, and the
    account id is cleared when the account closes, so a closed account's address is not
    here in any readable form, while the limit per address still holds."""

    __tablename__ = "mail_sends"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="SET NULL"), index=True)
    address_hash: Mapped[str] = mapped_column(String(64), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
