"""What a board partial needs to draw a position: pieces, highlights, labels.

Each game's template draws its own board; this module turns a position and the
player's taps into plain data for it, so templates hold no rules.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import games
from app.texts import N_
from games.base import Game
from games.bilsang import Removal


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
    #: the last position of a game that is over: no one is to move, so nothing in it is
    #: forbidden "this turn" (Bilsang's forbidden pair is not drawn)
    ended: bool = False
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


def bashni_squares(state: Any, flipped: bool) -> list[dict[str, Any]]:
    """The 32 dark squares with their columns (bottom to top) in drawing coordinates."""
    from games.bashni import DARK_SQUARES, NAMES

    out = []
    for sq in DARK_SQUARES:
        file, rank = sq % 8, sq // 8
        column = state.stacks[sq]
        out.append(
            {
                "name": NAMES[sq],
                "x": 7 - file if flipped else file,
                "y": rank if flipped else 7 - rank,
                "column": column,
                "top": column[-1] if column else None,
                # What sits under the top, nearest first: drawn as bands below the top piece.
                "under": column[-2::-1][:5] if column else "",
            }
        )
    return out


def bobail_squares(state: Any, flipped: bool) -> list[dict[str, Any]]:
    from games.bobail import SQUARES, square_name

    out = []
    for index in range(SQUARES):
        file, row = index % 5, index // 5  # row 0 is rank 5
        piece = state.board[index]
        out.append(
            {
                "name": square_name(index),
                "x": 4 - file if flipped else file,
                "y": 4 - row if flipped else row,
                "piece": None if piece == "." else piece,
                "home": "b" if row == 0 else "w" if row == 4 else None,
            }
        )
    return out


def bilsang_view(
    state: Any, extra_cells: frozenset[str] = frozenset(), ended: bool = False
) -> dict[str, Any]:
    """The Known Universe framed with a one-cell margin around buoys and reachable cells.

    The frame follows the buoys, so it grows, shrinks and recentres as they move;
    ``extra_cells`` (highlighted targets) are always inside it.
    """
    cells = set(state.cells)
    for name in extra_cells:
        column, row = name.split(",")
        cells.add((int(column), int(row)))
    xs = [x for x, _y in cells] or [0]
    ys = [y for _x, y in cells] or [0]
    left, right = min(xs) - 1, max(xs) + 1
    bottom, top = min(ys) - 1, max(ys) + 1
    # Keep the view at least 7 wide and 5 high so a small universe is not drawn huge.
    while right - left < 6:
        if (right - left) % 2:
            left -= 1
        else:
            right += 1
    while top - bottom < 4:
        if (top - bottom) % 2:
            bottom -= 1
        else:
            top += 1
    grid = []
    for y in range(top, bottom - 1, -1):
        for x in range(left, right + 1):
            grid.append(
                {
                    "name": f"{x},{y}",
                    "x": x - left,
                    "y": top - y,
                    "buoy": (x, y) in state.cells,
                    "forbidden": not ended and (x, y) in state.forbidden,
                    "origin": (x, y) == (0, 0),
                }
            )
    return {
        "width": right - left + 1,
        "height": top - bottom + 1,
        "grid": grid,
        "left": left,
        "top": top,
        "columns": list(range(left, right + 1)),
        "rows": list(range(top, bottom - 1, -1)),
    }


def _bobail_preview(state: Any, taps: tuple[str, ...]) -> Any:
    """The board with the Neutron already where the player put it, while they choose
    their electron: the second part's choices are read off the new position."""
    from games.bobail import square_index

    if len(taps) < 2:
        return state
    board = list(state.board)
    start, end = square_index(taps[0]), square_index(taps[1])
    board[start], board[end] = ".", board[start]
    return state._replace(board="".join(board))


def board_data(view: BoardView) -> dict[str, Any]:
    """What the game's board template draws, from the view."""
    if view.game == "morris":
        return {"points": morris_points(view.state), "lines": morris_lines()}
    if view.game == "bashni":
        return {"squares": bashni_squares(view.state, view.flipped)}
    if view.game == "bobail":
        return {"squares": bobail_squares(_bobail_preview(view.state, view.chosen), view.flipped)}
    if view.game == "bilsang":
        return bilsang_view(view.state, view.targets | view.extra.get("cells", frozenset()), view.ended)
    raise ValueError(f"no board for {view.game!r}")


def counters(game_name: str, state: Any) -> list[tuple[str, str]]:
    """Game-specific numbers shown beside the board, as (English msgid, value)."""
    if game_name == "morris":
        return [
            (N_("White in hand"), str(state.white_hand)),
            (N_("Black in hand"), str(state.black_hand)),
            (N_("White removed"), str(9 - state.white_hand - state.white.bit_count())),
            (N_("Black removed"), str(9 - state.black_hand - state.black.bit_count())),
            (N_("Plies without removal"), f"{state.quiet} / 100"),
        ]
    if game_name == "bashni":
        return [
            (N_("Plies (draw at 250)"), f"{state.plies} / 250"),
            (N_("Plies without capture or man move"), f"{state.quiet} / 50"),
        ]
    if game_name == "bilsang":
        axis = {"h": N_("horizontal"), "v": N_("vertical"), "-": N_("either (first turn)")}[state.axis]
        return [
            (N_("Required axis"), axis),
            (N_("Penalised (single move)"), N_("yes") if state.penalised else N_("no")),
            (N_("Lost buoys, player 1"), str(state.lost1)),
            (N_("Lost buoys, player 2"), str(state.lost2)),
            (N_("Buoys left"), str(len(state.cells))),
            # The limit is the match's (quiet=N; 300 in new matches), not always 100.
            (N_("Plies without removal"), f"{state.quiet} / {state.limit}"),
        ]
    return []


# ------------------------------------------------------------------ the tap-by-tap view
#
# The click tree (``app.services.clicks.click_tree``) says which points may come next.
# What follows adds what a player should *see* between taps: a hint for the banner and
# pieces drawn where the taps so far have put them. Both are read off the tree's paths
# and the position; the browser only shows them.


def annotate_tree(game_name: str, state: Any, tree: dict[str, Any]) -> dict[str, Any]:
    """Add ``hint`` (a key of STEP_HINTS) and ``draw`` (pieces to show) to inner nodes."""

    def walk(node: dict[str, Any], path: tuple[str, ...]) -> None:
        children = node.get("next", {})
        if path and children:
            note = _step_note(game_name, state, path)
            if note:
                node.update(note)
        for point, child in children.items():
            walk(child, (*path, point))

    walk(tree, ())
    return tree


def _step_note(game_name: str, state: Any, path: tuple[str, ...]) -> dict[str, Any] | None:
    if game_name == "morris":
        placing = (state.white_hand if state.side == "w" else state.black_hand) > 0
        # A placement or slide that goes on to a removal has closed a mill.
        if placing and len(path) == 1:
            return {"hint": "remove", "draw": [["place", path[0]]]}
        if not placing and len(path) == 2:
            return {"hint": "remove", "draw": [["move", path[0], path[1]]]}
        return None
    if game_name == "bobail" and len(path) == 2:
        return {"hint": "electron", "draw": [["move", path[0], path[1]]]}
    if game_name == "bashni" and len(path) >= 2:
        return {"hint": "capture", "draw": [["move", path[-2], path[-1]]]}
    return None


#: The banner's words for a step of a move (keys used by ``annotate_tree``).
STEP_HINTS = {
    "remove": N_("You closed a mill: remove one of your opponent's pieces."),
    "electron": N_("Now move one of your electrons."),
    "capture": N_("Keep capturing: tap the next square."),
}


def move_steps(game: Game, before: Any, notation: str | None) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    """The (from, to) slides of a move, for the board's animation."""
    if notation is None or before is None:
        return []
    try:
        move = game.parse_move(before, notation)
    except games.GameError:
        return []
    points = game.clicks(move)
    if game.name == "bashni":
        return [(points[0], points[-1])]
    if game.name == "morris":
        return [(points[0], points[1])] if move.origin is not None else []
    return [(points[i], points[i + 1]) for i in range(0, len(points) - 1, 2)]


def move_kind(game_name: str, before: Any, after: Any, notation: str | None) -> str:
    """ "capture" when the move took something (for the sound), else "move"."""
    if notation is None or before is None:
        return ""
    if game_name == "bashni":
        return "capture" if ":" in notation else "move"
    if game_name == "morris":
        return "capture" if "x" in notation else "move"
    if game_name == "bilsang":
        return "capture" if len(after.cells) < len(before.cells) else "move"
    return "move"


def move_rows(game: Game, notations: list[str]) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    """The move list: a row per turn cycle (two plies), Bilsang a row per ply.

    Each cell is (ply after it, notation); a row's number is the turn cycle.
    """
    per_row = 1 if game.name == "bilsang" else 2
    cells = [(ply + 1, text) for ply, text in enumerate(notations)]
    return [
        {"number": start // per_row + 1, "cells": cells[start : start + per_row]}
        for start in range(0, len(cells), per_row)
    ]


class MoveRows:
    """``move_rows`` made when first read: a view whose move list is already rendered for
    its version (app/fragments.py) never reads it, and it grows with the game."""

    def __init__(self, game: Game, notations: list[str]) -> None:  # type: ignore[type-arg]
        self.game = game
        self.notations = notations

    @functools.cached_property
    def rows(self) -> list[dict[str, Any]]:
        return move_rows(self.game, self.notations)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)


def bilsang_hints(state: Any) -> list[str]:
    """What a Bilsang player must keep in mind this turn, as msgids (the banner shows them)."""
    hints = []
    moves = games.get("bilsang").legal_moves(state)
    if moves and all(isinstance(m, Removal) for m in moves):
        # Blocked: an axis to keep to would mislead; the only thing left is a removal.
        return [N_("No move is possible: tap a buoy to remove it; it counts as one of your lost buoys.")]
    if state.axis == "h":
        hints.append(N_("This turn the buoys move horizontally."))
    elif state.axis == "v":
        hints.append(N_("This turn the buoys move vertically."))
    if state.penalised:
        hints.append(N_("Penalty: you may move only one buoy this turn."))
    if state.forbidden and not state.penalised:  # a single move has no forbidden pair
        hints.append(N_("The two buoys marked ✕ may not move together."))
    return hints
