"""The chat of a match: who may read and write which room, what a line may be, the limits.

Every rule lives here; the API and the page only ask. The limits are rows in the
database (``chat_sends``), counted in the transaction that stores the line under a lock
per sender (PostgreSQL's advisory lock; SQLite's one writer), so several processes
sharing one PostgreSQL apply the same counts.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.service import aware
from app.chat.models import ChatBlock, ChatLine, ChatMute, ChatSanction, ChatSend
from app.chat.phrases import PHRASES, Gettext, phrase_text
from app.chat.text import check_text
from app.db import read_session
from app.models import Account, Match, Seat
from app.services.errors import Forbidden, Invalid, NotFound, ServiceError
from app.texts import N_

ROOMS = ("players", "spectators")
#: Lines kept per match and room; older ones are deleted as new ones come.
KEPT = 100
#: Flood: at most FLOOD_LINES lines per sender in FLOOD_WINDOW (and ADDRESS_LINES per address).
FLOOD_LINES = 4
FLOOD_WINDOW = timedelta(seconds=10)
ADDRESS_LINES = 12
#: The same line again from the same sender within this is refused.
REPEAT_WINDOW = timedelta(seconds=60)
#: Free text needs an account older than this with at least TEXT_GAMES finished games.
TEXT_AGE = timedelta(days=1)
TEXT_GAMES = 3
#: Finished games that say nothing about a player (nobody joined, ended before both moved).
UNPLAYED = ("expired", "aborted")


class TooFast(ServiceError):
    """429 with a readable reason and ``Retry-After``."""

    status_code = 429

    def __init__(self, message: str, retry_after: int, **params: object) -> None:
        super().__init__(message, **params)
        self.headers = {"Retry-After": str(max(1, retry_after))}


@dataclass(frozen=True)
class Viewer:
    """Who asks: ``hash`` as the seats know people (an account's holder or a guest
    token's hash; None: a browser with neither), the account if signed in, and the
    address's hashed rate-limit key."""

    hash: str | None
    account: Account | None
    client: str


@dataclass(frozen=True)
class Place:
    """What the rooms' rules need to know about a viewer in one match."""

    finished: bool
    side: str | None
    seat_name: str | None

    def may_read(self, room: str) -> bool:
        if room == "players":
            return self.side is not None
        # Spectators talk among themselves; the players read them once the game is over.
        return self.side is None or self.finished

    def may_write(self, room: str, signed_in: bool) -> bool:
        if room == "players":
            return self.side is not None
        return self.side is None and signed_in


def digest(phrase: str | None, said: str | None) -> str:
    key = f"p:{phrase}" if phrase is not None else f"t:{(said or '').casefold()}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def chat_key(match_id: str) -> str:
    """The broker key a match's new lines are published on (NOTIFY between processes)."""
    return f"chat:{match_id}"


class ChatService:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        clock: Callable[[], datetime],
        publish: Callable[[str, int], None],
    ) -> None:
        self.sessions = sessions
        self.clock = clock
        self.publish = publish
        self.postgres = sessions.kw["bind"].dialect.name == "postgresql"

    # ------------------------------------------------------------------ who is where

    def place(self, db: Session, match_id: str, viewer: Viewer) -> Place:
        # An id with NUL is no match's (and PostgreSQL would refuse the query).
        match = db.get(Match, match_id[:32]) if "\x00" not in match_id else None
        if match is None:
            raise NotFound(N_("there is no match %(id)s"), id=repr(match_id[:32]))
        seat = None
        if viewer.hash is not None:
            seat = db.scalar(
                select(Seat).where(
                    Seat.match_id == match.id, Seat.token_hash == viewer.hash, Seat.ai_level.is_(None)
                )
            )
        return Place(
            finished=match.status == "finished",
            side=seat.side if seat else None,
            seat_name=seat.name if seat else None,
        )

    def access(self, match_id: str, viewer: Viewer) -> Place:
        with read_session(self.sessions) as db:
            return self.place(db, match_id, viewer)

    def may_write_text(self, db: Session, account: Account | None) -> bool:
        """Free text: an account older than a day with at least three finished games
        (both sides moved; a game nobody joined or ended at once does not count)."""
        if account is None:
            return False
        if self.clock() - aware(account.created_at) <= TEXT_AGE:
            return False
        games = db.scalar(
            select(func.count())
            .select_from(Match)
            .join(Seat, Seat.match_id == Match.id)
            .where(
                Seat.token_hash == account.holder,
                Match.status == "finished",
                Match.ply >= 2,
                func.coalesce(Match.reason, "").not_in(UNPLAYED),
            )
        )
        return (games or 0) >= TEXT_GAMES

    def text_allowed(self, account: Account | None) -> bool:
        with read_session(self.sessions) as db:
            return self.may_write_text(db, account)

    # ------------------------------------------------------------------ reading

    def lines(self, match_id: str, room: str, viewer: Viewer, gettext: Gettext) -> list[dict[str, Any]]:
        """The room's lines as ``viewer`` may see them (403 for a room it may not read):
        without the lines of accounts it blocked, and a muted account's lines (all of
        them) only for itself."""
        with read_session(self.sessions) as db:
            if not self.place(db, match_id, viewer).may_read(room):
                raise Forbidden(N_("you may not read this room"))
            return self._visible(db, match_id, room, viewer, gettext)

    def _visible(
        self, db: Session, match_id: str, room: str, viewer: Viewer, gettext: Gettext
    ) -> list[dict[str, Any]]:
        # A muted account's lines are hidden from the others, those said before the
        # moderator's decision too (the reported line with them).
        query = (
            select(ChatLine, Account.username, ChatSanction.muted)
            .outerjoin(Account, Account.id == ChatLine.account_id)
            .outerjoin(ChatSanction, ChatSanction.account_id == ChatLine.account_id)
            .where(ChatLine.match_id == match_id[:32], ChatLine.room == room)
            .order_by(ChatLine.id)
        )
        blocked: set[int] = set()
        if viewer.hash is not None:
            blocked = set(db.scalars(select(ChatBlock.blocked_id).where(ChatBlock.blocker == viewer.hash)))
        answer = []
        for line, username, muted in db.execute(query):
            if (line.hidden or muted) and line.sender != viewer.hash:
                continue
            if line.account_id is not None and line.account_id in blocked:
                continue
            # "mine" is for the page (its announcements); the API's model leaves it out.
            answer.append({**self.public(line, username, gettext), "mine": line.sender == viewer.hash})
        return answer

    @staticmethod
    def public(line: ChatLine, username: str | None, gettext: Gettext) -> dict[str, Any]:
        said = phrase_text(line.phrase, gettext) if line.phrase in PHRASES else (line.text or "")
        return {
            "id": line.id,
            "from": username or line.name,
            "account": username,
            "side": line.side,
            "phrase": line.phrase,
            "text": said,
            "at": aware(line.created_at).isoformat(),
        }

    def muted(self, match_id: str, viewer_hash: str | None) -> bool:
        if viewer_hash is None:
            return False
        with read_session(self.sessions) as db:
            return "\x00" not in match_id and db.get(ChatMute, (viewer_hash, match_id[:32])) is not None

    def set_muted(self, match_id: str, viewer_hash: str, muted: bool) -> None:
        with self.sessions.begin() as db:
            if "\x00" in match_id or db.get(Match, match_id[:32]) is None:
                raise NotFound(N_("there is no match %(id)s"), id=repr(match_id[:32]))
            found = db.get(ChatMute, (viewer_hash, match_id))
            if muted and found is None:
                db.add(ChatMute(viewer=viewer_hash, match_id=match_id))
            elif not muted and found is not None:
                db.delete(found)

    # ------------------------------------------------------------------ writing

    def say(
        self,
        match_id: str,
        room: str,
        viewer: Viewer,
        gettext: Gettext,
        *,
        phrase: str | None = None,
        said: str | None = None,
    ) -> dict[str, Any]:
        """Store one line and tell the match's streams; the line as its sender sees it.

        403: a room the viewer may not write in, or timed out by a moderator; 422: no
        line, both a phrase and text, an unknown phrase, free text from a guest or a new
        account, text breaking the rules; 429: flooding or the same line again."""
        if room not in ROOMS:
            raise Invalid(N_("room: one of players, spectators"))
        if (phrase is None) == (said is None):
            raise Invalid(N_("send either a phrase or a text"))
        if phrase is not None and phrase not in PHRASES:
            raise Invalid(N_("there is no phrase %(key)s"), key=repr(phrase[:32]))
        cleaned = check_text(said) if said is not None else None
        now = self.clock()
        with self.sessions.begin() as db:
            place = self.place(db, match_id, viewer)
            if viewer.hash is None or not place.may_write(room, viewer.account is not None):
                raise Forbidden(N_("you may not write in this room"))
            if cleaned is not None and not self.may_write_text(db, viewer.account):
                raise Invalid(
                    N_(
                        "only accounts older than a day with at least %(n)s finished games may write"
                        " free text; choose a phrase"
                    ),
                    n=TEXT_GAMES,
                )
            self._lock(db, viewer)
            hidden = self._standing(db, viewer, now)
            line_digest = digest(phrase, cleaned)
            self._limits(db, viewer, line_digest, now)
            name = viewer.account.username if viewer.account is not None else (place.seat_name or "")
            line = ChatLine(
                match_id=match_id,
                room=room,
                sender=viewer.hash,
                account_id=viewer.account.id if viewer.account is not None else None,
                name=name[:64],
                side=place.side,
                phrase=phrase,
                text=cleaned,
                hidden=hidden,
                created_at=now,
            )
            db.add(line)
            db.add(ChatSend(sender=viewer.hash, client_key=viewer.client[:64], digest=line_digest, at=now))
            db.flush()
            self._trim(db, match_id, room)
            answer = self.public(line, viewer.account.username if viewer.account else None, gettext)
        self.publish(chat_key(match_id), line.id)
        return answer

    def _lock(self, db: Session, viewer: Viewer) -> None:
        # SQLite took its one writer lock at BEGIN; PostgreSQL serialises one sender's
        # (then one address's) sends, so two processes cannot both pass the same count.
        if self.postgres:
            for key in (f"chat:s:{viewer.hash}", f"chat:a:{viewer.client}"):
                db.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})

    def _standing(self, db: Session, viewer: Viewer, now: datetime) -> bool:
        """Refuses a sender a moderator timed out; True when its lines are to be hidden."""
        if viewer.account is None:
            return False
        sanction = db.get(ChatSanction, viewer.account.id)
        if sanction is None:
            return False
        if sanction.timeout_until is not None and aware(sanction.timeout_until) > now:
            minutes = math.ceil((aware(sanction.timeout_until) - now).total_seconds() / 60)
            raise Forbidden(
                N_("a moderator has timed you out of chat; you may write again in %(n)s min"), n=minutes
            )
        return sanction.muted

    def _limits(self, db: Session, viewer: Viewer, line_digest: str, now: datetime) -> None:
        db.execute(delete(ChatSend).where(ChatSend.at < now - REPEAT_WINDOW))
        recent = list(
            db.scalars(
                select(ChatSend.at)
                .where(ChatSend.sender == viewer.hash, ChatSend.at >= now - FLOOD_WINDOW)
                .order_by(ChatSend.at)
            )
        )
        if len(recent) >= FLOOD_LINES:
            wait = (aware(recent[-FLOOD_LINES]) + FLOOD_WINDOW - now).total_seconds()
            raise TooFast(
                N_("at most %(n)s lines in %(s)s seconds; wait a moment"),
                int(wait) + 1,
                n=FLOOD_LINES,
                s=int(FLOOD_WINDOW.total_seconds()),
            )
        from_address = db.scalar(
            select(func.count())
            .select_from(ChatSend)
            .where(ChatSend.client_key == viewer.client[:64], ChatSend.at >= now - FLOOD_WINDOW)
        )
        if (from_address or 0) >= ADDRESS_LINES:
            raise TooFast(
                N_("too many lines from your address; wait a moment"), int(FLOOD_WINDOW.total_seconds())
            )
        again = db.scalar(
            select(func.max(ChatSend.at)).where(
                ChatSend.sender == viewer.hash,
                ChatSend.digest == line_digest,
                ChatSend.at >= now - REPEAT_WINDOW,
            )
        )
        if again is not None:
            wait = (aware(again) + REPEAT_WINDOW - now).total_seconds()
            raise TooFast(N_("you said that less than a minute ago"), int(wait) + 1)

    @staticmethod
    def _trim(db: Session, match_id: str, room: str) -> None:
        """Keeps the room's last KEPT lines."""
        oldest_kept = db.scalar(
            select(ChatLine.id)
            .where(ChatLine.match_id == match_id, ChatLine.room == room)
            .order_by(ChatLine.id.desc())
            .offset(KEPT - 1)
            .limit(1)
        )
        if oldest_kept is not None:
            db.execute(
                delete(ChatLine).where(
                    ChatLine.match_id == match_id, ChatLine.room == room, ChatLine.id < oldest_kept
                )
            )
