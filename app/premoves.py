"""Premoves: what a player may queue while the opponent is to move (real-time games).

The page needs to know which taps make a complete move before the position they will be
played in exists. ``premove_tree`` is the union, over every reply the opponent can make
now, of the player's click trees in the position after it: a path that ends there is a
move in at least one future. Queuing it promises nothing; when the turn comes the page
posts the taps like any move and the server plays them only if they are a legal move
then (``services.clicks.follow``), otherwise nothing is played and the page says so.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import games
from app.services.clicks import click_tree

#: Futures looked at: the opponent's replies (Bilsang can have hundreds; the tree is then
#: made from the first ones in sorted order, so some premoves are not offered, never a wrong one).
MAX_REPLIES = 120


def _merge(into: dict[str, Any], tree: dict[str, Any]) -> None:
    if "move" in tree:
        into["end"] = True
    for point, child in tree.get("next", {}).items():
        _merge(into.setdefault("next", {}).setdefault(point, {}), child)


@lru_cache(maxsize=256)
def premove_tree(game_name: str, position: str) -> dict[str, Any]:
    """The premove paths of the side not to move in ``position``: nodes with ``next``
    (point -> node) and ``end`` (the taps so far make a move in some future)."""
    game = games.get(game_name)
    state = game.parse_position(position)
    replies = sorted(game.legal_moves(state), key=game.format_move)[:MAX_REPLIES]
    root: dict[str, Any] = {}
    for reply in replies:
        after = game.apply(state, reply)
        if game.outcome(after) is None:
            _merge(root, click_tree(game, after))
    return root
