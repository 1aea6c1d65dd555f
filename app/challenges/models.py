"""The ``challenges`` table (migration 0017). Alembic owns the schema."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models import Base, utcnow


class Challenge(Base):
    """One account's invitation to another for one game with these settings."""

    __tablename__ = "challenges"
    __table_args__ = (
        # The challenged account's pending list (the header's count) and the challenger's.
        Index("ix_challenges_to", "to_account_id", "status"),
        Index("ix_challenges_from", "from_account_id", "status"),
    )

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    #: Both go with their account (closing it deletes its challenges, either way).
    from_account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    to_account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(16))
    #: The canonical JSON of the time control (clocks.dumps), "" for untimed.
    time_control: Mapped[str] = mapped_column(Text, default="")
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The challenger's side: first | second | random.
    side: Mapped[str] = mapped_column(String(8))
    #: pending | accepting (its match being made) | accepted | declined | cancelled
    status: Mapped[str] = mapped_column(String(16))
    #: One of service.DECLINE_REASONS when declined.
    decline_reason: Mapped[str | None] = mapped_column(String(16))
    match_id: Mapped[str | None] = mapped_column(String(16))
    #: A hash of the challenger's address: the per-address limit.
    client_key: Mapped[str | None] = mapped_column(String(64))
    #: Real-time and untimed challenges live while the challenger is on the site (its
    #: pages stamp ``last_seen_at``); all of them at most ``expires_at`` (24 h).
    needs_presence: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    answered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: The challenger was sent to the match once (its pages redirect it a single time).
    seen_by_challenger: Mapped[bool] = mapped_column(Boolean, default=False)
