"""Reply time of the strongest opponent of each game.

Run with ``.venv/bin/python bench/ai_speed.py [GAME]`` (default ``bashni``).

Bashni: opponent 7 (7 plies, no blunders) over the 30 fixed midgame positions of
``bench/data/bashni_midgames.txt``; targets: median reply under 1.0 s, slowest
under 4 s. The other games: their strongest level over 30 positions made the
same way on the fly (seeded, so always the same; positions a depth-2 search
already finds decided are skipped); target: median under 1.0 s.
Each position's figure is the best of ``--repeat`` runs: the search is
deterministic, so runs differ only by the machine's other load.

``--regenerate`` rewrites the Bashni positions file: seeded games between two
weak opponents (depth 2, a random move one time in five, so games differ and
stay plausible), each stopped at a seeded ply between 16 and 40 where the game
is still on and the side to move has a real choice (three or more moves). The
playouts use the search, so after a change to the evaluation they make other
positions; the stored file keeps the benchmark comparable across changes.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from pathlib import Path
from typing import Any

from machine import cpu_model  # bench/machine.py: scripts here run with bench/ on sys.path

import games
from games.ai.levels import LEVELS, Level, choose, evaluation_for, level_for
from games.ai.search import best_move, is_forced_result

DATA = Path(__file__).parent / "data" / "bashni_midgames.txt"
MEDIAN_TARGET_S = 1.0
#: Bashni only: the slowest of the 30 midgame replies
SLOWEST_TARGET_S = 4.0
POSITIONS = 30
GENERATION_SEED = 20250101
#: the playout opponents: shallow and error-prone, so the games wander. Bashni's
#: file was made with depth 2; Morris and Bobail use depth 3, as their games
#: between weaker players are decided within a few moves; Bilsang depth 1, as
#: its games are never decided early and deeper playouts take long.
PLAYOUT_LEVEL = {
    "bashni": Level(2, 0.2, "playout"),
    "morris": Level(3, 0.2, "playout"),
    "bobail": Level(3, 0.2, "playout"),
    "bilsang": Level(1, 0.2, "playout"),
}
#: the plies at which a playout may stop, per game: Bashni's midgame; for the
#: others, anywhere from the first few moves to well into a typical game
PLY_RANGE = {"bashni": (16, 40), "morris": (2, 50), "bobail": (2, 10), "bilsang": (2, 60)}
#: positions a search this deep finds won or lost are skipped (other games):
#: their replies are instant and say nothing about the search's speed
DECIDED_DEPTH = 2


def machine() -> str:
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"{platform.machine()}, {cpu_model()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load average {load}"
    )


def generate(game: games.Game, count: int, seed: int) -> list[Any]:  # type: ignore[type-arg]
    """``count`` positions from seeded games (see the module docstring)."""
    rng = random.Random(seed)
    first, last = PLY_RANGE[game.name]
    playout = PLAYOUT_LEVEL[game.name]
    found: list[Any] = []
    while len(found) < count:
        stop_at = rng.randint(first, last)
        # what a new match starts from (Bilsang: the same-line rule, quiet 300)
        state = game.initial(**game.new_match_options)
        history = [state]
        while len(history) - 1 < stop_at and game.outcome_after(history) is None:
            state = game.apply(state, choose(game, state, playout, rng, history=history[:-1]).move)
            history.append(state)
        ongoing = len(history) - 1 == stop_at and game.outcome_after(history) is None
        if not ongoing or len(game.legal_moves(state)) < 3:
            continue
        if game.name != "bashni":
            check = best_move(game, state, evaluation_for(game.name), DECIDED_DEPTH)
            if check is None or is_forced_result(check.score):
                continue
        found.append(state)
    return found


def load(game: games.Game) -> list[Any]:  # type: ignore[type-arg]
    lines = [line for line in DATA.read_text(encoding="utf-8").splitlines() if line and line[0] != "#"]
    return [game.parse_position(line) for line in lines]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", nargs="?", default="bashni", choices=games.names())
    parser.add_argument("--regenerate", action="store_true", help="rewrite the Bashni positions file first")
    parser.add_argument("--repeat", type=int, default=3, help="runs per position; the best counts")
    parser.add_argument("--level", type=int, help="level to time (default: Bashni 7, else the strongest)")
    args = parser.parse_args()
    game = games.get(args.game)

    if args.regenerate:
        lines = [game.format_position(s) for s in generate(games.get("bashni"), POSITIONS, GENERATION_SEED)]
        first, last = PLY_RANGE["bashni"]
        header = (
            "# 30 Bashni midgame positions for bench/ai_speed.py, made by its --regenerate:\n"
            f"# seeded games (seed {GENERATION_SEED}) between depth-2 opponents that blunder 20 %,\n"
            f"# each stopped at a seeded ply {first}..{last}.\n"
        )
        DATA.parent.mkdir(parents=True, exist_ok=True)
        DATA.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {len(lines)} positions to {DATA}")

    # Default: the strongest depth-bound level (the master thinks for a set time).
    number = args.level or (7 if args.game == "bashni" else len(LEVELS[args.game]))
    level = level_for(args.game, number)
    positions = load(game) if args.game == "bashni" else generate(game, POSITIONS, GENERATION_SEED)
    print(f"machine: {machine()}")
    print(f"{args.game} level {number}: depth {level.depth}, best of {args.repeat} runs per position")
    print(" #  moves  depth     nodes   time (s)  move")
    times = []
    for index, state in enumerate(positions, 1):
        best = float("inf")
        for _ in range(args.repeat):
            began = time.perf_counter()
            choice = choose(game, state, level, random.Random(index))
            best = min(best, time.perf_counter() - began)
        times.append(best)
        print(
            f"{index:2}  {len(game.legal_moves(state)):5}  {choice.depth:5}  "
            f"{choice.nodes:8}  {best:9.3f}  {game.format_move(choice.move)}"
        )
    median, slowest = statistics.median(times), max(times)
    ok_median = "ok" if median < MEDIAN_TARGET_S else "TOO SLOW"
    print(f"median {median:.3f} s (target < {MEDIAN_TARGET_S} s: {ok_median})")
    if args.game == "bashni":
        ok_slowest = "ok" if slowest < SLOWEST_TARGET_S else "TOO SLOW"
        print(f"slowest {slowest:.3f} s (target < {SLOWEST_TARGET_S} s: {ok_slowest})")
    else:
        print(f"slowest {slowest:.3f} s")
    print(f"mean {statistics.mean(times):.3f} s, total {sum(times):.1f} s; load now {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
