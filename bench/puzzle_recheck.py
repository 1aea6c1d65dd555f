"""The whole shipped puzzle set re-checked (CI checks a sample: tests/games/test_puzzles.py).

    .venv/bin/python bench/puzzle_recheck.py [--game GAME] [--limit N] [--seed S]

For each puzzle (or N drawn with the seed): its position reads back to its own text, its
line is legal move by move with no game over before its end and ends with the solver's
move, and a search two plies deeper than the one that found it still chooses its first
move (for Morris, the same mill). Prints, per game, how many were checked and passed and
the CPU seconds; exits 1 if any failed, naming them.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import games
from games.puzzles import store
from games.puzzles.miner import idea, judge


def failure(row: dict) -> str | None:  # type: ignore[type-arg]
    game = games.get(row["game"])
    state = game.parse_position(row["position"])
    if game.format_position(state) != row["position"]:
        return "position does not read back"
    if len(row["line"]) % 2 != 1:
        return "line does not end with the solver's move"
    for text in row["line"]:
        if game.outcome(state) is not None:
            return f"game over before {text}"
        state = game.play(state, text)
    found = judge(game, game.parse_position(row["position"]), row["depth"] + 2)
    if found is None or idea(game, found.move) != idea(game, row["line"][0]):
        return f"the deeper search prefers {found.move if found else 'no clear move'}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=games.names())
    parser.add_argument("--limit", type=int, help="check this many per game, drawn with --seed")
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args(argv)
    failed = []
    for name in [args.game] if args.game else games.names():
        rows = list(store.load(name))
        if args.limit is not None and len(rows) > args.limit:
            rows = random.Random(args.seed).sample(rows, args.limit)
        began = time.process_time()
        bad = [(row["id"], why) for row in rows if (why := failure(row)) is not None]
        spent = time.process_time() - began
        print(f"{name:8} checked {len(rows):4}  passed {len(rows) - len(bad):4}  CPU {spent:7.1f} s")
        failed += bad
    for puzzle_id, why in failed:
        print(f"FAILED {puzzle_id}: {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
