"""The Bilsang evaluation and opponent on clear-cut positions.

A buoy is won by blocking the opponent: a switch leaves them penalised, held
to single moves along one axis, and with none they must take a buoy off.
"""

from __future__ import annotations

import dataclasses
import random

from games.ai.eval_bilsang import LOST, BilsangEvaluation, proven_singles
from games.ai.levels import Level, choose
from games.ai.search import best_move
from games.bilsang import GAME, BilsangState, Removal, Single


def pos(text: str) -> BilsangState:
    return GAME.parse_position(text)


def chosen(state: BilsangState, depth: int) -> str:
    return GAME.format_move(choose(GAME, state, Level(depth, 0.0), random.Random(1)).move)


def exact_singles(state: BilsangState, axis: str) -> int:
    """The single moves a penalised player would have along ``axis``, from the engine."""
    penalised = dataclasses.replace(state, axis=axis, penalised=True, forbidden=frozenset())
    return sum(isinstance(m, Single) for m in GAME.legal_moves(penalised))


def test_proven_singles_never_exceed_the_engine_s_and_match_on_the_start() -> None:
    start = GAME.initial()
    assert proven_singles(start.cells) == {"h": exact_singles(start, "h"), "v": exact_singles(start, "v")}
    rng = random.Random(8)
    state = start
    for _ in range(60):
        counts = proven_singles(state.cells)
        for axis in "hv":
            assert counts[axis] <= exact_singles(state, axis), GAME.format_position(state)
        state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))


def test_a_line_of_buoys_has_no_single_moves_along_itself() -> None:
    line = pos("2 h 1 8 8 10 -1,0;0,0;1,0;2,0 -")
    assert proven_singles(line.cells)["h"] == 0 == exact_singles(line, "h")
    assert all(isinstance(m, Removal) for m in GAME.legal_moves(line))
    assert BilsangEvaluation().evaluate(line) == -LOST


def test_lost_buoys_decide_the_score() -> None:
    evaluation = BilsangEvaluation()
    even = pos(
        "1 - 0 0 0 0 0,0;1,0;2,0;3,0;4,0;0,1;1,1;2,1;3,1;4,1;0,2;1,2;2,2;3,2;4,2;0,3;1,3;2,3;3,3;4,3 -"
    )
    assert evaluation.evaluate(even) == 0
    ahead = pos("1 - 0 0 1 0 0,0;1,0;2,0;3,0;4,0;0,1;1,1;2,1;3,1;4,1;0,2;1,2;2,2;3,2;4,2;0,3;1,3;2,3;3,3 -")
    assert evaluation.evaluate(ahead) == LOST


def test_a_switch_that_blocks_the_opponent_is_taken() -> None:
    # Player 1 must use h. The switch v -1,-1+ 1,1- lines the four buoys up on
    # y = 0 and leaves player 2 penalised along h: no single move, a lost buoy.
    state = pos("1 h 0 8 8 10 -1,-1;0,0;2,0;1,1 -")
    assert chosen(state, 1) == "v -1,-1+ 1,1-"
    assert chosen(state, 2) == "v -1,-1+ 1,1-"
    # The expected line: player 2 has nothing but removals in reply.
    result = best_move(GAME, state, BilsangEvaluation(), 3)
    assert result is not None and isinstance(result.pv[1], Removal)
    assert result.score > LOST // 2


def test_a_move_that_lets_the_opponent_block_us_is_avoided() -> None:
    # Two of the eight moves let player 2 switch and leave player 1 blocked.
    state = pos("1 v 0 8 8 10 0,0;2,0;-1,1;1,1 -")
    losing = {"v 2,0+ 1,1-", "v 0,0+ -1,1-"}
    for text in losing:
        reply = best_move(GAME, GAME.play(state, text), BilsangEvaluation(), 2)
        # Player 2 wins a buoy (less what the evaluation sees of threats left).
        assert reply is not None and reply.score > LOST // 2
    assert chosen(state, 2) not in losing
    assert chosen(state, 3) not in losing
