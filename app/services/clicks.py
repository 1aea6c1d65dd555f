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


#: A node of the click tree: ``next`` maps a point to the node after tapping it, and a
#: node whose taps name exactly one move (and can go no further) carries ``move``.
ClickTree = dict[str, Any]


def click_tree(game: Game, state: Any) -> ClickTree:  # type: ignore[type-arg]
    """Every legal move's click paths as a prefix tree of point names.

    The browser walks this to light the next points without asking the server; it is
    the same data ``follow`` reads, so a path ends in ``move`` exactly when ``follow``
    would play that move for those taps.
    """
    root: ClickTree = {"next": {}}
    ends: dict[int, set[str]] = {}
    nodes: dict[int, ClickTree] = {}
    for move in game.legal_moves(state):
        text = game.format_move(move)
        for path in game.click_paths(move):
            node = root
            for point in path:
                node = node["next"].setdefault(point, {"next": {}})
            ends.setdefault(id(node), set()).add(text)
            nodes[id(node)] = node
    for key, texts in ends.items():
        node = nodes[key]
        if len(texts) == 1 and not node["next"]:
            node["move"] = next(iter(texts))
    _prune(root)
    return root


def _prune(node: ClickTree) -> None:
    """Drop empty ``next`` maps so the data stays small."""
    for child in node["next"].values():
        _prune(child)
    if not node["next"] and "move" in node:
        del node["next"]


def tree_points(tree: ClickTree) -> set[str]:
    """Every point named anywhere in the tree."""
    found: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        for point, child in node.get("next", {}).items():
            found.add(point)
            stack.append(child)
    return found
