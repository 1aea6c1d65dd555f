"""Ratings on the pages (issue 31): each player's rating on a rated match's page,
rounded, with "?" while provisional, and the change at the end ("+12", "−8")."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

import games
from app.db import read_session
from app.models import Account, Match, PlayerRating
from app.ratings.api import board, cross_board
from app.ratings.glicko2 import NEW, is_provisional
from app.ratings.rules import CATEGORIES, REALTIME, Category, category_of
from app.services import clocks as timing
from app.web import page_context, templates

#: U+2212 MINUS SIGN: a rating change reads "−8", not the hyphen's "-8".
MINUS = "\u2212"


def shown(rating: float, rd: float) -> str:
    """A rating as the pages show it: rounded, "?" while provisional."""
    return f"{round(rating)}{'?' if is_provisional(rd) else ''}"


def signed(delta: float) -> str:
    """A rating change, rounded, with its sign: "+12", "−8", "0"."""
    points = round(delta)
    if points > 0:
        return f"+{points}"
    return f"{MINUS}{-points}" if points < 0 else "0"


def seat_ratings(sessions: sessionmaker[Session], match: Match) -> dict[str, str]:
    """{side: "1540?"} for a rated match's seats held by accounts (a new player shows
    1500?); {} for a casual match. Read only for rated matches."""
    if not match.rated:
        return {}
    with read_session(sessions) as db:
        return ratings_for(db, [match]).get(match.id, {})


def ratings_for(db: Session, matches: list[Match]) -> dict[str, dict[str, str]]:
    """{match id: {side: "1540?"}} for the rated ones among the matches (the lobby's lists
    and one match page), in two queries whatever their number."""
    wanted: dict[str, tuple[Match, Category]] = {}
    for match in matches:
        control = timing.loads(match.time_control)
        category = category_of(control.kind if control else None)
        if match.rated and category is not None:
            wanted[match.id] = (match, category)
    if not wanted:
        return {}
    hashes = {seat.token_hash for match, _c in wanted.values() for seat in match.seats if seat.token_hash}
    query = select(Account.holder, Account.id).where(Account.holder.in_(hashes))
    holders: dict[str, int] = {holder: id_ for holder, id_ in db.execute(query).all()}
    rows = {
        (row.account_id, row.game, row.category): row
        for row in db.scalars(select(PlayerRating).where(PlayerRating.account_id.in_(holders.values())))
    }
    found: dict[str, dict[str, str]] = {}
    for match_id, (match, speed) in wanted.items():
        sides = found.setdefault(match_id, {})
        for seat in match.seats:
            account_id = holders.get(seat.token_hash or "")
            if account_id is None:
                continue
            row = rows.get((account_id, match.game, speed))
            sides[seat.side] = shown(row.rating, row.rd) if row else shown(NEW.rating, NEW.rd)
    return found


# ------------------------------------------------------------------ leaderboard page

router = APIRouter(include_in_schema=False)
templates.env.globals["rating_shown"] = shown
templates.env.globals["rating_signed"] = signed


@router.get("/leaderboard/{game}", response_class=HTMLResponse)
def leaderboard_page(request: Request, game: str, category: str = REALTIME) -> Response:
    """One game's board, a tab (link) per category: the API's entries, rounded."""
    with read_session(request.app.state.sessions) as db:
        entries = board(db, game, category)  # 404 for an unknown game or category
    context = page_context(request, game_name=game, category=category, categories=CATEGORIES, entries=entries)
    return templates.TemplateResponse(request, "ratings_board.html", context)


@router.get("/leaderboard", response_class=HTMLResponse)
def boards_page(request: Request) -> Response:
    """The boards' front page: a link per game, and the board across games."""
    with read_session(request.app.state.sessions) as db:
        entries = cross_board(db)
    context = page_context(request, games_list=games.names(), entries=entries)
    return templates.TemplateResponse(request, "ratings_cross.html", context)
