"""The goals a lesson step can set, as predicates on what the engine made of a move.

A predicate sees the game, the position before the move, the move's notation and the
position after it (all from the engine), and says whether the move reaches the goal.
Each has the English sentence a learner is told when a legal move misses it; the web
layer translates it. Nothing here knows a page.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.base import Game

Predicate = Callable[[Game, Any, str, Any], bool]  # type: ignore[type-arg]


@dataclass(frozen=True)
class Check:
    test: Predicate
    #: what a legal move that fails the test is told (English, translated by the web layer)
    miss: str


def _takes(game: Game, text: str) -> bool:  # type: ignore[type-arg]
    """The move takes something: a Bashni capture, a Morris removal, a Bilsang removal."""
    if game.name == "bashni":
        return ":" in text
    if game.name == "morris":
        return "x" in text
    if game.name == "bilsang":
        return text.startswith("x ")
    return False


def _wins(game: Game, before: Any, text: str, after: Any) -> bool:  # type: ignore[type-arg]
    outcome = game.outcome(after)
    return outcome is not None and outcome.winner == game.to_move(before)


def _replies(game: Game, after: Any) -> list[tuple[str, Any]]:  # type: ignore[type-arg]
    return [(game.format_move(m), game.apply(after, m)) for m in game.legal_moves(after)]


def _safe(game: Game, before: Any, text: str, after: Any) -> bool:  # type: ignore[type-arg]
    """No reply of the opponent wins on the spot."""
    if _wins(game, before, text, after):
        return True
    mover = game.to_move(before)
    if game.outcome(after) is not None:
        return False  # the move itself lost (a Neutron pushed to the opponent's row)
    for _reply, then in _replies(game, after):
        outcome = game.outcome(then)
        if outcome is not None and outcome.winner not in (None, mover):
            return False
    return True


def _no_take_back(game: Game, before: Any, text: str, after: Any) -> bool:  # type: ignore[type-arg]
    """The opponent's answer cannot take anything (no capture, no mill)."""
    return not any(_takes(game, reply) for reply, _then in _replies(game, after))


def _king(game: Game, before: Any, text: str, after: Any) -> bool:  # type: ignore[type-arg]
    """A Bashni man ends the move as a king on top of its column."""
    from games.bashni import NAMES

    clicks = text.replace(":", "-").split("-")
    start, end = NAMES.index(clicks[0]), NAMES.index(clicks[-1])
    was_man = before.stacks[start][-1:].islower()
    return was_man and after.stacks[end][-1:].isupper()


def _switch(game: Game, before: Any, text: str, after: Any) -> bool:  # type: ignore[type-arg]
    return bool(getattr(after, "penalised", False))


def _pair(game: Game, before: Any, text: str, after: Any) -> bool:  # type: ignore[type-arg]
    return text[:1] in "hv" and len(text.split()) == 3 and not _switch(game, before, text, after)


def _blocks(game: Game, before: Any, text: str, after: Any) -> bool:  # type: ignore[type-arg]
    """The opponent is left with nothing but the worst: no move at all, or only removals (Bilsang)."""
    if game.outcome(after) is not None:
        return _wins(game, before, text, after)
    replies = [r for r, _then in _replies(game, after)]
    if game.name == "bilsang":
        return bool(replies) and all(r.startswith("x ") for r in replies)
    return not replies


def _forbidden_one(game: Game, before: Any, text: str, after: Any) -> bool:  # type: ignore[type-arg]
    """A Bilsang pair move that moves one buoy of the forbidden pair, with another."""
    named = {tuple(int(v) for v in part.rstrip("+-").split(",")) for part in text.split()[1:]}
    return bool(named & set(getattr(before, "forbidden", ())))


CHECKS: dict[str, Check] = {
    "capture": Check(lambda g, b, t, a: _takes(g, t), "that move takes nothing."),
    "chain": Check(lambda g, b, t, a: t.count(":") >= 2, "that capture stops after one jump."),
    "king": Check(_king, "that move crowns no king."),
    "wins": Check(_wins, "that move does not win yet."),
    "safe": Check(_safe, "after that move your opponent wins at once."),
    "no-take-back": Check(_no_take_back, "after that move your opponent can take one of your pieces."),
    "switch": Check(_switch, "that is a pair move on the required axis, not a switch."),
    "pair": Check(
        _pair,
        "that pair moved along the other axis, which is a switch (the lesson “Switching the axis”"
        " teaches it); here move a pair along the required axis.",
    ),
    "horizontal": Check(lambda g, b, t, a: t.startswith("h "), "that move is not horizontal."),
    "forbidden-one": Check(_forbidden_one, "that move leaves both buoys marked ✕ where they are."),
    "blocks": Check(
        _blocks,
        # Only Bilsang's lessons use it: "no move" there means nothing but removals.
        "after that move your opponent can still move (a pair, a switch or, if penalised, a single"
        " buoy), so they need not remove a buoy.",
    ),
}

#: The miss of a step that names its accepted moves or points and gives no reason of its own.
NOT_THE_MOVE = "that is not the move asked for."
