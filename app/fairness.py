"""Sharing what one client could otherwise take for itself: open seeks in the lobby,
games against the computer, and the computer's attention.

The limits are counted in the database (every process sees the same numbers); the
computer's round robin is per process, which is enough: each process serves its own
queue fairly, and one client's turns are spread over all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.models import Match, Seat
from app.services.errors import Conflict
from app.texts import N_

#: Public matches one player may have waiting for an opponent in the lobby at once, and
#: one address (several players may share one, behind a school's NAT, say).
MAX_OPEN_SEEKS = 3
MAX_OPEN_SEEKS_PER_ADDRESS = 10
#: Games against the computer one player may have going at once (the ladder included).
MAX_COMPUTER_GAMES = 5


def check_open_seeks(db: Session, token_hash: str, client_key: str | None) -> None:
    seeks = select(func.count(func.distinct(Match.id))).where(
        Match.status == "waiting", Match.public.is_(True)
    )
    mine = db.scalar(seeks.join(Seat, Seat.match_id == Match.id).where(Seat.token_hash == token_hash))
    if (mine or 0) >= MAX_OPEN_SEEKS:
        raise Conflict(N_("you already have three public matches waiting for an opponent"))
    if client_key is not None:
        from_here = db.scalar(seeks.where(Match.client_key == client_key))
        if (from_here or 0) >= MAX_OPEN_SEEKS_PER_ADDRESS:
            raise Conflict(N_("too many public matches from your network are waiting for an opponent"))


def computer_games_of(db: Session, token_hash: str) -> int:
    computer = select(Seat.match_id).where(Seat.ai_level.is_not(None))
    return int(
        db.scalar(
            select(func.count(func.distinct(Match.id)))
            .join(Seat, Seat.match_id == Match.id)
            .where(Match.status == "playing", Seat.token_hash == token_hash, Match.id.in_(computer))
        )
        or 0
    )


def check_computer_games(db: Session, token_hash: str) -> None:
    if computer_games_of(db, token_hash) >= MAX_COMPUTER_GAMES:
        raise Conflict(
            N_("you already have five games against the computer going; finish or resign one first")
        )


@dataclass(frozen=True)
class Waiting:
    """A computer turn waiting to be played, and whose it is (the human's token hash)."""

    match_id: str
    owner: str


class RoundRobin:
    """Which waiting computer turn to serve next: each player in turn, not oldest first.

    The candidates come oldest first; the one chosen belongs to the player with the
    fewest turns being thought about right now, then the one served longest ago, so a
    player with forty games waiting gets one turn in each round like everyone else.
    """

    def __init__(self) -> None:
        self.in_flight: dict[str, int] = {}
        self.last_served: dict[str, int] = {}
        self._tick = 0

    def choose(self, waiting: Sequence[Waiting]) -> Waiting | None:
        best: Waiting | None = None
        best_key: tuple[int, int, int] | None = None
        for index, item in enumerate(waiting):
            key = (self.in_flight.get(item.owner, 0), self.last_served.get(item.owner, -1), index)
            if best_key is None or key < best_key:
                best, best_key = item, key
        return best

    def started(self, owner: str) -> None:
        self._tick += 1
        self.last_served[owner] = self._tick
        self.in_flight[owner] = self.in_flight.get(owner, 0) + 1
        if len(self.last_served) > 10_000:  # forget the players served longest ago
            for old in sorted(self.last_served, key=self.last_served.__getitem__)[:5_000]:
                del self.last_served[old]

    def finished(self, owner: str) -> None:
        left = self.in_flight.get(owner, 0) - 1
        if left > 0:
            self.in_flight[owner] = left
        else:
            self.in_flight.pop(owner, None)
