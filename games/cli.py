"""The engine command line of RULES.md: perft, moves, apply, result, think.

Line-oriented verbs read stdin and answer one line per input line; a line that
cannot be read gets one ``error: …`` line and the program goes on.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

import games
from games.ai.levels import choose, level_for
from games.base import Game, GameError


def _error(exc: Exception) -> str:
    return f"error: {exc}"


def moves_line(game: Game, line: str) -> str:  # type: ignore[type-arg]
    return " | ".join(game.move_texts(game.parse_position(line)))


def apply_line(game: Game, line: str) -> str:  # type: ignore[type-arg]
    position, tab, move = line.partition("\t")
    if not tab:
        raise GameError("expected POSITION<TAB>MOVE")
    state = game.parse_position(position)
    return game.format_position(game.play(state, move))


def result_line(game: Game, line: str) -> str:  # type: ignore[type-arg]
    outcome = game.outcome(game.parse_position(line))
    if outcome is None:
        return "ongoing"
    if outcome.winner is None:
        return "draw"
    return f"win {outcome.winner}"


def think_line(game: Game, line: str, level: int, seed: int) -> str:  # type: ignore[type-arg]
    """The move opponent ``level`` plays in the position ``line``, a space, and the milliseconds taken.

    The random generator is seeded with the seed and the position together, so
    a position's answer does not depend on the lines before it, yet a level
    that blunders does not blunder on every line alike.
    """
    state = game.parse_position(line)
    rng = random.Random(f"{seed} {game.format_position(state)}")
    choice = choose(game, state, level_for(game.name, level), rng)
    return f"{game.format_move(choice.move)} {choice.ms}"


def _each_line(
    game: Game,  # type: ignore[type-arg]
    answer: Callable[[Game, str], str],  # type: ignore[type-arg]
    lines: Iterable[str],
    out: TextIO,
) -> None:
    for raw in lines:
        line = raw.rstrip("\r\n")
        try:
            text = answer(game, line)
        except GameError as exc:
            text = _error(exc)
        out.write(text + "\n")
        out.flush()


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    parser = argparse.ArgumentParser(prog="python -m games", description="Tablero rules engines")
    verbs = parser.add_subparsers(dest="verb", required=True)
    perft = verbs.add_parser("perft", help='print "D COUNT" for D = 1..DEPTH')
    perft.add_argument("game")
    perft.add_argument("depth", type=int)
    perft.add_argument("--position")
    for verb, text in (
        ("moves", "legal moves of each position read from stdin"),
        ("apply", 'apply "POSITION<TAB>MOVE" lines read from stdin'),
        ("result", "ongoing, draw or win SIDE for each position"),
    ):
        verbs.add_parser(verb, help=text).add_argument("game")
    think = verbs.add_parser("think", help="the computer opponent's move and milliseconds for each position")
    think.add_argument("game")
    think.add_argument(
        "--level",
        type=int,
        required=True,
        help="Bashni 1, 2, … (19: master, by time); other games 1..5 (5: master)",
    )
    think.add_argument("--seed", type=int, default=0, help="same seed, same moves (default 0)")
    from games.puzzles import cli as puzzles_cli

    puzzles_cli.add_parser(verbs)
    args = parser.parse_args(argv)

    try:
        game = games.get(args.game)
    except GameError as exc:
        stdout.write(_error(exc) + "\n")
        return 2

    if args.verb == "puzzles":
        return puzzles_cli.run(args, stdout)

    if args.verb == "perft":
        try:
            state = game.parse_position(args.position) if args.position else game.initial()
        except GameError as exc:
            stdout.write(_error(exc) + "\n")
            return 2
        for depth in range(1, args.depth + 1):
            stdout.write(f"{depth} {game.perft(state, depth)}\n")
            stdout.flush()
        return 0

    if args.verb == "think":
        try:
            level_for(game.name, args.level)
        except ValueError as exc:
            stdout.write(_error(exc) + "\n")
            return 2

        def think_answer(game: Game, line: str) -> str:  # type: ignore[type-arg]
            return think_line(game, line, args.level, args.seed)

        _each_line(game, think_answer, stdin, stdout)
        return 0

    answer = {"moves": moves_line, "apply": apply_line, "result": result_line}[args.verb]
    _each_line(game, answer, stdin, stdout)
    return 0
