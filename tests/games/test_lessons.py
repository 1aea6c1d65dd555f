"""Every step of every lesson: its position is legal, its hint reaches the goal, and some
other legal move is refused with a reason (issue 29)."""

from __future__ import annotations

import pytest

import games
from games import lessons
from games.base import BadMove
from games.lessons import NOT_THE_GOAL, BadLine, LessonError, judge

STEPS = [
    (name, lesson.id, number)
    for name in games.names()
    for lesson in lessons.lessons(name)
    for number in range(1, len(lesson.steps) + 1)
]


def test_each_game_has_eight_to_twelve_lessons() -> None:
    for name in games.names():
        found = lessons.lessons(name)
        assert 8 <= len(found) <= 12, name
        assert len({item.id for item in found}) == len(found)
        assert all(item.steps for item in found)


def play_through(name: str, lesson_id: str, number: int) -> list[str]:
    """The step played by its hints to the end, each move judged; the line played."""
    step = lessons.step(name, lesson_id, number)
    line: list[str] = []
    for turn in range(step.turns):
        move = lessons.hint(name, lesson_id, number, line)
        verdict = judge(name, lesson_id, number, [*line, move])
        assert verdict.ok, (lesson_id, number, move, verdict)
        last = turn == step.turns - 1
        assert verdict.done is last
        line.append(move)
        if not last:
            assert verdict.reply == step.replies[turn]
            line.append(verdict.reply)
    return line


@pytest.mark.parametrize(("name", "lesson_id", "number"), STEPS)
def test_step(name: str, lesson_id: str, number: int) -> None:
    game = games.get(name)
    step = lessons.step(name, lesson_id, number)
    state = game.parse_position(step.position)
    assert game.format_position(state) == step.position, "positions are written canonically"
    assert game.outcome(state) is None and game.legal_moves(state)
    line = play_through(name, lesson_id, number)
    # Another legal move at the first turn is refused with a reason, and can be retried.
    wrong = [m for m in game.move_texts(state) if not judge(name, lesson_id, number, [m]).ok]
    assert wrong, "every step must have a legal move that misses its goal"
    verdict = judge(name, lesson_id, number, [wrong[0]])
    assert not verdict.ok and not verdict.done and verdict.reply is None
    assert verdict.message == NOT_THE_GOAL and verdict.values["why"]
    assert judge(name, lesson_id, number, line[:1]).ok
    # Scripted replies are legal where they are played.
    for index in range(1, len(line), 2):
        replayed = game.parse_position(step.position)
        for text in line[:index]:
            replayed = game.play(replayed, text)
        game.parse_move(replayed, line[index])


def test_an_illegal_move_is_answered_with_why() -> None:
    verdict = judge("bashni", "compulsory", 1, ["h2-g3"])
    assert not verdict.ok
    assert verdict.values["why"] == lessons.MANDATORY_CAPTURE
    assert judge("morris", "mills", 1, ["a7"]).values["why"] == lessons.NOT_LEGAL_HERE


def test_bad_lines_are_refused() -> None:
    with pytest.raises(BadLine):
        judge("morris", "reopen", 1, [])
    with pytest.raises(BadLine):  # the learner's first move was not the step's
        judge("morris", "reopen", 1, ["d1-d2", "a7-a4", "d2-d1"])
    with pytest.raises(BadLine):  # a reply that is not the script's
        judge("morris", "reopen", 1, ["g1-g4", "f6-f4", "g4-g1"])
    with pytest.raises(BadLine):  # past the end of the step
        judge("bashni", "men", 1, ["c3-d4", "f8-e7", "d4-e5"])
    with pytest.raises(BadMove):
        judge("bashni", "men", 1, ["not a move"])
    with pytest.raises(LessonError):
        judge("bashni", "nope", 1, ["c3-d4"])
    with pytest.raises(LessonError):
        judge("bashni", "men", 9, ["c3-d4"])
    with pytest.raises(games.UnknownGame):
        lessons.lessons("chess")
