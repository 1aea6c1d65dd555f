"""Morris: `python -m games moves morris` over 3,000 seeded playout positions, and perft(4).

Run: .venv/bin/python bench/morris_bench.py
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from games.morris import GAME  # noqa: E402


def playout_positions(count: int, seed: int = 1) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        state = GAME.initial()
        while GAME.outcome(state) is None and len(out) < count:
            out.append(GAME.format_position(state))
            state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
    return out


def main() -> None:
    positions = playout_positions(3000)
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "games", "moves", "morris"],
        input="\n".join(positions) + "\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    elapsed = time.perf_counter() - began
    assert len(done.stdout.splitlines()) == len(positions)
    per_hundred = elapsed / len(positions) * 100
    print(f"moves CLI: {len(positions)} positions in {elapsed:.2f} s, {per_hundred:.3f} s per hundred")
    began = time.perf_counter()
    count = GAME.perft(GAME.initial(), 4)
    print(f"perft(4) = {count}: {time.perf_counter() - began:.2f} s")


if __name__ == "__main__":
    main()
