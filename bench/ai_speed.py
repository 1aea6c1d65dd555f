"""Reply time of the Bashni opponent at full depth (opponent 7: 7 plies, no blunders).

Run with ``.venv/bin/python bench/ai_speed.py``. Target: over the 30 fixed midgame
positions of ``bench/data/bashni_midgames.txt``, median reply under 1.0 s and
slowest under 4 s. Each position's figure is the best of ``--repeat`` runs (the
search is deterministic, so runs differ only by the machine's other load).

``--regenerate`` rewrites the positions file: seeded games between two weak
opponents (depth 2, a random move one time in five, so games differ and stay
plausible), each stopped at a seeded ply between 16 and 40 where the game is
still on and the side to move has a real choice (three or more moves).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from pathlib import Path

from games.ai.levels import Level, bashni_level, choose
from games.bashni import GAME, Position

DATA = Path(__file__).parent / "data" / "bashni_midgames.txt"
MEDIAN_TARGET_S = 1.0
SLOWEST_TARGET_S = 4.0
POSITIONS = 30
GENERATION_SEED = 20250101
#: the playout opponents: shallow and error-prone, so the games wander
PLAYOUT_LEVEL = Level(2, 0.2, "playout")
FIRST_PLY, LAST_PLY = 16, 40


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{platform.machine()}, {cpu_model()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {load}"
    )


def generate(count: int, seed: int) -> list[str]:
    """``count`` midgame position strings from seeded games (see the module docstring)."""
    rng = random.Random(seed)
    found: list[str] = []
    while len(found) < count:
        stop_at = rng.randint(FIRST_PLY, LAST_PLY)
        state = GAME.initial()
        while state.plies < stop_at and GAME.legal_moves(state):
            state = GAME.apply(state, choose(GAME, state, PLAYOUT_LEVEL, rng).move)
        if state.plies == stop_at and len(GAME.legal_moves(state)) >= 3:
            found.append(GAME.format_position(state))
    return found


def load() -> list[Position]:
    lines = [line for line in DATA.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    return [GAME.parse_position(line) for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="rewrite the positions file first")
    parser.add_argument("--repeat", type=int, default=3, help="runs per position; the best counts")
    parser.add_argument("--level", type=int, default=7, help="Bashni opponent (default 7)")
    args = parser.parse_args()

    if args.regenerate:
        lines = generate(POSITIONS, GENERATION_SEED)
        header = (
            "# 30 Bashni midgame positions for bench/ai_speed.py, made by its --regenerate:\n"
            f"# seeded games (seed {GENERATION_SEED}) between depth-2 opponents that blunder 20 %,\n"
            f"# each stopped at a seeded ply {FIRST_PLY}..{LAST_PLY}.\n"
        )
        DATA.parent.mkdir(parents=True, exist_ok=True)
        DATA.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {len(lines)} positions to {DATA}")

    level = bashni_level(args.level)
    print(f"machine: {machine()}")
    print(f"Bashni opponent {args.level}: depth {level.depth}, best of {args.repeat} runs per position")
    print(" #  plies  moves  depth     nodes   time (s)  move")
    times = []
    for index, state in enumerate(load(), 1):
        best = float("inf")
        for _ in range(args.repeat):
            began = time.perf_counter()
            choice = choose(GAME, state, level, random.Random(index))
            best = min(best, time.perf_counter() - began)
        times.append(best)
        print(
            f"{index:2}  {state.plies:5}  {len(GAME.legal_moves(state)):5}  {choice.depth:5}  "
            f"{choice.nodes:8}  {best:9.3f}  {GAME.format_move(choice.move)}"
        )
    median, slowest = statistics.median(times), max(times)
    ok_median = "ok" if median < MEDIAN_TARGET_S else "TOO SLOW"
    ok_slowest = "ok" if slowest < SLOWEST_TARGET_S else "TOO SLOW"
    print(f"median {median:.3f} s (target < {MEDIAN_TARGET_S} s: {ok_median})")
    print(f"slowest {slowest:.3f} s (target < {SLOWEST_TARGET_S} s: {ok_slowest})")
    print(f"mean {statistics.mean(times):.3f} s, total {sum(times):.1f} s; load now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
