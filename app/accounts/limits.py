"""Failed sign-ins limited per username and per address.

The counts live in the database (``sign_in_failures``), so a limit holds however many
processes answer; an unknown username is counted exactly like a known one, so the
limit says nothing about which names exist.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import cast

from sqlalchemy import Table, case, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.models import SignInFailure
from app.rate_limits import TooManyRequests


@dataclass(frozen=True)
class FailureLimit:
    #: Failures allowed within ``window``; the next attempt is refused until it ends.
    per_user: int = 5
    per_address: int = 20
    window: timedelta = timedelta(minutes=15)


def user_key(username_key: str) -> str:
    return "user:" + username_key[:80]


def address_key(hashed_client: str) -> str:
    return "addr:" + hashed_client[:80]


def _aware(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def check(db: Session, keys: dict[str, int], now: datetime, window: timedelta) -> None:
    """``TooManyRequests`` (with the seconds to wait) when any key has used up its limit."""
    rows = db.scalars(select(SignInFailure).where(SignInFailure.key.in_(list(keys)))).all()
    wait = 0.0
    for row in rows:
        ends = _aware(row.window_start) + window
        if row.count >= keys[row.key] and ends > now:
            wait = max(wait, (ends - now).total_seconds())
    if wait:
        raise TooManyRequests(max(1, math.ceil(wait)))


def record_failure(db: Session, keys: list[str], now: datetime, window: timedelta) -> None:
    """Count one failure against each key in one statement per key (an upsert, so two
    processes counting at once both count); a window that ended starts again at 1.

    Rows whose window ended count for nothing, and every wrong name tried makes one, so
    they are swept here: the table holds at most the failures of one window, which the
    per-address limit bounds (failures are rare enough to pay the scan)."""
    insert = postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert
    table = cast(Table, SignInFailure.__table__)
    db.execute(
        delete(SignInFailure).where(
            SignInFailure.window_start <= now - window, SignInFailure.key.not_in(keys)
        )
    )
    for key in keys:
        stmt = insert(table).values(key=key, count=1, window_start=now)
        stale = table.c.window_start <= now - window
        stmt = stmt.on_conflict_do_update(
            index_elements=[table.c.key],
            set_={
                "count": case((stale, 1), else_=table.c.count + 1),
                "window_start": case((stale, now), else_=table.c.window_start),
            },
        )
        db.execute(stmt)


def forget(db: Session, keys: list[str]) -> None:
    db.execute(delete(SignInFailure).where(SignInFailure.key.in_(keys)))
