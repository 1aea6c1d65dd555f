"""Blocks and reports: what a player can do about another account.

A block hides the blocked account's lines from the blocker and keeps the two from being
paired by "Play anyone" (``blocked_between``, asked by the seeks' pairing query). A
report names an account, a reason and optionally one line; the lines around it are
copied into the report, since a room keeps only its last lines.

An unknown username is a 404 here as it is for ``GET /api/users/{username}``: profiles
are public, so telling that a name does not exist reveals nothing new.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, or_, select
from sqlalchemy.orm import InstrumentedAttribute, Session, sessionmaker

from app.accounts.service import aware
from app.accounts.usernames import USERNAME_PATTERN
from app.chat.models import ChatBlock, ChatLine, ChatReport
from app.chat.phrases import PHRASES
from app.chat.service import ChatService, TooFast, Viewer
from app.chat.text import check_text
from app.models import Account
from app.services.errors import Forbidden, Invalid, NotFound
from app.texts import N_

#: Reports one reporter may file in REPORT_WINDOW.
REPORTS = 5
REPORT_WINDOW = timedelta(minutes=10)
#: Lines copied into a report: the reported one and up to CONTEXT - 1 before it.
CONTEXT = 6
MAX_REASON = 500
_USERNAME = re.compile(USERNAME_PATTERN)


def account_named(db: Session, username: str) -> Account:
    # A name no account can have is unknown without a query (PostgreSQL refuses NUL).
    found = _USERNAME.fullmatch(username)
    account = db.scalar(select(Account).where(Account.username_key == username.lower())) if found else None
    if account is None:
        raise NotFound(N_("there is no player named %(name)s"), name=username[:40])
    return account


def blocked_between(me: str, other: ColumnElement[str] | InstrumentedAttribute[str]) -> ColumnElement[bool]:
    """SQL: ``me`` (a holder or token hash) blocked the account holding ``other``, or
    that account blocked ``me``."""
    blocked = Account.__table__.alias("blocked_account")
    return exists(
        select(ChatBlock.blocker)
        .join(blocked, blocked.c.id == ChatBlock.blocked_id)
        .where(
            or_(
                and_(ChatBlock.blocker == me, blocked.c.holder == other),
                and_(ChatBlock.blocker == other, blocked.c.holder == me),
            )
        )
    )


def line_words(line: ChatLine) -> dict[str, Any]:
    """A line as a report keeps it (phrases by their English text)."""
    return {
        "id": line.id,
        "from": line.name,
        "side": line.side,
        "text": PHRASES.get(line.phrase or "", line.text or ""),
        "at": aware(line.created_at).isoformat(),
        "reported": False,
    }


class Safety:
    def __init__(
        self, sessions: sessionmaker[Session], chat: ChatService, clock: Callable[[], datetime]
    ) -> None:
        self.sessions = sessions
        self.chat = chat
        self.clock = clock

    # ------------------------------------------------------------------ blocks

    def block(self, blocker: str, username: str, blocker_account: Account | None) -> None:
        with self.sessions.begin() as db:
            account = account_named(db, username)
            if blocker_account is not None and account.id == blocker_account.id:
                raise Invalid(N_("you cannot block yourself"))
            if db.get(ChatBlock, (blocker, account.id)) is None:
                db.add(ChatBlock(blocker=blocker, blocked_id=account.id, created_at=self.clock()))

    def unblock(self, blocker: str, username: str) -> None:
        with self.sessions.begin() as db:
            account = account_named(db, username)
            found = db.get(ChatBlock, (blocker, account.id))
            if found is not None:
                db.delete(found)

    # ------------------------------------------------------------------ reports

    def report(self, viewer: Viewer, username: str, reason: str, line_id: int | None) -> dict[str, Any]:
        """File a report (201); 404 for an unknown account or a line the reporter cannot
        read or that is not that account's; 429 past REPORTS in REPORT_WINDOW."""
        if viewer.hash is None:
            raise Forbidden(N_("only a player or a signed-in reader can report"))
        cleaned = check_text(reason) if len(reason) <= MAX_REASON else None
        if cleaned is None:
            raise Invalid(N_("a reason has at most %(n)s characters"), n=MAX_REASON)
        now = self.clock()
        with self.sessions.begin() as db:
            account = account_named(db, username)
            if viewer.account is not None and viewer.account.id == account.id:
                raise Invalid(N_("you cannot report yourself"))
            filed = db.scalar(
                select(func.count())
                .select_from(ChatReport)
                .where(ChatReport.reporter == viewer.hash, ChatReport.created_at >= now - REPORT_WINDOW)
            )
            if (filed or 0) >= REPORTS:
                raise TooFast(N_("you have reported enough for now; wait a few minutes"), 600)
            context: list[dict[str, Any]] = []
            match_id = None
            if line_id is not None:
                line = db.get(ChatLine, line_id)
                readable = (
                    line is not None
                    and line.account_id == account.id
                    and not line.hidden
                    and self.chat.place(db, line.match_id, viewer).may_read(line.room)
                )
                if line is None or not readable:
                    raise NotFound(N_("there is no such line of %(name)s"), name=account.username)
                match_id = line.match_id
                before = db.scalars(
                    select(ChatLine)
                    .where(
                        ChatLine.match_id == line.match_id, ChatLine.room == line.room, ChatLine.id <= line.id
                    )
                    .order_by(ChatLine.id.desc())
                    .limit(CONTEXT)
                )
                context = [line_words(found) for found in reversed(list(before))]
                context[-1]["reported"] = True
            report = ChatReport(
                reporter=viewer.hash,
                reported_id=account.id,
                line_id=line_id,
                match_id=match_id,
                reason=cleaned,
                context=json.dumps(context, ensure_ascii=False),
                status="open",
                created_at=now,
            )
            db.add(report)
            db.flush()
            return {"id": report.id, "username": account.username, "status": report.status}
