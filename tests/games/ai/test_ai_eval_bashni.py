"""The Bashni evaluation and opponent on clear-cut positions, and the engine's capture test.

Each position is a position string, so it reads like a diagram; the comments
say why the expected move is the only good one.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from games.ai.eval_bashni import KING, MAN, BashniEvaluation, column_value
from games.ai.levels import Level, choose
from games.ai.search import WIN, best_move
from games.bashni import GAME, Position, generate, has_capture, make_position


def pos(text: str) -> Position:
    return GAME.parse_position(text)


def chosen(text: str, depth: int = 3) -> str:
    choice = choose(GAME, pos(text), Level(depth, 0.0), random.Random(1))
    return GAME.format_move(choice.move)


@cache
def playout_positions(count: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        state = GAME.initial()
        while len(found) < count and GAME.legal_moves(state):
            found.append(state)
            state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
    return found


def mirrored(p: Position) -> Position:
    """The same position seen from the other side: board turned round, colours swapped."""
    swap = str.maketrans("wWbB", "bBwW")
    stacks = tuple(p.stacks[63 - sq].translate(swap) for sq in range(64))
    return make_position(1 - p.side, stacks, p.plies, p.quiet)


# ------------------------------------------------------------- the engine helper


def test_has_capture_agrees_with_the_move_generator() -> None:
    positions = playout_positions(1500, seed=11)
    with_capture = [p for p in positions if has_capture(p)]
    assert 100 < len(with_capture) < len(positions)  # both kinds are exercised
    for p in positions:
        moves = generate(p)
        assert has_capture(p) == bool(moves and moves[0][1]), GAME.format_position(p)


def test_has_capture_sees_a_flying_king_capture_from_afar() -> None:
    assert has_capture(pos("w a1:W,f6:b,h8:b 10 0"))
    assert not has_capture(pos("w a1:W,e5:b,f6:b 10 0"))  # two in a row cannot be jumped


# ------------------------------------------------------------- the evaluation


def test_a_column_is_worth_more_with_an_own_piece_under_the_top() -> None:
    # Same pieces; in the first column capturing the top frees a black piece.
    liability = column_value(27, "wbw")  # d4: white, black, white (top)
    reserve = column_value(27, "bww")
    assert reserve > liability > 0


def test_prisoners_count_for_the_holder_and_kings_dominate() -> None:
    assert column_value(27, "bbw") > column_value(27, "w") - MAN  # prisoners are mostly held
    assert column_value(27, "W") == KING
    assert column_value(27, "B") == -KING
    # A buried king is a potential, worth more than a buried man.
    assert column_value(27, "Bw") < column_value(27, "bw")


def test_men_are_worth_more_the_nearer_they_are_to_promotion() -> None:
    ranks = [column_value(sq, "w") for sq in (2, 11, 20, 29, 38, 47, 54)]  # c1, d2, e3, f4, g5, h6, g7
    assert ranks == sorted(ranks)
    assert ranks[-1] > ranks[0] + 30


@pytest.mark.parametrize("index", range(0, 600, 7))
def test_the_evaluation_is_the_same_from_both_sides(index: int) -> None:
    p = playout_positions(600, seed=5)[index]
    evaluation = BashniEvaluation()
    assert evaluation.evaluate(p) == evaluation.evaluate(mirrored(p))


def test_the_start_is_level() -> None:
    # Only White's tempo separates the sides at the start.
    evaluation = BashniEvaluation()
    start = GAME.initial()
    assert 0 < evaluation.evaluate(start) < MAN // 4


# ------------------------------------------------------------- clear-cut choices


def test_a_win_in_one_is_taken() -> None:
    # Black's only column, h8, can go to g7 only. h6-g7 blocks it with f6 behind
    # (no jump): Black has no move and loses. f6-g7 would let h8 jump g7 to f6.
    text = "w f6:w,h6:w,h8:b 30 0"
    assert set(GAME.move_texts(pos(text))) == {"f6-e7", "f6-g7", "h6-g7"}
    assert chosen(text, depth=1) == "h6-g7"
    result = best_move(GAME, pos(text), BashniEvaluation(), 3)
    assert result is not None and result.score == WIN - 1


def test_a_loss_in_one_is_avoided() -> None:
    # White's only column is e3. After e3-f4, g5 jumps it and White has nothing left.
    text = "w e3:w,g5:b,a7:b 30 0"
    assert set(GAME.move_texts(pos(text))) == {"e3-d4", "e3-f4"}
    assert chosen(text, depth=2) == "e3-d4"


def test_a_free_capture_of_a_tall_column_is_preferred() -> None:
    # Two captures: c3:e5 takes the black top of d4 and frees the two white men
    # under it; h2:f4 takes a lone man and leaves d4 free to jump c3 back.
    text = "w c3:w,h2:w,d4:wwb,g3:b,h8:b 30 0"
    assert GAME.move_texts(pos(text)) == ["c3:e5", "h2:f4"]
    assert chosen(text, depth=1) == "c3:e5"
    assert chosen(text, depth=3) == "c3:e5"
