"""Database tables (SQLAlchemy 2.0 typed mappings). Alembic owns the schema."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class Match(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    #: Engine options as JSON text (e.g. a Bashni handicap), "{}" for none.
    options: Mapped[str] = mapped_column(Text, default="{}")
    status: Mapped[str] = mapped_column(String(16), index=True)  # waiting | playing | finished
    public: Mapped[bool] = mapped_column(Boolean, default=False)
    initial_position: Mapped[str] = mapped_column(Text)
    position: Mapped[str] = mapped_column(Text)
    ply: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[str | None] = mapped_column(String(4))
    reason: Mapped[str | None] = mapped_column(String(32))
    #: The side that offers a draw / a takeback, until answered or a move is made.
    draw_offer: Mapped[str | None] = mapped_column(String(4))
    takeback_offer: Mapped[str | None] = mapped_column(String(4))
    rematch_id: Mapped[str | None] = mapped_column(String(16))
    #: Bumped on every change; it is the id of the match's server-sent events.
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    seats: Mapped[list[Seat]] = relationship(
        back_populates="match", order_by="Seat.side", cascade="all, delete-orphan"
    )
    moves: Mapped[list[MoveRecord]] = relationship(
        back_populates="match", order_by="MoveRecord.ply", cascade="all, delete-orphan"
    )


class Seat(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("match_id", "side"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    side: Mapped[str] = mapped_column(String(4))
    name: Mapped[str] = mapped_column(String(64))
    #: SHA-256 of the browser's player token; the token itself lives only in its cookie.
    token_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    #: The computer's level when this seat is played by the computer.
    ai_level: Mapped[int | None] = mapped_column(Integer)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    match: Mapped[Match] = relationship(back_populates="seats")


class MoveRecord(Base):
    __tablename__ = "moves"
    __table_args__ = (UniqueConstraint("match_id", "ply"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    #: 1 for the first move of the match.
    ply: Mapped[int] = mapped_column(Integer)
    side: Mapped[str] = mapped_column(String(4))
    notation: Mapped[str] = mapped_column(String(128))
    position_after: Mapped[str] = mapped_column(Text)
    think_ms: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    match: Mapped[Match] = relationship(back_populates="moves")
