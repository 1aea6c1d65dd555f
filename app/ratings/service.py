"""Ratings in the database: a finished rated match updates both players' ratings.

``apply_result`` runs inside the transaction that finishes the match (``finish_hook``
makes it one of ``MatchService.finish_hooks``, which every finishing path calls before
its commit), so the finish and both ratings commit together or not at all. Which
accounts sit in a match, and whether the players asked for a rated game, are the
accounts branch's to say: ``AccountsOf``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import exists, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

import games
from app.models import Match, PlayerRating, RatingChange
from app.ratings.glicko2 import NEW, Rating, Result, rate_game
from app.ratings.rules import PAIR_WINDOW, category_of, damped, damping, unrated_reason
from app.services import clocks as timing

DAY = timedelta(days=1)

#: The two seats' account ids of a rated match ({side: account id}), or None when the
#: match is casual or a seat has no account.
AccountsOf = Callable[[Session, Match], Mapping[str, int] | None]


@dataclass(frozen=True)
class SideChange:
    """What the game did to one side: the rating before and after, and the values after."""

    account_id: int
    before: float
    after: float
    delta: float
    #: The new values (rating, RD, volatility) as stored.
    rating: Rating
    damping: float


def finish_hook(accounts_of: AccountsOf) -> Callable[[Session, Match], None]:
    """A ``MatchService`` finish hook that rates the matches ``accounts_of`` names."""

    def hook(db: Session, match: Match) -> None:
        accounts = accounts_of(db, match)
        if accounts is not None:
            apply_result(db, match, accounts)

    return hook


def apply_result(
    db: Session, match: Match, accounts: Mapping[str, int], moment: datetime | None = None
) -> dict[str, SideChange] | None:
    """Rate the finished ``match`` for ``accounts`` ({side: account id}) in ``db``'s
    transaction; None, changing nothing, when the game is not rated (``rules``), both
    seats are one account, or the match already has its changes.

    ``moment`` is when the game finished (default ``match.finished_at``): inactivity is
    measured up to it, the pair's earlier games counted before it, and it is stored.
    """
    if match.status != "finished":
        raise ValueError("only a finished match is rated")
    first, second = games.get(match.game).sides
    if set(accounts) != {first, second}:
        raise ValueError("a rated match needs both sides' accounts")
    account_a, account_b = accounts[first], accounts[second]
    control = timing.loads(match.time_control)
    reason = unrated_reason(
        game=match.game,
        time_control_kind=control.kind if control else None,
        against_computer=any(seat.ai_level is not None for seat in match.seats),
        options=match.options,
        initial_position=match.initial_position,
        plies=match.ply,
    )
    category = category_of(control.kind if control else None)
    if reason is not None or category is None or account_a == account_b:
        return None
    if db.scalar(select(exists().where(RatingChange.match_id == match.id))):
        return None
    at = utc(moment or match.finished_at or datetime.now(UTC))
    rows = locked_rows(db, (account_a, account_b), match.game, category)
    row_a, row_b = rows[account_a], rows[account_b]
    before_a, before_b = values(row_a), values(row_b)
    result = {first: Result.A_WINS, second: Result.B_WINS, None: Result.DRAW}[match.winner]
    after_a, after_b = rate_game(
        before_a, before_b, result, idle_days(row_a.last_game_at, at), idle_days(row_b.last_game_at, at)
    )
    factor = damping(pair_games(db, account_a, account_b, at))
    after_a, after_b = damped(before_a, after_a, factor), damped(before_b, after_b, factor)
    changes = {
        first: record(db, match, first, row_a, account_b, after_a, factor, at),
        second: record(db, match, second, row_b, account_a, after_b, factor, at),
    }
    db.flush()
    return changes


def changes_of(db: Session, match_id: str) -> dict[str, dict[str, float]] | None:
    """A rated match's changes as the match state shows them ({side: before, after,
    delta}), or None before they exist. Read only for finished rated matches, so the
    move path stays one locked row, one insert, one update."""
    rows = db.scalars(select(RatingChange).where(RatingChange.match_id == match_id)).all()
    if not rows:
        return None
    return {row.side: {"before": row.before, "after": row.after, "delta": row.delta} for row in rows}


def utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes (stored as UTC); PostgreSQL aware ones."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def idle_days(last_game_at: datetime | None, moment: datetime) -> float:
    """Days since the last rated game in this game and category; 0 for a first game.
    Never negative: another process's clock may be a little behind the one that
    finished the last game."""
    if last_game_at is None:
        return 0.0
    return max((moment - utc(last_game_at)) / DAY, 0.0)


def values(row: PlayerRating) -> Rating:
    return Rating(row.rating, row.rd, row.volatility)


def locked_rows(db: Session, accounts: tuple[int, int], game: str, category: str) -> dict[int, PlayerRating]:
    """Both accounts' rating rows in this game and category, created if missing and
    locked for the rest of the transaction.

    Created by an insert that does nothing on a conflict, so two matches finishing at
    once cannot both create a row; locked in account order, so two transactions that
    need the same two rows cannot wait for each other.
    """
    dialect = db.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    fresh = [
        {
            "account_id": account,
            "game": game,
            "category": category,
            "rating": NEW.rating,
            "rd": NEW.rd,
            "volatility": NEW.volatility,
            "games": 0,
            "last_game_at": None,
        }
        for account in accounts
    ]
    db.execute(
        insert(PlayerRating)
        .values(fresh)
        .on_conflict_do_nothing(index_elements=["account_id", "game", "category"])
    )
    query = (
        select(PlayerRating)
        .where(
            PlayerRating.account_id.in_(accounts),
            PlayerRating.game == game,
            PlayerRating.category == category,
        )
        .order_by(PlayerRating.account_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    return {row.account_id: row for row in db.scalars(query) if row.account_id is not None}


def pair_games(db: Session, account: int, opponent: int, moment: datetime) -> int:
    """Rated games of these two accounts (either side, any game) finished in the
    ``PAIR_WINDOW`` before ``moment``: one ``rating_changes`` row each from this side."""
    query = select(func.count(RatingChange.id)).where(
        RatingChange.account_id == account,
        RatingChange.opponent_id == opponent,
        RatingChange.at > moment - PAIR_WINDOW,
        RatingChange.at <= moment,
    )
    return db.scalar(query) or 0


def record(
    db: Session,
    match: Match,
    side: str,
    row: PlayerRating,
    opponent: int,
    after: Rating,
    factor: float,
    moment: datetime,
) -> SideChange:
    """Store one side's new values and its change."""
    before = row.rating
    row.rating, row.rd, row.volatility = after.rating, after.rd, after.volatility
    row.games += 1
    row.last_game_at = moment
    assert row.account_id is not None
    db.add(
        RatingChange(
            match_id=match.id,
            side=side,
            account_id=row.account_id,
            opponent_id=opponent,
            game=row.game,
            category=row.category,
            before=before,
            after=after.rating,
            delta=after.rating - before,
            damping=factor,
            at=moment,
        )
    )
    return SideChange(row.account_id, before, after.rating, after.rating - before, after, factor)
