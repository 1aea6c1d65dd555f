"""Puzzle ratings (issue 29): every puzzle and every account, per game, has a Glicko-2
rating, computed by the ratings issue's module (app/ratings/glicko2.py) exactly as a
rated game is: one attempt is one rating period for both, from both values before it.

Only an account's first attempt at a puzzle is rated (``puzzle_attempts`` holds one row
per account and puzzle): solved without a wrong move is a win for the account; a wrong
move, a hint or the solution asked is a win for the puzzle. Later attempts at the same
puzzle change nothing, so asking for the solution and then playing it earns nothing.
Guests are not rated: their next puzzle is drawn near 1500 (``GUEST_RATING``).

A puzzle's values start from the rating its data file gives it, with the deviation of a
new player (500): its row is made at its first rated attempt. The account's deviation
grows with the days since its last rated attempt in that game, as for games.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.learn.models import PuzzleAttempt, PuzzlePlayer, PuzzleRating
from app.ratings.glicko2 import NEW, Rating, Result, rate_game
from app.ratings.service import idle_days


@dataclass(frozen=True)
class Rated:
    """What one rated attempt did: the account's rating before and after, the puzzle's after."""

    before: float
    after: float
    puzzle_after: float

    @property
    def delta(self) -> int:
        return round(self.after) - round(self.before)


def _insert(db: Session) -> Any:
    return postgresql.insert if db.get_bind().dialect.name == "postgresql" else sqlite.insert


def player_rating(db: Session, account_id: int, game: str) -> float:
    """The account's puzzle rating in ``game`` (a new player's 1500 before any attempt)."""
    found = db.scalar(
        select(PuzzlePlayer.rating).where(PuzzlePlayer.account_id == account_id, PuzzlePlayer.game == game)
    )
    return NEW.rating if found is None else found


def ratings_of(db: Session, game: str, rows: Iterable[dict[str, Any]]) -> dict[str, float]:
    """The current rating of each puzzle of ``game`` in ``rows`` (the data file's until
    it is rated)."""
    listed = {row["id"]: float(row["rating"]) for row in rows}
    stored = db.execute(select(PuzzleRating.puzzle_id, PuzzleRating.rating).where(PuzzleRating.game == game))
    listed.update({puzzle_id: rating for puzzle_id, rating in stored if puzzle_id in listed})
    return listed


def puzzle_rating(db: Session, puzzle: dict[str, Any]) -> float:
    found = db.scalar(select(PuzzleRating.rating).where(PuzzleRating.puzzle_id == puzzle["id"]))
    return float(puzzle["rating"]) if found is None else found


def attempted(db: Session, account_id: int, game: str) -> set[str]:
    """The puzzles of ``game`` the account has had its rated attempt at."""
    query = select(PuzzleAttempt.puzzle_id).where(
        PuzzleAttempt.account_id == account_id, PuzzleAttempt.game == game
    )
    return set(db.scalars(query))


def record(
    db: Session, account_id: int, puzzle: dict[str, Any], solved: bool, moment: datetime | None = None
) -> Rated | None:
    """Rate the account's first attempt at ``puzzle`` in ``db``'s transaction; None,
    changing nothing, when the account has attempted it before.

    The attempt row is inserted first, doing nothing on a conflict, so two requests of
    the same account racing on one puzzle rate it once. The puzzle's row, then the
    account's, are created if missing and locked (always in that order: two attempts
    cannot wait for each other).
    """
    at = moment or datetime.now(UTC)
    insert = _insert(db)
    made = db.execute(
        insert(PuzzleAttempt)
        .values(
            account_id=account_id,
            puzzle_id=puzzle["id"],
            game=puzzle["game"],
            solved=solved,
            before=0.0,
            after=0.0,
            at=at,
        )
        .on_conflict_do_nothing(index_elements=["account_id", "puzzle_id"])
        # A row back only when inserted (rowcount is not reliable here on PostgreSQL).
        .returning(PuzzleAttempt.id)
    )
    if made.first() is None:
        return None
    db.execute(
        insert(PuzzleRating)
        .values(
            puzzle_id=puzzle["id"],
            game=puzzle["game"],
            rating=float(puzzle["rating"]),
            rd=NEW.rd,
            volatility=NEW.volatility,
            attempts=0,
            solved=0,
        )
        .on_conflict_do_nothing(index_elements=["puzzle_id"])
    )
    db.execute(
        insert(PuzzlePlayer)
        .values(
            account_id=account_id,
            game=puzzle["game"],
            rating=NEW.rating,
            rd=NEW.rd,
            volatility=NEW.volatility,
            attempts=0,
            last_at=None,
        )
        .on_conflict_do_nothing(index_elements=["account_id", "game"])
    )
    fresh = {"populate_existing": True}
    puzzle_row = db.scalars(
        select(PuzzleRating)
        .where(PuzzleRating.puzzle_id == puzzle["id"])
        .with_for_update()
        .execution_options(**fresh)
    ).one()
    player = db.scalars(
        select(PuzzlePlayer)
        .where(PuzzlePlayer.account_id == account_id, PuzzlePlayer.game == puzzle["game"])
        .with_for_update()
        .execution_options(**fresh)
    ).one()
    before_player = Rating(player.rating, player.rd, player.volatility)
    before_puzzle = Rating(puzzle_row.rating, puzzle_row.rd, puzzle_row.volatility)
    after_player, after_puzzle = rate_game(
        before_player,
        before_puzzle,
        Result.A_WINS if solved else Result.B_WINS,
        idle_days(player.last_at, at),
        0.0,  # a puzzle does not grow rusty
    )
    player.rating, player.rd, player.volatility = (
        after_player.rating,
        after_player.rd,
        after_player.volatility,
    )
    player.attempts += 1
    player.last_at = at
    puzzle_row.rating, puzzle_row.rd, puzzle_row.volatility = (
        after_puzzle.rating,
        after_puzzle.rd,
        after_puzzle.volatility,
    )
    puzzle_row.attempts += 1
    puzzle_row.solved += int(solved)
    attempt = db.scalars(
        select(PuzzleAttempt).where(
            PuzzleAttempt.account_id == account_id, PuzzleAttempt.puzzle_id == puzzle["id"]
        )
    ).one()
    attempt.before, attempt.after = before_player.rating, after_player.rating
    db.flush()
    return Rated(before_player.rating, after_player.rating, after_puzzle.rating)


def export(db: Session, account_id: int) -> dict[str, Any]:
    """The account's puzzle ratings and rated attempts, for its data export."""
    players = db.scalars(select(PuzzlePlayer).where(PuzzlePlayer.account_id == account_id)).all()
    attempts = db.scalars(
        select(PuzzleAttempt).where(PuzzleAttempt.account_id == account_id).order_by(PuzzleAttempt.at)
    ).all()
    return {
        "puzzle_ratings": {
            p.game: {"rating": p.rating, "rd": p.rd, "volatility": p.volatility, "attempts": p.attempts}
            for p in players
        },
        "puzzle_attempts": [
            {
                "puzzle": a.puzzle_id,
                "game": a.game,
                "solved": a.solved,
                "before": a.before,
                "after": a.after,
                "at": a.at.isoformat(),
            }
            for a in attempts
        ],
    }
