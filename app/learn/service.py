"""Lessons on the web: the lesson board's context and the judge's verdicts in words.

The rules and the judging are ``games.lessons``; this module only finds lessons for a
request (404 for what does not exist, 422 for a line that is not the step's), turns a
verdict's English template into the reader's language, and builds what the board
templates of the match page draw.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import games
from app import boards
from app.services import describe
from app.services.clicks import click_tree, follow, tree_points
from app.services.errors import Invalid, NotFound
from games import lessons
from games.base import GameError
from games.lessons import BadLine, Lesson, LessonError, Step, Verdict

Gettext = Callable[[str], str]

#: Moves in a line and characters in a move the server reads at all.
MAX_MOVES = lessons.MAX_LINE
MAX_MOVE_CHARS = 64


def find_lessons(game_name: str) -> tuple[games.Game, tuple[Lesson, ...]]:  # type: ignore[type-arg]
    try:
        return games.get(game_name), lessons.lessons(game_name)
    except games.UnknownGame:
        raise NotFound(f"there is no game {game_name!r}") from None


def find_step(game_name: str, lesson_id: str, number: int) -> tuple[games.Game, Lesson, Step]:  # type: ignore[type-arg]
    game, _all = find_lessons(game_name)
    try:
        found = lessons.lesson(game_name, lesson_id)
        return game, found, lessons.step(game_name, lesson_id, number)
    except LessonError as exc:
        raise NotFound(str(exc)) from None


def _refused(exc: GameError) -> Invalid:
    return Invalid(f"moves: {exc}")


def judge(game_name: str, lesson_id: str, number: int, moves: list[str]) -> Verdict:
    find_step(game_name, lesson_id, number)
    try:
        return lessons.judge(game_name, lesson_id, number, moves)
    except (BadLine, games.BadMove) as exc:
        raise _refused(exc) from None


def hint(game_name: str, lesson_id: str, number: int, moves: list[str]) -> str:
    find_step(game_name, lesson_id, number)
    try:
        return lessons.hint(game_name, lesson_id, number, moves)
    except (BadLine, games.BadMove) as exc:
        raise _refused(exc) from None


def position_after(game_name: str, lesson_id: str, number: int, moves: list[str]) -> Any:
    """The position after a line of complete turns that is this step's (422 otherwise)."""
    find_step(game_name, lesson_id, number)
    try:
        return lessons.position_after(game_name, lesson_id, number, moves)
    except (BadLine, games.BadMove) as exc:
        raise _refused(exc) from None


def say(verdict: Verdict, gettext: Gettext) -> str:
    """The verdict's sentence in the reader's language (move notation stays as it is)."""
    values = {k: v if k == "reply" else gettext(v) for k, v in verdict.values.items()}
    text = gettext(verdict.message)
    return text % values if values else text


def read_moves(text: str) -> list[str]:
    """The line a page carries (a JSON list of moves); 422 for anything else."""
    try:
        moves = json.loads(text or "[]")
    except ValueError:
        raise Invalid("moves: not a JSON list of moves") from None
    if not isinstance(moves, list) or len(moves) > MAX_MOVES:
        raise Invalid(f"moves: a list of at most {MAX_MOVES} moves")
    if not all(isinstance(m, str) and 0 < len(m) <= MAX_MOVE_CHARS for m in moves):
        raise Invalid(f"moves: each move is a text of 1 to {MAX_MOVE_CHARS} characters")
    return moves


def board_context(
    game: games.Game,  # type: ignore[type-arg]
    state: Any,
    gettext: Gettext,
    *,
    playable: bool,
    taps: tuple[str, ...] = (),
    before: Any = None,
    last: str | None = None,
    hint_move: str | None = None,
    tap_url: str = "",
) -> dict[str, Any]:
    """What ``boards/<game>.html`` draws, as on the match page: the pieces, the click tree
    while the learner is to move, the last move, the words and the keyboard map."""
    tree = boards.annotate_tree(game.name, state, click_tree(game, state)) if playable else None
    followed = follow(game, state, taps) if playable else None
    hinted: tuple[str, ...] = ()
    if hint_move is not None:
        hinted = game.clicks(game.parse_move(state, hint_move))
    view = boards.BoardView(
        game=game.name,
        state=state,
        targets=followed.next_points if followed else frozenset(),
        chosen=taps if followed and followed.valid else (),
        last=boards.last_move_points(game, before, last),
        position_text=game.format_position(state),
        extra={
            "cells": frozenset(tree_points(tree)) if tree else frozenset(),
            "hint": hinted,
            # The board templates' htmx fallback asks here; play.js walks the tree instead.
            "tap_url": tap_url,
        },
    )
    board = boards.board_data(view)
    return {
        "view": view,
        "board": board,
        "click_tree": json.dumps(tree, separators=(",", ":")) if tree else "",
        "last_steps": json.dumps(boards.move_steps(game, before, last)),
        "last_kind": boards.move_kind(game.name, before, state, last),
        "point_labels": describe.point_labels(game.name, gettext, board),
        "board_nav": describe.navigation(game.name, board),
        "to_move": game.to_move(state),
        "counters": boards.counters(game.name, state),
        "step_hints": boards.STEP_HINTS,
        "turn_hints": boards.bilsang_hints(state) if playable and game.name == "bilsang" else [],
        # play.js swaps in only answers newer than what it shows.
        "stamp": time.time_ns() // 1000,
    }
