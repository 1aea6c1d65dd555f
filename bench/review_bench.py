"""How long the computer's review of a 100-ply game takes with the worker processes.

Run with ``.venv/bin/python bench/review_bench.py [GAME] [--plies 100] [--processes 2]``.

The game: seeded play between two weak opponents (depth 2, a random move one time
in five) cut at ``--plies`` plies (a new seed when a game ends sooner). The review
runs exactly as on the site: a ``reviews`` row in a fresh SQLite database, one
``ReviewWorker`` with a spawn pool of ``--processes`` processes (niced, as in the
app), from the request until the row says ``done``. Target (issue 18): under 60 s
for 100 plies on this machine.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import tempfile
import time

import games
from games.ai.levels import Level, choose


def game_line(game_name: str, plies: int, seed: int) -> tuple[str, tuple[str, ...]]:
    game = games.get(game_name)
    for attempt in range(200):
        rng = random.Random(seed + attempt)
        state = game.initial()
        start = game.format_position(state)
        history = [state]
        moves: list[str] = []
        while len(moves) < plies and game.outcome_after(history) is None:
            choice = choose(game, state, Level(2, 0.2), rng, history=history[:-1])
            moves.append(game.format_move(choice.move))
            state = game.apply(state, choice.move)
            history.append(state)
        if len(moves) == plies:
            return start, tuple(moves)
    raise RuntimeError("no game lasted that long")


async def review_once(game_name: str, start: str, moves: tuple[str, ...], processes: int) -> float:
    from app.db import make_engine, make_sessionmaker
    from app.manage import migrate
    from app.review import ReviewService, ReviewWorker
    from app.services.records import Line

    folder = tempfile.mkdtemp()
    url = f"sqlite:///{folder}/bench.db"
    migrate(url)
    sessions = make_sessionmaker(make_engine(url))
    worker = ReviewWorker(sessions, processes=processes, poll_seconds=0.2)
    service = ReviewService(sessions, wake=worker.wake)
    line = Line("record", "bench", game_name, start, moves, (), None, None, {}, None, False)
    await worker.start()
    # Let the pool's processes start (and import the engines) before the clock runs, as
    # in a server that has been up for a while.
    await asyncio.gather(*(worker.best_move(game_name, start) for _ in range(processes)))
    began = time.perf_counter()
    service.request(line)
    while True:
        review = service.find(line)
        assert review is not None
        if review.status == "done":
            break
        if review.status == "failed":
            raise RuntimeError(review.error)
        await asyncio.sleep(0.2)
    elapsed = time.perf_counter() - began
    await worker.stop()
    return elapsed


def cpu_seconds(game_name: str, start: str, moves: tuple[str, ...]) -> None:
    """The review's CPU cost, whatever else the machine runs: what an idle machine's wall time is made of."""
    from app.review import positions_of
    from games.ai.analysis import analyse

    positions = positions_of(game_name, start, moves)
    costs = []
    for index, position in enumerate(positions):
        began = time.process_time()
        # No time limit: the full depth, as an idle machine reaches it within POSITION_SECONDS.
        analyse(game_name, position, positions[:index], time_limit=None)
        costs.append(time.process_time() - began)
    load = os.getloadavg()
    print(
        f"{game_name}: {len(positions)} positions, CPU {sum(costs):.1f} s in all, "
        f"median {statistics.median(costs):.2f} s, slowest {max(costs):.2f} s; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("game", nargs="?", default="bashni")
    parser.add_argument("--plies", type=int, default=100)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cpu", action="store_true", help="instead: analyse every position in this process, summing CPU time"
    )
    args = parser.parse_args()
    start, moves = game_line(args.game, args.plies, args.seed)
    if args.cpu:
        cpu_seconds(args.game, start, moves)
        return
    times = [asyncio.run(review_once(args.game, start, moves, args.processes)) for _ in range(args.runs)]
    load = os.getloadavg()
    print(
        f"{args.game}: review of {len(moves)} plies ({len(moves) + 1} positions), "
        f"{args.processes} processes: "
        f"median {statistics.median(times):.1f} s, runs {', '.join(f'{t:.1f}' for t in times)} s; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


if __name__ == "__main__":
    main()
