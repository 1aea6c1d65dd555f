"""What a move costs the server early in a game and late in the same game.

Run with ``.venv/bin/python bench/move_cost.py`` (not part of CI; figures in
docs/benchmarks.md). It starts uvicorn on a fresh SQLite database (or ``--database-url``),
and plays ``--matches`` Morris matches over the JSON API, every one the same seeded line
of ``--plies`` moves that never ends the game (no threefold repetition, a removal whenever
the quiet count nears its limit). Each move is what a client does: ``GET /legal``, then
``POST /moves``; one client at a time, so the server is never queued. The server's CPU
(user + system, from /proc) is counted over two windows of ``--window`` plies: the moves
centred on ply 10 and those centred on ply 200, summed over all matches, and reported as
milliseconds of server CPU per move and as the ratio late / early.

``--paired`` plays two groups of ``--matches`` matches instead, one brought to each
window unmeasured, and then measures their rounds alternately (ply 1 of the early window,
then ply 1 of the late one, and so on): the machine's speed drifts within minutes, and
the plain order measures the late window minutes after the early one.

``--app-dir`` serves the ``app`` of another checkout (the code before a change) with the
same client and the same line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from harness import ROOT, cpu_seconds, postgres_postmaster, served  # bench/ is on sys.path
from machine import cpu_model

import games


def endless_line(plies: int, seed: int) -> list[str]:
    """A seeded random Morris line of ``plies`` moves after which the game still goes on."""
    game = games.get("morris")
    rng = random.Random(seed)
    state = game.initial()
    history, line = [state], []
    while len(line) < plies:
        options = []
        for move in game.legal_moves(state):
            after = game.apply(state, move)
            if game.outcome_after([*history, after]) is None:
                options.append((move, after))
        if not options:
            raise SystemExit(f"seed {seed} runs into a finished game at ply {len(line)}; try another")
        calm = [o for o in options if "x" not in game.format_move(o[0])]
        move, state = rng.choice(calm if calm and state.quiet < 90 else options)
        line.append(game.format_move(move))
        history.append(state)
    return line


def server_cpu(pids: list[int]) -> float:
    return sum(cpu_seconds(pids).values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: a fresh SQLite file in a temporary directory")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--plies", type=int, default=210)
    parser.add_argument("--window", type=int, default=20, help="plies per measured window")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="serve the app of another checkout")
    parser.add_argument("--uvicorn-args", default="", help='more uvicorn options, e.g. "--http httptools"')
    parser.add_argument("--json", type=Path, help="append the result as one JSON line to this file")
    parser.add_argument(
        "--paired",
        action="store_true",
        help="two groups of matches, measured in alternating rounds at the two windows",
    )
    args = parser.parse_args(argv)

    line = endless_line(args.plies, args.seed)
    early = range(10 - args.window // 2, 10 + args.window // 2)
    late = range(200 - args.window // 2, 200 + args.window // 2)
    assert late.stop <= len(line), "--plies must reach past the late window"

    extra = args.uvicorn_args.split()
    # A new database (PostgreSQL: on that server), dropped at the end.
    with served(
        args.database_url, prefix="tablero-move-cost-", app_dir=args.app_dir, uvicorn_args=extra
    ) as server:
        database_url = server.database_url
        pids = server.pids()
        postmaster = postgres_postmaster(database_url) if database_url.startswith("postgresql") else None

        def new_matches() -> tuple[list[str], list[dict[str, httpx.Client]]]:
            ids, pairs = [], []
            for _ in range(args.matches):
                alice = httpx.Client(base_url=server.url, timeout=30)
                bob = httpx.Client(base_url=server.url, timeout=30)
                created = alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
                match_id = created.json()["id"]
                bob.post(f"/api/matches/{match_id}/join", json={"name": "B"}).raise_for_status()
                pairs.append({"w": alice, "b": bob})
                ids.append(match_id)
            return ids, pairs

        def play_round(ids: list[str], pairs: list[dict[str, httpx.Client]], ply: int) -> None:
            """Every match of the group plays ``line[ply]``: GET /legal, then POST /moves."""
            move = line[ply]
            for match_id, pair in zip(ids, pairs, strict=True):
                client = pair["w" if ply % 2 == 0 else "b"]
                legal = client.get(f"/api/matches/{match_id}/legal")
                assert move in legal.json()["moves"], (ply, move)
                answer = client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply})
                assert answer.status_code == 200 and answer.json()["status"] == "playing", answer.text

        spent = {"early": 0.0, "late": 0.0}
        counted = {"early": 0, "late": 0}

        def measured(window: str, ids: list[str], pairs: list[dict[str, httpx.Client]], ply: int) -> None:
            before = server_cpu(pids)
            play_round(ids, pairs, ply)
            spent[window] += server_cpu(pids) - before
            counted[window] += args.matches

        if args.paired:
            # Two groups of matches, one brought to the early window and one to the late
            # window unmeasured; then their rounds alternate, so that the machine's speed,
            # which drifts within minutes here, is the same for both windows.
            early_group, late_group = new_matches(), new_matches()
            for ply in range(early.start):
                play_round(*early_group, ply)
            for ply in range(late.start):
                play_round(*late_group, ply)
            for step in range(args.window):
                measured("early", *early_group, early.start + step)
                measured("late", *late_group, late.start + step)
            clients = early_group[1] + late_group[1]
        else:
            match_ids, clients = new_matches()
            for ply in range(len(line)):
                window = "early" if ply in early else "late" if ply in late else None
                if window:
                    measured(window, match_ids, clients, ply)
                else:
                    play_round(match_ids, clients, ply)
        result: dict[str, Any] = {
            "app": str(args.app_dir),
            "database": "postgresql" if database_url.startswith("postgresql") else "sqlite",
            "matches": args.matches,
            "paired": args.paired,
            "early_plies": f"{early.start + 1}-{early.stop}",
            "late_plies": f"{late.start + 1}-{late.stop}",
            "early_ms_per_move": round(spent["early"] / counted["early"] * 1000, 2),
            "late_ms_per_move": round(spent["late"] / counted["late"] * 1000, 2),
            "postmaster": postmaster,
            "load_average": os.getloadavg(),
            "cpu": cpu_model(),
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        result["ratio"] = round(result["late_ms_per_move"] / result["early_ms_per_move"], 2)
        print(json.dumps(result))
        if args.json:
            with args.json.open("a", encoding="utf-8") as out:
                out.write(json.dumps(result) + "\n")
        for pair in clients:
            for client in pair.values():
                client.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
