"""The Web Push tables (migration 0013). Alembic owns the schema."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models import Base, utcnow


class PushSubscription(Base):
    """A browser's PushSubscription, owned by its player token.

    When accounts land an ``account_id`` column (nullable) joins ``token_hash``: a
    subscription made while signed in is the account's, and the pushes for the account's
    seats go to it from any browser; the limit of 5 then counts per account.
    """

    __tablename__ = "push_subscriptions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), index=True)
    endpoint: Mapped[str] = mapped_column(Text, unique=True)
    p256dh: Mapped[str] = mapped_column(String(200))
    auth: Mapped[str] = mapped_column(String(100))
    #: The language the pushes are written in (the page's when it subscribed).
    lang: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class VapidKey(Base):
    """The server's one VAPID key pair, made on first start unless given as a setting."""

    __tablename__ = "vapid_keys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    private_pem: Mapped[str] = mapped_column(Text)


class PushJob(Base):
    """One push to one subscription, queued after the change's commit; the sender's queue."""

    __tablename__ = "push_jobs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    subscription_id: Mapped[int] = mapped_column(
        ForeignKey("push_subscriptions.id", ondelete="CASCADE"), index=True
    )
    #: The clear-text JSON {"title", "body", "url", "tag"}, encrypted when sent.
    payload: Mapped[str] = mapped_column(Text)
    topic: Mapped[str] = mapped_column(String(32))
    urgency: Mapped[str] = mapped_column(String(8))
    ttl: Mapped[int] = mapped_column(Integer)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    due_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
