"""Puzzles mined by our own search (issue 29).

A puzzle is a position where the side to move has a line that is clearly better than
every alternative at each of its moves:

* either the only winning move, proved by the search (a forced win), at every step;
* or a winning-chance margin over the second-best move of at least ``margin`` (0.42 by
  default, lichess-puzzler's figure; chances from ``games.ai.analysis.chance``, 0..1
  from the mover's side).

The opponent's replies are the search's best. The line ends when the win is complete
or the advantage is decisive (the next solver move is no longer clearly the only one).
Every puzzle is re-checked by a search ``recheck`` plies deeper than the one that found
it (at least 2): its first move must still be the best by the same test.

"The second best" is found by searching the same position again with the best move
taken away (``_without``), so both answers come from full alpha-beta searches.
"""

from __future__ import annotations

import hashlib
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import games
from games.ai.analysis import chance
from games.ai.levels import choose, evaluation_for, level_for
from games.ai.search import WIN, Progress, best_move, is_forced_result
from games.base import Game

#: lichess-puzzler's margin between the best and the second-best move's winning chance.
MARGIN = 0.42
#: The most solver moves in a line.
MAX_SOLVER_MOVES = 4


@dataclass(frozen=True)
class Judgement:
    """The best move of a position and how far ahead of the others it is."""

    move: str
    score: int
    second: int | None  # the best other move's score (None: the only legal move)
    forced: bool  # the best move wins by force and no other does

    @property
    def unique(self) -> bool:
        return self.second is not None


@dataclass
class Puzzle:
    game: str
    position: str
    #: solver move, reply, solver move, … (ends with a solver move)
    line: list[str]
    themes: list[str] = field(default_factory=list)
    kind: str = "margin"  # "forced" or "margin"
    depth: int = 0

    @property
    def id(self) -> str:
        digest = hashlib.sha256(f"{self.game} {self.position}".encode()).hexdigest()
        return f"{self.game[:2]}{digest[:10]}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "position": self.position,
            "line": self.line,
            "themes": self.themes,
            "kind": self.kind,
            "depth": self.depth,
        }


def idea(game: Game, text: str) -> str:  # type: ignore[type-arg]
    """What makes two moves the same answer: a Morris mill is one idea whatever it removes."""
    return text.split("x")[0] if game.name == "morris" else text


def _without(game: Game, root: Any, excluded: Any) -> Game:  # type: ignore[type-arg]
    """The same game with one move (and the moves of the same idea) taken away at the root."""
    base = type(game)
    gone = idea(game, game.format_move(excluded))

    class Without(base):  # type: ignore[misc, valid-type]
        def legal_moves(self, state: Any) -> list[Any]:
            moves = base.legal_moves(self, state)
            if state == root:
                moves = [m for m in moves if idea(self, self.format_move(m)) != gone]
            return moves

    return Without()


def _chance(game_name: str, score: int) -> float:
    """The mover's winning chance (0..1) for a score from the mover's side."""
    if is_forced_result(score):
        return 1.0 if score > 0 else 0.0
    try:
        return chance(game_name, score) / 100.0
    except OverflowError:  # a score far beyond the scale (Bobail's can be): as good as decided
        return 1.0 if score > 0 else 0.0


def _search(game: Game, state: Any, depth: int, history: Sequence[Any]) -> Progress | None:  # type: ignore[type-arg]
    """The search's best move, with a fresh evaluation prepared as the levels prepare it."""
    evaluation = evaluation_for(game.name)
    prepare = getattr(evaluation, "prepare", None)
    if prepare is not None:
        prepare(state, history)
    return best_move(game, state, evaluation, depth, history=history)


def judge(
    game: Game,  # type: ignore[type-arg]
    state: Any,
    depth: int,
    history: Sequence[Any] = (),
    margin: float = MARGIN,
) -> Judgement | None:
    """The position's best move if it is clearly the best (the puzzle test), else ``None``."""
    if len(game.legal_moves(state)) < 2:
        return None  # a forced reply is no puzzle
    found = _search(game, state, depth, history)
    assert found is not None
    text = game.format_move(found.move)
    other = _search(_without(game, state, found.move), state, depth, history)
    if other is None:
        return None  # every legal move is the same idea
    if is_forced_result(found.score) and found.score > 0:
        if is_forced_result(other.score) and other.score > 0:
            return None  # two ways to win: not the only winning move
        return Judgement(text, found.score, other.score, True)
    if _chance(game.name, found.score) - _chance(game.name, other.score) >= margin:
        return Judgement(text, found.score, other.score, False)
    return None


def solve(
    game: Game,  # type: ignore[type-arg]
    state: Any,
    depth: int,
    history: Sequence[Any] = (),
    margin: float = MARGIN,
) -> Puzzle | None:
    """The puzzle starting at ``state``, or ``None`` when its first move is not clearly best."""
    first = judge(game, state, depth, history, margin)
    if first is None:
        return None
    line = [first.move]
    seen = [*history, state]
    here = game.play(state, first.move)
    while len(line) < 2 * MAX_SOLVER_MOVES - 1 and game.outcome(here) is None:
        reply = _search(game, here, depth, seen)
        if reply is None:
            break
        seen.append(here)
        after_reply = game.apply(here, reply.move)
        if game.outcome(after_reply) is not None:
            break
        step = judge(game, after_reply, depth, seen, margin)
        if step is None or (first.forced and not step.forced):
            break
        line += [game.format_move(reply.move), step.move]
        seen.append(after_reply)
        here = game.play(after_reply, step.move)
    puzzle = Puzzle(game.name, game.format_position(state), line, kind="forced" if first.forced else "margin")
    puzzle.depth = depth
    puzzle.themes = themes(game, state, line)
    return puzzle


def recheck(puzzle: Puzzle, extra: int = 2, history: Sequence[Any] = (), margin: float = MARGIN) -> bool:
    """The puzzle's first move is still clearly the best ``extra`` plies deeper."""
    game = games.get(puzzle.game)
    state = game.parse_position(puzzle.position)
    found = judge(game, state, puzzle.depth + extra, history, margin)
    # A Morris mill is the same answer whatever the deeper search would remove with it.
    return found is not None and idea(game, found.move) == idea(game, puzzle.line[0])


# ------------------------------------------------------------------ themes


def themes(game: Game, state: Any, line: list[str]) -> list[str]:  # type: ignore[type-arg]
    """What the line is about, read off its moves and positions."""
    found: list[str] = []
    positions = [state]
    for text in line:
        positions.append(game.play(positions[-1], text))
    solver = [line[i] for i in range(0, len(line), 2)]
    end = game.outcome(positions[-1])
    mover = game.to_move(state)
    if end is not None and end.winner == mover:
        found.append(f"win-in-{len(solver)}")
    if game.name == "bashni":
        if any(t.count(":") >= 2 for t in solver):
            found.append("capture-chain")
        for i in range(0, len(line), 2):
            before, after = positions[i], positions[i + 1]
            if before.kings.bit_count() < after.kings.bit_count():
                found.append("king")
                break
        if _freed(positions, line):
            found.append("prisoners-freed")
        if end is not None and end.winner == mover:
            found.append("blocked" if any(positions[-1].stacks) else "no-columns")
    elif game.name == "morris":
        mills = sum(1 for t in solver if "x" in t)
        if mills:
            found.append("mill")
        if mills >= 2:
            found.append("double-mill")
        if end is not None and end.winner == mover and end.reason == "no-moves":
            found.append("blocked")
    elif game.name == "bobail":
        if end is not None and end.winner == mover:
            found.append("neutron-home" if end.reason == "neutron-home" else "neutron-trapped")
    elif game.name == "bilsang":
        if any(getattr(positions[i + 1], "penalised", False) for i in range(0, len(line), 2)):
            found.append("penalty")
        if any(t.startswith("x ") for t in line[1::2]):
            found.append("removal")
    return list(dict.fromkeys(found))


def _freed(positions: list[Any], line: list[str]) -> bool:
    """A solver's Bashni capture took an enemy top off a column with the solver's pieces below."""
    for i in range(0, len(line), 2):
        before, after = positions[i], positions[i + 1]
        mover_lower = "w" if before.side == 0 else "b"
        for sq, column in enumerate(before.stacks):
            now = after.stacks[sq]
            taken = column and now and len(now) < len(column)
            if taken and now[-1].lower() == mover_lower and column[-1].lower() != mover_lower:
                return True
    return False


# ------------------------------------------------------------------ reading games


def self_play(game_name: str, seed: int, max_plies: int = 200) -> Iterator[tuple[list[Any], bool]]:
    """The positions of one game between the strongest level and a blundering one, each with
    whether the move that led to it was a deliberate mistake (a random move)."""
    game = games.get(game_name)
    rng = random.Random(seed)
    # Not the strongest level: its games would take the whole budget. Its mistakes are not
    # the point; the random moves are.
    strong = level_for(game_name, 6 if game_name == "bashni" else 3)
    options = dict(game.new_match_options)
    state = game.initial(**options)
    history: list[Any] = [state]
    for ply in range(max_plies):
        if game.outcome_after(history) is not None:
            return
        moves = game.legal_moves(state)
        # One side in three plays a random move now and then: the mistakes the miner looks after.
        blunder = ply >= 4 and rng.random() < 0.25
        if blunder or ply < 2:
            move = rng.choice(moves)
        else:
            move = choose(game, state, strong, rng, history=history[:-1]).move
        state = game.apply(state, move)
        history.append(state)
        yield list(history), blunder


def mine(
    game_name: str,
    *,
    seed: int = 1,
    depth: int | None = None,
    seconds: float = 60.0,
    margin: float = MARGIN,
    extra: int = 2,
    max_games: int | None = None,
    max_plies: int = 200,
) -> Iterator[tuple[Puzzle, bool]]:
    """Puzzles from self-play games, each with whether it passed the deeper re-check.

    Bounded by ``seconds`` and, when given, ``max_games`` (a seeded run of a few games is
    then the same every time)."""
    game = games.get(game_name)
    depth = depth or DEPTH[game_name]
    deadline = time.monotonic() + seconds
    seen: set[str] = set()
    game_seed = seed
    while time.monotonic() < deadline and (max_games is None or game_seed < seed + max_games):
        for history, blunder in self_play(game_name, game_seed, max_plies):
            if time.monotonic() >= deadline:
                return
            if not blunder:
                continue
            state = history[-1]
            if game.outcome_after(history) is not None:
                break
            key = game.format_position(state)
            if key in seen:
                continue
            seen.add(key)
            puzzle = solve(game, state, depth, history[:-1], margin)
            if puzzle is None:
                continue
            yield puzzle, recheck(puzzle, extra, history[:-1], margin)
        game_seed += 1


#: The search depth the miner finds puzzles at (the re-check goes two plies deeper).
DEPTH = {"bashni": 4, "morris": 4, "bobail": 3, "bilsang": 2}

__all__ = ["DEPTH", "MARGIN", "WIN", "Judgement", "Puzzle", "judge", "mine", "recheck", "solve", "themes"]
