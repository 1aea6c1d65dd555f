"""The Nine Men's Morris evaluation and opponent on clear-cut positions."""

from __future__ import annotations

import random

from games.ai.eval_morris import PIECE, MorrisEvaluation
from games.ai.levels import Level, choose, choose_move
from games.ai.search import WIN, best_move
from games.morris import GAME, POINTS, MorrisState


def pos(
    side: str, white: str = "", black: str = "", hands: tuple[int, int] = (0, 0), quiet: int = 0
) -> MorrisState:
    """A position from space-separated point lists, so tests read like a diagram."""
    board = ["."] * 24
    for colour, points in (("w", white), ("b", black)):
        for p in points.split():
            board[POINTS.index(p)] = colour
    return GAME.parse_position(f"{side} {''.join(board)} {hands[0]} {hands[1]} {quiet}")


def chosen(state: MorrisState, depth: int) -> str:
    return GAME.format_move(choose(GAME, state, Level(depth, 0.0), random.Random(1)).move)


def swapped(state: MorrisState) -> MorrisState:
    """The same position with the colours exchanged."""
    return MorrisState(
        state.black,
        state.white,
        "b" if state.side == "w" else "w",
        state.black_hand,
        state.white_hand,
        state.quiet,
    )


def test_material_counts_pieces_in_hand_too() -> None:
    evaluation = MorrisEvaluation()
    even = evaluation.evaluate(pos("w", white="a1", black="g7", hands=(8, 8)))
    ahead = evaluation.evaluate(pos("w", white="a1", black="g7", hands=(8, 7)))
    assert ahead - even >= PIECE - 30


def test_the_evaluation_is_the_same_with_colours_exchanged() -> None:
    evaluation = MorrisEvaluation()
    rng = random.Random(3)
    for _ in range(40):
        state = GAME.initial()
        for _ in range(rng.randint(0, 40)):
            moves = GAME.legal_moves(state)
            if not moves:
                break
            state = GAME.apply(state, rng.choice(moves))
        if GAME.outcome(state) is None:
            assert evaluation.evaluate(state) == evaluation.evaluate(swapped(state))


def test_an_open_two_that_can_be_closed_is_worth_more() -> None:
    evaluation = MorrisEvaluation()
    # Sliding: White's a1 d1 wait for g1; g4 can slide there, b6 cannot.
    ready = evaluation.evaluate(pos("b", white="a1 d1 g4 b6", black="a7 d7 f6 c5"))
    stuck = evaluation.evaluate(pos("b", white="a1 d1 d5 b6", black="a7 d7 f6 c5"))
    assert ready < stuck  # Black to move: White's threat counts against Black


def test_a_win_in_one_is_taken() -> None:
    # Black has three pieces; g4-g1 closes a1 d1 g1 and its removal leaves two.
    state = pos("w", white="a1 d1 g4 c5", black="b6 d6 e4")
    assert chosen(state, 1).startswith("g4-g1x")
    result = best_move(GAME, state, MorrisEvaluation(), 3)
    assert result is not None and result.score == WIN - 1


def test_a_loss_in_one_is_avoided() -> None:
    # Both sides fly with three pieces. Black threatens b6 (b6 d6 f6), which
    # would remove a White piece and win; White must fly a piece to b6.
    state = pos("w", white="a1 g7 c3", black="d6 f6 e4")
    assert chosen(state, 2).split("-")[1] == "b6"


def test_the_placing_phase_blocks_an_open_two() -> None:
    # Black placed a7 and d7; White must place on g7 or lose a piece next turn.
    state = pos("w", white="a1 d2", black="a7 d7", hands=(7, 7))
    assert chosen(state, 2) == "g7"


def test_the_leader_avoids_a_third_repetition_when_told_the_history() -> None:
    # White is well ahead and its best move is f6-d6; if the position after it
    # has occurred twice already, playing it draws, so White plays another.
    position = "w ..bw.wwb..bwwwww..b..b.. 0 0 1"
    move, info = choose_move("morris", position, 3, seed=1)
    assert move == "f6-d6" and info["score"] > 2 * PIECE
    after = GAME.format_position(GAME.play(GAME.parse_position(position), move))
    again, info = choose_move("morris", position, 3, seed=1, history=[after, position, after])
    assert again != "f6-d6" and info["score"] > 2 * PIECE
