"""The daily digest: at most one mail a day per account, listing the correspondence games
waiting for its move.

Every app process runs a ``DigestWorker``; a round looks for accounts with a verified
address, the digest on, none queued in the last 24 hours, and a correspondence game being
played in which the account holds a seat. For each, in one transaction: the games where
it is that seat's side to move (the position says whose move it is, as for a push); none,
and nothing is written (a game that becomes the account's move later still gets its
digest that day); some, and ``last_digest_at`` is claimed by a conditional UPDATE (still
due?) and the mail queued in the same transaction. Two processes that find the same
account race for that UPDATE: the loser's changes nothing (PostgreSQL re-checks the
condition once the winner commits; SQLite has one writer), so nobody gets two digests.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, exists, or_, select, update
from sqlalchemy.orm import Session, joinedload

from app.mail import writing
from app.mail.models import AccountEmail
from app.mail.service import EmailService, language_of
from app.matches.model import aware, engine_for
from app.models import Account, Match, Seat
from app.work_queue import QueueWorker

log = logging.getLogger(__name__)

DAY = timedelta(hours=24)
#: Accounts looked at per round (the rest wait for the next round).
BATCH = 200
#: How a correspondence game's time control is stored (JSON, app/services/clocks.py).
CORRESPONDENCE = '%"correspondence"%'


def _correspondence_turns(holder: Any) -> Any:
    """Seats of ``holder`` (a value or the outer query's column) in correspondence games being played."""
    return (
        select(Seat.id)
        .join(Match, Match.id == Seat.match_id)
        .where(
            Seat.token_hash == holder,
            Match.status == "playing",
            Match.time_control.like(CORRESPONDENCE),
        )
    )


def waiting_games(db: Session, holder: str, origin: str, now: datetime) -> list[writing.Waiting]:
    """The correspondence games being played where it is ``holder``'s seat's move, oldest turn first."""
    matches = db.scalars(
        select(Match)
        .join(Seat, Seat.match_id == Match.id)
        .where(Seat.token_hash == holder, Match.status == "playing", Match.time_control.like(CORRESPONDENCE))
        .options(joinedload(Match.seats))
        .order_by(Match.deadline)
    ).unique()
    found = []
    for match in matches:
        game = engine_for(match)
        to_move = game.to_move(game.parse_position(match.position))
        mine = next((s for s in match.seats if s.token_hash == holder), None)
        other = next((s for s in match.seats if s.side != to_move), None)
        if mine is None or mine.side != to_move or other is None:
            continue
        left = None
        if match.deadline is not None:
            left = max(0, int((aware(match.deadline) - now).total_seconds() * 1000))
        found.append(
            writing.Waiting(
                game=game.title,
                opponent=" ".join(other.name.split()) or "?",
                url=f"{origin}/matches/{match.id}",
                left_ms=left,
            )
        )
    return found


class Digests:
    """One round's work, run in a thread (a test calls ``queue_due`` itself)."""

    def __init__(self, service: EmailService, clock: Callable[[], datetime]) -> None:
        self.service = service
        self.clock = clock

    def due(self, db: Session, now: datetime) -> list[int]:
        rows = db.execute(
            select(AccountEmail.account_id)
            .join(Account, Account.id == AccountEmail.account_id)
            .where(
                AccountEmail.verified_at.is_not(None),
                AccountEmail.digest.is_(True),
                or_(AccountEmail.last_digest_at.is_(None), AccountEmail.last_digest_at <= now - DAY),
                exists(_correspondence_turns(Account.holder)),
            )
            .order_by(AccountEmail.last_digest_at.is_not(None), AccountEmail.last_digest_at)
            .limit(BATCH)
        )
        return [account_id for (account_id,) in rows]

    def queue_due(self) -> int:
        """Queue the digests due now; how many were queued."""
        now = self.clock()
        with self.service.sessions() as db:
            candidates = self.due(db, now)
        queued = sum(self._queue_one(account_id, now) for account_id in candidates)
        if queued:
            self.service.wake()
        return queued

    def _queue_one(self, account_id: int, now: datetime) -> bool:
        with self.service.sessions.begin() as db:
            row = db.get(AccountEmail, account_id)
            account = db.get(Account, account_id)
            if row is None or account is None or row.verified_at is None or not row.digest:
                return False
            games = waiting_games(db, account.holder, self.service.origin, now)
            if not games:
                return False
            claimed = db.execute(
                update(AccountEmail)
                .where(
                    AccountEmail.account_id == account_id,
                    AccountEmail.address == row.address,
                    AccountEmail.digest.is_(True),
                    or_(AccountEmail.last_digest_at.is_(None), AccountEmail.last_digest_at <= now - DAY),
                )
                .values(last_digest_at=now)
                .execution_options(synchronize_session=False)
            )
            if not cast(CursorResult[Any], claimed).rowcount:
                return False  # another process queued it first, or it changed meanwhile
            unsubscribe = self.service.unsubscribe_link(account_id, row.address)
            mail = writing.digest(language_of(account), account.username, games, unsubscribe)
            self.service.queue(db, account_id, "digest", row.address, mail, now)
            return True


class DigestWorker(QueueWorker):
    failure = "a digest round failed"

    def __init__(self, digests: Digests, poll_seconds: float = 300.0) -> None:
        super().__init__(poll_seconds=poll_seconds)
        self.digests = digests

    async def round(self) -> float | None:
        await asyncio.to_thread(self.digests.queue_due)
        return self.poll_seconds
