"""Speed of the Bilsang engine: move generation and the connectivity check.

Run with ``.venv/bin/python bench/bilsang_bench.py`` (``--quick`` for a short run).
It reports:

* perft(3) from the start, and legal moves of positions met in seeded random
  playouts (a mix of full twenty-buoy middlegames and thinned-out endgames);
* every pair-move candidate of those positions (targets empty and different)
  through the engine's staged connectivity check (``pair_verdict``: ring
  test, group test, bitboard fill), with how many each stage decided; then
  the same candidates through a bitboard fill alone and a plain set flood
  fill of the whole universe, the naive way.

Each timing is the best of a few runs, so other load on the machine disturbs
it less.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections import Counter
from collections.abc import Callable

from machine import cpu_model  # bench/machine.py: scripts here run with bench/ on sys.path

from games.bilsang import (
    GAME,
    JOINED_BY_FILL,
    JOINED_BY_RING,
    SPLIT_BY_FILL,
    SPLIT_BY_GROUPS,
    BilsangMove,
    BilsangState,
    Frame,
    Removal,
    _filled,
    _Mover,
    _movers,
    _ring_mask,
    is_connected,
    pair_verdict,
)

PLAYOUT_SEED = 20240611


def playout_positions(count: int, seed: int) -> list[BilsangState]:
    """Unfinished positions from seeded random games.

    Random play from the start is almost never blocked, so half the games
    start from the start position with some buoys already removed (keeping the
    rest connected) to reach the sparse, removal-prone shapes of an endgame.
    """
    rng = random.Random(seed)
    positions: list[BilsangState] = []
    while len(positions) < count:
        state = GAME.initial()
        if rng.random() < 0.5:
            for _ in range(rng.randint(4, 14)):
                state = GAME.apply(state, rng.choice(removable(state)))
        while len(positions) < count and GAME.outcome(state) is None:
            positions.append(state)
            state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
    return positions


def removable(state: BilsangState) -> list[BilsangMove]:
    """Removals that keep the rest connected, legal or not (to thin a position out)."""
    return [Removal(c) for c in sorted(state.cells) if is_connected(state.cells - {c})]


Candidate = tuple[_Mover, _Mover, Frame, BilsangState]


def pair_candidates(state: BilsangState) -> list[Candidate]:
    """Every pair move of ``state``, both axes, before the connectivity rule."""
    cells = state.cells
    masks = {c: _ring_mask(cells, c) for c in cells}
    frame = Frame(cells)
    out = []
    for axis in ("h", "v"):
        minus = _movers(cells, masks, frame, axis, -1)
        for plus in _movers(cells, masks, frame, axis, 1):
            for other in minus:
                if plus[0] != other[0] and plus[1] != other[1]:
                    out.append((plus, other, frame, state))
    return out


def bitboard_fill(candidate: Candidate) -> bool:
    plus, minus, frame, _ = candidate
    after = (frame.occupied ^ plus[2] ^ minus[2]) | plus[3] | minus[3]
    return _filled(after, plus[3], frame.width)


def set_fill(candidate: Candidate) -> bool:
    plus, minus, _, state = candidate
    return is_connected((state.cells - {plus[0], minus[0]}) | {plus[1], minus[1]})


def best_time(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions, perft(2) only")
    args = parser.parse_args()
    count = 200 if args.quick else 1000
    repeat = 2 if args.quick else 3

    print(f"machine: {platform.machine()}, Python {platform.python_version()}, CPU {cpu_model()}")

    depth = 2 if args.quick else 3
    start = GAME.initial()
    nodes = GAME.perft(start, depth)
    seconds = best_time(lambda: GAME.perft(start, depth), repeat)
    print(f"perft({depth}) from the start: {nodes} in {seconds:.2f} s ({nodes / seconds:,.0f} leaves/s)")

    positions = playout_positions(count, PLAYOUT_SEED)
    moves = sum(len(GAME.legal_moves(p)) for p in positions)
    buoys = sum(len(p.cells) for p in positions) / len(positions)
    seconds = best_time(lambda: [GAME.legal_moves(p) for p in positions], repeat)
    print(
        f"legal moves of {len(positions)} playout positions (mean {buoys:.1f} buoys, {moves} moves): "
        f"{seconds * 1000:.0f} ms, {seconds / len(positions) * 1e6:.0f} us/position, "
        f"{moves / seconds:,.0f} moves/s"
    )

    candidates = [c for p in positions for c in pair_candidates(p)]
    stages = Counter(pair_verdict(plus, minus, frame) for plus, minus, frame, _ in candidates)
    total = len(candidates)
    joined = stages[JOINED_BY_RING] + stages[JOINED_BY_FILL]
    print(f"pair candidates: {total}, of which connected after the move: {joined}")
    for stage, label in (
        (JOINED_BY_RING, "connected, proved by the ring test"),
        (SPLIT_BY_GROUPS, "split, shown by the group test"),
        (JOINED_BY_FILL, "connected, needed a fill"),
        (SPLIT_BY_FILL, "split, needed a fill"),
    ):
        print(f"  {label}: {stages[stage]} ({stages[stage] / total:.1%})")
    prep = best_time(lambda: [pair_candidates(p) for p in positions], repeat)
    print(f"  per-buoy preparation (_movers, ring masks, groups) with the enumeration: {prep * 1000:.0f} ms")
    checks: list[tuple[str, Callable[[], object]]] = [
        ("engine's staged check", lambda: [pair_verdict(c[0], c[1], c[2]) for c in candidates]),
        ("bitboard fill of every candidate", lambda: [bitboard_fill(c) for c in candidates]),
        ("plain set flood fill of every candidate", lambda: [set_fill(c) for c in candidates]),
    ]
    for label, run in checks:
        seconds = best_time(run, repeat)
        print(f"  {label}: {seconds / total * 1e6:.2f} us/candidate, {seconds * 1000:.0f} ms in all")


if __name__ == "__main__":
    main()
