"""Bilsang rule sets in play: how often the computer's games are decided, and by whom.

Run with ``.venv/bin/python bench/bilsang_games.py --rules line,quiet=300 --levels 4,4``
(slow, not part of CI). ``--rules`` is a ninth position field (``free`` for none);
``--levels A,B`` pairs two opponent levels. Each of the ``--games`` games starts
from the start position after two seeded random plies (so games differ), and
the levels take the first move in turn (game 0: A first, game 1: B first, …).
Every finished game is appended as one JSON line to ``--out``, so a run cut
short keeps what it played and ``--summary`` can print the table from the
file alone. Per rule set and pairing it reports: games with a removal, decided
games, games that reached the last buoy, the median length in plies, the first
player's share of the decided games, the higher level's share of them, and
each level's reply times (median and slowest; measured with the other
worker running, so on a loaded two-core machine they are upper bounds).

``--speed N`` instead times every level on N positions from seeded games
(easy against easy, stopped at a seeded ply 2..250), in wall-clock and in CPU
seconds of the process: on a machine shared with other work the CPU time is
what the reply would take on an idle core.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any

from machine import load_average, machine_line  # bench/machine.py: scripts here run with bench/ on sys.path

import games
from games.ai.levels import choose, level_for
from games.bilsang import BilsangState, Removal, parse_options

SEED = 20261201
OPENING_PLIES = 2


def start(rules: str) -> BilsangState:
    game = games.get("bilsang")
    line, limit = (False, 100) if rules == "free" else parse_options(rules)
    return game.initial(line=line, quiet=limit)


def play_game(rules: str, level_a: int, level_b: int, index: int) -> dict[str, Any]:
    """Game ``index``: level A moves first on even indexes, level B on odd ones."""
    game = games.get("bilsang")
    first, second = (level_a, level_b) if index % 2 == 0 else (level_b, level_a)
    by_side = {"1": first, "2": second}
    rng = random.Random(f"{SEED} {rules} {level_a}-{level_b} game {index}")
    state = start(rules)
    # the game's earlier positions, start first, as the site passes them: with
    # them the search does not go round in circles
    history: list[BilsangState] = []
    for _ in range(OPENING_PLIES):
        history.append(state)
        state = game.apply(state, rng.choice(sorted(game.legal_moves(state), key=game.format_move)))
    # one generator per seat, so a level's blunders do not depend on the other's
    rngs = {side: random.Random(f"{SEED} {rules} {index} seat {side}") for side in by_side}
    times: dict[str, list[float]] = {"1": [], "2": []}
    cpu: dict[str, list[float]] = {"1": [], "2": []}
    plies = OPENING_PLIES
    removals = 0
    first_removal = None
    while (outcome := game.outcome(state)) is None:
        side = state.player
        began, began_cpu = time.perf_counter(), time.process_time()
        choice = choose(game, state, level_for("bilsang", by_side[side]), rngs[side], history=history)
        history.append(state)
        times[side].append(time.perf_counter() - began)
        cpu[side].append(time.process_time() - began_cpu)
        if isinstance(choice.move, Removal):
            removals += 1
            first_removal = plies if first_removal is None else first_removal
        state = game.apply(state, choice.move)
        plies += 1
    return {
        "rules": rules,
        "levels": [level_a, level_b],
        "index": index,
        "first_level": first,
        "second_level": second,
        "winner_side": outcome.winner,
        "winner_level": None if outcome.winner is None else by_side[outcome.winner],
        "reason": outcome.reason,
        "plies": plies,
        "removals": removals,
        "first_removal": first_removal,
        "lost": [state.lost1, state.lost2],
        "times": {str(by_side[s]) + "/" + s: t for s, t in times.items()},
        "cpu": {str(by_side[s]) + "/" + s: t for s, t in cpu.items()},
    }


def _play(task: tuple[str, int, int, int]) -> dict[str, Any]:
    return play_game(*task)


def speed(rules: str, count: int) -> list[str]:
    """Reply times of every level on ``count`` seeded positions (see the module docstring)."""
    game = games.get("bilsang")
    rng = random.Random(f"{SEED} {rules} speed")
    positions: list[BilsangState] = []
    while len(positions) < count:
        state = start(rules)
        for _ in range(rng.randint(2, 250)):
            if game.outcome(state) is not None:
                break
            state = game.apply(state, choose(game, state, level_for("bilsang", 1), rng).move)
        if game.outcome(state) is None:
            positions.append(state)
    out = ["| level | depth, random | median wall / CPU s | slowest wall / CPU s |", "|---|---|---|---|"]
    for n in range(1, 5):
        level = level_for("bilsang", n)
        wall: list[float] = []
        cpu: list[float] = []
        for index, state in enumerate(positions):
            began, began_cpu = time.perf_counter(), time.process_time()
            choose(game, state, level, random.Random(index))
            wall.append(time.perf_counter() - began)
            cpu.append(time.process_time() - began_cpu)
        out.append(
            f"| {n} {level.name} | {level.depth}, {level.random_rate:.0%} "
            f"| {statistics.median(wall):.3f} / {statistics.median(cpu):.3f} "
            f"| {max(wall):.2f} / {max(cpu):.2f} |"
        )
    return out


def _replies(group: list[dict[str, Any]], field: str) -> str:
    """Each level's median and slowest reply over ``group``, from the rows' ``field``."""
    per_level: dict[int, list[float]] = {}
    for r in group:
        for key, values in r[field].items():
            per_level.setdefault(int(key.split("/")[0]), []).extend(values)
    return "; ".join(
        f"{level}: {statistics.median(t):.3f} / {max(t):.2f}" for level, t in sorted(per_level.items()) if t
    )


def summarise(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown table lines, one per (rules, levels) group in ``rows``."""
    out = [
        "| rules | levels (A,B) | games | with a removal | decided | last buoy | median plies "
        "| first player's share of decided | higher level's share of decided "
        "| replies median / max s, wall | replies median / max s, CPU |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, tuple[int, int]], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["rules"], (row["levels"][0], row["levels"][1])), []).append(row)
    for (rules, (a, b)), group in groups.items():
        n = len(group)
        decided = [r for r in group if r["winner_side"] is not None]
        removal = sum(r["removals"] > 0 for r in group)
        last = sum(r["reason"] == "last-buoy" for r in group)
        plies = statistics.median(r["plies"] for r in group)
        first = sum(r["winner_side"] == "1" for r in decided)
        high = max(a, b)
        higher = sum(r["winner_level"] == high for r in decided) if a != b else None
        replies = _replies(group, "times")
        replies_cpu = _replies(group, "cpu") if all("cpu" in r for r in group) else "-"

        def share(k: int, of: int) -> str:
            return f"{k}/{of} ({k / of:.0%})" if of else "-"

        out.append(
            f"| {rules} | {a},{b} | {n} | {share(removal, n)} | {share(len(decided), n)} | {share(last, n)} "
            f"| {plies:.0f} | {share(first, len(decided))} "
            f"| {'-' if higher is None else share(higher, len(decided))} | {replies} | {replies_cpu} |"
        )
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", default="line,quiet=300", help="ninth-field options, or 'free'")
    parser.add_argument("--levels", default="4,4", help="two levels A,B (1 easiest .. 4 strongest)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--first", type=int, default=0, help="index of the first game (to resume a run)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--out", default="bilsang_games.jsonl", help="JSON lines file, appended to")
    parser.add_argument("--summary", action="store_true", help="only print the table of --out")
    parser.add_argument("--speed", type=int, default=0, help="only time every level on this many positions")
    args = parser.parse_args(argv)
    if args.speed:
        print(machine_line())
        print(f"rules {args.rules}, {args.speed} positions")
        print("\n".join(speed(args.rules, args.speed)))
        print(f"load average at the end: {load_average()}")
        return
    if not args.summary:
        a, b = (int(x) for x in args.levels.split(","))
        start(args.rules)  # refuse a bad --rules before any worker starts
        print(machine_line())
        print(f"rules {args.rules}, levels {a},{b}, games {args.first}..{args.first + args.games - 1}")
        tasks = [(args.rules, a, b, i) for i in range(args.first, args.first + args.games)]
        with ProcessPoolExecutor(args.jobs) as pool, open(args.out, "a") as out:
            for future in as_completed([pool.submit(_play, t) for t in tasks]):
                row = future.result()
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(
                    f"game {row['index']}: {row['reason']} after {row['plies']} plies, "
                    f"winner level {row['winner_level']}, lost {row['lost']}",
                    flush=True,
                )
        print(f"load average at the end: {load_average()}")
    with open(args.out) as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    print("\n".join(summarise(rows)))


if __name__ == "__main__":
    main()
