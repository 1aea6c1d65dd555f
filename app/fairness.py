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
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from app.models import Match, Seat
from app.services.errors import Conflict
from app.texts import N_

#: Public matches one player may have waiting for an opponent in the lobby at once, and
#: one address (several players may share one, behind a school's NAT, say).
MAX_OPEN_SEEKS = 3
MAX_OPEN_SEEKS_PER_ADDRESS = 10
#: Games against the computer one player may have going at once (the ladder included):
#: room to sample the four levels of two games side by side (8), not to hold the
#: computer's queue (its round robin serves each player in turn however many they hold).
MAX_COMPUTER_GAMES = 10
#: The same from one address (several players behind one school's NAT, say); the address
#: is counted by the hash a match keeps of its creator's key (``matches.client_key``).
MAX_COMPUTER_GAMES_PER_ADDRESS = 30


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


@dataclass(frozen=True)
class RunningGame:
    """One of a player's games against the computer, as the refusal lists it."""

    id: str
    game: str
    opponent: str
    level: int
    ply: int
    your_move: bool
    ladder: bool


class ComputerGamesFull(Conflict):
    """The refusal of one game too many, with the games going (each can be resigned)."""

    def __init__(self, running: Sequence[RunningGame]) -> None:
        super().__init__(
            N_("you already have %(num)s games against the computer going; finish or resign one first"),
            num=MAX_COMPUTER_GAMES,
        )
        self.running = list(running)

    def body(self) -> dict[str, object]:
        """What the JSON refusal adds to its ``detail``."""
        return {
            "games": [
                {
                    "id": g.id,
                    "game": g.game,
                    "opponent": g.opponent,
                    "level": g.level,
                    "ply": g.ply,
                    "your_move": g.your_move,
                    "ladder": g.ladder,
                    "url": f"/matches/{g.id}",
                    "resign": f"/api/matches/{g.id}/resign",
                }
                for g in self.running
            ]
        }


def _computer_matches() -> Any:
    return select(Seat.match_id).where(Seat.ai_level.is_not(None))


def computer_games_of(db: Session, token_hash: str) -> int:
    return int(
        db.scalar(
            select(func.count(func.distinct(Match.id)))
            .join(Seat, Seat.match_id == Match.id)
            .where(
                Match.status == "playing", Seat.token_hash == token_hash, Match.id.in_(_computer_matches())
            )
        )
        or 0
    )


def running_computer_games(db: Session, token_hash: str) -> list[RunningGame]:
    """The player's games against the computer being played, the latest change first."""
    matches = db.scalars(
        select(Match)
        .join(Seat, Seat.match_id == Match.id)
        .where(Match.status == "playing", Seat.token_hash == token_hash, Match.id.in_(_computer_matches()))
        .order_by(Match.updated_at.desc())
        .limit(MAX_COMPUTER_GAMES * 2)
        .options(selectinload(Match.seats))
    ).all()
    running = []
    for match in dict.fromkeys(matches):
        computer = next(s for s in match.seats if s.ai_level is not None)
        running.append(
            RunningGame(
                id=match.id,
                game=match.game,
                opponent=computer.name,
                level=int(computer.ai_level or 0),
                ply=match.ply,
                your_move=match.ai_turn_at is None,
                ladder=match.ladder_run_id is not None,
            )
        )
    return running


def check_computer_games(db: Session, token_hash: str, client_key: str | None = None) -> None:
    if computer_games_of(db, token_hash) >= MAX_COMPUTER_GAMES:
        raise ComputerGamesFull(running_computer_games(db, token_hash))
    if client_key is not None:
        from_here = db.scalar(
            select(func.count(Match.id)).where(
                Match.status == "playing", Match.client_key == client_key, Match.id.in_(_computer_matches())
            )
        )
        if (from_here or 0) >= MAX_COMPUTER_GAMES_PER_ADDRESS:
            raise Conflict(N_("too many games against the computer from your network are going"))


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
