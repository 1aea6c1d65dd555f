"""Ratings meet matches and accounts (issue 31): who may ask for a rated match, and
which accounts a finished rated match rates.

A signed-in player's seats hold the account's ``holder`` hash as their ``token_hash``
(app/models.py, ``Account``), so a seat's account is the one whose holder it holds; a
guest's seat holds a browser token's hash, which no account has.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import games
from app.matches.service import MatchService
from app.models import Account, Match
from app.ratings.rules import WHY, unrated_reason
from app.ratings.service import finish_hook
from app.services.errors import Forbidden, Invalid
from app.texts import N_

NEEDS_ACCOUNT_TO_CREATE = N_("sign in to create a rated game")


def check_rated(
    *,
    signed_in: bool,
    game: str,
    time_control_kind: str | None,
    against_computer: bool,
    options: Mapping[str, Any] | None,
    position: str | None,
) -> None:
    """Refuse a rated match nobody could be rated for: 403 for a guest, 422 with the
    rules' reason for a game that is never rated. Nothing for an unknown game (create
    says so)."""
    if not signed_in:
        raise Forbidden(NEEDS_ACCOUNT_TO_CREATE)
    try:
        engine = games.get(game)
    except games.UnknownGame:
        return
    chosen = dict(engine.new_match_options) if options is None else dict(options)
    start = position
    if start is None:
        try:
            start = engine.format_position(engine.initial(**chosen))
        except (TypeError, ValueError):
            return  # bad options: create says so
    reason = unrated_reason(
        game=game,
        time_control_kind=time_control_kind,
        against_computer=against_computer,
        options=chosen,
        initial_position=start,
    )
    if reason is not None:
        raise Invalid(WHY[reason])


def accounts_of(db: Session, match: Match) -> dict[str, int] | None:
    """Both seats' account ids of a rated match; None when casual or a seat has none."""
    if not match.rated or len(match.seats) != 2:
        return None
    hashes = {seat.side: seat.token_hash for seat in match.seats}
    if any(h is None for h in hashes.values()):
        return None
    query = select(Account.holder, Account.id).where(Account.holder.in_(hashes.values()))
    ids: dict[str | None, int] = {holder: id_ for holder, id_ in db.execute(query).all()}
    sides = {side: ids.get(h) for side, h in hashes.items()}
    if any(i is None for i in sides.values()):
        return None
    return {side: i for side, i in sides.items() if i is not None}


def wire(matches: MatchService) -> None:
    """At app start, beside the ladder's: every finish of a rated match rates it in the
    finish's own transaction (the hooks run before its commit)."""
    matches.finish_hooks.append(finish_hook(accounts_of))
