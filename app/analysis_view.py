"""What the analysis and record pages show beside the board, from the review's data: the
move list in numbered pairs (as the match page's), the evaluation bar and the best move's
arrow. No rules here: the engine parses the review's best move, ``boards`` names its steps.
"""

from __future__ import annotations

import json
from typing import Any

from app import boards
from games.base import Game, GameError


def eval_bar(entry: dict[str, Any] | None) -> dict[str, Any] | None:
    """The bar's share for the first player (0-100) and its short figure, or None before
    the review has judged this position."""
    if entry is None or entry.get("chance") is None:
        return None
    chance = max(0.0, min(100.0, float(entry["chance"])))
    win_in = entry.get("win_in")
    if win_in is not None:
        # A proved result: who wins, in how many plies ("#0": the game is over).
        figure = f"#{abs(win_in)}" if win_in >= 0 else f"−#{abs(win_in)}"
    else:
        score = float(entry.get("score") or 0.0)
        figure = f"{'+' if score >= 0 else '−'}{abs(score):.1f}"
    return {"chance": round(chance, 1), "first": round(chance), "figure": figure}


def best_steps(game: Game, position: str, best: str | None) -> str:  # type: ignore[type-arg]
    """The best move's slides as JSON pairs of points, for the arrow ("" when none)."""
    if not best:
        return ""
    steps = boards.move_steps(game, game.parse_position(position), best)
    if not steps and game.name == "morris":
        # A placement has no slide: the arrow is a dot on the point placed.
        try:
            point = game.clicks(game.parse_move(game.parse_position(position), best))[0]
        except GameError:  # a move the engine refuses draws nothing
            return ""
        steps = [(point, point)]
    return json.dumps(steps) if steps else ""


def analysis_extras(
    game: Game,  # type: ignore[type-arg]
    moves: list[str],
    position: str,
    entry: dict[str, Any] | None,
) -> dict[str, Any]:
    """The analysis page's move rows, evaluation bar and best-move arrow at one ply."""
    return {
        "move_rows": boards.move_rows(game, moves),
        "bar": eval_bar(entry),
        "best_steps": best_steps(game, position, entry.get("best") if entry else None),
    }
