"""Ratings in the JSON API (issue 31): a player's ratings (for ``GET /api/users/{name}``)
and the leaderboards, ``GET /api/leaderboards/{game}/{category}``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.orm import Session

import games
from app.db import read_session
from app.models import Account, PlayerRating
from app.ratings.glicko2 import NEW, PROVISIONAL_RD, is_provisional
from app.ratings.rules import CATEGORIES
from app.schemas import READ_REFUSALS, refusals
from app.services.errors import NotFound
from app.texts import N_

#: On a leaderboard: an RD this settled and this many rated games in the category.
BOARD_RD = 75.0
BOARD_GAMES = 10
BOARD_SIZE = 100

router = APIRouter(prefix="/api", tags=["ratings"])


class RatingPublic(BaseModel):
    """Unrounded values (pages round them); provisional ("?") while RD >= 110."""

    rating: float
    rd: float
    volatility: float
    games: int
    provisional: bool


class BoardEntry(BaseModel):
    rank: int
    username: str
    rating: float
    rd: float
    games: int


class Board(BaseModel):
    entries: list[BoardEntry]


class CrossEntry(BaseModel):
    rank: int
    username: str
    #: The mean of ``ratings``: what the board is ordered by.
    average: float
    #: {game: the better of the player's settled ratings in that game (either speed)}.
    ratings: dict[str, float]


class CrossBoard(BaseModel):
    entries: list[CrossEntry]


def ratings_of(db: Session, username: str) -> dict[str, dict[str, dict[str, Any]]]:
    """{game: {category: values}} for the rated games the player has played; {} for none."""
    query = (
        select(PlayerRating)
        .join(Account, Account.id == PlayerRating.account_id)
        .where(Account.username_key == username.lower()[:40])
        .order_by(PlayerRating.game, PlayerRating.category)
    )
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for row in db.scalars(query):
        found.setdefault(row.game, {})[row.category] = {
            "rating": row.rating,
            "rd": row.rd,
            "volatility": row.volatility,
            "games": row.games,
            "provisional": is_provisional(row.rd),
        }
    return found


def current_rating(db: Session, account_id: int, game: str, category: str) -> float:
    """An account's rating in a game and speed now; a newcomer's 1500 before a first game."""
    found = db.scalar(
        select(PlayerRating.rating).where(
            PlayerRating.account_id == account_id,
            PlayerRating.game == game,
            PlayerRating.category == category,
        )
    )
    return NEW.rating if found is None else found


def board(db: Session, game: str, category: str) -> list[dict[str, Any]]:
    if game not in games.names() or category not in CATEGORIES:
        raise NotFound(N_("there is no leaderboard %(name)s"), name=f"{game[:20]}/{category[:20]}")
    query = (
        select(Account.username, PlayerRating)
        .join(Account, Account.id == PlayerRating.account_id)
        .where(
            PlayerRating.game == game,
            PlayerRating.category == category,
            PlayerRating.rd < BOARD_RD,
            PlayerRating.games >= BOARD_GAMES,
        )
        .order_by(PlayerRating.rating.desc(), Account.username_key)
        .limit(BOARD_SIZE)
    )
    return [
        {"rank": rank, "username": name, "rating": row.rating, "rd": row.rd, "games": row.games}
        for rank, (name, row) in enumerate(db.execute(query).all(), start=1)
    ]


def cross_board(db: Session) -> list[dict[str, Any]]:
    """Players settled (not provisional) in at least two games, by the mean over those
    games of their better settled rating in each: a board across games rewards playing
    several of them well, and a provisional rating says too little to compare."""
    query = (
        select(Account.username, PlayerRating.game, PlayerRating.rating)
        .join(Account, Account.id == PlayerRating.account_id)
        .where(PlayerRating.rd < PROVISIONAL_RD)
    )
    best: dict[str, dict[str, float]] = {}
    for name, game, rating in db.execute(query).all():
        mine = best.setdefault(name, {})
        mine[game] = max(rating, mine.get(game, rating))
    ranked = sorted(
        ((sum(r.values()) / len(r), name, r) for name, r in best.items() if len(r) >= 2),
        key=lambda entry: (-entry[0], entry[1].lower()),
    )[:BOARD_SIZE]
    return [
        {"rank": rank, "username": name, "average": average, "ratings": dict(sorted(r.items()))}
        for rank, (average, name, r) in enumerate(ranked, start=1)
    ]


@router.get(
    "/leaderboards",
    response_model=CrossBoard,
    responses=refusals(*READ_REFUSALS),
    operation_id="get_cross_leaderboard",
)
def get_cross_leaderboard(request: Request) -> dict[str, Any]:
    """Players whose rating is settled (RD below 110) in at least two games, ordered by
    the mean of their better rating in each of those games."""
    with read_session(request.app.state.sessions) as db:
        return {"entries": cross_board(db)}


@router.get(
    "/leaderboards/{game}/{category}",
    response_model=Board,
    responses=refusals(*READ_REFUSALS),
    operation_id="get_leaderboard",
)
def get_leaderboard(game: str, category: str, request: Request) -> dict[str, Any]:
    """Players with RD below 75 and at least 10 rated games in this game and category
    (``realtime`` or ``correspondence``), best first; 404 for an unknown one."""
    with read_session(request.app.state.sessions) as db:
        return {"entries": board(db, game, category)}
