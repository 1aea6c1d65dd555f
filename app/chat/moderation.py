"""Moderation: the role, the open reports, and the three decisions (time out for 15
minutes, mute for good, dismiss), each written to ``moderation_log`` with who and when."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.accounts.service import aware
from app.chat.models import ChatReport, ChatSanction, ModerationEntry, Moderator
from app.chat.safety import account_named
from app.db import read_session
from app.models import Account
from app.services.errors import Conflict, Forbidden, Invalid, NotFound
from app.texts import N_

TIMEOUT = timedelta(minutes=15)
ACTIONS = ("timeout", "mute", "dismiss")
#: What each decision leaves the report as.
STATUS = {"timeout": "timeout", "mute": "muted", "dismiss": "dismissed"}


def grant(sessions: sessionmaker[Session], username: str, clock: Callable[[], datetime]) -> str:
    """Make the account a moderator (``python -m app.manage moderator NAME``); its name."""
    with sessions.begin() as db:
        account = account_named(db, username)
        if db.get(Moderator, account.id) is None:
            db.add(Moderator(account_id=account.id, granted_at=clock()))
        return account.username


class Moderation:
    def __init__(self, sessions: sessionmaker[Session], clock: Callable[[], datetime]) -> None:
        self.sessions = sessions
        self.clock = clock

    def is_moderator(self, account: Account | None) -> bool:
        if account is None:
            return False
        with read_session(self.sessions) as db:
            return db.get(Moderator, account.id) is not None

    def _require(self, db: Session, account: Account | None) -> Account:
        if account is None or db.get(Moderator, account.id) is None:
            raise Forbidden(N_("only moderators may see this page"))
        return account

    def open_reports(self, moderator: Account | None) -> list[dict[str, Any]]:
        """Open reports, oldest first, each with its reported account and context lines."""
        with self.sessions() as db:
            self._require(db, moderator)
            rows = db.execute(
                select(ChatReport, Account.username)
                .join(Account, Account.id == ChatReport.reported_id)
                .where(ChatReport.status == "open")
                .order_by(ChatReport.created_at, ChatReport.id)
                .limit(200)
            )
            return [
                {
                    "id": report.id,
                    "username": username,
                    "reason": report.reason,
                    "match_id": report.match_id,
                    "at": aware(report.created_at),
                    "context": json.loads(report.context or "[]"),
                }
                for report, username in rows
            ]

    def log(self, moderator: Account | None, limit: int = 50) -> list[ModerationEntry]:
        with self.sessions() as db:
            self._require(db, moderator)
            return list(db.scalars(select(ModerationEntry).order_by(ModerationEntry.id.desc()).limit(limit)))

    def decide(self, moderator: Account | None, report_id: int, action: str) -> str:
        """Apply ``action`` to the report's account and close the report; the report's
        new status. 403 for a non-moderator, 404 no such report, 409 already decided."""
        if action not in ACTIONS:
            raise Invalid(N_("action: one of timeout, mute, dismiss"))
        now = self.clock()
        with self.sessions.begin() as db:
            judge = self._require(db, moderator)
            report = db.get(ChatReport, report_id, with_for_update=True)
            if report is None:
                raise NotFound(N_("there is no report %(id)s"), id=report_id)
            if report.status != "open":
                raise Conflict(N_("this report was already decided"))
            target = db.get(Account, report.reported_id)
            if target is None:  # pragma: no cover - the report goes with the account
                raise NotFound(N_("there is no report %(id)s"), id=report_id)
            if action != "dismiss":
                sanction = db.get(ChatSanction, target.id)
                if sanction is None:
                    sanction = ChatSanction(account_id=target.id, muted=False)
                    db.add(sanction)
                if action == "timeout":
                    sanction.timeout_until = now + TIMEOUT
                else:
                    sanction.muted = True
            report.status = STATUS[action]
            report.resolved_at = now
            db.add(
                ModerationEntry(
                    moderator_id=judge.id,
                    moderator_name=judge.username,
                    action=action,
                    target_id=target.id,
                    target_name=target.username,
                    report_id=report.id,
                    at=now,
                )
            )
            return report.status
