"""Which games are rated, in which category, and the damping of repeated pairings.

Pure rules over plain values (a match's fields as the database holds them), so they are
tested without a database; ``app/ratings/service.py`` reads them off a ``Match``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import timedelta
from enum import StrEnum
from typing import Any, Literal

import games
from app.ratings.glicko2 import Rating
from app.services.clocks import BOTH_MOVED
from app.texts import N_

Category = Literal["realtime", "correspondence"]
REALTIME: Category = "realtime"
CORRESPONDENCE: Category = "correspondence"
#: One rating per game and category: eight in all.
CATEGORIES: tuple[Category, ...] = (REALTIME, CORRESPONDENCE)


class Unrated(StrEnum):
    """Why a game is not rated (the API may show the key; pages show ``WHY``)."""

    UNTIMED = "untimed"
    COMPUTER = "computer"
    #: Other than the game's default rules: Bilsang's other rule options, a Bashni handicap.
    RULES = "rules"
    SET_UP = "set-up-position"
    #: Ended before each side had moved (aborted, expired, or resigned at once).
    UNPLAYED = "unplayed"


WHY: Mapping[Unrated, str] = {
    Unrated.UNTIMED: N_("a rated game needs a time control"),
    Unrated.COMPUTER: N_("games against the computer are not rated"),
    Unrated.RULES: N_("a rated game is played with the game's default rules"),
    Unrated.SET_UP: N_("games from a set-up position are not rated"),
    Unrated.UNPLAYED: N_("a game that ends before each side has moved is not rated"),
}


def category_of(time_control_kind: str | None) -> Category | None:
    """``realtime`` / ``correspondence`` from the time control's kind; None when untimed."""
    if time_control_kind == REALTIME:
        return REALTIME
    if time_control_kind == CORRESPONDENCE:
        return CORRESPONDENCE
    return None


def standard_start(game_name: str) -> str:
    """The game's start position with its default (new-match) options, as stored."""
    game = games.get(game_name)
    return game.format_position(game.initial(**game.new_match_options))


def unrated_reason(
    *,
    game: str,
    time_control_kind: str | None,
    against_computer: bool,
    options: str | Mapping[str, Any],
    initial_position: str,
    plies: int | None = None,
) -> Unrated | None:
    """Why such a game is never rated, or None when it may be.

    ``options`` is the match's stored JSON text (or the dict); ``initial_position`` its
    stored start. Bilsang's rules live in the position string's ninth field too, so a
    start that differs from ``standard_start`` also catches rules given in a position.
    ``plies`` is the number of moves played once the game has ended; None when asking
    before the game (whether a match with these settings can be rated at all).
    """
    if category_of(time_control_kind) is None:
        return Unrated.UNTIMED
    if against_computer:
        return Unrated.COMPUTER
    chosen = json.loads(options) if isinstance(options, str) else dict(options)
    if chosen != dict(games.get(game).new_match_options):
        return Unrated.RULES
    if initial_position != standard_start(game):
        return Unrated.SET_UP
    if plies is not None and plies < BOTH_MOVED:
        return Unrated.UNPLAYED
    return None


# ---------------------------------------------------------------- repeated pairings

#: Rated games of the same two accounts finished this long before a game count against it.
PAIR_WINDOW = timedelta(hours=24)
#: That many earlier games of the pair inside the window leave a game's change whole.
FULL_GAMES = 3


def damping(pair_games_in_window: int) -> float:
    """The factor on a game's rating changes, from the number of rated games the same two
    accounts finished in the ``PAIR_WINDOW`` before it (any game, any category).

    The first ``FULL_GAMES`` games of a day count whole; each further one counts half as
    much as the one before (1/2, 1/4, ...). So whatever a pair plays in 24 hours moves
    their ratings by at most about as much as four ordinary games, while friends playing
    a few rematches are not touched. docs/ARCHITECTURE.md ("Ratings") says why.
    """
    if pair_games_in_window < 0:
        raise ValueError("a count of games cannot be negative")
    if pair_games_in_window < FULL_GAMES:
        return 1.0
    return 0.5 ** (pair_games_in_window - FULL_GAMES + 1)


def damped(before: Rating, after: Rating, factor: float) -> Rating:
    """``after`` with its rating change scaled by ``factor``; RD and volatility as computed.

    The rating stays within [before, after], so at or above the floor when both are.
    """
    if not 0.0 <= factor <= 1.0:
        raise ValueError("a damping factor is between 0 and 1")
    if factor == 1.0:
        return after
    return Rating(before.rating + factor * (after.rating - before.rating), after.rd, after.volatility)
