"""The board picture: time of the standalone SVG and of its PNG (resvg), per game, and how
long a PNG render stops other Python threads of the process (does resvg hold the GIL?).

    .venv/bin/python bench/board_png_bench.py [--repeat 21]

Each game's board after 9 plies of the tests' sample game; medians of ``--repeat`` runs
(the PNG cache is cleared before each), wall time and CPU time. The pause figure is the longest gap seen by a
Python loop in the main thread over 2 s while another thread does the named work: a
thread that sleeps (the machine's own scheduling noise), a pure-Python loop (the GIL's
normal switching) and PNG renders.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app import pictures
from games import records
from tests.app.helpers import BASHNI_WIN, BOBAIL_WIN, MORRIS_WIN, bilsang_quiet_game

SAMPLES = {"bashni": BASHNI_WIN, "morris": MORRIS_WIN, "bobail": BOBAIL_WIN, "bilsang": bilsang_quiet_game()}


def median_ms(
    work: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    times = []
    for _ in range(repeat):
        start = clock()
        work()
        times.append(clock() - start)
    return statistics.median(times) * 1000


def longest_pause_ms(work: Callable[[], object], seconds: float = 2.0) -> float:
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            work()

    thread = threading.Thread(target=run)
    thread.start()
    gap, last = 0.0, time.perf_counter()
    end = last + seconds
    while last < end:
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    stop.set()
    thread.join()
    return gap * 1000


def uncached_png(svg: str) -> bytes:
    pictures.board_png.cache_clear()
    return pictures.board_png(svg)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    svg = ""
    for game, moves in SAMPLES.items():
        line = records.parse(" ".join(moves[:9]), game)
        view = pictures.view_at(game, line.positions, line.moves, len(line.moves))
        svg = pictures.board_svg(view, lambda text: text)
        svg_ms = median_ms(lambda view=view: pictures.board_svg(view, lambda text: text), args.repeat)
        png_ms = median_ms(lambda svg=svg: uncached_png(svg), args.repeat)
        png_cpu = median_ms(lambda svg=svg: uncached_png(svg), args.repeat, time.process_time)
        size = len(uncached_png(svg))
        print(
            f"{game}: SVG {svg_ms:.1f} ms, PNG {png_ms:.1f} ms wall, {png_cpu:.1f} ms CPU ({size} bytes), "
            f"medians of {args.repeat}"
        )

    def python_loop() -> None:
        total = 0
        for i in range(200_000):
            total += i

    sleeping = longest_pause_ms(lambda: time.sleep(0.05))
    looping = longest_pause_ms(python_loop)
    rendering = longest_pause_ms(lambda: uncached_png(svg))
    print(
        f"longest pause of the main thread: beside a sleeping thread {sleeping:.0f} ms, "
        f"a Python loop {looping:.0f} ms, PNG renders {rendering:.0f} ms"
    )


if __name__ == "__main__":
    main()
