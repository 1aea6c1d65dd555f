"""Strength of the opponent levels: each level against the next one up.

Run with ``.venv/bin/python bench/ai_strength.py GAME`` (slow, not part of CI).
For Bashni it plays opponent n against n + 1 for n = 1..6; for the other games
level n against n + 1 for n = 1..3. Each match is ``--games`` games (20):
``--games / 2`` seeded openings of a few random plies, each played twice with
the colours swapped, so neither level gets the better side of an opening or
the first move more often. The stronger level should win at least 60 % of the
decided games in Bashni's ladder, and the majority of them in the other games.
Games run in ``--jobs`` worker processes.

It also reports each level's reply times (median and slowest over all its
moves in these games); they are measured while the other worker runs, so on a
two-core machine under other load they are upper bounds.
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from machine import load_average, machine_line  # bench/machine.py: scripts here run with bench/ on sys.path

import games
from games.ai.levels import LEVELS, Level, choose, evaluation_for, level_for
from games.ai.search import best_move, is_forced_result

#: random plies before the levels take over, per game: enough for the openings
#: to differ, few enough that neither side is lost before the levels play
OPENING_PLIES = {"bashni": 4, "morris": 2, "bobail": 2, "bilsang": 2}
#: games that reach this many plies without ending count as draws (only Bobail
#: has no built-in limit; its repetition rule ends cycles but not wandering)
MAX_PLIES = 400
#: an opening is played only if a search this deep finds no forced result in it
OPENING_CHECK_DEPTH = 4
#: the share of decided games the stronger level must win
TARGET = {"bashni": 0.60}
MAJORITY = 0.5
SEED = 20250202


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game: which level won (None for a draw), how, and each level's reply times."""

    index: int
    winner_level: int | None
    reason: str
    plies: int
    times: dict[int, list[float]]


def _hands_over_a_win(game: games.Game, state: object, move: object) -> bool:  # type: ignore[type-arg]
    """Whether ``move`` ends the game or lets the opponent end it at once in their favour."""
    after = game.apply(state, move)
    if game.outcome(after) is not None:
        return True
    mover = game.to_move(after)
    for reply in game.legal_moves(after):
        outcome = game.outcome(game.apply(after, reply))
        if outcome is not None and outcome.winner == mover:
            return True
    return False


def opening(
    game: games.Game,  # type: ignore[type-arg]
    index: int,
    check_depth: int = OPENING_CHECK_DEPTH,
    decided: int | None = None,
    undecided: Callable[[object], bool] | None = None,
) -> object:
    """The position after the seeded random opening ``index``.

    The random moves avoid handing over an immediate win, and an opening that
    a short search (``check_depth`` plies) already finds won or lost is drawn
    again (Bobail's Neutron is easily left a few slides from home), so the
    levels, not the dice, decide. ``decided``: a score at least this far from
    zero counts as won or lost too (an evaluation's "wins next move").
    ``undecided``: a further check the opening must pass (a deeper search).
    """
    for attempt in itertools.count():
        suffix = f" retry {attempt}" if attempt else ""
        rng = random.Random(f"{SEED} opening {game.name} {index}{suffix}")
        # what a new match starts from (Bilsang: the same-line rule, quiet 300)
        state = game.initial(**game.new_match_options)
        for _ in range(OPENING_PLIES[game.name]):
            moves = sorted(game.legal_moves(state), key=game.format_move)
            if not moves:
                break
            sane = [m for m in moves if not _hands_over_a_win(game, state, m)]
            state = game.apply(state, rng.choice(sane or moves))
        check = best_move(game, state, evaluation_for(game.name), check_depth)
        if check is None or is_forced_result(check.score):
            continue
        if (decided is None or abs(check.score) < decided) and (undecided is None or undecided(state)):
            return state
    raise AssertionError("unreachable")


def small_universe(index: int, buoys: int) -> object:
    """A seeded Bilsang position with only ``buoys`` buoys left, the losses shared evenly.

    From the full start nobody gets blocked in a hundred plies at these depths
    (every game is drawn), so this measures the levels where blocks happen.
    """
    game = games.get("bilsang")
    for attempt in itertools.count():
        rng = random.Random(f"{SEED} small universe {buoys} {index} {attempt}")
        cells = {(0, 0)}
        while len(cells) < buoys:
            x, y = rng.choice(sorted(cells))
            dx, dy = rng.choice([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy])
            cells.add((x + dx, y + dy))
        lost = 20 - buoys
        text = ";".join(f"{x},{y}" for x, y in sorted(cells, key=lambda c: (c[1], c[0])))
        state = game.parse_position(f"1 {rng.choice('hv')} 0 {lost // 2} {lost - lost // 2} 0 {text} -")
        check = best_move(game, state, evaluation_for("bilsang"), OPENING_CHECK_DEPTH)
        if check is not None and not is_forced_result(check.score) and abs(check.score) < 50:
            return state
    raise AssertionError("unreachable")


def play_game(game_name: str, low: int, high: int, index: int, buoys: int = 0) -> GameResult:
    """Game ``index`` of the match ``low`` against ``high``; ``high`` has the first move on odd indexes.

    ``buoys`` (Bilsang only) starts from a ``small_universe`` instead of an opening.
    """
    game = games.get(game_name)
    first, second = (low, high) if index % 2 == 0 else (high, low)
    levels: dict[int, Level] = {n: level_for(game_name, n) for n in (low, high)}
    rngs = {n: random.Random(f"{SEED} {game_name} {low}-{high} game {index} level {n}") for n in (low, high)}
    state = small_universe(index // 2, buoys) if buoys else opening(game, index // 2)
    mover = game.to_move(state)
    by_side = {mover: first, next(s for s in game.sides if s != mover): second}
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


def _play(task: tuple[str, int, int, int, int]) -> GameResult:
    return play_game(*task)


def match(game_name: str, low: int, high: int, count: int, jobs: int, buoys: int = 0) -> list[GameResult]:
    tasks = [(game_name, low, high, i, buoys) for i in range(count)]
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
    parser.add_argument(
        "--buoys", type=int, default=0, help="Bilsang: start from seeded shapes of this many buoys (even)"
    )
    args = parser.parse_args(argv)
    if args.buoys and args.game != "bilsang":
        parser.error("--buoys is for bilsang only")

    # The depth-bound levels only: the master (bench/ai_master.py) searches by time.
    top = 7 if args.game == "bashni" else len(LEVELS[args.game])
    lows = [int(x) for x in args.pairs.split(",")] if args.pairs else list(range(1, top))
    print(machine_line())
    start = f"seeded {args.buoys}-buoy positions" if args.buoys else "seeded openings"
    print(f"{args.game}: {args.games} games per match from {start}, {args.jobs} workers, seed {SEED}")
    print()
    print(
        "| lower level | upper level | upper wins | lower wins | draws | upper's share of decided "
        "| mean plies | lower median / max s | upper median / max s | time (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for low in lows:
        high = low + 1
        began = time.perf_counter()
        results = match(args.game, low, high, args.games, args.jobs, args.buoys)
        took = time.perf_counter() - began
        up = sum(r.winner_level == high for r in results)
        down = sum(r.winner_level == low for r in results)
        draws = len(results) - up - down
        share = up / (up + down) if up + down else float("nan")
        target = TARGET.get(args.game)
        met = share >= target if target is not None else share > MAJORITY
        verdict = "" if met else " (below target)"
        shown = f"{share:.0%}"
        if up + down == 0:
            shown, verdict = "-", " (no decided games)"
        plies = statistics.mean(r.plies for r in results)
        reply = {}
        for n in (low, high):
            every = [t for r in results for t in r.times[n]]
            reply[n] = f"{statistics.median(every):.3f} / {max(every):.2f}" if every else "-"
        print(
            f"| {describe(low, args.game)} | {describe(high, args.game)} | {up} | {down} | {draws} "
            f"| {shown}{verdict} | {plies:.0f} | {reply[low]} | {reply[high]} | {took:.0f} |",
            flush=True,
        )
        reasons: dict[str, int] = {}
        for r in results:
            reasons[r.reason] = reasons.get(r.reason, 0) + 1
        print(f"<!-- ends: {', '.join(f'{k} {v}' for k, v in sorted(reasons.items()))} -->", flush=True)
    print(f"\nload average at the end: {load_average()}")


if __name__ == "__main__":
    main()
