"""The chat's tables (migration 0015, issue 33). Alembic owns the schema."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, Text, false
from sqlalchemy.orm import Mapped, mapped_column

from app.models import Base, utcnow


class ChatLine(Base):
    """One line said in a room of a match; the last ``service.KEPT`` of a room are kept."""

    __tablename__ = "chat_lines"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    #: players | spectators
    room: Mapped[str] = mapped_column(String(16))
    #: Who said it as the seats know people: an account's holder or a guest token's hash.
    sender: Mapped[str] = mapped_column(String(64))
    #: The account that said it (null: a guest); its lines go with it.
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    #: The name shown: the account's username, or the guest seat's display name.
    name: Mapped[str] = mapped_column(String(64))
    #: The speaker's side in the match (null for a spectator).
    side: Mapped[str | None] = mapped_column(String(4))
    #: A phrase's key (shown in each reader's language), or null for free text.
    phrase: Mapped[str | None] = mapped_column(String(32))
    #: Free text as typed (checked, never escaped here: pages escape it when shown).
    text: Mapped[str | None] = mapped_column(Text)
    #: Said by an account muted for good: shown to that account only.
    hidden: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatSend(Base):
    """What was sent when, by whom and from which address: the flood and repeat limits
    count these rows (in the database, so every process sees the same counts). Rows
    older than a minute are no longer needed and go with the next send."""

    __tablename__ = "chat_sends"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sender: Mapped[str] = mapped_column(String(64))
    client_key: Mapped[str] = mapped_column(String(64))
    #: SHA-256 of the line (its phrase key, or its text casefolded): "the same line".
    digest: Mapped[str] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class ChatBlock(Base):
    """``blocker`` (a holder or a guest token's hash) no longer sees ``blocked``'s lines;
    ``blocked`` cannot pair with the blocker's seeks."""

    __tablename__ = "chat_blocks"

    blocker: Mapped[str] = mapped_column(String(64), primary_key=True)
    blocked_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatMute(Base):
    """A viewer who muted the chat of one match (its panel shows no lines there)."""

    __tablename__ = "chat_mutes"

    viewer: Mapped[str] = mapped_column(String(64), primary_key=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)


class ChatReport(Base):
    __tablename__ = "chat_reports"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: Who reported (a holder or a guest token's hash): never shown, only counted.
    reporter: Mapped[str] = mapped_column(String(64))
    reported_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    line_id: Mapped[int | None] = mapped_column(ForeignKey("chat_lines.id", ondelete="SET NULL"))
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id", ondelete="SET NULL"))
    reason: Mapped[str] = mapped_column(Text)
    #: JSON list of the lines around the reported one (or the account's last lines in the
    #: match), copied when reported: the room keeps only its last lines.
    context: Mapped[str] = mapped_column(Text, default="[]", server_default="[]")
    #: open | timeout | muted | dismissed
    status: Mapped[str] = mapped_column(String(16), default="open")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    resolved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Moderator(Base):
    """An account granted the moderator role (``python -m app.manage moderator NAME``)."""

    __tablename__ = "moderators"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    granted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatSanction(Base):
    """A moderator's decision about an account's chat: out until a moment, or muted for
    good (its lines are then shown to itself only)."""

    __tablename__ = "chat_sanctions"

    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True)
    timeout_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    muted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class ModerationEntry(Base):
    """Who did what to whom, and when; the names are kept as text so the log outlives
    the accounts."""

    __tablename__ = "moderation_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    moderator_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="SET NULL"))
    moderator_name: Mapped[str] = mapped_column(String(20))
    #: timeout | mute | dismiss
    action: Mapped[str] = mapped_column(String(16))
    target_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="SET NULL"))
    target_name: Mapped[str] = mapped_column(String(20))
    report_id: Mapped[int | None] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
