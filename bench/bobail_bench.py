"""Speed of the Bobail engine's move generation.

Run with ``.venv/bin/python bench/bobail_bench.py`` (``--quick`` for a short run).
It reports:

* perft from the start through the engine's bulk-counting override, and the
  same count through ``Game.perft``'s plain definition (``legal_moves`` and
  ``apply`` at every node), to show what the override buys;
* ``legal_moves`` and ``outcome`` over positions met in seeded random playouts,
  per call, which is what the AI and the web layer pay.

Each timing is the best of a few runs, so other load on the machine disturbs
it less.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable
from typing import TypeVar

from games.bobail import GAME, BobailState

T = TypeVar("T")


def best_of(runs: int, work: Callable[[], T]) -> tuple[float, T]:
    timings = []
    for _ in range(max(runs, 1)):
        begin = time.perf_counter()
        result = work()
        timings.append(time.perf_counter() - begin)
    return min(timings), result


def plain_perft(state: BobailState, depth: int) -> int:
    """Game.perft's definition without the override, for comparison."""
    if depth == 0:
        return 1
    return sum(plain_perft(GAME.apply(state, m), depth - 1) for m in GAME.legal_moves(state))


def playout_positions(games: int, seed: int) -> list[BobailState]:
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        state = GAME.initial()
        while moves := GAME.legal_moves(state):
            positions.append(state)
            state = GAME.apply(state, rng.choice(moves))
    return positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller depths and fewer positions")
    args = parser.parse_args()
    depth = 3 if args.quick else 4
    runs = 2 if args.quick else 3
    print(f"Python {platform.python_version()} on {platform.machine()}")

    start = GAME.initial()
    seconds, count = best_of(runs, lambda: GAME.perft(start, depth))
    print(f"perft({depth}) = {count}: {seconds:.2f} s, {count / seconds:,.0f} leaves/s (override)")
    plain_depth = depth - 1
    seconds, count = best_of(runs, lambda: plain_perft(start, plain_depth))
    print(f"perft({plain_depth}) = {count}: {seconds:.2f} s, {count / seconds:,.0f} leaves/s (plain)")

    positions = playout_positions(50 if args.quick else 300, seed=1)
    seconds, _ = best_of(runs, lambda: [GAME.legal_moves(p) for p in positions])
    moves = sum(len(GAME.legal_moves(p)) for p in positions)
    print(
        f"legal_moves: {len(positions)} positions, {moves / len(positions):.1f} moves each, "
        f"{seconds / len(positions) * 1e6:.1f} µs per call"
    )
    seconds, _ = best_of(runs, lambda: [GAME.outcome(p) for p in positions])
    print(f"outcome: {seconds / len(positions) * 1e6:.1f} µs per call")


if __name__ == "__main__":
    main()
