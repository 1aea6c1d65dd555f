"""The shipped puzzles: one JSON object a line in ``data/<game>.jsonl``, sorted by id.

Ratings are a placeholder until the ratings issue's Glicko-2 module exists: a puzzle's
starting rating grows with the number of solver moves and is higher for a won-by-margin
line than for a short forced win (``starting_rating``).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from games.puzzles.miner import Puzzle

DATA = Path(__file__).parent / "data"


def path_of(game_name: str) -> Path:
    return DATA / f"{game_name}.jsonl"


def starting_rating(puzzle: Puzzle) -> int:
    solver_moves = (len(puzzle.line) + 1) // 2
    return 1200 + 150 * (solver_moves - 1) + (150 if puzzle.kind == "margin" else 0)


def write(game_name: str, puzzles: list[Puzzle], path: Path | None = None) -> int:
    """Merge ``puzzles`` into the game's file (one per id, the newest kept); the count after."""
    target = path or path_of(game_name)
    target.parent.mkdir(parents=True, exist_ok=True)
    rows = {row["id"]: row for row in read_rows(target)}
    for puzzle in puzzles:
        rows[puzzle.id] = {**puzzle.as_dict(), "rating": starting_rating(puzzle)}
    with target.open("w", encoding="utf-8") as fh:
        for key in sorted(rows):
            fh.write(json.dumps(rows[key], ensure_ascii=False, separators=(",", ":")) + "\n")
    load.cache_clear()
    return len(rows)


def read_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@cache
def load(game_name: str) -> tuple[dict[str, Any], ...]:
    """The game's shipped puzzles (empty when none were mined)."""
    return tuple(read_rows(path_of(game_name)))
