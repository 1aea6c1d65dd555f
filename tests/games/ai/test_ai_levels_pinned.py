"""Today's levels, pinned: the move, depth, score and node count of fixed searches.

The ladder's opponents and every level of the other games must play exactly as
they did before the master level (issue 35) changed shared search code. The
node count is the sharpest witness: any change in move generation order, move
ordering, pruning or evaluation moves it, even when the move stays the same.
The figures were recorded from the code before that change.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import games
from games.ai.levels import choose_move

MIDGAMES = Path(__file__).resolve().parents[3] / "bench" / "data" / "bashni_midgames.txt"


def bashni_midgame(index: int) -> tuple[str, tuple[str, ...]]:
    lines = [line for line in MIDGAMES.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    return lines[index], ()


def seeded_position(name: str, plies: int, seed: int) -> tuple[str, tuple[str, ...]]:
    """A new match's start and ``plies`` random moves that do not end the game, with its history."""
    game = games.get(name)
    state = game.initial(**game.new_match_options)
    rng = random.Random(seed)
    history = []
    for _ in range(plies):
        moves = sorted(game.legal_moves(state), key=game.format_move)
        moves = [m for m in moves if game.outcome(game.apply(state, m)) is None]
        history.append(game.format_position(state))
        state = game.apply(state, rng.choice(moves))
    return game.format_position(state), tuple(history)


# (game, where, level, seed) -> (move, depth, score, nodes)
PINNED = [
    ("bashni", ("midgame", 0), 3, 11, ("e5-d4", 3, 573, 281)),
    ("bashni", ("midgame", 0), 7, 11, ("e5-d4", 7, 574, 6545)),
    ("bashni", ("midgame", 0), 18, 11, ("e5-d4", 7, 574, 6545)),
    ("bashni", ("midgame", 1), 3, 11, ("f4-e5", 3, 5, 337)),
    ("bashni", ("midgame", 1), 7, 11, ("f4-e5", 7, 146, 2916)),
    ("bashni", ("midgame", 2), 3, 11, ("e3-f4", 3, 101, 391)),
    ("bashni", ("midgame", 2), 7, 11, ("e3-f4", 7, 17, 12595)),
    ("morris", (14, 1), 3, 5, ("a4xd2", 4, -119, 681)),
    ("morris", (14, 1), 4, 5, ("a4xd2", 6, -133, 3710)),
    ("morris", (14, 2), 3, 5, ("a1xd3", 4, 117, 732)),
    ("morris", (14, 2), 4, 5, ("a1xd3", 6, 16, 4855)),
    ("bobail", (2, 2), 3, 5, ("a2-e2 a1-d4", 3, 19, 1472)),
    ("bobail", (2, 2), 4, 5, ("a2-e2 b1-a2", 4, 999996, 3234)),
    ("bobail", (2, 1), 4, 5, ("d4-e4 a1-d4", 3, 999997, 1800)),
    ("bilsang", (6, 1), 3, 5, ("h -1,2-", 2, 48, 261)),
    ("bilsang", (6, 1), 4, 5, ("h 1,-1-", 3, 72, 1063)),
    ("bilsang", (6, 2), 3, 5, ("v 2,3+ 2,0-", 2, 63, 67)),
    ("bilsang", (6, 2), 4, 5, ("v 2,3+ 2,0-", 3, 90, 466)),
]


@pytest.mark.parametrize(("name", "where", "level", "seed", "expected"), PINNED)
def test_today_s_levels_play_as_they_always_have(
    name: str, where: tuple[object, int], level: int, seed: int, expected: tuple[str, int, int, int]
) -> None:
    if where[0] == "midgame":
        position, history = bashni_midgame(where[1])
    else:
        plies, position_seed = where
        assert isinstance(plies, int)
        position, history = seeded_position(name, plies, position_seed)
    move, info = choose_move(name, position, level, seed, history)
    assert (move, info["depth"], info["score"], info["nodes"]) == expected
