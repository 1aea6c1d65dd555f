"""Database tables (SQLAlchemy 2.0 typed mappings). Alembic owns the schema."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    false,
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
    #: Asked for a rated game (issue 31): both seats need accounts; the finish rates it.
    rated: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    initial_position: Mapped[str] = mapped_column(Text)
    position: Mapped[str] = mapped_column(Text)
    ply: Mapped[int] = mapped_column(Integer, default=0)
    winner: Mapped[str | None] = mapped_column(String(4))
    reason: Mapped[str | None] = mapped_column(String(32))
    #: The side that offers a draw / a takeback, until answered or a move is made.
    draw_offer: Mapped[str | None] = mapped_column(String(4))
    takeback_offer: Mapped[str | None] = mapped_column(String(4))
    rematch_id: Mapped[str | None] = mapped_column(String(16))
    #: Every move's notation so far, one a line, oldest first: the moves table's
    #: notations, kept here so that answering a move needs only this row.
    notations: Mapped[str] = mapped_column(Text, default="", server_default="")
    #: On a finished match: the side that offers a rematch, until it is answered.
    rematch_offer: Mapped[str | None] = mapped_column(String(4))
    #: Bumped on every change; it is the id of the match's server-sent events.
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: When the player to move got the position: think times are measured from here.
    turn_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: Set while the computer is to move: the work queue of computer replies lives here.
    ai_turn_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    #: A worker that took the computer's turn holds it until then (then anyone may retry).
    ai_claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    ladder_run_id: Mapped[str | None] = mapped_column(
        ForeignKey("ladder_runs.id", ondelete="SET NULL"), index=True
    )
    #: The time control as JSON (app/services/clocks.py), null for an untimed match.
    time_control: Mapped[str | None] = mapped_column(Text)
    #: JSON {side: milliseconds left when the current turn began}; null when untimed.
    clocks: Mapped[str | None] = mapped_column(Text)
    #: When the side to move's turn (its clock, or its grace period) began.
    clock_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: When the side to move runs out, or a match nobody joined expires: the deadline
    #: worker's queue (any process finishes a match whose deadline has passed).
    deadline: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    #: The ply at which the side to move was told its correspondence clock is under an
    #: hour (app/push/clock_warnings.py): each turn is warned once, by one process.
    warned_ply: Mapped[int | None] = mapped_column(Integer)
    #: A hash of the creating client's address (the rate-limit key): open seeks per client.
    client_key: Mapped[str | None] = mapped_column(String(64), index=True)

    seats: Mapped[list[Seat]] = relationship(
        back_populates="match", order_by="Seat.side", cascade="all, delete-orphan"
    )
    #: Not a column: a finished rated match's changes, set by the read that loads it
    #: (``__allow_unmapped__`` lets the ORM leave this plain annotation alone).
    __allow_unmapped__ = True
    rating_changes: dict[str, dict[str, float]] | None = None
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
    #: The token hash that held the seat before a "continue on another device" link moved
    #: it: that browser is told its seat moved.
    moved_from_hash: Mapped[str | None] = mapped_column(String(64))
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Refreshed while this seat's browser holds an event stream open (abandonment claims).
    last_seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    match: Mapped[Match] = relationship(back_populates="seats")


class MoveRecord(Base):
    __tablename__ = "moves"
    __table_args__ = (
        UniqueConstraint("match_id", "ply"),
        # A threefold repetition is a count of the moves with the same code.
        Index("ix_moves_match_id_repetition", "match_id", "repetition"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    #: 1 for the first move of the match.
    ply: Mapped[int] = mapped_column(Integer)
    side: Mapped[str] = mapped_column(String(4))
    notation: Mapped[str] = mapped_column(String(128))
    position_after: Mapped[str] = mapped_column(Text)
    think_ms: Mapped[int | None] = mapped_column(Integer)
    #: JSON {side: milliseconds left} right after this move (a takeback restores it).
    clocks_after: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: ``Game.repetition_code`` of the position after the move; None where no repetition rule.
    repetition: Mapped[str | None] = mapped_column(Text)

    match: Mapped[Match] = relationship(back_populates="moves")


class LadderRun(Base):
    """A solo Bashni streak: the player (always White) against opponents 1, 2, … 18."""

    __tablename__ = "ladder_runs"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str] = mapped_column(String(64), index=True)
    status: Mapped[str] = mapped_column(String(16), index=True)  # playing | finished
    #: The opponent of the current (or, once finished, the last) game.
    opponent: Mapped[int] = mapped_column(Integer, default=1)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    #: Total think time of the player in the games they won, in milliseconds.
    think_ms_won: Mapped[int] = mapped_column(Integer, default=0)
    score: Mapped[int] = mapped_column(Integer, default=0, index=True)
    match_id: Mapped[str | None] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ImportedRecord(Base):
    """A game read from a record (issue 18): replayed and analysed, never played on."""

    __tablename__ = "game_records"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    initial_position: Mapped[str] = mapped_column(Text)
    position: Mapped[str] = mapped_column(Text)
    #: JSON lists: the plies in notation, and every position (start first).
    moves: Mapped[str] = mapped_column(Text)
    positions: Mapped[str] = mapped_column(Text)
    #: JSON list of [name, value] tag pairs as read (Event, White, …).
    tags: Mapped[str] = mapped_column(Text, default="[]")
    winner: Mapped[str | None] = mapped_column(String(4))
    #: None while the record's game is unfinished.
    reason: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Review(Base):
    """The computer's review of one line of play, keyed by what was played, not by whom.

    The key is a hash of game, start and moves, so a match and an imported copy of it
    share one review, and asking twice computes once. The table is the work queue:
    ``status`` queued -> running -> done (or failed), claimed with a lease like the
    computer's turns.
    """

    __tablename__ = "reviews"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(16))
    initial_position: Mapped[str] = mapped_column(Text)
    moves: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    #: Positions analysed so far, of ``total`` (one per ply plus the start).
    done: Mapped[int] = mapped_column(Integer, default=0)
    total: Mapped[int] = mapped_column(Integer)
    #: JSON list, one entry per position (null until computed).
    results: Mapped[str] = mapped_column(Text, default="[]")
    error: Mapped[str | None] = mapped_column(Text)
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: Who asked (the player's token hash) and from where (the hashed rate-limit key): the
    #: quotas of queued reviews and the round robin between requesters (app/review_queue.py).
    requester: Mapped[str | None] = mapped_column(String(64), index=True)
    client_key: Mapped[str | None] = mapped_column(String(64), index=True)


class SiteHeartbeat(Base):
    """One row: the last moment some process of the site was up (app/heartbeat.py)."""

    __tablename__ = "site_heartbeat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    beat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class HealthProbe(Base):
    """One row that /healthz writes, so a database that cannot be written is reported."""

    __tablename__ = "health_probe"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    checked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class PlayerRating(Base):
    """One account's Glicko-2 rating in one game and category (issue 31, app/ratings/)."""

    __tablename__ = "ratings"
    __table_args__ = (
        UniqueConstraint("account_id", "game", "category"),
        # The leaderboards: best first within a game and category.
        Index("ix_ratings_board", "game", "category", "rating"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(16))
    #: realtime | correspondence
    category: Mapped[str] = mapped_column(String(16))
    #: Unrounded Glicko-2 values on the displayed scale (app/ratings/glicko2.py).
    rating: Mapped[float] = mapped_column()
    rd: Mapped[float] = mapped_column()
    volatility: Mapped[float] = mapped_column()
    #: Rated games played in this game and category.
    games: Mapped[int] = mapped_column(Integer, default=0)
    #: When the last of them finished: the inactivity before the next one runs from here.
    last_game_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class RatingChange(Base):
    """What one rated game did to one side's rating: the history and the match's "+12"."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("match_id", "side"),
        # An account's history in one game and category, oldest first.
        Index("ix_rating_changes_history", "account_id", "game", "category", "at"),
        # The damping of repeated pairings counts a pair's recent games.
        Index("ix_rating_changes_pair", "account_id", "opponent_id", "at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: Null once the match is deleted (retention): the history outlives it.
    match_id: Mapped[str | None] = mapped_column(ForeignKey("matches.id", ondelete="SET NULL"))
    side: Mapped[str] = mapped_column(String(4))
    #: accounts.id of this side and of the other (the opponent's history row stays, unnamed).
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    opponent_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="SET NULL"))
    game: Mapped[str] = mapped_column(String(16))
    category: Mapped[str] = mapped_column(String(16))
    before: Mapped[float] = mapped_column()
    after: Mapped[float] = mapped_column()
    delta: Mapped[float] = mapped_column()
    #: The repeated-pairing factor the change was multiplied by (1: none).
    damping: Mapped[float] = mapped_column(default=1.0)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ------------------------------------------------------------------ accounts (issue 30)


class Account(Base):
    """A person who signed up. Seats and ladder runs it owns hold its ``holder`` hash.

    ``holder`` is the SHA-256 of 32 random bytes that were never stored nor sent: no
    browser can present a token that hashes to it, so only a signed-in session (which
    maps to the account, hence to ``holder``) plays the account's seats. Claiming a
    guest's rows is one UPDATE from the guest's token hash to ``holder``.
    """

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(20))
    #: ``username.casefold()``: unique, so "Ana" and "ana" cannot both exist.
    username_key: Mapped[str] = mapped_column(String(20), unique=True)
    holder: Mapped[str] = mapped_column(String(64), unique=True)
    #: Argon2id (argon2-cffi's encoded form), or None for a passkey-only account.
    password_hash: Mapped[str | None] = mapped_column(Text)
    #: WebAuthn user handle (base64url of 32 random bytes); never the username.
    user_handle: Mapped[str] = mapped_column(String(64), unique=True)
    #: JSON object of preferences (language, sound, dark, flip, large_board).
    preferences: Mapped[str] = mapped_column(Text, default="{}")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AccountSession(Base):
    """A signed-in browser. The cookie holds a random id; only its SHA-256 is stored."""

    __tablename__ = "account_sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    #: The browser's own description of itself (User-Agent, cut), for the devices list.
    device: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Passkey(Base):
    __tablename__ = "passkeys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    #: base64url of the credential id the authenticator chose.
    credential_id: Mapped[str] = mapped_column(String(1400), unique=True)
    public_key: Mapped[bytes] = mapped_column(LargeBinary)
    sign_count: Mapped[int] = mapped_column(Integer, default=0)
    name: Mapped[str] = mapped_column(String(64), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class RecoveryCode(Base):
    """One-time codes shown once; stored as SHA-256 (each code holds 80 random bits)."""

    __tablename__ = "recovery_codes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"), index=True)
    code_hash: Mapped[str] = mapped_column(String(64), index=True)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class SignInFailure(Base):
    """Failed sign-ins counted per username and per address, in the database so that
    every process sees the same counts."""

    __tablename__ = "sign_in_failures"

    #: "user:<casefolded name>" or "addr:<hashed client key>".
    key: Mapped[str] = mapped_column(String(96), primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)
    window_start: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RateBucket(Base):
    """A token bucket of a rate limit that every process counts alike (app/rate_limits.py,
    ``SharedBuckets``); deleted an hour after its last use (app/services/cleanup.py)."""

    __tablename__ = "rate_buckets"

    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    #: ``rate_limits.hashed_key`` of the client's key: never the address itself.
    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    #: Seconds since the epoch when ``tokens`` was counted.
    updated: Mapped[float] = mapped_column(Float, index=True)


class WebAuthnCeremony(Base):
    """A passkey ceremony between its options and its verification: the challenge is
    kept here (not in a process's memory), used once and only for a few minutes."""

    __tablename__ = "webauthn_ceremonies"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    #: signup | add | signin
    purpose: Mapped[str] = mapped_column(String(16))
    challenge: Mapped[str] = mapped_column(String(128))
    #: The account adding a passkey; None for sign-up and sign-in.
    account_id: Mapped[int | None] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    #: Sign-up: the username asked for, and the user handle offered to the authenticator.
    username: Mapped[str | None] = mapped_column(String(20))
    user_handle: Mapped[str | None] = mapped_column(String(64))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
