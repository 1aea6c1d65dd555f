"""Puzzles on the web: finding a puzzle, judging an attempt against its mined line.

The shipped set is ``games/puzzles/data/<game>.jsonl``. Ratings live in the database
(``app.learn.puzzle_ratings``): the next puzzle is drawn among those rated nearest the
player's puzzle rating (a guest's level is 1500), leaving out the ones an account has
already had its rated attempt at.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

import games
from app.services.errors import Invalid, NotFound
from app.texts import N_
from games.base import GameError
from games.puzzles import store
from games.puzzles.miner import idea

#: The themes' names for people (``win-in-N`` is said with its number).
THEMES = {
    "capture-chain": N_("capture chain"),
    "king": N_("king"),
    "prisoners-freed": N_("prisoners freed"),
    "blocked": N_("blocked"),
    "no-columns": N_("no columns left"),
    "mill": N_("mill"),
    "double-mill": N_("double mill"),
    "neutron-home": N_("Neutron home"),
    "neutron-trapped": N_("Neutron trapped"),
    "penalty": N_("penalty"),
    "removal": N_("removal"),
}


def theme_words(themes: list[str], gettext: Any) -> list[str]:
    words = []
    for theme in themes:
        if theme.startswith("win-in-"):
            words.append(gettext("win in %(n)s") % {"n": theme.removeprefix("win-in-")})
        else:
            words.append(gettext(THEMES.get(theme, theme)))
    return words


GUEST_RATING = 1500
#: The next puzzle is drawn from this many puzzles rated nearest the player's level.
NEAREST = 30


def puzzles_of(game_name: str) -> tuple[dict[str, Any], ...]:
    try:
        games.get(game_name)
    except games.UnknownGame:
        raise NotFound(f"there is no game {game_name!r}") from None
    return store.load(game_name)


def summary(game_name: str) -> dict[str, Any]:
    rows = puzzles_of(game_name)
    themes = Counter(theme for row in rows for theme in row["themes"])
    return {"count": len(rows), "themes": dict(sorted(themes.items()))}


def find(puzzle_id: str) -> dict[str, Any]:
    for name in games.names():
        if puzzle_id[:2] == name[:2]:
            for row in store.load(name):
                if row["id"] == puzzle_id:
                    return row
    raise NotFound(f"there is no puzzle {puzzle_id!r}")


def next_puzzle(
    game_name: str,
    rating: float = GUEST_RATING,
    rng: random.Random | None = None,
    ratings: dict[str, float] | None = None,
    exclude: set[str] | frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """A puzzle among the ``NEAREST`` rated closest to ``rating`` (``ratings``: each
    puzzle's current rating, else its file's), not one of ``exclude`` while others are left."""
    rows = puzzles_of(game_name)
    if not rows:
        raise NotFound(f"no {game_name} puzzles yet")
    current = ratings or {}
    fresh = [row for row in rows if row["id"] not in exclude] or list(rows)

    def distance(row: dict[str, Any]) -> tuple[float, str]:
        return abs(current.get(row["id"], row["rating"]) - rating), row["id"]

    return (rng or random.Random()).choice(sorted(fresh, key=distance)[:NEAREST])


def daily(game_name: str, day: datetime.date) -> dict[str, Any] | None:
    """The same puzzle for everybody all day."""
    rows = puzzles_of(game_name)
    if not rows:
        return None
    index = int(hashlib.sha256(f"{game_name} {day.isoformat()}".encode()).hexdigest(), 16) % len(rows)
    return rows[index]


def daily_puzzles(day: datetime.date | None = None) -> dict[str, dict[str, Any]]:
    """Each game's puzzle of the day (games without puzzles left out), for the home page."""
    day = day or datetime.datetime.now(datetime.UTC).date()
    found = {name: daily(name, day) for name in games.names()}
    return {name: row for name, row in found.items() if row is not None}


def public(row: dict[str, Any], rating: float | None = None) -> dict[str, Any]:
    game = games.get(row["game"])
    state = game.parse_position(row["position"])
    return {
        "id": row["id"],
        "game": row["game"],
        "position": row["position"],
        "to_move": game.to_move(state),
        "rating": round(row["rating"] if rating is None else rating),
        "themes": row["themes"],
    }


@dataclass(frozen=True)
class Attempt:
    correct: bool
    reply: str | None
    solved: bool
    #: the position after the accepted moves (and the reply), for the board
    state: Any
    line: list[str]


def attempt(row: dict[str, Any], moves: list[str]) -> Attempt:
    """Judge the solver's last move of ``moves`` against the puzzle's line.

    The moves before it must be the line's (the solver's moves and the replies); the last
    must be the line's move there (for a Morris mill that ends the line, any removal).
    """
    game = games.get(row["game"])
    line: list[str] = row["line"]
    if not moves or len(moves) % 2 == 0 or len(moves) > len(line):
        raise Invalid("moves: the line so far, ending with your new move (an odd number of moves)")
    state = game.parse_position(row["position"])
    for index, text in enumerate(moves[:-1]):
        try:
            canonical = game.format_move(game.parse_move(state, text))
        except GameError as exc:
            raise Invalid(f"moves: move {index + 1} ({text!r}): {exc}") from None
        if canonical != line[index]:
            raise Invalid(f"moves: move {index + 1} ({text!r}) is not this puzzle's line")
        state = game.play(state, canonical)
    played = list(moves[:-1])
    try:
        move = game.format_move(game.parse_move(state, moves[-1]))
    except games.IllegalMove:
        return Attempt(False, None, False, state, played)
    except GameError as exc:
        raise Invalid(f"moves: {exc}") from None
    expected = line[len(moves) - 1]
    last = len(moves) == len(line)
    right = move == expected or (last and game.name == "morris" and idea(game, move) == idea(game, expected))
    if not right:
        return Attempt(False, None, False, state, played)
    state = game.play(state, move)
    played.append(move)
    if last:
        return Attempt(True, None, True, state, played)
    reply = line[len(moves)]
    state = game.play(state, reply)
    played.append(reply)
    return Attempt(True, reply, False, state, played)
