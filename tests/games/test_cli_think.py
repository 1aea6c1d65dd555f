"""The ``think`` verb: one move and its time per position read, errors per line."""

from __future__ import annotations

import io
import random

import pytest

from games.bashni import GAME
from games.cli import main

MIDGAME = "w a1:w,b2:w,d2:w,f2:w,h2:w,a3:w,c3:w,b4:b,e5:bw,b6:b,c7:b,e7:b,g7:b,b8:b,f8:b,h8:b 26 0"
WIN_IN_ONE = "w f6:w,h6:w,h8:b 30 0"
FINISHED = "w h8:b,a7:b 30 0"


def think(lines: list[str], *args: str) -> tuple[int, list[str]]:
    out = io.StringIO()
    code = main(["think", "bashni", *args], stdin=io.StringIO("".join(f"{x}\n" for x in lines)), stdout=out)
    return code, out.getvalue().splitlines()


def playout(count: int) -> list[str]:
    """Distinct positions of one seeded random game."""
    rng = random.Random(4)
    state = GAME.initial()
    lines = []
    for _ in range(count):
        lines.append(GAME.format_position(state))
        state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
    return lines


def split(answer: str) -> tuple[str, int]:
    move, ms = answer.split(" ")
    return move, int(ms)


def test_one_legal_move_and_milliseconds_per_position() -> None:
    code, answers = think([MIDGAME, WIN_IN_ONE, GAME.format_position(GAME.initial())], "--level", "3")
    assert code == 0 and len(answers) == 3
    for position, answer in zip([MIDGAME, WIN_IN_ONE, None], answers, strict=True):
        move, ms = split(answer)
        state = GAME.parse_position(position) if position else GAME.initial()
        assert move in GAME.move_texts(state)
        assert ms >= 0
    assert split(answers[1])[0] == "h6-g7"


def test_bad_and_finished_lines_get_an_error_and_the_rest_goes_on() -> None:
    code, answers = think(["nonsense", FINISHED, "", WIN_IN_ONE], "--level", "2")
    assert code == 0 and len(answers) == 4
    assert answers[0].startswith("error: ") and "4 fields" in answers[0]
    assert answers[1] == "error: the game is over; there is no move to choose"
    assert answers[2].startswith("error: ")
    assert split(answers[3])[0] == "h6-g7"


def test_the_same_seed_gives_the_same_moves() -> None:
    # Level 1 blunders 30 % of the time, so the seed decides some of these moves.
    lines = playout(12)
    first = [split(a)[0] for a in think(lines, "--level", "1", "--seed", "5")[1]]
    again = [split(a)[0] for a in think(lines, "--level", "1", "--seed", "5")[1]]
    assert first == again


def test_each_position_s_answer_does_not_depend_on_the_lines_before_it() -> None:
    alone = think([MIDGAME], "--level", "2", "--seed", "3")[1]
    after_others = think([WIN_IN_ONE, MIDGAME], "--level", "2", "--seed", "3")[1]
    assert split(alone[0])[0] == split(after_others[1])[0]


@pytest.mark.parametrize(("game", "level"), [("bashni", "0"), ("morris", "6")])
def test_a_level_the_game_does_not_have_is_one_error(game: str, level: str) -> None:
    out = io.StringIO()
    assert main(["think", game, "--level", level], stdin=io.StringIO(MIDGAME + "\n"), stdout=out) == 2
    assert out.getvalue().startswith("error: ")


def test_level_is_required() -> None:
    with pytest.raises(SystemExit):
        main(["think", "bashni"], stdin=io.StringIO(""), stdout=io.StringIO())
