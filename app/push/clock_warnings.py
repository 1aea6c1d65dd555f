"""A push when your correspondence clock is under an hour (issue 32, item 3).

Every ``POLL`` a sweep marks the correspondence matches whose side to move has less than
``WARN_BEFORE`` left and was not yet warned at this ply (``matches.warned_ply``), in one
conditional UPDATE: in any number of processes each (match, ply) is claimed once, and
the push goes to the player to move. Nothing is swept while no browser subscribes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session, sessionmaker

import games
from app.matches.clock import time_control_of
from app.matches.model import engine_for
from app.models import Match
from app.push.notify import Notifier, _writer
from app.texts import N_
from app.work_queue import QueueWorker

log = logging.getLogger(__name__)

WARN_BEFORE = timedelta(hours=1)
POLL = 30.0
LOW = N_("Under an hour left")
LOW_BODY = N_("Your clock in %(game)s against %(name)s has less than an hour left.")


class ClockWarnings(QueueWorker):
    failure = "could not sweep the clock warnings"

    def __init__(
        self, sessions: sessionmaker[Session], notifier: Notifier, clock: Callable[[], datetime]
    ) -> None:
        super().__init__(POLL)
        self.sessions = sessions
        self.notifier = notifier
        self.clock = clock

    async def round(self) -> float | None:
        await asyncio.to_thread(self.sweep)
        return self.poll_seconds

    def sweep(self) -> int:
        """Claim and push the due warnings; how many were pushed."""
        if not self.notifier.push.anyone:
            return 0
        moment = self.clock()
        due = (
            Match.status == "playing",
            Match.deadline.is_not(None),
            Match.deadline > moment,
            Match.deadline <= moment + WARN_BEFORE,
            or_(Match.warned_ply.is_(None), Match.warned_ply != Match.ply),
        )
        warnings: list[tuple[str, str, str, str]] = []
        with self.sessions.begin() as db:
            for match in db.scalars(select(Match).where(*due)):
                if not _correspondence(match):
                    continue  # a real-time clock is watched on the open page
                done = db.execute(
                    update(Match)
                    .where(Match.id == match.id, *due)
                    .values(warned_ply=Match.ply)
                    .execution_options(synchronize_session=False)
                ).rowcount  # type: ignore[attr-defined]
                if done:
                    warned = _whom(match)
                    if warned is not None:
                        warnings.append(warned)
        # After the commit: the queue writes in its own transaction.
        for token_hash, match_id, game, opponent in warnings:
            write = _writer(
                LOW, LOW_BODY, f"/matches/{match_id}", match_id[:32], "high", 3600, game=game, name=opponent
            )
            self.notifier.push.queue(token_hash, write)
        return len(warnings)


def _whom(match: Match) -> tuple[str, str, str, str] | None:
    """(the player to move's token hash, match id, game title, opponent's name)."""
    game = engine_for(match)
    to_move = game.to_move(game.parse_position(match.position))
    seat = next((s for s in match.seats if s.side == to_move), None)
    other = next((s for s in match.seats if s.side != to_move), None)
    if seat is None or seat.token_hash is None or seat.ai_level is not None or other is None:
        return None
    return seat.token_hash, match.id, games.get(match.game).title, other.name


def _correspondence(match: Match) -> bool:
    control = time_control_of(match)
    return control is not None and not control.realtime
