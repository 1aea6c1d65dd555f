"""Puzzle ratings' tables (migration 0019). Alembic owns the schema."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.models import Base, utcnow


class PuzzleRating(Base):
    """One shipped puzzle's Glicko-2 rating, created at its first rated attempt (until
    then the puzzle has the starting rating the data file gives it)."""

    __tablename__ = "puzzle_ratings"

    #: The id in games/puzzles/data/<game>.jsonl.
    puzzle_id: Mapped[str] = mapped_column(String(20), primary_key=True)
    game: Mapped[str] = mapped_column(String(16), index=True)
    rating: Mapped[float] = mapped_column()
    rd: Mapped[float] = mapped_column()
    volatility: Mapped[float] = mapped_column()
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    solved: Mapped[int] = mapped_column(Integer, default=0)


class PuzzlePlayer(Base):
    """One account's puzzle rating in one game."""

    __tablename__ = "puzzle_players"
    __table_args__ = (UniqueConstraint("account_id", "game"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(16))
    rating: Mapped[float] = mapped_column()
    rd: Mapped[float] = mapped_column()
    volatility: Mapped[float] = mapped_column()
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    #: The last rated attempt: the deviation grows with the time since (as for games).
    last_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class PuzzleAttempt(Base):
    """An account's first attempt at a puzzle, the only one that is rated."""

    __tablename__ = "puzzle_attempts"
    __table_args__ = (
        UniqueConstraint("account_id", "puzzle_id"),
        Index("ix_puzzle_attempts_recent", "account_id", "at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    puzzle_id: Mapped[str] = mapped_column(String(20))
    game: Mapped[str] = mapped_column(String(16))
    solved: Mapped[bool] = mapped_column(Boolean)
    #: The account's puzzle rating before and after this attempt.
    before: Mapped[float] = mapped_column()
    after: Mapped[float] = mapped_column()
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
