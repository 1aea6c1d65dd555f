"""Bilsang rule options (RULES.md, "Bilsang rule options"): ``line`` and ``quiet=N``.

Every count and move list is checked against ``bilsang_reference``, which reads
the ninth field and applies the same-line rule on its own; the small positions
are also worked out by hand in the comments beside them.
"""

from __future__ import annotations

import io
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import BadPosition, Outcome
from games.bilsang import GAME, NEW_MATCH_OPTIONS, Pair, Removal, Single
from games.cli import main
from tests.games import bilsang_reference as ref
from tests.games.playouts import random_plies
from tests.games.test_bilsang import START, P, after, random_position, texts

DEFAULT = START + " line,quiet=300"

# A 2x3 block, axis h. With free pairs: 4 pairs along h (a right-column buoy
# right, a left-column buoy left) and 9 switches (a top buoy up, a bottom one
# down). With line the partners share a row along h (2,0 with 0,0; 2,1 with
# 0,1) and a column along v (0,1/0,0, 1,1/1,0, 2,1/2,0): 2 pairs, 3 switches.
BLOCK6 = "2 h 0 7 7 9 0,0;1,0;2,0;0,1;1,1;2,1 -"
BLOCK6_LINE_MOVES = ["h 2,0+ 0,0-", "h 2,1+ 0,1-", "v 0,1+ 0,0-", "v 1,1+ 1,0-", "v 2,1+ 2,0-"]

# A plus sign, axis h. Its only same-row pair is the arm ends 2,1 (right) and
# 0,1 (left), which then stand two cells away from the rest; its only
# same-column pair, the ends 1,2 and 1,0, likewise. So with line the mover is
# blocked and removes; any of the five may go (without the centre the four
# arms still touch diagonally). With free pairs the two ends of one arm pair
# swap across instead: h 1,0+ 1,2- and so on, four moves, no removal.
CROSS = "1 h 0 7 8 7 1,0;0,1;1,1;2,1;1,2 -"
CROSS_FREE_MOVES = ["h 1,0+ 1,2-", "h 1,2+ 1,0-", "v 0,1+ 2,1-", "v 2,1+ 0,1-"]
CROSS_LINE_MOVES = ["x 0,1", "x 1,0", "x 1,1", "x 1,2", "x 2,1"]

# Two buoys on a diagonal: free pairs cross them over (h 0,0+ 1,1- and
# v 0,0+ 1,1- leave them touching); with line they share no row or column.
DIAGONAL = "1 h 0 9 9 5 0,0;1,1 -"

HAND_BUILT_WITH_OPTIONS = [
    DEFAULT,
    START + " line",
    START + " quiet=1000",
    BLOCK6 + " line",
    BLOCK6 + " line,quiet=500",
    CROSS + " line",
    DIAGONAL + " line",
    # a block penalised after a switch: singles are the same with or without line
    "1 v 1 8 8 3 0,0;1,0;0,1;1,1 - line,quiet=300",
    "2 h 1 6 6 40 0,0;1,0;2,0;0,1;2,1;0,2;1,2;2,2 0,0;2,2 line",
    "1 h 0 5 9 12 0,0;1,0;2,0;3,1;4,1;4,2 - line,quiet=120",
]


# ================================================================ the rules


def test_initial_with_options_writes_the_ninth_field() -> None:
    assert GAME.format_position(GAME.initial()) == START
    assert GAME.format_position(GAME.initial(line=True, quiet=300)) == DEFAULT
    assert GAME.format_position(GAME.initial(**NEW_MATCH_OPTIONS)) == DEFAULT
    assert GAME.format_position(GAME.initial(quiet=1000)) == START + " quiet=1000"
    assert GAME.format_position(GAME.initial(line=True, quiet=100)) == START + " line"


@pytest.mark.parametrize("options", [{"line": "yes"}, {"quiet": 99}, {"quiet": 1001}, {"quiet": True}])
def test_initial_refuses_bad_option_values(options: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        GAME.initial(**options)  # type: ignore[arg-type]


def test_initial_refuses_unknown_options() -> None:
    with pytest.raises(TypeError):
        GAME.initial(handicap=1)  # type: ignore[call-arg]


def test_same_line_pair_moves() -> None:
    # From the start: along h only a row's right end with the same row's left
    # end (4 rows), along v a column's top with its bottom (5 columns): 9.
    assert texts(DEFAULT) == [
        "h 4,0+ 0,0-",
        "h 4,1+ 0,1-",
        "h 4,2+ 0,2-",
        "h 4,3+ 0,3-",
        "v 0,3+ 0,0-",
        "v 1,3+ 1,0-",
        "v 2,3+ 2,0-",
        "v 3,3+ 3,0-",
        "v 4,3+ 4,0-",
    ]
    assert len(texts(START)) == 41
    assert texts(BLOCK6 + " line") == BLOCK6_LINE_MOVES
    assert len(texts(BLOCK6)) == 13
    for move in GAME.legal_moves(P(BLOCK6 + " line")):
        assert isinstance(move, Pair)
        assert (move.plus[1] == move.minus[1]) if move.axis == "h" else (move.plus[0] == move.minus[0])


def test_same_line_switch() -> None:
    # The required axis is h; the v moves are switches, each within a column,
    # and the opponent is then penalised along h.
    switches = [m for m in texts(BLOCK6 + " line") if m.startswith("v")]
    assert switches == ["v 0,1+ 0,0-", "v 1,1+ 1,0-", "v 2,1+ 2,0-"]
    # 0,1 up with 1,0 down is a legal switch with free pairs, not with line
    assert "v 0,1+ 1,0-" in texts(BLOCK6)
    assert after(BLOCK6 + " line", "v 1,1+ 1,0-") == "1 h 1 7 7 10 1,-1;0,0;2,0;0,1;2,1;1,2 1,-1;1,2 line"


def test_same_line_block_forces_a_removal() -> None:
    assert texts(CROSS) == CROSS_FREE_MOVES
    assert texts(CROSS + " line") == CROSS_LINE_MOVES
    removed = GAME.play(P(CROSS + " line,quiet=300"), "x 1,1")
    assert (removed.lost1, removed.lost2, removed.quiet) == (8, 8, 0)
    assert GAME.format_position(removed) == "2 v 0 8 8 0 1,0;0,1;2,1;1,2 - line,quiet=300"
    assert texts(DIAGONAL) == ["h 0,0+ 1,1-", "v 0,0+ 1,1-"]
    assert texts(DIAGONAL + " line") == ["x 0,0", "x 1,1"]


def test_singles_are_the_same_with_line() -> None:
    penalised = "1 v 1 8 8 3 0,0;1,0;0,1;1,1 -"
    assert texts(penalised + " line") == texts(penalised) == ["v 0,0-", "v 0,1+", "v 1,0-", "v 1,1+"]
    assert all(isinstance(m, Single) for m in GAME.legal_moves(P(penalised + " line")))


def test_quiet_option_sets_when_the_game_ends() -> None:
    cells = START.split()[6]
    # 150 quiet plies: over today's limit, so refused without the option
    with pytest.raises(BadPosition, match="quiet"):
        P(f"1 h 0 0 0 150 {cells} -")
    assert GAME.outcome(P(f"1 h 0 0 0 150 {cells} - quiet=300")) is None
    assert GAME.outcome(P(f"1 h 0 0 0 100 {cells} - line,quiet=300")) is None
    assert GAME.outcome(P(f"1 h 0 0 0 100 {cells} - line")) == Outcome(None, "quiet")
    last = P(f"1 h 0 0 0 299 {cells} - line,quiet=300")
    assert GAME.legal_moves(last)
    ended = GAME.play(last, "h 4,0+ 0,0-")
    assert ended.quiet == 300
    assert GAME.outcome(ended) == Outcome(None, "quiet")
    assert GAME.legal_moves(ended) == []
    with pytest.raises(BadPosition, match="quiet"):
        P(f"1 h 0 0 0 301 {cells} - line,quiet=300")
    # scored by lost buoys as before
    assert GAME.outcome(P("2 v 0 8 9 1000 0,0;1,0;2,0 - quiet=1000")) == Outcome("1", "quiet")


def test_a_move_keeps_the_options() -> None:
    state = P(DEFAULT)
    for _ in range(6):
        state = GAME.apply(state, GAME.legal_moves(state)[0])
        assert (state.line, state.limit) == (True, 300)
    assert isinstance(GAME.legal_moves(P(CROSS + " line"))[0], Removal)
    assert P(CROSS + " line") != P(CROSS)


# ================================================================ the field


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("line", "line"),
        ("quiet=300", "quiet=300"),
        ("line,quiet=300", "line,quiet=300"),
        ("line,quiet=1000", "line,quiet=1000"),
        ("quiet=100", ""),
        ("line,quiet=100", "line"),
        ("line,quiet=0300", "line,quiet=300"),
    ],
)
def test_options_field_round_trips(written: str, canonical: str) -> None:
    state = P(f"{START} {written}")
    text = GAME.format_position(state)
    assert text == (f"{START} {canonical}" if canonical else START)
    assert P(text) == state
    assert ref.write(ref.read(f"{START} {written}")) == text


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("lines", "not an option"),
        ("free", "not an option"),
        ("line=1", "not an option"),
        ("quiet", "not an option"),
        ("line,", "not an option"),
        ("Line", "not an option"),
        ("line,line", "twice"),
        ("quiet=300,quiet=300", "twice"),
        ("quiet=300,line", "before"),
        ("quiet=99", "out of range"),
        ("quiet=1001", "out of range"),
        ("quiet=0", "out of range"),
        ("quiet=-5", "whole number"),
        ("quiet=3e2", "whole number"),
        ("quiet=", "whole number"),
    ],
)
def test_bad_options_are_refused_naming_the_field(field: str, message: str) -> None:
    with pytest.raises(BadPosition, match=f"options: .*{message}"):
        P(f"{START} {field}")


def test_a_tenth_field_is_refused() -> None:
    with pytest.raises(BadPosition, match="8 fields"):
        P(f"{START} line quiet=300")


# ================================================================ perft


def test_perft_with_options_from_the_start() -> None:
    # Depth 1 by hand in test_same_line_pair_moves. Depth 4 is 15730 by the
    # engine and by the reference (computed once: about a minute for the
    # reference). The quiet limit changes nothing this early.
    assert [GAME.perft(P(DEFAULT), d) for d in (1, 2, 3)] == [9, 93, 1194]
    assert [ref.perft(DEFAULT, d) for d in (1, 2, 3)] == [9, 93, 1194]
    assert [GAME.perft(P(START + " quiet=1000"), d) for d in (1, 2)] == [41, 3091]
    assert GAME.perft(GAME.initial(line=True, quiet=1000), 3) == 1194


@pytest.mark.parametrize(
    ("position", "counts"),
    [
        (BLOCK6 + " line", [5, 32, 72]),
        (CROSS + " line", [5, 20, 48]),
        (DIAGONAL + " line", [2, 0, 0]),
        ("1 v 1 8 8 3 0,0;1,0;0,1;1,1 - line", [4, 12, 28]),
        ("2 h 1 6 6 40 0,0;1,0;2,0;0,1;2,1;0,2;1,2;2,2 0,0;2,2 line", [8, 42, 212]),
        # the quiet limit cuts the tree: the second ply ends the game (a leaf)
        (f"1 h 0 0 0 298 {START.split()[6]} - line,quiet=300", [9, 108, 0]),
    ],
)
def test_perft_with_options_hand_built(position: str, counts: list[int]) -> None:
    state = P(position)
    assert [GAME.perft(state, d) for d in range(1, len(counts) + 1)] == counts
    assert [ref.perft(position, d) for d in range(1, len(counts) + 1)] == counts


@pytest.mark.parametrize("position", HAND_BUILT_WITH_OPTIONS)
def test_moves_and_successors_match_reference(position: str) -> None:
    assert texts(position) == ref.moves(position)
    for move in ref.moves(position):
        assert after(position, move) == ref.apply(position, move)


# ================================================================ properties


def random_options(rng: random.Random) -> tuple[str, int]:
    """A random ninth field (possibly none) and the quiet limit it sets."""
    line = rng.random() < 0.7
    limit = rng.choice([100, 100, 300, rng.randint(100, 1000), 1000])
    parts = (["line"] if line else []) + ([f"quiet={limit}"] if limit != 100 or rng.random() < 0.2 else [])
    return ",".join(parts), limit


def random_position_with_options(rng: random.Random) -> str:
    """A valid position with random options; its quiet count is set close to the limit."""
    field, limit = random_options(rng)
    fields = random_position(rng).split()
    # at most 60 plies to the limit, so every playout stays short
    fields[5] = str(rng.randint(max(0, limit - 60), limit))
    return " ".join(fields + ([field] if field else []))


def _playout_with_reference(position: str, rng: random.Random, checked: int) -> None:
    """A random game to its end: invariants every ply, the reference for the first ``checked``.

    random_plies checks the text round trip, that a move leaves its position as it was,
    and that the game has a move until it ends and none after.
    """
    state = P(position)
    line, limit = state.line, state.limit
    for ply in random_plies(GAME, state, rng):
        text, moves = ply.text, ply.moves
        assert (ply.before.line, ply.before.limit) == (line, limit)
        assert ply.before.quiet <= limit
        if line:
            for move in moves:
                if isinstance(move, Pair):
                    shared = 1 if move.axis == "h" else 0  # the y of a row, the x of a column
                    assert move.plus[shared] == move.minus[shared], (text, GAME.format_move(move))
        if ply.number < checked:
            assert sorted(GAME.format_move(m) for m in moves) == ref.moves(text)
            assert GAME.format_position(ply.after) == ref.apply(text, GAME.format_move(ply.move))
        assert ply.number + 1 <= 20 * limit
        state = ply.after
    expected = ref.result(GAME.format_position(state))
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert expected == ("draw" if outcome.winner is None else f"win {outcome.winner}")


@given(st.integers(0, 2**32))
def test_random_playouts_with_random_options(seed: int) -> None:
    rng = random.Random(seed)
    _playout_with_reference(random_position_with_options(rng), rng, checked=3)


def test_seeded_playouts_from_the_start_with_options() -> None:
    # From the start with each offered rule set: the reference agrees ply by
    # ply at the start of the game and the game ends within its limit.
    rng = random.Random(20)
    for field in ("line,quiet=300", "line", "line,quiet=1000"):
        fields = DEFAULT.split()[:8]
        limit = int(field.partition("quiet=")[2] or 100)
        fields[5] = str(limit - 40)
        _playout_with_reference(" ".join([*fields, field]), rng, checked=4)


# ================================================================ CLI


def run(argv: list[str], stdin: str = "") -> str:
    out = io.StringIO()
    main(argv, stdin=io.StringIO(stdin), stdout=out)
    return out.getvalue()


def test_cli_with_options() -> None:
    assert run(["perft", "bilsang", "2", "--position", DEFAULT]) == "1 9\n2 93\n"
    assert run(["perft", "bilsang", "1", "--position", START + " line,line"]).startswith("error: options")
    out = run(["moves", "bilsang"], f"{CROSS} line\n{CROSS}\n{START} quiet=50\n").splitlines()
    assert out == [" | ".join(CROSS_LINE_MOVES), " | ".join(CROSS_FREE_MOVES), out[2]]
    assert out[2].startswith("error: options: ")
    out = run(["apply", "bilsang"], f"{DEFAULT}\th 4,0+ 0,0-\n{DEFAULT}\th 4,0+ 0,3-\n").splitlines()
    assert out[0] == ref.apply(DEFAULT, "h 4,0+ 0,0-")
    assert out[0].endswith(" line,quiet=300")
    assert out[1].startswith("error: ")  # a free pair, illegal under line
    cells = START.split()[6]
    lines = [DEFAULT, f"1 h 0 0 0 100 {cells} - line", f"1 h 0 0 0 100 {cells} - quiet=300", f"{CROSS} x"]
    out = run(["result", "bilsang"], "\n".join(lines) + "\n").splitlines()
    assert out[:3] == ["ongoing", "draw", "ongoing"]
    assert out[3].startswith("error: options")
    think = run(["think", "bilsang", "--level", "1"], f"{DEFAULT}\n{CROSS} line\n").splitlines()
    move, ms = think[0].rsplit(" ", 1)
    assert move in texts(DEFAULT) and ms.isdigit()
    assert think[1].rsplit(" ", 1)[0] in CROSS_LINE_MOVES
