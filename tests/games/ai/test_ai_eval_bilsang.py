"""The Bilsang evaluation and opponent on clear-cut positions.

A buoy is won by blocking the opponent: a switch leaves them penalised, held
to single moves along one axis, and with none they must take a buoy off.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from games.ai import eval_bilsang
from games.ai.eval_bilsang import CONTEMPT, LOST, BilsangEvaluation, extra_touches, proven_singles
from games.ai.levels import Level, choose, level_for, search_depth
from games.ai.search import best_move, is_forced_result
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


# ------------------------------------------------------------ same-line rule

#: Player 1 to move along h, same-line pairs. The only blocking move,
#: h 4,1+ 3,1-, leaves player 2 without a pair move, but the removals that
#: follow alternate and player 1 runs out first; h 4,2+ 3,2- wins by force.
CASCADE = "1 h 0 7 7 7 3,1;4,1;3,2;4,2;2,3;3,3 - line,quiet=300"


def test_a_same_line_block_is_scored_as_a_lost_buoy_and_searched_on() -> None:
    evaluation = BilsangEvaluation()
    diagonal = pos("1 h 0 9 9 5 0,0;1,1 - line")
    assert all(isinstance(m, Removal) for m in GAME.legal_moves(diagonal))
    assert evaluation.evaluate(diagonal) == -LOST
    assert evaluation.noisy(diagonal)
    # with free pairs the two cross over: not blocked
    free = pos("1 h 0 9 9 5 0,0;1,1 -")
    assert not evaluation.noisy(free) and evaluation.evaluate(free) > -LOST


def test_a_mover_with_one_or_two_pair_moves_is_searched_on() -> None:
    evaluation = BilsangEvaluation()
    narrow = pos(NARROW)
    assert len(GAME.legal_moves(narrow)) == 2
    assert evaluation.noisy(narrow)
    start = GAME.initial(line=True, quiet=300)
    opened = GAME.play(start, "h 4,1+ 0,1-")
    assert len(GAME.legal_moves(opened)) > 2 and not evaluation.noisy(opened)
    # with free pairs a mover is never short of pair moves in a big universe
    assert not evaluation.noisy(GAME.play(GAME.initial(), "h 4,1+ 0,1-"))


#: Player 1 to move along h. Only h 1,0+ 0,0- wins by force: it leaves player 2
#: one or two pair moves, each of which lets player 1 block.
NARROW_WIN = "1 h 0 6 7 0 0,0;1,0;0,1;1,1;1,2;0,3;1,3 - line,quiet=300"
#: A mover with few pair moves (player 2 after the winning move above).
NARROW = "2 v 0 6 7 1 -1,0;2,0;0,1;1,1;1,2;0,3;1,3 -1,0;2,0 line,quiet=300"


def test_the_search_looks_through_narrow_replies_to_the_block_behind_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = pos(NARROW_WIN)
    # a full five-ply search (no narrow-line extension) proves the win
    monkeypatch.setattr(eval_bilsang, "EXTEND_PAIRS", 0)
    full = best_move(GAME, state, BilsangEvaluation(), 5)
    assert full is not None and is_forced_result(full.score) and full.score > 0
    assert GAME.format_move(full.move) == "h 1,0+ 0,0-"
    shallow = best_move(GAME, state, BilsangEvaluation(), 1)
    assert shallow is not None and not is_forced_result(shallow.score)
    # searching on through the opponent's few replies, one ply finds it too
    monkeypatch.undo()
    extended = best_move(GAME, state, BilsangEvaluation(), 1)
    assert extended is not None and extended.score == full.score
    assert GAME.format_move(extended.move) == "h 1,0+ 0,0-"


def test_a_position_the_game_has_been_in_is_worse_for_the_searching_side() -> None:
    state = GAME.play(GAME.play(GAME.initial(line=True, quiet=300), "h 4,1+ 0,1-"), "v 2,3+ 2,0-")
    plain = BilsangEvaluation()
    plain.prepare(state)
    first = best_move(GAME, state, plain, 2)
    assert first is not None
    been = GAME.apply(state, first.move)
    # The game was in that arrangement before (the quiet count does not matter).
    earlier = dataclasses.replace(been, quiet=been.quiet - 4)
    evaluation = BilsangEvaluation()
    evaluation.prepare(state, [earlier])
    assert plain.revisit(been) is None
    # scored for player 2, to move there: player 1's search going back is player 2's gain
    assert evaluation.revisit(been) == CONTEMPT
    assert evaluation.revisit(state) is None
    second = best_move(GAME, state, evaluation, 2)
    assert second is not None and second.move != first.move
    # and choose() hands the game's positions to the evaluation
    history = [GAME.initial(line=True, quiet=300), earlier]
    picked = choose(GAME, state, Level(2, 0.0), random.Random(1), history=history).move
    assert GAME.apply(state, picked) != been


def test_the_search_sees_who_the_removal_cascade_favours() -> None:
    state = pos(CASCADE)
    greedy = best_move(GAME, state, BilsangEvaluation(), 1)
    assert greedy is not None
    deep = best_move(GAME, state, BilsangEvaluation(), 3)
    assert deep is not None and is_forced_result(deep.score) and deep.score > 0
    assert GAME.format_move(deep.move) == "h 4,2+ 3,2-"
    # and the line it expects ends the game: play it out with the engine
    line = GAME.play(state, "h 4,1+ 3,1-")
    assert all(isinstance(m, Removal) for m in GAME.legal_moves(line))


def test_the_strongest_level_wins_the_cascade_position() -> None:
    assert chosen(pos(CASCADE), level_for("bilsang", 4).depth) == "h 4,2+ 3,2-"


def test_ambition_prefers_loose_shapes_for_the_searching_side_only() -> None:
    evaluation = BilsangEvaluation()
    start = GAME.initial(line=True, quiet=300)
    assert extra_touches(start.cells) == 36
    chain = pos("1 h 0 10 0 3 0,0;1,1;2,2;3,3;4,4;5,5;6,6;7,7;8,8;9,9 - line")
    assert extra_touches(chain.cells) == 0
    before = evaluation.evaluate(start)
    evaluation.prepare(start)
    assert evaluation.evaluate(start) == before  # the start is as compact as it gets
    evaluation.prepare(GAME.apply(start, GAME.legal_moves(start)[0]))  # player 2 searches
    loose = pos(
        "1 h 0 0 0 3 0,0;1,0;2,0;3,0;4,0;5,0;6,0;7,0;8,0;9,0;0,1;1,1;2,1;3,1;4,1;5,1;6,1;7,1;8,1;9,1 - line"
    )
    assert extra_touches(loose.cells) < 36
    # player 1 to move in a loose shape: worse for player 1 when player 2 is searching
    assert evaluation.evaluate(loose) < BilsangEvaluation().evaluate(loose)


def test_free_pairs_are_searched_at_most_two_plies_deep() -> None:
    strongest = level_for("bilsang", 4)
    assert search_depth(GAME, GAME.initial(line=True, quiet=300), strongest) == strongest.depth == 3
    assert search_depth(GAME, GAME.initial(), strongest) == 2
    assert search_depth(GAME, GAME.initial(), level_for("bilsang", 1)) == 1
    # the strongest level's reply with free pairs comes from a depth-2 search
    choice = choose(GAME, GAME.initial(), strongest, random.Random(3))
    assert choice.depth == 2
