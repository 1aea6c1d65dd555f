"""Strength of the opponent levels: each level against the next one up.

Run with ``.venv/bin/python bench/ai_strength.py GAME`` (slow, not part of CI).
For Bashni it plays opponent n against n + 1 for n = 1..6; for the other games
level n against n + 1 for n = 1..3. Each match is ``--games`` games (20):
``--games / 2`` seeded openings of a few random plies, each played twice with
the colours swapped, so neither level gets the better side of an opening or
the first move more often. The stronger level should win at least 60 % of the
decided games. Games run in ``--jobs`` worker processes.

It also reports each level's reply times (median and slowest over all its
moves in these games); they are measured while the other worker runs, so on a
two-core machine under other load they are upper bounds.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import games
from games.ai.levels import Level, choose, level_count, level_for

#: random plies before the levels take over, per game: enough for the openings
#: to differ, few enough that neither side is lost before the levels play
OPENING_PLIES = {"bashni": 4, "morris": 2, "bobail": 2, "bilsang": 2}
#: games that reach this many plies without ending count as draws (only Bobail
#: has no built-in limit; its repetition rule ends cycles but not wandering)
MAX_PLIES = 400
TARGET = 0.60
SEED = 20250202


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game: which level won (None for a draw), how, and each level's reply times."""

    index: int
    winner_level: int | None
    reason: str
    plies: int
    times: dict[int, list[float]]


def opening(game: games.Game, index: int) -> object:  # type: ignore[type-arg]
    """The position after the seeded random opening ``index``."""
    rng = random.Random(f"{SEED} opening {game.name} {index}")
    state = game.initial()
    for _ in range(OPENING_PLIES[game.name]):
        moves = game.legal_moves(state)
        if not moves:
            break
        state = game.apply(state, rng.choice(sorted(moves, key=game.format_move)))
    return state


def play_game(game_name: str, low: int, high: int, index: int) -> GameResult:
    """Game ``index`` of the match ``low`` against ``high``; ``high`` has the first move on odd indexes."""
    game = games.get(game_name)
    first, second = (low, high) if index % 2 == 0 else (high, low)
    by_side = dict(zip(game.sides, (first, second), strict=True))
    levels: dict[int, Level] = {n: level_for(game_name, n) for n in (low, high)}
    rngs = {n: random.Random(f"{SEED} {game_name} {low}-{high} game {index} level {n}") for n in (low, high)}
    state = opening(game, index // 2)
    history = [state]
    times: dict[int, list[float]] = {low: [], high: []}
    while True:
        outcome = game.outcome_after(history)
        if outcome is not None:
            winner = None if outcome.winner is None else by_side[outcome.winner]
            return GameResult(index, winner, outcome.reason, len(history) - 1, times)
        if len(history) > MAX_PLIES:
            return GameResult(index, None, "ply-cap", len(history) - 1, times)
        n = by_side[game.to_move(state)]
        began = time.perf_counter()
        choice = choose(game, state, levels[n], rngs[n], history=history[:-1])
        times[n].append(time.perf_counter() - began)
        state = game.apply(state, choice.move)
        history.append(state)


def _play(task: tuple[str, int, int, int]) -> GameResult:
    return play_game(*task)


def match(game_name: str, low: int, high: int, count: int, jobs: int) -> list[GameResult]:
    tasks = [(game_name, low, high, i) for i in range(count)]
    if jobs <= 1:
        return [_play(t) for t in tasks]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_play, tasks))


def describe(n: int, game_name: str) -> str:
    level = level_for(game_name, n)
    return f"{n} (depth {level.depth}, {level.random_rate:.0%} random)"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", choices=games.names())
    parser.add_argument("--games", type=int, default=20, help="games per match (even)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--pairs", help="comma-separated lower levels to play, e.g. 1,2 (default all)")
    args = parser.parse_args(argv)

    top = level_count(args.game) or 7
    lows = [int(x) for x in args.pairs.split(",")] if args.pairs else list(range(1, top))
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"machine: {platform.machine()}, {cpu_model()}, {os.cpu_count()} cores, load average {load}")
    print(f"{args.game}: {args.games} games per match, {args.jobs} worker processes, seed {SEED}")
    print()
    print(
        "| lower level | upper level | upper wins | lower wins | draws | upper's share of decided "
        "| mean plies | lower median / max s | upper median / max s | time (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for low in lows:
        high = low + 1
        began = time.perf_counter()
        results = match(args.game, low, high, args.games, args.jobs)
        took = time.perf_counter() - began
        up = sum(r.winner_level == high for r in results)
        down = sum(r.winner_level == low for r in results)
        draws = len(results) - up - down
        share = up / (up + down) if up + down else float("nan")
        verdict = "" if share >= TARGET else " (below target)"
        plies = statistics.mean(r.plies for r in results)
        reply = {}
        for n in (low, high):
            every = [t for r in results for t in r.times[n]]
            reply[n] = f"{statistics.median(every):.3f} / {max(every):.2f}" if every else "-"
        print(
            f"| {describe(low, args.game)} | {describe(high, args.game)} | {up} | {down} | {draws} "
            f"| {share:.0%}{verdict} | {plies:.0f} | {reply[low]} | {reply[high]} | {took:.0f} |",
            flush=True,
        )
        reasons: dict[str, int] = {}
        for r in results:
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
        print(f"<!-- ends: {', '.join(f'{k} {v}' for k, v in sorted(reasons.items()))} -->", flush=True)
    print(f"\nload average at the end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
