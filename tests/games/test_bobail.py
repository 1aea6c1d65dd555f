"""Bobail (Neutron rules, RULES.md section 3): perft, one test per rule, a reference
cross-check, properties over random playouts, and the engine command line.

Perft numbers were computed by both ``games.bobail`` and the independent
``bobail_reference`` (dict board, moves built as text) and agree; the smallest
cases are also counted by hand in the comments.

Decisions taken where RULES.md leaves room (also in ``games/bobail.py``):
- a position with the Neutron already on rank 1 or 5 parses; it is finished;
- a Neutron move not ending the game that leaves the mover no electron move is
  not a legal move; one ending on the opponent's rank is legal and loses;
- ``c3-c3`` / ``c3-d5`` are well-formed notation, so illegal rather than bad syntax;
  upper-case squares are not notation.
"""

from __future__ import annotations

import io
import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

import games
from games import BadMove, BadPosition, IllegalMove, Outcome
from games.bobail import GAME, START, BobailMove, BobailState
from games.cli import main
from tests.games import bobail_reference as ref


def position(side: str, *ranks: str) -> str:
    """A position string from five rank strings, rank 5 first (as on a diagram)."""
    assert len(ranks) == 5 and all(len(r) == 5 for r in ranks)
    return side + " " + "".join(ranks)


# fmt: off
# White to move; the Neutron on c2 is boxed in except towards c1: its one move wins.
WIN_RANK1_W = position("w", "b...b", ".....", ".bbb.", ".wnw.", "ww.w.")
# The same board with Black to move: Black's only move puts the Neutron on c1, White wins.
WIN_RANK1_B = position("b", "b...b", ".....", ".bbb.", ".wnw.", "ww.w.")
# Black to move; the Neutron on c4 can only go to c5: Black wins.
WIN_RANK5_B = position("b", ".b.b.", ".bnb.", ".bww.", ".....", "w.w.w")
# Same board, White to move: White's only move hands Black the win.
WIN_RANK5_W = position("w", ".b.b.", ".bnb.", ".bww.", ".....", "w.w.w")
# The Neutron on c3 is surrounded on all 8 sides: the player to move has no move.
STUCK_W = position("w", ".....", ".bbb.", ".bnb.", ".www.", "w...w")
STUCK_B = position("b", ".....", ".bbb.", ".bnb.", ".www.", "w...w")
# Black's rank-2 wall shuts every White electron in. White's Neutron moves to a3 or
# e3 would leave no electron move, so they are not moves; only the three slides to
# rank 5 remain, and each hands Black the win.
WALL_W = position("w", ".....", ".....", "..n..", "bbbbb", "wwwww")
WALL_B = position("b", ".....", ".....", "..n..", "bbbbb", "wwwww")
# Finished positions (accepted by parse_position): Neutron already home.
HOME_1 = position("b", "bbbbb", ".....", "..w..", ".....", "wwnww")
HOME_5 = position("w", "bbnbb", "..b..", ".....", ".....", "wwwww")
# From a random playout: White can win with b4-b1 or lose with b4-c5.
MIXED = "w bb.b.wn........w.b.b..www"
# fmt: on

# Depth 5 is 409682886 (engine about 3 minutes, reference about 45 minutes; they
# agree), too slow to run here.
START_PERFT = [95, 4516, 208814, 9284116]

# (position, perft for depths 1..4), each agreed by engine and reference (reference
# up to depth 3 here, all four depths offline).
PERFT_CASES = [
    # 1: c2-c1 only (N c3, NE d3, NW b3, E d2, W b2, SE d1, SW b1 all occupied);
    # it ends the game, so nothing follows.
    (WIN_RANK1_W, [1, 0, 0, 0]),
    (WIN_RANK1_B, [1, 0, 0, 0]),
    # 1: c4-c5 only, the mirror image of the case above.
    (WIN_RANK5_B, [1, 0, 0, 0]),
    (WIN_RANK5_W, [1, 0, 0, 0]),
    # 0: all eight neighbours of the Neutron are occupied.
    (STUCK_W, [0, 0, 0, 0]),
    (STUCK_B, [0, 0, 0, 0]),
    # 3: c3-c5, c3-a5, c3-e5 (game over); E/W leave no White electron free; S/SE/SW
    # are blocked by the wall.
    (WALL_W, [3, 0, 0, 0]),
    # 25: c3-c5, c3-a5, c3-e5 win at once (3). c3-e3 then: a2 N->a5, NE->d5 (2);
    # b2 N->b5, NE->e5 through the emptied c3, NW->a3 (3); c2 N->c5, NE->e4, NW->a4 (3);
    # d2 N->d5, NW->a5 (NE is the Neutron on e3) (2); e2 NW->b5 (N is the Neutron) (1):
    # 11, and c3-a3 is the mirror image: 11. 3 + 11 + 11 = 25.
    (WALL_B, [25, 110, 2254, 50662]),
    (HOME_1, [0, 0, 0, 0]),
    (HOME_5, [0, 0, 0, 0]),
    (MIXED, [36, 1466, 54006, 2309956]),
]


def state(text: str) -> BobailState:
    return GAME.parse_position(text)


def texts(text: str) -> list[str]:
    return GAME.move_texts(state(text))


def generic_perft(s: BobailState, depth: int) -> int:
    """Game.perft's definition spelled out, to check the engine's faster override."""
    if depth == 0:
        return 1
    return sum(generic_perft(GAME.apply(s, m), depth - 1) for m in GAME.legal_moves(s))


def playout(seed: int, limit: int = 1000) -> tuple[list[BobailState], list[BobailMove]]:
    """A random game from the start until outcome_after ends it or ``limit`` plies."""
    rng = random.Random(seed)
    history = [GAME.initial()]
    moves: list[BobailMove] = []
    while GAME.outcome_after(history) is None and len(moves) < limit:
        move = rng.choice(GAME.legal_moves(history[-1]))
        moves.append(move)
        history.append(GAME.apply(history[-1], move))
    return history, moves


# ------------------------------------------------------------------------- basics


def test_registered_and_named() -> None:
    assert games.get("bobail") is GAME
    assert (GAME.name, GAME.title, GAME.sides) == ("bobail", "Bobail", ("w", "b"))


def test_initial_position() -> None:
    s = GAME.initial()
    assert GAME.format_position(s) == START == "w bbbbb.......n.......wwwww"
    assert GAME.to_move(s) == "w"
    assert GAME.outcome(s) is None


# -------------------------------------------------------------------------- perft


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_perft_from_start(depth: int) -> None:
    # Depth 1 by hand: the Neutron has 8 slides (c4, c2, e3, a3, d4, b4, d2, b2),
    # none reaching a home rank. With it off rank 2, White's rank-1 electrons have
    # 2+3+3+3+2 = 13 slides (sideways is blocked by neighbours); when it stops on
    # b2, c2 or d2 it blocks 3 of them: 5 * 13 + 3 * 10 = 95.
    assert GAME.perft(GAME.initial(), depth) == START_PERFT[depth - 1]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_reference_perft_from_start(depth: int) -> None:
    assert ref.perft(START, depth) == START_PERFT[depth - 1]


@pytest.mark.parametrize(("text", "counts"), PERFT_CASES)
def test_perft_hand_built(text: str, counts: list[int]) -> None:
    s = state(text)
    assert [GAME.perft(s, d) for d in range(1, 5)] == counts
    assert [ref.perft(text, d) for d in range(1, 4)] == counts[:3]
    assert GAME.perft(s, 0) == 1


@pytest.mark.parametrize("text", [START, WALL_B, MIXED, WIN_RANK1_W, STUCK_B, HOME_5])
def test_perft_override_matches_definition(text: str) -> None:
    s = state(text)
    for depth in range(4 if text in (WALL_B, WIN_RANK1_W, STUCK_B, HOME_5) else 3):
        assert GAME.perft(s, depth) == generic_perft(s, depth)


# ---------------------------------------------------------------- one test a rule


def test_hand_built_move_lists() -> None:
    assert texts(WIN_RANK1_W) == texts(WIN_RANK1_B) == ["c2-c1"]
    assert texts(WIN_RANK5_B) == texts(WIN_RANK5_W) == ["c4-c5"]
    assert texts(WALL_W) == ["c3-a5", "c3-c5", "c3-e5"]
    assert {"b4-b1", "b4-c5"} <= set(texts(MIXED))


def test_slides_go_to_the_end() -> None:
    moves = texts(START)
    # The Neutron slides c3-d3-e3 and stops at the edge; it cannot stop on d3.
    assert "c3-e3 b1-b4" in moves
    assert not any(m.startswith("c3-d3") for m in moves)
    # a1 slides a2, a3, a4 and stops before Black's a5.
    assert "c3-e3 a1-a4" in moves
    assert "c3-e3 a1-a2" not in moves
    assert "c3-e3 a1-a3" not in moves


def test_electron_slides_after_the_neutron_moved() -> None:
    moves = texts(START)
    # With the Neutron gone from c3 to e3, a1's diagonal is open through c3 up to d4.
    assert "c3-e3 a1-d4" in moves
    assert "c3-e3 a1-b2" not in moves
    # With the Neutron still on the diagonal (moved to d4), a1 stops on c3.
    assert "c3-d4 a1-c3" in moves
    assert GAME.format_position(GAME.play(GAME.initial(), "c3-e3 a1-d4")) == ("b bbbbb...w.....n......wwww")


def test_at_least_one_square() -> None:
    s = GAME.initial()
    # a1's eastward neighbour b1 is occupied: no such slide, and no zero-length moves.
    for text in ["c3-e3 a1-b1", "c3-c3 a1-a4", "c3-e3 a1-a1"]:
        with pytest.raises(IllegalMove):
            GAME.parse_move(s, text)
    for move in GAME.legal_moves(s):
        assert move.neutron_from != move.neutron_to
        assert move.electron_from != move.electron_to


def test_win_on_rank_1_whoever_moved_it() -> None:
    for text in (WIN_RANK1_W, WIN_RANK1_B):
        after = GAME.play(state(text), "c2-c1")
        assert GAME.outcome(after) == Outcome("w", "neutron-home")


def test_win_on_rank_5_whoever_moved_it() -> None:
    for text in (WIN_RANK5_B, WIN_RANK5_W):
        after = GAME.play(state(text), "c4-c5")
        assert GAME.outcome(after) == Outcome("b", "neutron-home")


def test_the_turn_ends_on_a_win() -> None:
    s = state(WIN_RANK1_W)
    # No electron move may follow a Neutron move that ends the game.
    with pytest.raises(IllegalMove):
        GAME.parse_move(s, "c2-c1 b2-a3")
    after = GAME.play(s, "c2-c1")
    assert after.board.count("w") == 5 and GAME.to_move(after) == "b"
    assert GAME.legal_moves(after) == []
    with pytest.raises(IllegalMove):
        GAME.parse_move(after, "c1-c2 a5-a4")


def test_non_winning_neutron_move_needs_an_electron_move() -> None:
    s = GAME.initial()
    with pytest.raises(IllegalMove):
        GAME.parse_move(s, "c3-e3")
    # In the wall position the a3/e3 slides leave White nothing to move: not moves.
    assert not any(m.startswith(("c3-a3", "c3-e3")) for m in texts(WALL_W))


def test_no_move_loses_both_ways() -> None:
    assert GAME.outcome(state(STUCK_W)) == Outcome("b", "no-moves")
    assert GAME.outcome(state(STUCK_B)) == Outcome("w", "no-moves")
    assert GAME.legal_moves(state(STUCK_W)) == []
    with pytest.raises(IllegalMove):
        GAME.parse_move(state(STUCK_W), "c3-c4 a1-a2")


def test_no_moves_only_when_the_neutron_is_stuck() -> None:
    # A free Neutron that cannot reach a home rank while every electron of the mover
    # is shut in would need all of those electrons' neighbours filled by the five
    # other electrons plus the Neutron (after it moved). Search every board meeting
    # that necessary condition: none of them is a no-move loss, so in practice
    # "no-moves" means a stuck Neutron (the rule itself is still implemented generally).
    def neighbours(sq: tuple[int, int]) -> set[tuple[int, int]]:
        f, r = sq
        return {(f + df, r + dr) for df, dr in ref.STEPS if 1 <= f + df <= 5 and 1 <= r + dr <= 5}

    squares = [(f, r) for r in range(5, 0, -1) for f in range(1, 6)]
    found = []
    for mine in itertools.combinations(squares, 5):
        rim = set().union(*(neighbours(sq) for sq in mine)) - set(mine)
        if len(rim) > 6:
            continue
        rest = [sq for sq in squares if sq not in mine]
        for theirs in itertools.combinations(rest, 5):
            if len(rim - set(theirs)) > 1:
                continue
            for neutron in rest:
                if neutron in theirs or neutron[1] in (1, 5):
                    continue
                board = {**dict.fromkeys(mine, "w"), **dict.fromkeys(theirs, "b"), neutron: "n"}
                for side, other in (("w", "b"), ("b", "w")):
                    swapped = {sq: {"w": side, "b": other}.get(p, p) for sq, p in board.items()}
                    text = ref.write(side, swapped)
                    if ref.slides(swapped, neutron) and not GAME.legal_moves(state(text)):
                        found.append(text)
    assert found == []


def test_repetition_draw_via_outcome_after() -> None:
    cycle = ["c3-c4 a1-a4", "c4-e4 d5-d2", "e4-b4 a4-a1", "b4-c3 d2-d5"]
    history = [GAME.initial()]
    for text in cycle * 2:
        history.append(GAME.play(history[-1], text))
        assert GAME.outcome(history[-1]) is None
    assert history[4] == history[8] == history[0]
    # The start occurs for the second time at ply 4: nothing yet; third time at ply 8.
    for ply in range(8):
        assert GAME.outcome_after(history[: ply + 1]) is None
    assert GAME.outcome_after(history) == Outcome(None, "repetition")
    # The same board with the other side to move is a different position.
    assert GAME.repetition_key(state(START)) != GAME.repetition_key(state("b" + START[1:]))


def test_no_special_first_turn() -> None:
    s = GAME.initial()
    moves = texts(START)
    # White's first turn is a whole turn like any other: Neutron first, then an electron.
    assert len(moves) == 95
    assert all(m.startswith("c3-") and " " in m for m in moves)
    for text in ("a1-a4", "b1-b4"):
        with pytest.raises(IllegalMove):
            GAME.parse_move(s, text)


def test_finished_positions() -> None:
    assert GAME.outcome(state(HOME_1)) == Outcome("w", "neutron-home")
    assert GAME.outcome(state(HOME_5)) == Outcome("b", "neutron-home")
    for text in (HOME_1, HOME_5, STUCK_W):
        assert GAME.legal_moves(state(text)) == []
        with pytest.raises(IllegalMove):
            GAME.parse_move(state(text), "c3-c4 a1-a2")


# ----------------------------------------------------------------- text interface


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("", "fields"),
        ("w", "fields"),
        ("w bbbbb.......n.......wwwww x", "fields"),
        ("x bbbbb.......n.......wwwww", "side"),
        ("W bbbbb.......n.......wwwww", "side"),
        ("w bbbbb.......n.......wwww", "25 characters"),
        ("w bbbbb.......n.......wwwwww", "25 characters"),
        ("w bbbbb.......N.......wwwww", "bad character"),
        ("w bbbbb.......n.......wwwwx", "bad character 'x' at e1"),
        ("w bbbbb..n....n.......wwwww", "Neutron"),
        ("w bbbbb...............wwwww", "Neutron"),
        ("w bbbbb.......n.......wwww.", "white electrons"),
        ("w bbbbbw......n.......wwwww", "white electrons"),
        ("w bbbbbb......n.......wwwww", "black electrons"),
        ("w bbbb........n.......wwwww", "black electrons"),
    ],
)
def test_bad_positions(text: str, field: str) -> None:
    if "25 characters" not in field and "fields" not in field and "side" not in field:
        assert len(text.split()[1]) == 25
    with pytest.raises(BadPosition, match=field):
        GAME.parse_position(text)


@pytest.mark.parametrize(
    "text",
    [
        "zz",
        "c3",
        "f6-a1",
        "",
        "c3-c1-c2",
        "c3-e5 a1",
        "c3-e5 a1-a4 b1-b2",
        "C3-C1",
        "c0-c1",
        "c3c1",
        "c3 - c1",
    ],
)
def test_bad_move_syntax(text: str) -> None:
    with pytest.raises(BadMove):
        GAME.parse_move(GAME.initial(), text)


@pytest.mark.parametrize("text", ["c3-c1", "c3-c2", "c3-d5 a1-a2", "e5-e4 a1-a4", "c3-e3 b5-b4"])
def test_illegal_but_well_formed(text: str) -> None:
    with pytest.raises(IllegalMove):
        GAME.parse_move(GAME.initial(), text)


def test_move_whitespace_is_normalised() -> None:
    s = GAME.initial()
    assert GAME.parse_move(s, "  c3-e3   a1-d4 ") == GAME.parse_move(s, "c3-e3 a1-d4")


def test_format_and_clicks() -> None:
    s = GAME.initial()
    move = GAME.parse_move(s, "c3-e3 a1-d4")
    assert GAME.clicks(move) == ("c3", "e3", "a1", "d4")
    assert GAME.click_paths(move) == (("c3", "e3", "a1", "d4"),)
    win = GAME.parse_move(state(WIN_RANK1_W), "c2-c1")
    assert GAME.clicks(win) == ("c2", "c1")
    assert GAME.format_move(win) == "c2-c1"


def test_whitespace_in_position_input() -> None:
    assert GAME.parse_position("  w   bbbbb.......n.......wwwww \n") == GAME.initial()


# ------------------------------------------------------- reference cross-check


def _agree(s: BobailState) -> None:
    text = GAME.format_position(s)
    moves = GAME.move_texts(s)
    assert moves == ref.moves(text), text
    assert (GAME.outcome(s) is None) == (ref.result(text) == "ongoing"), text
    if GAME.outcome(s) is not None:
        assert ref.result(text) == f"win {GAME.outcome(s).winner}", text  # type: ignore[union-attr]
    for move in GAME.legal_moves(s):
        assert GAME.format_position(GAME.apply(s, move)) == ref.play(text, GAME.format_move(move))


@pytest.mark.parametrize("text", [START] + [c for c, _ in PERFT_CASES])
def test_reference_agrees_on_hand_built_and_their_children(text: str) -> None:
    s = state(text)
    _agree(s)
    for move in GAME.legal_moves(s):
        _agree(GAME.apply(s, move))


def test_reference_agrees_over_seeded_playouts() -> None:
    plies = 0
    for seed in range(40):
        history, _ = playout(seed)
        for s in history:
            _agree(s)
        plies += len(history) - 1
    assert plies > 200  # the playouts really did go somewhere


# ------------------------------------------------------------ random properties


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_playout_properties(seed: int) -> None:
    history, moves = playout(seed)
    # Random play ends: if this fails, report it (a playout hit the 1000-ply bound).
    result = GAME.outcome_after(history)
    assert result is not None, f"seed {seed}: no result after {len(moves)} plies"
    assert result.reason in ("neutron-home", "no-moves", "repetition")
    for before, move, after in zip(history[:-1], moves, history[1:], strict=True):
        frozen = (before.side, before.board, hash(before))
        assert GAME.apply(before, move) == after
        assert (before.side, before.board, hash(before)) == frozen
        text = GAME.format_move(move)
        assert GAME.parse_move(before, text) == move
        assert GAME.to_move(after) != GAME.to_move(before)
    for s in history:
        assert GAME.parse_position(GAME.format_position(s)) == s
        counts = {p: s.board.count(p) for p in "wbn"}
        assert counts == {"w": 5, "b": 5, "n": 1}
    if result.reason == "neutron-home":
        neutron_rank = 5 - history[-1].board.index("n") // 5
        assert result.winner == {1: "w", 5: "b"}[neutron_rank]
        assert moves[-1].electron_from is None
    if result.reason == "no-moves":
        assert result.winner != GAME.to_move(history[-1])


@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_clicks_unique_and_prefix_free(seed: int) -> None:
    history, _ = playout(seed)
    for s in history:
        moves = GAME.legal_moves(s)
        clicks = {GAME.clicks(m) for m in moves}
        assert len(clicks) == len(moves)
        assert len({GAME.format_move(m) for m in moves}) == len(moves)
        # A game-ending Neutron move's clicks are never the start of a longer move's:
        # whether a Neutron move ends the game depends only on where it stops.
        for c in clicks:
            assert len(c) in (2, 4)
            if len(c) == 4:
                assert c[:2] not in clicks
                assert c[:3] not in clicks


def test_random_playouts_end_quickly() -> None:
    lengths = [len(playout(seed)[1]) for seed in range(100)]
    assert max(lengths) < 1000


# ---------------------------------------------------------------------- the CLI


def run(argv: list[str], stdin: str = "") -> tuple[int, list[str]]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(stdin), stdout=out)
    return code, out.getvalue().splitlines()


def test_cli_perft() -> None:
    assert run(["perft", "bobail", "3"]) == (0, ["1 95", "2 4516", "3 208814"])
    assert run(["perft", "bobail", "2", "--position", WALL_B]) == (0, ["1 25", "2 110"])
    code, lines = run(["perft", "bobail", "2", "--position", "w nonsense"])
    assert code == 2 and lines[0].startswith("error: ") and len(lines) == 1


def test_cli_moves() -> None:
    code, lines = run(["moves", "bobail"], f"{START}\n{WALL_W}\n{HOME_1}\nw junk\n{STUCK_B}\n{MIXED}\n")
    assert code == 0
    assert lines[0].split(" | ") == sorted(ref.moves(START))
    assert lines[0] == " | ".join(sorted(lines[0].split(" | ")))
    assert lines[1] == "c3-a5 | c3-c5 | c3-e5"
    assert lines[2] == ""
    assert lines[3].startswith("error: ")
    assert lines[4] == ""
    assert lines[5].split(" | ") == ref.moves(MIXED)


def test_cli_apply() -> None:
    lines_in = [
        f"{START}\tc3-e3 a1-d4",
        f"{START}\tc3-c1",
        f"{START}\tzz",
        "x bbbbb.......n.......wwwww\tc3-e3 a1-d4",
        START,
        f"{HOME_1}\tc1-c2 a5-a4",
        f"{WIN_RANK1_B}\tc2-c1",
    ]
    code, lines = run(["apply", "bobail"], "\n".join(lines_in) + "\n")
    assert code == 0 and len(lines) == 7
    assert lines[0] == "b bbbbb...w.....n......wwww"
    for line in lines[1:6]:
        assert line.startswith("error: ")
    assert "side" in lines[3]
    assert lines[6] == "w b...b......bbb..w.w.wwnw."


def test_cli_result() -> None:
    stdin = "\n".join([START, HOME_1, HOME_5, STUCK_W, STUCK_B, "b too short", WIN_RANK5_W]) + "\n"
    code, lines = run(["result", "bobail"], stdin)
    assert code == 0
    assert lines[:5] == ["ongoing", "win w", "win b", "win b", "win w"]
    assert lines[5].startswith("error: ")
    assert lines[6] == "ongoing"
