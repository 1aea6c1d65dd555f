"""Nine Men's Morris: one test per rule of RULES.md section 2, perft, properties, CLI."""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import games
from games.base import BadMove, BadPosition, IllegalMove, Outcome
from games.cli import main as cli
from games.morris import GAME, POINTS, MorrisState
from tests.games import morris_reference as ref


def pos(side: str, white: str = "", black: str = "", hands: tuple[int, int] = (0, 0), quiet: int = 0):
    """A position from space-separated point lists, so tests read like a diagram."""
    board = ["."] * 24
    for colour, points in (("w", white), ("b", black)):
        for p in points.split():
            board[POINTS.index(p)] = colour
    return GAME.parse_position(f"{side} {''.join(board)} {hands[0]} {hands[1]} {quiet}")


def texts(state: MorrisState) -> list[str]:
    return GAME.move_texts(state)


def test_registered() -> None:
    assert games.get("morris") is GAME


# ----------------------------------------------------------------- placing


def test_start_places_anywhere_and_hands_shrink() -> None:
    start = GAME.initial()
    assert GAME.format_position(start) == "w ........................ 9 9 0"
    assert texts(start) == sorted(POINTS)
    after = GAME.play(start, "d1")
    assert GAME.format_position(after) == "b ......................w. 8 9 1"


def test_a_player_with_pieces_in_hand_places_even_when_the_other_slides() -> None:
    state = pos("b", white="a1 d1 g4 b2", black="a7", hands=(0, 2))
    assert all("-" not in t for t in texts(state))
    assert len(texts(state)) == 24 - 5


# ----------------------------------------------------------------- sliding


def test_slides_follow_lines_only() -> None:
    state = pos("w", white="a1 d6 f6 e3", black="g7 b6 c3 d3")
    moves = {t for t in texts(state) if t.startswith("a1")}
    assert moves == {"a1-d1", "a1-a4"}
    # d6 neighbours d7, d5, b6 (taken), f6 (own); no diagonal to e5.
    assert {t for t in texts(state) if t.startswith("d6")} == {"d6-d7", "d6-d5"}


def test_flying_at_three_pieces_with_empty_hand() -> None:
    state = pos("w", white="a1 d6 e3", black="g7 b6 c3 d3 f2")
    assert {t for t in texts(state) if t.startswith("a1-")} == {
        f"a1-{p}" for p in POINTS if p not in ("a1", "d6", "e3", "g7", "b6", "c3", "d3", "f2")
    }
    # Black has five pieces: it still slides.
    black = pos("b", white="a1 d6 e3", black="g7 b6 c3 d3 f2")
    assert all(t.split("-")[1][:2] in {POINTS[n] for n in _neigh(t[:2])} for t in texts(black))


def test_three_on_board_but_pieces_in_hand_places_rather_than_flies() -> None:
    state = pos("w", white="a1 d6 e3", black="g7 b6 c3", hands=(1, 1))
    assert all("-" not in t for t in texts(state))


def _neigh(point: str) -> set[int]:
    from games.morris import NEIGHBOURS

    return set(NEIGHBOURS[POINTS.index(point)])


# ------------------------------------------------------------------- mills


def test_placing_into_a_mill_removes_a_piece() -> None:
    state = pos("w", white="a1 d1", black="a7 d7", hands=(7, 7))
    assert "g1xa7" in texts(state) and "g1xd7" in texts(state)
    assert "g1" not in texts(state)
    after = GAME.play(state, "g1xa7")
    assert GAME.format_position(after) == "b .b...................www 6 7 0"


def test_pieces_in_mills_are_protected_unless_all_are_in_mills() -> None:
    state = pos("w", white="a1 d1", black="a7 d7 g7 b2", hands=(5, 5))
    assert {t for t in texts(state) if t.startswith("g1x")} == {"g1xb2"}
    all_milled = pos("w", white="a1 d1", black="a7 d7 g7", hands=(5, 5))
    assert {t for t in texts(all_milled) if t.startswith("g1x")} == {"g1xa7", "g1xd7", "g1xg7"}


def test_a_double_mill_removes_one_piece() -> None:
    # g4 completes both g1-g4-g7 and e4-f4-g4.
    state = pos("w", white="g1 g7 e4 f4", black="a7 b6 c5", hands=(3, 4))
    move_texts = [t for t in texts(state) if t.startswith("g4")]
    assert move_texts == ["g4xa7", "g4xb6", "g4xc5"]
    after = GAME.play(state, "g4xb6")
    assert after.board.count("b") == 2


def test_a_mill_formed_again_removes_again() -> None:
    state = pos("w", white="a1 d1 g4", black="a7 b6 c5 d5 e5", hands=(0, 0))
    assert "g4-g1xa7" in texts(state)
    # Open the mill and close it once more: the second closing removes again.
    opened = pos("w", white="a1 d1 g1 b2", black="a7 b6 c5 d5 f6 e5")
    reopened = GAME.play(GAME.play(opened, "g1-g4"), "f6-f4")
    assert any(t.startswith("g4-g1x") for t in texts(reopened))


def test_a_mill_when_the_opponent_has_nothing_on_board_removes_nothing() -> None:
    state = pos("w", white="a1 d1", black="", hands=(7, 9))
    assert "g1" in texts(state)
    assert not any("x" in t for t in texts(state))
    assert GAME.play(state, "g1").quiet == 1


def test_moving_a_piece_out_of_its_mill_does_not_count_the_old_mill() -> None:
    state = pos("w", white="a1 d1 g1 b2", black="a7 b6 c5 d5 e5")
    assert "g1-g4" in texts(state)
    assert not any(t.startswith("g1-g4x") for t in texts(state))


# -------------------------------------------------------------------- ends


def test_falling_below_three_pieces_loses() -> None:
    state = pos("w", white="a1 d1 g4", black="a7 d7", hands=(0, 0))
    assert GAME.outcome(state) == Outcome("w", "too-few-pieces")
    assert GAME.legal_moves(state) == []
    # Two on board but one in hand is still three: play goes on.
    assert GAME.outcome(pos("b", white="a1 d1 g4", black="a7 d7", hands=(0, 1))) is None


def test_a_removal_that_leaves_two_wins_at_once() -> None:
    state = pos("w", white="a1 d1 g4 b2", black="a7 d7 g7")
    after = GAME.play(state, "g4-g1xa7")
    assert GAME.outcome(after) == Outcome("w", "too-few-pieces")


def test_blocked_player_loses() -> None:
    # Black's a1 d1 g1 a7 are walled in by White's a4 d2 g4 d7; with four pieces Black
    # cannot fly.
    blocked = pos("b", white="a4 d2 g4 d7 b6 b4", black="a1 d1 g1 a7")
    assert GAME.legal_moves(blocked) == []
    assert GAME.outcome(blocked) == Outcome("w", "no-moves")


def test_quiet_draw_after_100_plies_without_removal() -> None:
    state = pos("w", white="a1 d1 g4 b2", black="a7 d7 f6 c5", quiet=99)
    assert GAME.outcome(state) is None
    after = GAME.play(state, "b2-b4")
    assert after.quiet == 100
    assert GAME.outcome(after) == Outcome(None, "quiet")
    assert GAME.legal_moves(after) == []
    # A removal resets the count.
    assert GAME.play(state, "g4-g1xa7").quiet == 0


def test_placing_plies_count_towards_the_quiet_draw() -> None:
    assert GAME.play(GAME.initial(), "a1").quiet == 1


def test_losses_take_precedence_over_the_quiet_draw() -> None:
    blocked = pos("b", white="a4 d2 g4 d7 b6 b4", black="a1 d1 g1 a7", quiet=100)
    assert GAME.outcome(blocked) == Outcome("w", "no-moves")


def test_threefold_repetition_is_judged_from_history() -> None:
    state = pos("w", white="a1 d1 g4 b2", black="a7 d7 f6 c5")
    shuffle = ["b2-b4", "c5-c4", "b4-b2", "c4-c5"]
    history = [state]
    for text in shuffle * 2:
        assert GAME.outcome_after(history) is None
        history.append(GAME.play(history[-1], text))
    # Third occurrence of the starting position: history[0], [4], and now [8]; the
    # quiet count differs, but it is not part of what must repeat.
    assert GAME.repetition_key(history[-1]) == GAME.repetition_key(state)
    assert len(history) == 9
    assert GAME.outcome_after(history) == Outcome(None, "repetition")


def test_repetition_needs_the_same_hands() -> None:
    a = pos("w", white="a1", black="a7", hands=(8, 8))
    b = pos("w", white="a1", black="a7", hands=(7, 8))
    assert GAME.repetition_key(a) != GAME.repetition_key(b)


# ----------------------------------------------------------------- notation


@pytest.mark.parametrize("text", ["", "d", "h1", "d1-", "d1xx", "d4", "a2-a3", "d1-d2xz9", "D1"])
def test_malformed_move_text(text: str) -> None:
    with pytest.raises(BadMove):
        GAME.parse_move(GAME.initial(), text)


def test_well_formed_but_illegal_moves() -> None:
    start = GAME.initial()
    with pytest.raises(IllegalMove):
        GAME.parse_move(start, "d1-d2")
    with pytest.raises(IllegalMove):
        GAME.parse_move(GAME.play(start, "d1"), "d1")
    finished = pos("w", white="a1 d1 g4", black="a7 d7")
    with pytest.raises(IllegalMove, match="over"):
        GAME.parse_move(finished, "g4-g1")


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("x ........................ 9 9 0", "side"),
        ("w ....................... 9 9 0", "board"),
        ("w ........................ 9 9", "5 fields"),
        ("w .......................q 9 9 0", "board"),
        ("w ........................ 10 9 0", "more than 9"),
        ("w www..................... 7 9 0", "more than 9"),
        ("w ........................ 9 -1 0", "black hand"),
        ("w ........................ 9 9 z", "quiet"),
    ],
)
def test_malformed_positions_name_the_field(text: str, field: str) -> None:
    with pytest.raises(BadPosition, match=field):
        GAME.parse_position(text)


def test_clicks() -> None:
    state = pos("w", white="a1 d1 g4 b2", black="a7 d7 f6 c5")
    move = GAME.parse_move(state, "g4-g1xa7")
    assert GAME.clicks(move) == ("g4", "g1", "a7")
    assert GAME.clicks(GAME.parse_move(GAME.initial(), "d1")) == ("d1",)


# -------------------------------------------------------------------- perft


def _perft_cases() -> list[tuple[str, list[int]]]:
    path = __file__.replace("test_morris.py", "data/morris_perft.txt")
    cases = []
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if line and not line.startswith("#"):
                position, counts = line.split(";")
                cases.append((position.strip(), [int(c) for c in counts.split()]))
    return cases


def test_perft_from_the_start() -> None:
    # With fewer than three pieces each no mill is possible: 24·23·22·21 sequences.
    start = GAME.initial()
    assert [GAME.perft(start, d) for d in (1, 2, 3, 4)] == [24, 24 * 23, 24 * 23 * 22, 24 * 23 * 22 * 21]


def test_perft_depth_5_counts_white_s_first_possible_mills() -> None:
    # White's third piece may close one of 16 mills (3! orders of White's placements,
    # 21·20 placements of Black's two pieces); each such sequence has two removal
    # choices instead of one.
    mills_closed = 16 * 6 * 21 * 20
    assert GAME.perft(GAME.initial(), 5) == 24 * 23 * 22 * 21 * 20 + mills_closed


def test_flying_position_depth_one_by_hand() -> None:
    state = pos("w", white="a1 d1 g4", black="b2 d2 f2")
    assert GAME.perft(state, 1) == 56


@pytest.mark.parametrize(("position", "counts"), _perft_cases())
def test_perft_hand_built(position: str, counts: list[int]) -> None:
    state = GAME.parse_position(position)
    assert [GAME.perft(state, d) for d in range(1, len(counts) + 1)] == counts
    assert [ref.perft(ref.parse(position), d) for d in range(1, min(len(counts), 3) + 1)] == counts[:3]


# --------------------------------------------------- cross-check with reference


def _random_positions(seed: int, games_count: int) -> list[MorrisState]:
    rng = random.Random(seed)
    seen = []
    for _ in range(games_count):
        state = GAME.initial()
        while GAME.outcome(state) is None:
            seen.append(state)
            state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
        seen.append(state)
    return seen


def test_moves_and_results_agree_with_the_reference_implementation() -> None:
    for state in _random_positions(seed=7, games_count=5):
        text = GAME.format_position(state)
        r = ref.parse(text)
        assert texts(state) == sorted(t for t, _ in ref.moves(r)), text
        for move in GAME.legal_moves(state):
            after = GAME.format_position(GAME.apply(state, move))
            assert after == ref.fmt(dict(ref.moves(r))[GAME.format_move(move)])
        outcome = GAME.outcome(state)
        assert ref.result(r) == _result_word(outcome)


def _result_word(outcome: Outcome | None) -> str:
    if outcome is None:
        return "ongoing"
    return "draw" if outcome.winner is None else f"win {outcome.winner}"


# --------------------------------------------------------------- properties


@given(st.randoms(use_true_random=False))
def test_random_playouts_keep_invariants_and_end(rng: random.Random) -> None:
    state = GAME.initial()
    history = [state]
    for _ in range(2000):
        if GAME.outcome_after(history) is not None:
            break
        text = GAME.format_position(state)
        assert GAME.format_position(GAME.parse_position(text)) == text
        assert GAME.parse_position(text) == state
        move = rng.choice(GAME.legal_moves(state))
        assert GAME.parse_move(state, GAME.format_move(move)) == move
        before = (state.board, state.white_hand, state.black_hand, state.quiet)
        after = GAME.apply(state, move)
        assert (state.board, state.white_hand, state.black_hand, state.quiet) == before
        for side in "wb":
            assert after.board.count(side) + after.hand(side) <= state.board.count(side) + state.hand(side)
        state = after
        history.append(state)
    else:
        pytest.fail("a random game did not end within 2000 plies")


# --------------------------------------------------------------------- CLI


def run_cli(argv: list[str], stdin: str = "") -> str:
    out = io.StringIO()
    assert cli(argv, stdin=io.StringIO(stdin), stdout=out) == 0
    return out.getvalue()


def test_cli_perft() -> None:
    assert run_cli(["perft", "morris", "3"]) == "1 24\n2 552\n3 12144\n"
    flying = GAME.format_position(pos("w", white="a1 d1 g4", black="b2 d2 f2"))
    assert (
        run_cli(["perft", "morris", "2", "--position", flying])
        == "1 56\n2 " + str(GAME.perft(GAME.parse_position(flying), 2)) + "\n"
    )


def test_cli_moves_sorted_and_empty_when_over() -> None:
    lost = GAME.format_position(pos("w", white="a1 d1 g4", black="a7 d7"))
    out = run_cli(["moves", "morris"], f"w ........................ 9 9 0\n{lost}\n")
    first, second = out.splitlines()
    assert first.split(" | ") == sorted(POINTS)
    assert second == ""


def test_cli_apply_and_errors_continue() -> None:
    lines = [
        "w ........................ 9 9 0\td1",
        "w ........................ 9 9 0\td1-d2",
        "w ........................ 9 9 0\tq9",
        "w nonsense\td1",
        "w ........................ 9 9 0",
        "w ........................ 9 9 0\tg7",
    ]
    out = run_cli(["apply", "morris"], "\n".join(lines) + "\n").splitlines()
    assert out[0] == "b ......................w. 8 9 1"
    assert all(line.startswith("error: ") for line in out[1:5])
    assert len(out) == 6
    assert out[5] == "b ..w..................... 8 9 1"


def test_cli_result() -> None:
    lost = GAME.format_position(pos("w", white="a1 d1 g4", black="a7 d7"))
    quiet = GAME.format_position(pos("w", white="a1 d2 f4 g7", black="a4 d1 b6 d6", quiet=100))
    out = run_cli(
        ["result", "morris"], f"w ........................ 9 9 0\n{lost}\n{quiet}\nbad\n"
    ).splitlines()
    assert out[0] == "ongoing"
    assert out[1] == "win w"
    assert out[2] == "draw"
    assert out[3].startswith("error: ")


def test_cli_unknown_game() -> None:
    out = io.StringIO()
    assert cli(["moves", "chess"], stdin=io.StringIO(""), stdout=out) == 2
    assert out.getvalue().startswith("error: unknown game 'chess'")
