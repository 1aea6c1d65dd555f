"""Random games for the engines' property tests: one driver, each test its own checks."""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from games.base import Game

S = TypeVar("S", bound=Hashable)
M = TypeVar("M", bound=Hashable)


@dataclass(frozen=True)
class Ply(Generic[S, M]):
    """One ply of a random game: ``number`` plies were played before it."""

    number: int
    before: S
    #: ``before`` as the engine writes it, taken before the move was applied
    text: str
    moves: list[M]
    move: M
    after: S


def random_plies(game: Game[S, M], state: S, rng: random.Random) -> Iterator[Ply[S, M]]:
    """Every ply of a game of moves drawn by ``rng`` from ``state`` until the game ends.

    Checked on the way, as every engine promises: a position reads back from its text,
    an unfinished one has a move, applying a move leaves the position as it was, and the
    finished one has none. One ``rng.choice`` a ply, so a seed always gives the same game.
    """
    number = 0
    while game.outcome(state) is None:
        text = game.format_position(state)
        assert game.parse_position(text) == state
        moves = game.legal_moves(state)
        assert moves, "an unfinished position always has a move"
        move = rng.choice(moves)
        before = hash(state)
        after = game.apply(state, move)
        assert game.format_position(state) == text and hash(state) == before
        yield Ply(number, state, text, moves, move, after)
        state = after
        number += 1
    assert game.legal_moves(state) == []
