"""Lessons: short steps on positions made for them, judged by the engines.

The lessons of each game are data (``data/<game>.toml``): a lesson has an id, a title,
an introduction and steps; a step has a position, a goal in one sentence, and what
reaches the goal: predicates from ``checks`` (``check``), points the move must use
(``uses``), or the accepted moves (``accept``). A step of several turns lists its
``solution`` (the learner's moves) and the opponent's scripted ``replies``.

``judge`` answers a line of play (the learner's moves and the replies so far, the last
move new); ``hint`` names a move that reaches the goal. Both replay every move through
the engine: the server is the only judge. Texts are English; the web layer translates
them. This package never imports ``app``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import games
from games.base import GameError
from games.lessons.checks import CHECKS, NOT_THE_MOVE

DATA = Path(__file__).parent / "data"

#: The most moves a line may hold: no step is anywhere near it.
MAX_LINE = 40

WELL_DONE = "Well done!"
NOT_LEGAL = "That move is not legal here: %(why)s"
NOT_THE_GOAL = "Legal, but not the goal: %(why)s"
GO_ON = "Good. Your opponent answered %(reply)s; go on."


class LessonError(GameError):
    """A lesson or step that does not exist (the web layer answers 404)."""

    key = "unknown-lesson"


class BadLine(GameError):
    """A line that is not this step's (a reply not the script's, a move after the end)."""

    key = "bad-line"


@dataclass(frozen=True)
class Step:
    position: str
    goal: str
    check: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    accept: tuple[str, ...] = ()
    solution: tuple[str, ...] = ()
    replies: tuple[str, ...] = ()
    miss: str = ""
    done: str = ""

    @property
    def turns(self) -> int:
        return len(self.replies) + 1

    def texts(self) -> list[str]:
        return [t for t in (self.goal, self.miss, self.done) if t]


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    intro: str
    steps: tuple[Step, ...] = field(default_factory=tuple)
    #: the rules page's section this lesson teaches (its anchor), if any
    rule: str = ""

    def texts(self) -> list[str]:
        out = [self.title, self.intro]
        for step in self.steps:
            out += step.texts()
        return [t for t in out if t]


@dataclass(frozen=True)
class Verdict:
    #: the move is accepted (it reaches the goal, or is the right move of a longer step)
    ok: bool
    #: the step is complete
    done: bool
    #: the opponent's answer, played by the server, when the step goes on
    reply: str | None
    #: the sentence to show: an English template and its values (each value a text
    #: the web layer translates too)
    message: str
    values: dict[str, str] = field(default_factory=dict)


def _step(raw: dict[str, Any]) -> Step:
    known = set(Step.__dataclass_fields__)
    unknown = set(raw) - known
    if unknown:
        raise ValueError(f"unknown step fields: {', '.join(sorted(unknown))}")
    for name in ("check", "uses", "accept", "solution", "replies"):
        if name in raw:
            raw[name] = tuple(raw[name])
    for name in raw.get("check", ()):
        if name not in CHECKS:
            raise ValueError(f"unknown check {name!r}")
    return Step(**raw)


@cache
def lessons(game_name: str) -> tuple[Lesson, ...]:
    """The lessons of a game, in order; ``UnknownGame`` for a game that has none."""
    games.get(game_name)
    path = DATA / f"{game_name}.toml"
    with path.open("rb") as fh:
        raw = tomllib.load(fh)
    out = []
    for item in raw["lesson"]:
        steps = tuple(_step(dict(s)) for s in item.pop("step"))
        out.append(Lesson(steps=steps, **item))
    return tuple(out)


def lesson(game_name: str, lesson_id: str) -> Lesson:
    for found in lessons(game_name):
        if found.id == lesson_id:
            return found
    raise LessonError(f"{game_name} has no lesson {lesson_id!r}")


def step(game_name: str, lesson_id: str, number: int) -> Step:
    """Step ``number`` (counted from 1) of a lesson."""
    found = lesson(game_name, lesson_id)
    if not 1 <= number <= len(found.steps):
        raise LessonError(f"lesson {lesson_id!r} has steps 1 to {len(found.steps)}, not {number}")
    return found.steps[number - 1]


# ------------------------------------------------------------------ judging


def _reaches(game: games.Game, st: Step, before: Any, text: str, after: Any) -> str | None:  # type: ignore[type-arg]
    """``None`` when the learner's last move reaches the goal, else why not (English)."""
    if st.accept and text not in st.accept:
        return st.miss or NOT_THE_MOVE
    clicks = set(game.clicks(game.parse_move(before, text)))
    if st.uses and not set(st.uses) <= clicks:
        return st.miss or NOT_THE_MOVE
    for name in st.check:
        if not CHECKS[name].test(game, before, text, after):
            return st.miss or CHECKS[name].miss
    return None


def _right_turn(game: games.Game, st: Step, turn: int, before: Any, text: str, after: Any) -> str | None:  # type: ignore[type-arg]
    """Why the learner's move of turn ``turn`` (from 0) is not accepted, or ``None``."""
    if turn == st.turns - 1:
        return _reaches(game, st, before, text, after)
    if text != st.solution[turn]:
        return st.miss or NOT_THE_MOVE
    return None


def _replay(game_name: str, lesson_id: str, number: int, moves: list[str]) -> tuple[games.Game, Step, Any]:  # type: ignore[type-arg]
    """The position after ``moves`` (complete turns: the learner's move, then the reply),
    checking that each is the step's; ``BadLine`` otherwise."""
    st = step(game_name, lesson_id, number)
    game = games.get(game_name)
    if len(moves) > MAX_LINE or len(moves) >= 2 * st.turns:
        raise BadLine(f"this step has {st.turns} move(s) of yours; the line is too long")
    state = game.parse_position(st.position)
    for index, text in enumerate(moves):
        turn, replying = divmod(index, 2)
        try:
            after = game.play(state, text)
        except GameError as exc:
            raise BadLine(f"move {index + 1} ({text!r}): {exc}") from None
        if replying:
            if game.format_move(game.parse_move(state, text)) != st.replies[turn]:
                raise BadLine(f"move {index + 1} ({text!r}) is not this step's reply")
        elif turn >= st.turns - 1 or _right_turn(game, st, turn, state, text, after) is not None:
            raise BadLine(f"move {index + 1} ({text!r}) was not accepted in this step")
        state = after
    return game, st, state


def position_after(game_name: str, lesson_id: str, number: int, moves: list[str]) -> Any:
    """The position after ``moves``, complete turns of the step (``BadLine`` otherwise)."""
    if len(moves) % 2:
        raise BadLine("the line must end with a reply (an even number of moves)")
    return _replay(game_name, lesson_id, number, moves)[2]


def judge(game_name: str, lesson_id: str, number: int, moves: list[str]) -> Verdict:
    """The verdict on the learner's last move of ``moves`` (the line so far, that move new).

    An illegal last move is answered (not raised) with the engine's reason; a line whose
    earlier moves are not the step's raises ``BadLine``, notation that is no move at all
    ``BadMove``.
    """
    if not moves or len(moves) % 2 == 0:
        raise BadLine("the line must end with a move of yours (an odd number of moves)")
    game, st, state = _replay(game_name, lesson_id, number, moves[:-1])
    text = " ".join(moves[-1].split())
    game.check_move_syntax(text)
    try:
        move = game.parse_move(state, text)
    except GameError as exc:
        return Verdict(False, False, None, NOT_LEGAL, {"why": why_illegal(game, state, text, exc)})
    text = game.format_move(move)
    after = game.apply(state, move)
    turn = len(moves) // 2
    why = _right_turn(game, st, turn, state, text, after)
    if why is not None:
        return Verdict(False, False, None, NOT_THE_GOAL, {"why": why})
    if turn == st.turns - 1:
        return Verdict(True, True, None, st.done or WELL_DONE)
    reply = st.replies[turn]
    return Verdict(True, False, reply, GO_ON, {"reply": reply})


def hint(game_name: str, lesson_id: str, number: int, moves: list[str]) -> str:
    """The learner's next move that reaches the goal, after ``moves`` (complete turns)."""
    if len(moves) % 2:
        raise BadLine("the line must end with a reply (an even number of moves)")
    game, st, state = _replay(game_name, lesson_id, number, moves)
    turn = len(moves) // 2
    if turn < len(st.solution):
        return st.solution[turn]
    for text in sorted(game.format_move(m) for m in game.legal_moves(state)):
        if _right_turn(game, st, turn, state, text, game.play(state, text)) is None:
            return text
    raise LessonError(f"step {number} of {lesson_id!r} has no move that reaches its goal")


# ------------------------------------------------------------------ why a move is illegal


#: Reasons a learner is given for a move the engine refuses (English; translated by the web layer).
MANDATORY_CAPTURE = "capturing is compulsory, and a capture is possible."
NOT_LEGAL_HERE = "the rules do not allow it in this position."
GAME_OVER = "the game is over."


def why_illegal(game: games.Game, state: Any, text: str, exc: GameError) -> str:  # type: ignore[type-arg]
    if exc.key == "game-over":
        return GAME_OVER
    if game.name == "bashni" and "-" in text and any(":" in m for m in game.move_texts(state)):
        return MANDATORY_CAPTURE
    return NOT_LEGAL_HERE


def all_texts() -> list[str]:
    """Every English text the lessons show, for the translation check."""
    out = [
        WELL_DONE,
        NOT_LEGAL,
        NOT_THE_GOAL,
        GO_ON,
        NOT_THE_MOVE,
        MANDATORY_CAPTURE,
        NOT_LEGAL_HERE,
        GAME_OVER,
    ]
    out += [c.miss for c in CHECKS.values()]
    for name in games.names():
        for found in lessons(name):
            out += found.texts()
    return list(dict.fromkeys(out))
