"""The ``seeks`` table (migration 0013). Alembic owns the schema."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.models import Base, utcnow


class Seek(Base):
    """One player's wish to play anyone with the same game, time control and rated flag.

    The owner is the browser's player token (``token_hash``). When accounts land, an
    ``account_id`` column (nullable) joins it: a seek made while signed in carries the
    account, "never yourself" and the per-player limit then compare the account when
    both seeks have one, and ``rating`` is the account's rating in that game.
    """

    __tablename__ = "seeks"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    #: The time control's canonical JSON (clocks.dumps; sorted keys), "" for untimed,
    #: so "the same time control" is a string comparison in SQL.
    time_control: Mapped[str] = mapped_column(Text, default="")
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    #: Lives only while its creator's page is open (real time and untimed), or until
    #: ``expires_at`` (correspondence: 7 days).
    needs_presence: Mapped[bool] = mapped_column(Boolean, default=True)
    #: The opponent's rating must lie in [range_min, range_max] (both null: anyone).
    range_min: Mapped[int | None] = mapped_column(Integer)
    range_max: Mapped[int | None] = mapped_column(Integer)
    #: The seeker's rating in this game; null for a guest (guests seek casual games only).
    rating: Mapped[int | None] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), index=True)
    #: A hash of the creator's address: the per-address limit on open seeks.
    client_key: Mapped[str | None] = mapped_column(String(64), index=True)
    #: waiting | pairing (being made a match) | paired | cancelled | expired
    status: Mapped[str] = mapped_column(String(16))
    match_id: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Stamped by the creator's open event stream; a presence seek unseen for
    #: ``service.PRESENCE_GRACE`` is expired.
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (Index("ix_seeks_open", "status", "game", "created_at"),)
