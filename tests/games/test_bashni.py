"""Bashni: one hand-built test per rule of RULES.md section 1, perft, properties, CLI.

Positions are written as position strings so each test reads like a diagram; the
expected moves were worked out by hand from the rules (the reasoning is in the
comments) and are also checked against the independent reference implementation.
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import games
from games.base import BadMove, BadPosition, IllegalMove, Outcome
from games.bashni import GAME, Move, Position
from games.cli import main as cli
from tests.games import bashni_reference as ref

START = (
    "w a1:w,c1:w,e1:w,g1:w,b2:w,d2:w,f2:w,h2:w,a3:w,c3:w,e3:w,g3:w,"
    "b6:b,d6:b,f6:b,h6:b,a7:b,c7:b,e7:b,g7:b,b8:b,d8:b,f8:b,h8:b 0 0"
)
PERFT_FILE = Path(__file__).parent / "data" / "bashni_perft.txt"


def pos(text: str) -> Position:
    return GAME.parse_position(text)


def moves(text: str) -> list[str]:
    """The legal moves of a position, checked against the reference implementation too."""
    found = GAME.move_texts(pos(text))
    assert found == ref.moves(GAME.format_position(pos(text)))
    return found


def after(text: str, move: str) -> str:
    """The position after ``move``, checked against the reference implementation too."""
    result = GAME.format_position(GAME.play(pos(text), move))
    assert result == ref.apply(GAME.format_position(pos(text)), move)
    return result


def test_registered() -> None:
    assert games.get("bashni") is GAME
    assert (GAME.name, GAME.title, GAME.sides) == ("bashni", "Bashni", ("w", "b"))


# ----------------------------------------------------------------- start, handicap


def test_start_position_is_the_rules_string() -> None:
    start = GAME.initial()
    assert GAME.format_position(start) == START
    assert GAME.to_move(start) == "w"
    assert GAME.outcome(start) is None
    assert moves(START) == ["a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4"]


@pytest.mark.parametrize("handicap", range(13))
def test_handicap_removes_white_men_in_the_house_order(handicap: int) -> None:
    order = ["a1", "c1", "e1", "g1", "b2", "d2", "f2", "h2", "a3", "c3", "e3", "g3"]
    text = GAME.format_position(GAME.initial(handicap=handicap))
    stacks = dict(entry.split(":") for entry in text.split()[1].split(","))
    assert set(order[:handicap]).isdisjoint(stacks)
    assert set(order[handicap:]) <= set(stacks)
    assert sum(1 for v in stacks.values() if v == "w") == 12 - handicap
    assert sum(1 for v in stacks.values() if v == "b") == 12


def test_full_handicap_leaves_white_without_columns_and_lost() -> None:
    assert GAME.outcome(GAME.initial(handicap=12)) == Outcome("b", "no-moves")


@pytest.mark.parametrize("bad", [-1, 13, 1.0, "1", True, None])
def test_bad_handicap_is_a_value_error(bad: object) -> None:
    with pytest.raises(ValueError):
        GAME.initial(handicap=bad)


def test_unknown_option_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        GAME.initial(colour="b")


# ----------------------------------------------------------------- position strings


def test_parse_sorts_squares_by_rank_then_file() -> None:
    text = "b h8:B,a1:wbW,c3:b,b2:bw 17 3"
    assert GAME.format_position(pos(text)) == "b a1:wbW,b2:bw,c3:b,h8:B 17 3"


def test_parse_accepts_fewer_pieces_than_the_start() -> None:
    assert GAME.format_position(pos("w d4:W 0 0")) == "w d4:W 0 0"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "4 fields"),
        ("w a1:w 0", "4 fields"),
        ("w a1:w 0 0 0", "4 fields"),
        ("x a1:w 0 0", "side"),
        ("W a1:w 0 0", "side"),
        ("w a1w 0 0", "square:pieces"),
        ("w a1:w,,c3:w 0 0", "square:pieces"),
        ("w i9:w 0 0", "not a square"),
        ("w a10:w 0 0", "not a square"),
        ("w a2:w 0 0", "not dark"),
        ("w a1: 0 0", "at least one piece"),
        ("w a1:wx 0 0", "bad piece letter 'x'"),
        ("w a1:k 0 0", "bad piece letter 'k'"),
        ("w a1:w,c3:b,a1:b 0 0", "duplicate square a1"),
        ("w a1:wwwwwwwwwwwww 0 0", "13 white pieces"),
        ("w a1:b,c1:bbbbbbbbbbBB 0 0", "13 black pieces"),
        ("w a1:w -1 0", "plies"),
        ("w a1:w x 0", "plies"),
        ("w a1:w 01 0", "plies"),
        ("w a1:w 0 -2", "quiet"),
        ("w a1:w 3 x", "quiet"),
        ("w a1:w 3 4", "quiet (4) cannot exceed plies (3)"),
    ],
)
def test_bad_position_names_the_wrong_field(text: str, field: str) -> None:
    with pytest.raises(BadPosition, match="(?i)" + field.replace("(", r"\(").replace(")", r"\)")):
        GAME.parse_position(text)


def test_positions_are_hashable_values() -> None:
    a, b = pos("w c3:bw,h8:B 4 2"), pos("w h8:B,c3:bw 4 2")
    assert a == b and hash(a) == hash(b)
    assert len({a, b, GAME.initial()}) == 2


# ----------------------------------------------------------------- columns


def test_only_the_top_piece_owns_and_moves_the_column() -> None:
    # A white man on a black man is a white man: it steps forward, up the board.
    assert moves("w c3:bw,f6:b 0 0") == ["c3-b4", "c3-d4"]
    # A black man on a buried white king moves as a black man: forward (down) only.
    assert moves("b d4:Wb,h8:w 0 0") == ["d4-c3", "d4-e3"]


def test_capture_takes_only_the_top_piece_to_the_bottom_of_the_capturer() -> None:
    # d4 is a black man on a white man: c3 jumps it, takes the black man under
    # itself, and the white man left on d4 now owns that column.
    assert moves("w c3:w,d4:wb,h8:b 0 0") == ["c3:e5"]
    assert after("w c3:w,d4:wb,h8:b 0 0", "c3:e5") == "b d4:w,e5:bw,h8:b 1 0"


def test_in_a_chain_the_last_piece_taken_ends_lowest() -> None:
    # a1 takes b2 (a man) then d4 (a king): the king, taken last, is at the bottom.
    assert moves("w a1:w,b2:b,d4:B 0 0") == ["a1:c3:e5"]
    assert after("w a1:w,b2:b,d4:B 0 0", "a1:c3:e5") == "b e5:Bbw 1 0"


def test_a_column_never_jumps_its_own_colour() -> None:
    # d4 is topped by a white man over a black one: c3 cannot jump it.
    assert moves("w c3:w,d4:bw,h8:b 0 0") == ["c3-b4", "d4-c5", "d4-e5"]
    # A king does not jump an own column either, however far.
    assert "a1:d4" not in moves("w a1:W,c3:bw,h8:b 0 0")


# ----------------------------------------------------------------- men


def test_men_step_forward_only() -> None:
    assert moves("w d4:w,h8:b 0 0") == ["d4-c5", "d4-e5"]
    assert moves("b d4:b,a1:w 0 0") == ["d4-c3", "d4-e3"]


def test_men_capture_backward_too() -> None:
    assert moves("w e5:w,d4:b 0 0") == ["e5:c3"]
    assert after("w e5:w,d4:b 0 0", "e5:c3") == "b c3:bw 1 0"


def test_a_man_cannot_jump_into_an_occupied_square_or_off_the_board() -> None:
    # b2 cannot be jumped (c3 is occupied) and a1 has nowhere to step: White is stuck.
    assert moves("w a1:w,b2:bb,c3:b 0 0") == []
    # h2 next to g3 cannot jump towards the edge; it just steps.
    assert moves("w h2:w,g1:b,a7:b 0 0") == ["h2-g3"]


# ----------------------------------------------------------------- kings


def test_kings_fly_any_distance_but_do_not_pass_columns() -> None:
    # d4 reaches every empty square of both diagonals; h8 stops the NE ray at g7
    # and cannot be jumped (nothing beyond the edge).
    assert moves("w d4:W,h8:b 0 0") == [
        "d4-a1",
        "d4-a7",
        "d4-b2",
        "d4-b6",
        "d4-c3",
        "d4-c5",
        "d4-e3",
        "d4-e5",
        "d4-f2",
        "d4-f6",
        "d4-g1",
        "d4-g7",
    ]


def test_king_slides_increment_the_quiet_count() -> None:
    assert after("w d4:W,h8:b 7 3", "d4-a1") == "b a1:W,h8:b 8 4"


def test_king_captures_from_afar_and_lands_anywhere_beyond() -> None:
    # a1 flies over b2, c3, jumps d4 and may land on e5, f6 or g7 (h8 is occupied).
    assert moves("w a1:W,d4:b,h8:b 0 0") == ["a1:e5", "a1:f6", "a1:g7"]
    assert after("w a1:W,d4:b,h8:b 0 0", "a1:f6") == "b f6:bW,h8:b 1 0"


def test_king_cannot_jump_two_adjacent_columns() -> None:
    assert moves("w a1:W,c3:b,d4:b,h8:b 0 0") == ["a1-b2"]


def test_king_must_land_where_the_capture_goes_on() -> None:
    # After c3 the landings are d4..h8, but only from e5 can the king go on (over f4),
    # so every other landing is forbidden.
    assert moves("w a1:W,c3:b,f4:b 0 0") == ["a1:e5:g3", "a1:e5:h2"]


def test_moves_differing_only_in_a_landing_square_are_distinct() -> None:
    # From both d4 and e5 the king goes on over f6: four moves, two pairs of which
    # lead to the very same position.
    text = "w a1:W,c3:b,f6:b 0 0"
    assert moves(text) == ["a1:d4:g7", "a1:d4:h8", "a1:e5:g7", "a1:e5:h8"]
    assert after(text, "a1:d4:g7") == after(text, "a1:e5:g7") == "b g7:bbW 1 0"


def test_captures_reset_the_quiet_count_a_kings_too() -> None:
    assert after("w a1:W,d4:b,h8:b 9 9", "a1:e5") == "b e5:bW,h8:b 10 0"


# ----------------------------------------------------------------- capture obligations


def test_captures_are_mandatory() -> None:
    # g3 and the king could move, but c3 can capture, so only captures are legal.
    assert moves("w c3:w,d4:b,g3:w,a1:W 0 0") == ["c3:e5"]


def test_any_capture_sequence_may_be_chosen_but_must_go_on() -> None:
    # c3 may take one column (d4) or two (b4, b6): no longest-capture rule...
    text = "w c3:w,b4:b,d4:b,b6:b 0 0"
    assert moves(text) == ["c3:a5:c7", "c3:e5"]
    # ...but the two-jump capture cannot stop halfway.
    with pytest.raises(IllegalMove):
        GAME.parse_move(pos(text), "c3:a5")


def test_a_jumped_square_can_be_neither_crossed_nor_jumped_again() -> None:
    # After c3 takes d4 (emptying it) and lands on e5, the way back over d4 towards
    # b2 stays shut: no c3:e5:a1. The same holds when d4 still holds pieces, black
    # (it cannot be jumped twice) or white.
    for d4 in ("b", "bb", "wb"):
        assert moves(f"w c3:W,d4:{d4},b2:b 0 0") == ["c3:a1", "c3:e5", "c3:f6", "c3:g7", "c3:h8"]


def test_the_start_square_counts_as_empty() -> None:
    # c3 goes round e5, e7, b6 and then back across its own start square to take d2.
    text = "w c3:W,e5:b,e7:B,b6:wb,d2:bb 0 0"
    assert moves(text) == ["c3:e1", "c3:f6:d8:a5:e1"]
    # Pieces taken: e5 (b), e7 (B), b6's top (b), d2's top (b); the last is lowest.
    assert after(text, "c3:f6:d8:a5:e1") == "b e1:bbBbW,d2:b,b6:w 1 0"


def test_a_capture_may_land_on_the_same_square_twice() -> None:
    # The king enters the ring of five men at c3 and may go round either way;
    # both ways end on c3 again, where it stood before.
    text = "w a1:W,b2:b,d4:b,d6:b,b6:b,b4:b 0 0"
    assert moves(text) == [
        "a1:c3:a5:c7:e5:c3",
        "a1:c3:e5:c7:a5:c3",
        "a1:c3:e5:c7:a5:d2",
        "a1:c3:e5:c7:a5:e1",
    ]
    assert after(text, "a1:c3:a5:c7:e5:c3") == "b c3:bbbbbW 1 0"


# ----------------------------------------------------------------- promotion


def test_a_man_reaching_the_far_rank_becomes_a_king() -> None:
    assert moves("w c7:w,h2:b 20 5") == ["c7-b8", "c7-d8"]
    # A man's move resets the quiet count, also one that crowns it.
    assert after("w c7:w,h2:b 20 5", "c7-b8") == "b h2:b,b8:W 21 0"
    assert after("b d2:wb,h8:w 3 1", "d2-c1") == "w c1:wB,h8:w 4 0"


def test_only_the_top_piece_is_crowned() -> None:
    assert after("w c7:bww,h2:b 0 0", "c7-d8") == "b h2:b,d8:bwW 1 0"


def test_promotion_mid_capture_continues_as_a_king() -> None:
    # f6 takes e7 landing on d8 (crowned), then flies over c7 to take b6: a man could not.
    assert moves("w f6:w,e7:b,b6:b 0 0") == ["f6:d8:a5"]
    assert after("w f6:w,e7:b,b6:b 0 0", "f6:d8:a5") == "b a5:bbW 1 0"
    # Black alike: c3 takes d2, is crowned on e1, and flies on over g3.
    assert moves("b c3:b,d2:w,g3:w 0 0") == ["c3:e1:h4"]
    assert after("b c3:b,d2:w,g3:w 0 0", "c3:e1:h4") == "w h4:wwB 1 0"


def test_capture_ending_on_the_far_rank_crowns() -> None:
    assert after("w d6:w,e7:b,a1:b 0 0", "d6:f8") == "b a1:b,f8:bW 1 0"


def test_a_buried_king_stays_a_king() -> None:
    # Taking the black man off d4 uncovers a white king, which then flies.
    text = "w c3:w,d4:Wb,h8:b 0 0"
    uncovered = after(text, "c3:e5")
    assert uncovered == "b d4:W,e5:bw,h8:b 1 0"
    assert moves(uncovered) == ["h8-g7"]
    white_again = after(uncovered, "h8-g7")
    assert {"d4-a1", "d4-g1", "d4-a7"} <= set(moves(white_again))


def test_rank_belongs_to_the_piece() -> None:
    # A white man on h8 can only be written by hand (an edge column is never jumped,
    # so play cannot uncover one there); it is still a man: no flying, but it takes
    # backwards like any man and stays a man.
    assert moves("w h8:w,g7:b 0 0") == ["h8:f6"]
    assert after("w h8:w,g7:b 0 0", "h8:f6") == "b f6:bw 1 0"
    assert GAME.outcome(pos("w h8:w,a1:b 0 0")) == Outcome("b", "no-moves")


# ----------------------------------------------------------------- end of the game


def test_no_legal_move_loses() -> None:
    # White is blocked...
    assert GAME.outcome(pos("w a1:w,b2:bb,c3:b 0 0")) == Outcome("b", "no-moves")
    # ...or has no column at all (both count).
    assert GAME.outcome(pos("w a1:bw,h8:B 0 0")) is None
    assert GAME.outcome(pos("w a1:wB,h8:B 0 0")) == Outcome("b", "no-moves")
    assert GAME.outcome(pos("b a1:W 0 0")) == Outcome("w", "no-moves")
    assert GAME.legal_moves(pos("b a1:W 0 0")) == []


def test_ply_limit_draws_at_250_plies() -> None:
    assert GAME.outcome(pos("w a1:W,h8:B 249 0")) is None
    assert GAME.outcome(pos("w a1:W,h8:B 250 0")) == Outcome(None, "ply-limit")
    assert GAME.legal_moves(pos("w a1:W,h8:B 250 0")) == []
    assert after("b c5:W,h8:b 249 0", "h8-g7") == "w c5:W,g7:b 250 0"


def test_quiet_rule_draws_after_50_quiet_plies() -> None:
    text = "w a1:W,h8:B 60 49"
    assert GAME.outcome(pos(text)) is None
    drawn = after(text, "a1-b2")
    assert drawn == "b b2:W,h8:B 61 50"
    assert GAME.outcome(pos(drawn)) == Outcome(None, "quiet")
    assert GAME.legal_moves(pos(drawn)) == []


def test_a_man_move_resets_the_quiet_count() -> None:
    assert after("w a1:W,c3:w,h8:B 60 49", "c3-d4") == "b a1:W,d4:w,h8:B 61 0"


def test_a_column_topped_by_a_man_counts_as_a_man_move() -> None:
    # A white man on a buried king: its move is a man's move and resets the count.
    assert after("w c3:Ww,h8:B 60 49", "c3-d4") == "b d4:Ww,h8:B 61 0"


def test_no_moves_is_judged_before_the_draws_and_ply_limit_before_quiet() -> None:
    assert GAME.outcome(pos("w a1:w,b2:bb,c3:b 250 50")) == Outcome("b", "no-moves")
    assert GAME.outcome(pos("w a1:W,h8:B 250 50")) == Outcome(None, "ply-limit")


def test_plies_increment_on_every_move() -> None:
    state = GAME.initial()
    for number in range(1, 7):
        state = GAME.apply(state, GAME.legal_moves(state)[0])
        assert state.plies == number


# ----------------------------------------------------------------- move text


@pytest.mark.parametrize(
    "text", ["zz", "c3", "i9-j1", "c3-", "c3:d", "C3-D4", "c3-d4-e5", "c3-d4:f6", "c3d4"]
)
def test_text_that_is_not_notation_is_a_bad_move(text: str) -> None:
    with pytest.raises(BadMove):
        GAME.parse_move(GAME.initial(), text)
    with pytest.raises(BadMove):
        GAME.check_move_syntax(text)


def test_light_squares_are_not_board_squares() -> None:
    with pytest.raises(BadMove, match="dark"):
        GAME.parse_move(GAME.initial(), "c3-c4")


@pytest.mark.parametrize("text", ["c3-c5", "c3:e5", "a1-b2", "d4-e5", "c3-d2"])
def test_well_formed_but_illegal_moves(text: str) -> None:
    with pytest.raises(IllegalMove):
        GAME.parse_move(GAME.initial(), text)


def test_capture_written_as_a_step_is_illegal() -> None:
    with pytest.raises(IllegalMove):
        GAME.parse_move(pos("w a1:W,d4:b,h8:b 0 0"), "a1-e5")


def test_no_move_is_legal_once_the_game_is_over() -> None:
    with pytest.raises(IllegalMove, match="over"):
        GAME.parse_move(pos("w a1:W,h8:B 250 0"), "a1-b2")


def test_parse_move_tolerates_surrounding_space() -> None:
    state = GAME.initial()
    assert GAME.format_move(GAME.parse_move(state, " c3-d4 ")) == "c3-d4"


def test_clicks_are_start_then_each_landing() -> None:
    state = pos("w c3:w,b4:b,d4:b,b6:b 0 0")
    assert sorted(GAME.clicks(m) for m in GAME.legal_moves(state)) == [("c3", "a5", "c7"), ("c3", "e5")]
    assert GAME.clicks(GAME.parse_move(GAME.initial(), "c3-d4")) == ("c3", "d4")


# ----------------------------------------------------------------- perft


def perft_table() -> list[tuple[str, str, list[int]]]:
    """(name, position, counts from depth 1) from the data file."""
    rows = []
    for line in PERFT_FILE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, text, counts = line.split("\t")
            rows.append((name, text, [int(c) for c in counts.split()]))
    return rows


PERFT_ROWS = perft_table()


def test_perft_from_the_start_matches_russian_draughts_to_depth_5() -> None:
    start = GAME.initial()
    assert [GAME.perft(start, d) for d in range(1, 6)] == [7, 49, 302, 1469, 7482]


def test_perft_from_the_start_depth_6_and_the_data_file() -> None:
    assert GAME.perft(GAME.initial(), 6) == 37908
    name, text, counts = PERFT_ROWS[0]
    assert (name, text) == ("start", START)
    assert counts[:6] == [7, 49, 302, 1469, 7482, 37908]


def test_the_data_file_has_enough_hand_built_positions() -> None:
    hand_built = [text for name, text, _ in PERFT_ROWS if name != "start"]
    assert len(hand_built) >= 8
    stacks = " ".join(text.split()[1] for text in hand_built)
    assert any(len(entry.split(":")[1]) >= 4 for entry in stacks.split(",") if ":" in entry)
    assert "W" in stacks and "B" in stacks


@pytest.mark.parametrize(("name", "text", "counts"), PERFT_ROWS, ids=[row[0] for row in PERFT_ROWS])
def test_perft_table(name: str, text: str, counts: list[int]) -> None:
    state = pos(text)
    assert GAME.format_position(state) == text
    for depth, expected in enumerate(counts, start=1):
        if expected > 250_000:
            break  # deeper rows are for the benchmark and for checking by hand on demand
        assert GAME.perft(state, depth) == expected, f"{name} depth {depth}"


@pytest.mark.parametrize(("name", "text", "counts"), PERFT_ROWS, ids=[row[0] for row in PERFT_ROWS])
def test_perft_table_agrees_with_the_reference(name: str, text: str, counts: list[int]) -> None:
    for depth, expected in enumerate(counts, start=1):
        if expected > 12_000:
            break
        assert ref.perft(text, depth) == expected, f"{name} depth {depth}"


def test_smallest_perft_case_by_hand() -> None:
    # w b2:bW,e3:bw,a7:b,g7:wB: White has a king on b2 (a black man under it) and a
    # man on e3; Black a man on a7 and a king on g7 (a white man under it).
    # d1: the b2 king's only capture is over g7 to h8 (the one square beyond), and
    #     captures are mandatory: 1 (b2:h8). Its column is now B,b,W; g7 is a white man.
    # d2: Black's only column is a7, which steps to b6 (nothing to take): 1.
    # d3: the h8 king is boxed in by its own man on g7; g7 steps to f8 (h8 is taken),
    #     e3 steps to d4 or f4; nobody can take anything: 3.
    # d4: after each, the b6 man steps to a5 or c5, with no capture anywhere: 3 x 2 = 6.
    text = "w b2:bW,e3:bw,a7:b,g7:wB 0 0"
    assert [GAME.perft(pos(text), d) for d in range(1, 5)] == [1, 1, 3, 6]
    # b g1:W,b2:bw,d4:B,f6:wW,a7:b 246 3: the d4 king must capture; it can take f6
    # (landing g7 or h8) or b2 (landing a1); its NW ray ends at its own a7, its SE ray
    # at g1 on the edge; a7 has nothing to take: 3. Four plies later the game is drawn
    # by the ply limit, so nothing is counted at depth 5.
    text = "b g1:W,b2:bw,d4:B,f6:wW,a7:b 246 3"
    assert GAME.perft(pos(text), 1) == 3
    assert GAME.perft(pos(text), 5) == 0


def test_clicks_are_unique_in_the_hand_built_positions_and_their_children() -> None:
    for _, text, _ in PERFT_ROWS:
        state = pos(text)
        for current in (state, *(GAME.apply(state, m) for m in GAME.legal_moves(state))):
            clicks = [GAME.clicks(m) for m in GAME.legal_moves(current)]
            assert len(set(clicks)) == len(clicks), GAME.format_position(current)


def test_perft_override_equals_the_generic_definition() -> None:
    generic = super(type(GAME), GAME).perft
    for _, text, _ in PERFT_ROWS:
        state = pos(text)
        for depth in (1, 2, 3):
            assert GAME.perft(state, depth) == generic(state, depth)


# ----------------------------------------------------------------- against the reference


def playout(seed: int, handicap: int = 0) -> Iterator[Position]:
    """Every position of one seeded random game from the start, the last one finished."""
    rng = random.Random(seed)
    state = GAME.initial(handicap=handicap)
    while True:
        yield state
        legal = GAME.legal_moves(state)
        if not legal:
            return
        state = GAME.apply(state, rng.choice(legal))


def test_moves_and_results_agree_with_the_reference_over_random_games() -> None:
    checked = 0
    for seed in range(30):
        for state in playout(seed, handicap=seed % 4):
            text = GAME.format_position(state)
            assert GAME.move_texts(state) == ref.moves(text), text
            outcome = GAME.outcome(state)
            expected = "ongoing" if outcome is None else f"win {outcome.winner}" if outcome.winner else "draw"
            assert ref.result(text) == expected, text
            for move in GAME.legal_moves(state)[:3]:
                assert GAME.format_position(GAME.apply(state, move)) == ref.apply(
                    text, GAME.format_move(move)
                )
            checked += 1
    assert checked > 1000


def test_shallow_perft_agrees_with_the_reference_in_random_games() -> None:
    for seed in range(100, 110):
        for number, state in enumerate(playout(seed)):
            if number % 9 == 4:
                text = GAME.format_position(state)
                assert GAME.perft(state, 2) == ref.perft(text, 2), text


# ----------------------------------------------------------------- properties


def pieces(state: Position) -> str:
    return "".join(state.stacks)


def check_capture(before: Position, move: Move, after_state: Position) -> None:
    """One piece leaves the top of each jumped column for the bottom of the capturer."""
    path, jumps = move
    moved = before.stacks[path[0]]
    taken = "".join(before.stacks[sq][-1] for sq in reversed(jumps))
    landed = after_state.stacks[path[-1]]
    assert len(landed) == len(moved) + len(jumps)
    assert landed[: len(jumps)] == taken
    assert landed[len(jumps) : -1] == moved[:-1]
    assert landed[-1] in (moved[-1], moved[-1].upper())
    for sq in jumps:
        assert after_state.stacks[sq] == before.stacks[sq][:-1]
    enemy = "b" if before.side == 0 else "w"
    assert all(before.stacks[sq][-1].lower() == enemy for sq in jumps)


@given(seed=st.integers(0, 2**32 - 1), handicap=st.sampled_from([0, 0, 0, 2, 6]))
def test_random_games_keep_every_invariant(seed: int, handicap: int) -> None:
    total = 24 - handicap
    plies = 0
    for state in playout(seed, handicap):
        assert len(pieces(state)) == total  # nothing ever leaves the board
        assert pieces(state).lower().count("b") == 12
        text = GAME.format_position(state)
        assert GAME.parse_position(text) == state
        legal = GAME.legal_moves(state)
        assert (GAME.outcome(state) is None) == bool(legal)
        texts = [GAME.format_move(m) for m in legal]
        assert len(set(texts)) == len(texts)
        assert len({GAME.clicks(m) for m in legal}) == len(legal)
        frozen = (state, hash(state), text)
        for move in legal:
            assert GAME.parse_move(state, GAME.format_move(move)) == move
            child = GAME.apply(state, move)
            assert child.plies == state.plies + 1
            if move[1]:
                check_capture(state, move, child)
        assert (state, hash(state), GAME.format_position(state)) == frozen  # apply never mutates
        assert state.plies == plies
        plies += 1
    assert plies <= 251


@given(seed=st.integers(0, 2**32 - 1))
def test_clicks_are_unique_and_follow_the_notation(seed: int) -> None:
    for state in playout(seed):
        legal = GAME.legal_moves(state)
        clicks = [GAME.clicks(m) for m in legal]
        assert len(set(clicks)) == len(clicks)
        for move, path in zip(legal, clicks, strict=True):
            assert GAME.format_move(move).replace("-", ":").split(":") == list(path)
            assert GAME.click_paths(move) == (path,)


# ----------------------------------------------------------------- command line


def run(argv: list[str], stdin: str = "") -> str:
    out = io.StringIO()
    assert cli(argv, stdin=io.StringIO(stdin), stdout=out) == 0
    return out.getvalue()


def test_cli_perft() -> None:
    assert run(["perft", "bashni", "4"]) == "1 7\n2 49\n3 302\n4 1469\n"
    assert run(["perft", "bashni", "2", "--position", "w a1:W,c3:b,f6:b 0 0"]) == "1 4\n2 0\n"


def test_cli_moves() -> None:
    lines = [START, "w a1:W,c3:b,f6:b 0 0", "w a1:W,h8:B 250 0", "w a2:w 0 0", "b a1:W 0 0"]
    out = run(["moves", "bashni"], "\n".join(lines) + "\n").split("\n")
    assert out[0] == "a3-b4 | c3-b4 | c3-d4 | e3-d4 | e3-f4 | g3-f4 | g3-h4"
    assert out[1] == "a1:d4:g7 | a1:d4:h8 | a1:e5:g7 | a1:e5:h8"
    assert out[2] == ""
    assert out[3].startswith("error: ") and "dark" in out[3]
    assert out[4] == ""
    assert out[5:] == [""]


def test_cli_apply() -> None:
    lines = [
        f"{START}\tc3-d4",
        f"{START}\tc3-e5",
        f"{START}\tzz",
        f"{START} c3-d4",
        "w a1:w,a1:b 0 0\tc3-d4",
        "w a1:W,h8:B 250 0\ta1-b2",
        "w c3:w,d4:wb,h8:b 0 0\tc3:e5",
    ]
    out = run(["apply", "bashni"], "\n".join(lines) + "\n").splitlines()
    assert out[0] == (
        "b a1:w,c1:w,e1:w,g1:w,b2:w,d2:w,f2:w,h2:w,a3:w,e3:w,g3:w,d4:w,"
        "b6:b,d6:b,f6:b,h6:b,a7:b,c7:b,e7:b,g7:b,b8:b,d8:b,f8:b,h8:b 1 0"
    )
    assert out[1].startswith("error: ") and "not a legal move" in out[1]
    assert out[2].startswith("error: ") and "not a Bashni move" in out[2]
    assert out[3].startswith("error: ") and "TAB" in out[3]
    assert out[4].startswith("error: ") and "duplicate" in out[4]
    assert out[5].startswith("error: ") and "over" in out[5]
    assert out[6] == "b d4:w,e5:bw,h8:b 1 0"
    assert len(out) == 7


def test_cli_result() -> None:
    lines = [START, "w a1:W,h8:B 250 0", "w a1:W,h8:B 70 50", "b a1:W 0 0", "w a1:w,b2:bb,c3:b 9 0", "w"]
    out = run(["result", "bashni"], "\n".join(lines) + "\n").splitlines()
    assert out[:5] == ["ongoing", "draw", "draw", "win w", "win b"]
    assert out[5].startswith("error: ")
