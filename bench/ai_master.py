"""The master level against today's strongest level of each game.

Run with ``nice -n 5 .venv/bin/python bench/ai_master.py GAME [--games 20] [--seconds 2]``
(slow, not part of CI). Bashni's master (19) plays opponent 18, the other
games' master (5) their strongest level (4). The games start from
``bench/ai_strength.py``'s seeded openings (Bilsang: its seeded small
universes with ``--buoys``), each opening played twice with the colours
swapped; the master thinks ``--seconds`` a move by the clock. One process,
one game at a time, so both sides' times are measured alike (they are upper
bounds on a shared machine: the load average is printed).

Prints W/D/L from the master's side, its share of the points (a draw is half),
the median and slowest time a move of both sides, how the games ended and the
master's median depth.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence

from ai_strength import OPENING_CHECK_DEPTH, opening, small_universe  # bench/: the same seeded starts
from machine import load_average, machine_line

import games
from games.ai import bobail_search, levels
from games.ai.eval_bobail import WINNING
from games.ai.levels import LEVELS, MASTER_LEVEL, choose, level_for
from games.ai.search import is_forced_result

SEED = 20261202
#: games that reach this many plies without ending count as draws: a cap for
#: Bobail, which has no limit of its own; the others' rules end every game
#: first (Bilsang's decided games under its default rules last up to ~400 plies)
MAX_PLIES = 300
MAX_PLIES_RULED = 2000
#: How each game's openings are checked (depth, and the score that counts as
#: decided): ``ai_strength.opening``'s 4-ply check by default. Bobail's
#: openings that pass it are mostly decided within 5 to 9 plies (from the first
#: ten, two were forced wins at 5 plies and five more scored a slide home within
#: 9), so both levels played the same forced line and each opening went to the
#: same colour twice: the openings, not the levels, decided (10 / 0 / 10 at 2 s
#: on 2026-12-06). Checked two plies past the strongest level's 5, with "the
#: Neutron slides home next" counted as decided, they still were: searched for
#: 30 s, 8 of those 10 were won by force within 8-10 turns (bobail_search found
#: each in under 4 s), so Bobail's openings must also pass OPENING_NODES below.
OPENING_CHECKS: dict[str, tuple[int, int | None]] = {"bobail": (7, WINNING)}
#: Bobail: an opening is played only if the master's own search (a node budget,
#: the same on every machine: about 10 s here) proves no result in it.
OPENING_NODES = 3_000_000


def bobail_undecided(state: object) -> bool:
    """Whether ``bobail_search`` proves no result in ``state`` within OPENING_NODES nodes."""
    last = None
    for last in bobail_search.search(state, 64, max_nodes=OPENING_NODES, aspiration=25):  # type: ignore[arg-type]
        if is_forced_result(last.score):
            return False
    return last is not None


UNDECIDED = {"bobail": bobail_undecided}


def strongest(game_name: str) -> int:
    return 18 if game_name == "bashni" else len(LEVELS[game_name])


def play_game(game_name: str, index: int, seconds: float, buoys: int) -> dict[str, object]:
    """Game ``index``: the master has the first move on even indexes."""
    game = games.get(game_name)
    master, other = MASTER_LEVEL[game_name], strongest(game_name)
    if buoys:
        state = small_universe(index // 2, buoys)
    else:
        depth, decided = OPENING_CHECKS.get(game_name, (OPENING_CHECK_DEPTH, None))
        state = opening(game, index // 2, depth, decided, UNDECIDED.get(game_name))
    mover = game.to_move(state)
    second = next(s for s in game.sides if s != mover)
    by_side = {mover: master, second: other} if index % 2 == 0 else {mover: other, second: master}
    rngs = {n: random.Random(f"{SEED} {game_name} game {index} level {n}") for n in (master, other)}
    history = [state]
    times: dict[int, list[float]] = {master: [], other: []}
    depths: list[int] = []
    cpu: list[float] = []  # the master's processor time a move: what the load does not inflate
    cap = MAX_PLIES if game_name == "bobail" else MAX_PLIES_RULED
    while True:
        outcome = game.outcome_after(history)
        if outcome is not None or len(history) > cap:
            reason = "ply-cap" if outcome is None else outcome.reason
            winner = None if outcome is None or outcome.winner is None else by_side[outcome.winner]
            return {
                "winner": winner,
                "reason": reason,
                "plies": len(history) - 1,
                "times": times,
                "depths": depths,
                "cpu": cpu,
            }
        n = by_side[game.to_move(state)]
        began, began_cpu = time.perf_counter(), time.process_time()
        choice = choose(game, state, level_for(game_name, n), rngs[n], history=history[:-1], seconds=seconds)
        times[n].append(time.perf_counter() - began)
        if n == master:
            cpu.append(time.process_time() - began_cpu)
            if choice.depth:
                depths.append(choice.depth)
        state = game.apply(state, choice.move)
        history.append(state)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("game", choices=games.names())
    parser.add_argument("--games", type=int, default=20, help="games (even)")
    parser.add_argument("--seconds", type=float, default=2.0, help="the master's think time a move")
    parser.add_argument(
        "--buoys", type=int, default=0, help="Bilsang: start from seeded universes of this many buoys"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=INT",
        help="override one of the master's search options (levels.MASTER_SEARCH) for a tuning match",
    )
    parser.add_argument(
        "--generic-search",
        action="store_true",
        help="Bobail: the master searches with games.ai.search as before bobail_search (to compare)",
    )
    parser.add_argument("--first", type=int, default=0, help="index of the first game (to continue a match)")
    args = parser.parse_args(argv)
    for item in args.set:
        name, _, value = item.partition("=")
        levels.MASTER_SEARCH[args.game][name] = int(value)
    if args.generic_search:
        levels.OWN_SEARCH.pop(args.game, None)
    master, other = MASTER_LEVEL[args.game], strongest(args.game)
    options = levels.MASTER_SEARCH[args.game]
    if args.game in levels.OWN_SEARCH:  # what reaches a search module of the game's own
        options = levels.own_search_options(options)
    print(machine_line())
    start = f"seeded {args.buoys}-buoy universes" if args.buoys else "seeded openings"
    print(
        f"{args.game}: master ({master}, {args.seconds:g} s a move) against level {other}, "
        f"{args.games} games from {start}, colours alternating, one process; "
        f"search options {options}, "
        f"search {levels.OWN_SEARCH.get(args.game, 'games.ai.search')}",
        flush=True,
    )
    began = time.perf_counter()
    results = []
    for index in range(args.first, args.first + args.games):
        result = play_game(args.game, index, args.seconds, args.buoys)
        results.append(result)
        who = {master: "master", other: f"level {other}", None: "draw"}[result["winner"]]  # type: ignore[index]
        print(f"  game {index + 1}: {who} ({result['reason']}, {result['plies']} plies)", flush=True)
    won = sum(r["winner"] == master for r in results)
    lost = sum(r["winner"] == other for r in results)
    drawn = len(results) - won - lost
    share = (won + drawn / 2) / len(results)
    times = {n: [t for r in results for t in r["times"][n]] for n in (master, other)}  # type: ignore[index]
    depths = [d for r in results for d in r["depths"]]  # type: ignore[attr-defined]
    cpu = [t for r in results for t in r["cpu"]]  # type: ignore[attr-defined]
    ends: dict[str, int] = {}
    for r in results:
        ends[str(r["reason"])] = ends.get(str(r["reason"]), 0) + 1
    print()
    print(
        "| game | master budget | games | master W / D / L | master's points | "
        "median / max s a move, master | median / max s a move, strongest | master's median depth |"
    )
    print("|---|---|---|---|---|---|---|---|")
    print(
        f"| {args.game} | {args.seconds:g} s | {len(results)} | {won} / {drawn} / {lost} | {share:.0%} "
        f"| {statistics.median(times[master]):.2f} / {max(times[master]):.2f} "
        f"| {statistics.median(times[other]):.2f} / {max(times[other]):.2f} "
        f"| {statistics.median(depths) if depths else '-'} |"
    )
    print(f"ends: {', '.join(f'{k} {v}' for k, v in sorted(ends.items()))}")
    print(f"master's processor time a move: median {statistics.median(cpu):.2f} s (wall clock above)")
    took = time.perf_counter() - began
    print(f"took {took:.0f} s; load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
