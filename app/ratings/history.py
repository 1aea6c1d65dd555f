"""A player's rating history (issue 31): one point per day per game and category, drawn
as a small server-rendered SVG chart with the same numbers in a table for screen readers,
and each rated game's change for the profile's game list."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.models import Account, RatingChange
from app.ratings.service import utc

#: The chart's drawing box in SVG units. The SVG scales to the width it is given, so
#: these only set the proportions and how big the labels are beside the line: at 360
#: units wide, a 390 px phone draws the 11-unit labels at about 11 px.
WIDTH, HEIGHT = 360.0, 160.0
#: Room for the rating labels on the left and the dates below.
LEFT, BOTTOM, TOP, RIGHT = 40.0, 22.0, 10.0, 8.0
#: The same, for the template that draws the frame and the labels.
BOX = {"width": WIDTH, "height": HEIGHT, "left": LEFT, "bottom": BOTTOM, "top": TOP, "right": RIGHT}


@dataclass(frozen=True)
class Point:
    day: date
    rating: float


@dataclass(frozen=True)
class Chart:
    """What the template draws: the line's points in SVG units and the axis labels."""

    game: str
    category: str
    points: list[Point]
    line: str
    dots: list[tuple[float, float]]
    low: int
    high: int
    first: date
    last: date


def daily(changes: Iterable[tuple[date, float]]) -> list[Point]:
    """One point per day: the rating after that day's last rated game (changes oldest first)."""
    by_day: dict[date, float] = {}
    for day, after in changes:
        by_day[day] = after  # a later game the same day replaces the earlier one
    return [Point(day, rating) for day, rating in sorted(by_day.items())]


def chart(game: str, category: str, points: list[Point]) -> Chart:
    """Place the points: days along x (evenly by date), ratings along y, with a margin of
    10 rating points so a flat line is not drawn on the frame."""
    if not points:
        raise ValueError("a chart needs at least one point")
    low = int(min(p.rating for p in points) // 10 * 10 - 10)
    high = int(-(-max(p.rating for p in points) // 10) * 10 + 10)
    first, last = points[0].day, points[-1].day
    span_days = max((last - first).days, 1)
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    dots: list[tuple[float, float]] = []
    for p in points:
        # A single day is drawn in the middle rather than on the left edge.
        x = LEFT + inner_w * ((p.day - first).days / span_days if last != first else 0.5)
        y = TOP + inner_h * (high - p.rating) / (high - low)
        dots.append((round(x, 1), round(y, 1)))
    line = " ".join(f"{x},{y}" for x, y in dots)
    return Chart(game, category, points, line, dots, low, high, first, last)


def charts_of(db: Session, username: str) -> list[Chart]:
    """Every game and category the player has a rated game in, oldest change first."""
    query = (
        select(RatingChange.game, RatingChange.category, RatingChange.at, RatingChange.after)
        .join(Account, Account.id == RatingChange.account_id)
        .where(Account.username_key == username.lower()[:40])
        .order_by(RatingChange.game, RatingChange.category, RatingChange.at, RatingChange.id)
    )
    series: dict[tuple[str, str], list[tuple[date, float]]] = {}
    for game, category, at, after in db.execute(query).all():
        series.setdefault((game, category), []).append((utc(at).date(), after))
    return [chart(game, category, daily(changes)) for (game, category), changes in series.items()]


def deltas_of(db: Session, username: str, match_ids: Iterable[str]) -> dict[str, float]:
    """{match id: this player's rating change} for those of the matches that were rated."""
    wanted = list(match_ids)
    if not wanted:
        return {}
    query = (
        select(RatingChange.match_id, RatingChange.delta)
        .join(Account, Account.id == RatingChange.account_id)
        .where(Account.username_key == username.lower()[:40], RatingChange.match_id.in_(wanted))
    )
    return {match_id: delta for match_id, delta in db.execute(query).all() if match_id}
