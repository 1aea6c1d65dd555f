"""The computer's judgement of one position, for reviews and the analysis board.

``analyse`` runs the strongest level's search (its depth, no deliberate
mistakes) and reports the score from the *first player's* side (White, or
Bilsang's player 1), so a whole game's scores can be drawn on one scale.
It takes and returns only strings and numbers, so it can run in a worker process.

Scale: scores are in the evaluation's units, where a man (Bashni), a piece
(Morris) and a lost buoy (Bilsang) are 100; Bobail's units are the Neutron's
ranks (40 each) and safe slides. ``chance`` turns a score into the first
player's winning chance in percent, ``100 / (1 + e^(-score / CHANCE_SCALE))``,
with a per-game scale chosen so that one man / piece / buoy ahead is about 65 %.
A search that proves the game decided gives ``win_in`` (plies to the end, signed:
> 0 the first player wins) and a chance of 100 or 0.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import games
from games.ai.levels import BASHNI_MAX_DEPTH, LEVELS, MASTER, evaluation_for, searched
from games.ai.search import WIN, is_forced_result, search

#: Units per game for the winning chance (see the module's note).
CHANCE_SCALE = {"bashni": 160.0, "morris": 160.0, "bobail": 120.0, "bilsang": 160.0}
#: A safety net per position: the search then reports its last finished depth.
TIME_LIMIT = 20.0


def strongest_depth(game_name: str) -> int:
    if game_name == "bashni":
        return BASHNI_MAX_DEPTH
    return LEVELS[game_name][-1].depth


def chance(game_name: str, score: float) -> float:
    """The first player's winning chance (0..100) for a first-player score."""
    return 100.0 / (1.0 + math.exp(-score / CHANCE_SCALE[game_name]))


def analyse(
    game_name: str,
    position: str,
    history: Sequence[str] = (),
    depth: int | None = None,
    time_limit: float | None = TIME_LIMIT,
    master_seconds: float | None = None,
) -> dict[str, Any]:
    """The position's score from the first player's side and the best move.

    ``history`` is the game's earlier positions, start first (repetition rules).
    Answers ``{"score", "win_in", "chance", "best", "depth", "ms"}``; ``score`` is
    ``None`` when ``win_in`` says the game is decided (0: it is over already).
    With ``master_seconds`` the master level's search judges instead (at least
    the strongest level's depth, then deeper for that many seconds).
    """
    began = time.perf_counter()
    game = games.get(game_name)
    state = game.parse_position(position)
    earlier = [game.parse_position(text) for text in history]
    first = game.sides[0]
    sign = 1 if game.to_move(state) == first else -1
    outcome = game.outcome_after([*earlier, state])
    if outcome is not None:
        if outcome.winner is None:
            score, win_in, odds = 0.0, None, 50.0
        else:
            score, win_in = None, 0
            odds = 100.0 if outcome.winner == first else 0.0
        return {"score": score, "win_in": win_in, "chance": odds, "best": None, "depth": 0, "ms": 0}
    if master_seconds is not None:
        last = searched(game, state, MASTER, None, earlier, time_limit, master_seconds)
    else:
        deadline = None if time_limit is None else time.monotonic() + time_limit
        last = None
        wanted = depth or strongest_depth(game_name)
        evaluation = evaluation_for(game_name)
        for last in search(game, state, evaluation, wanted, history=earlier, deadline=deadline):  # noqa: B007
            pass
        if last is None:  # not even depth 1 in time: finish it regardless, it is quick
            for last in search(game, state, evaluation_for(game_name), 1, history=earlier):  # noqa: B007
                pass
    assert last is not None
    ms = int((time.perf_counter() - began) * 1000)
    best = game.format_move(last.move)
    if is_forced_result(last.score):
        plies = WIN - abs(last.score)
        mover_wins = last.score > 0
        first_wins = mover_wins == (sign == 1)
        return {
            "score": None,
            "win_in": plies if first_wins else -plies,
            "chance": 100.0 if first_wins else 0.0,
            "best": best,
            "depth": last.depth,
            "ms": ms,
        }
    score = float(last.score * sign)
    return {
        "score": score,
        "win_in": None,
        "chance": round(chance(game_name, score), 2),
        "best": best,
        "depth": last.depth,
        "ms": ms,
    }
