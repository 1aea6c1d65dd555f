"""What a board partial needs to draw a position: pieces, highlights, labels.

Each game's template draws its own board; this module turns a position and the
player's taps into plain data for it, so templates hold no rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import games
from app.texts import N_
from games.base import Game


@dataclass
class BoardView:
    game: str
    state: Any
    #: points that may be tapped next (empty when it is not this viewer's turn)
    targets: frozenset[str] = frozenset()
    #: the taps made so far
    chosen: tuple[str, ...] = ()
    #: the points of the last move played
    last: tuple[str, ...] = ()
    #: draw the board from the second player's side
    flipped: bool = False
    #: the position string, so tests and tools can read what is drawn
    position_text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def last_move_points(game: Game, before: Any, notation: str | None) -> tuple[str, ...]:  # type: ignore[type-arg]
    if notation is None or before is None:
        return ()
    try:
        return game.clicks(game.parse_move(before, notation))
    except games.GameError:
        return ()


def morris_points(state: Any) -> list[dict[str, Any]]:
    from games.morris import POINTS

    board = state.board
    out = []
    for i, name in enumerate(POINTS):
        out.append(
            {
                "name": name,
                "x": "abcdefg".index(name[0]),
                "y": 7 - int(name[1]),
                "piece": board[i] if board[i] != "." else None,
            }
        )
    return out


def morris_lines() -> list[tuple[int, int, int, int]]:
    from games.morris import MILLS, POINTS

    lines = []
    for a, _b, c in MILLS:
        pa, pc = POINTS[a], POINTS[c]
        lines.append(("abcdefg".index(pa[0]), 7 - int(pa[1]), "abcdefg".index(pc[0]), 7 - int(pc[1])))
    return lines


def counters(game_name: str, state: Any) -> list[tuple[str, str]]:
    """Game-specific numbers shown beside the board, as (label, value) in English msgids."""
    if game_name == "morris":
        return [
            (N_("White in hand"), str(state.white_hand)),
            (N_("Black in hand"), str(state.black_hand)),
            (N_("White removed"), str(9 - state.white_hand - state.white.bit_count())),
            (N_("Black removed"), str(9 - state.black_hand - state.black.bit_count())),
            (N_("Plies without removal"), f"{state.quiet} / 100"),
        ]
    return []
