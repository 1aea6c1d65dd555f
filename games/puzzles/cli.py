"""``python -m games puzzles mine GAME …``: mine puzzles from self-play, re-check them two
plies deeper, and merge the ones that pass into the shipped set (``data/<game>.jsonl``)."""

from __future__ import annotations

import argparse
import json
import time
from typing import TextIO

from games.puzzles import store
from games.puzzles.miner import DEPTH, MARGIN, mine


def add_parser(verbs: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    puzzles = verbs.add_parser("puzzles", help="mine puzzles with the computer's search")
    actions = puzzles.add_subparsers(dest="action", required=True)
    miner = actions.add_parser("mine", help="mine GAME's self-play for puzzles, for a bounded time")
    miner.add_argument("game")
    miner.add_argument("--seconds", type=float, default=60.0, help="how long to mine (default 60)")
    miner.add_argument("--seed", type=int, default=1, help="the first self-play game's seed")
    miner.add_argument("--depth", type=int, help=f"search depth (default per game: {DEPTH})")
    miner.add_argument("--margin", type=float, default=MARGIN, help="winning-chance margin, 0..1")
    miner.add_argument("--recheck", type=int, default=2, help="extra plies of the re-check (at least 2)")
    miner.add_argument("--dry-run", action="store_true", help="print the puzzles, write nothing")


def run(args: argparse.Namespace, stdout: TextIO) -> int:
    began = time.monotonic()
    found, passed = 0, []
    extra = max(2, args.recheck)
    try:
        for puzzle, ok in mine(
            args.game, seed=args.seed, depth=args.depth, seconds=args.seconds, margin=args.margin, extra=extra
        ):
            found += 1
            if ok:
                passed.append(puzzle)
            if args.dry_run:
                stdout.write(json.dumps({**puzzle.as_dict(), "recheck": ok}) + "\n")
                stdout.flush()
    finally:
        # What was mined is kept even if the run is stopped or fails half way.
        total = len(store.load(args.game)) if args.dry_run else store.write(args.game, passed)
    summary = {
        "game": args.game,
        "seconds": round(time.monotonic() - began, 1),
        "found": found,
        "passed_recheck": len(passed),
        "shipped": total,
    }
    stdout.write(json.dumps(summary) + "\n")
    return 0
