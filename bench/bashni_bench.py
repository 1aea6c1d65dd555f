"""Speed of the Bashni engine: perft from the start and move generation on playout positions.

Run with ``.venv/bin/python bench/bashni_bench.py``. Targets (see the engine brief):
perft(8) from the start under 5 s, legal moves of 2,000 playout positions under 1 s.
Each figure is the best of a few runs, so other load on the machine disturbs it less.
"""

from __future__ import annotations

import platform
import random
import time
from collections.abc import Callable

from machine import cpu_model  # bench/machine.py: scripts here run with bench/ on sys.path

from games.bashni import GAME, Position

PLAYOUT_SEED = 20240601
PLAYOUT_POSITIONS = 2000
PERFT_TARGET_S = 5.0
MOVEGEN_TARGET_S = 1.0


def playout_positions(count: int, seed: int) -> list[Position]:
    """Positions met in seeded random games from the start (every position, finished ones too)."""
    rng = random.Random(seed)
    positions: list[Position] = []
    while len(positions) < count:
        state = GAME.initial()
        while len(positions) < count:
            positions.append(state)
            moves = GAME.legal_moves(state)
            if not moves:
                break
            state = GAME.apply(state, rng.choice(moves))
    return positions


def best_time(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, CPU {cpu_model()}")

    start = GAME.initial()
    print("perft from the start:")
    for depth in range(1, 9):
        began = time.perf_counter()
        count = GAME.perft(start, depth)
        print(f"  {depth} {count:>9}  {time.perf_counter() - began:7.3f} s")
    perft8 = best_time(lambda: GAME.perft(start, 8), repeat=2)
    verdict = "ok" if perft8 < PERFT_TARGET_S else "TOO SLOW"
    print(f"perft(8) best of 2: {perft8:.3f} s (target < {PERFT_TARGET_S} s: {verdict})")

    positions = playout_positions(PLAYOUT_POSITIONS, PLAYOUT_SEED)
    moves = [GAME.legal_moves(p) for p in positions]
    total_moves = sum(len(m) for m in moves)
    movegen = best_time(lambda: [GAME.legal_moves(p) for p in positions], repeat=5)
    verdict = "ok" if movegen < MOVEGEN_TARGET_S else "TOO SLOW"
    print(
        f"legal_moves over {len(positions)} playout positions ({total_moves} moves): "
        f"{movegen * 1000:.1f} ms (target < {MOVEGEN_TARGET_S * 1000:.0f} ms: {verdict}), "
        f"{movegen / len(positions) * 1e6:.1f} us per position"
    )
    pairs = [(p, m) for p, ms in zip(positions, moves, strict=True) for m in ms]
    applying = best_time(lambda: [GAME.apply(p, m) for p, m in pairs], repeat=5)
    each = applying / len(pairs) * 1e6
    print(f"apply of all {len(pairs)} of those moves: {applying * 1000:.1f} ms, {each:.2f} us each")
    judging = best_time(lambda: [GAME.outcome(p) for p in positions], repeat=5)
    print(f"outcome of the {len(positions)} positions: {judging * 1000:.1f} ms")


if __name__ == "__main__":
    main()
