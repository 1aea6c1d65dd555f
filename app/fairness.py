"""Sharing what one client could otherwise take for itself: open seeks in the lobby,
games against the computer, and the computer's attention.

The limits are counted in the database (every process sees the same numbers); the
round robin (computer turns, reviews, positions to analyse) is per process, which is
enough: each process serves its own queue fairly, and one client's work is spread over
all of them. It is by address first, then by player, since a player is only a cookie
and one address can make as many as it likes.
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
    """A computer turn (or a review, or a position to analyse) waiting to be served,
    whose it is (the human's token hash) and from where (the hashed address it was
    asked from; empty: unknown, and the player then counts as an address of its own)."""

    match_id: str
    owner: str
    address: str = ""

    @property
    def place(self) -> str:
        return self.address or "player:" + self.owner


#: No requester known (a test, an internal caller): one more key like any other.
NOBODY = Waiting("", "")


class RoundRobin:
    """Which waiting item to serve next: address by address, then player by player within
    an address, not oldest first.

    The candidates come oldest first; the one chosen comes from the address with the
    fewest items being served right now, then the address served longest ago; within it
    the player with the fewest in progress, then the one served longest ago. One address
    with twenty fresh cookies (twenty "players") gets one turn in each round like any
    other address, and a player with forty games waiting one turn like any other player.
    """

    #: Keys remembered; past it, the half served longest ago is forgotten.
    REMEMBERED = 10_000

    def __init__(self) -> None:
        self.in_flight: dict[str, int] = {}
        self.last_served: dict[str, int] = {}
        self._tick = 0

    def _key(self, item: Waiting, index: int) -> tuple[int, int, int, int, int]:
        place, owner = "a:" + item.place, "p:" + item.owner
        return (
            self.in_flight.get(place, 0),
            self.last_served.get(place, -1),
            self.in_flight.get(owner, 0),
            self.last_served.get(owner, -1),
            index,
        )

    def choose(self, waiting: Sequence[Waiting]) -> Waiting | None:
        best: Waiting | None = None
        best_key: tuple[int, int, int, int, int] | None = None
        for index, item in enumerate(waiting):
            key = self._key(item, index)
            if best_key is None or key < best_key:
                best, best_key = item, key
        return best

    def serving(self, item: Waiting) -> bool:
        """Something of this item's address is being served now."""
        return self.in_flight.get("a:" + item.place, 0) > 0

    def started(self, item: Waiting) -> None:
        for name in ("a:" + item.place, "p:" + item.owner):
            self._tick += 1
            self.last_served[name] = self._tick
            self.in_flight[name] = self.in_flight.get(name, 0) + 1
        if len(self.last_served) > self.REMEMBERED:  # forget the keys served longest ago
            for old in sorted(self.last_served, key=self.last_served.__getitem__)[: self.REMEMBERED // 2]:
                del self.last_served[old]

    def finished(self, item: Waiting) -> None:
        for name in ("a:" + item.place, "p:" + item.owner):
            left = self.in_flight.get(name, 0) - 1
            if left > 0:
                self.in_flight[name] = left
            else:
                self.in_flight.pop(name, None)
