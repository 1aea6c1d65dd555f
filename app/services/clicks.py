"""The generic click mechanism: from the points tapped so far to what may come next.

Every legal move is a short sequence of board points (``Game.click_paths``). A
prefix of taps either names exactly one move (it is played), or leaves a set of
points that can come next (they are highlighted), or matches nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games.base import Game


@dataclass(frozen=True)
class ClickResult:
    #: the move the taps complete, in notation, or None
    complete: str | None = None
    #: points that may be tapped next
    next_points: frozenset[str] = field(default_factory=frozenset)
    #: whether the taps are the start of some legal move
    valid: bool = True


def follow(game: Game, state: Any, taps: tuple[str, ...]) -> ClickResult:  # type: ignore[type-arg]
    complete: set[str] = set()
    following: set[str] = set()
    depth = len(taps)
    for move in game.legal_moves(state):
        for path in game.click_paths(move):
            if path[:depth] != taps:
                continue
            if len(path) == depth:
                complete.add(game.format_move(move))
            else:
                following.add(path[depth])
    if len(complete) == 1 and not following:
        return ClickResult(complete=complete.pop())
    return ClickResult(next_points=frozenset(following), valid=bool(complete or following))
