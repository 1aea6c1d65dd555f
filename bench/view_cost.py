"""What rendering a spectator's view of a match costs early and late in one game.

Run with ``.venv/bin/python bench/view_cost.py`` (not part of CI; figures in
docs/benchmarks.md). In this process, on a fresh SQLite database, it plays the seeded
Morris line of bench/move_cost.py and at ply 10 and ply 200 times, as CPU per call
(median of ``--reps``): ``GET /matches/{id}/live`` by a browser without a seat (the
same read and render as the ``live`` event of a spectator's stream), the read of the
match with its moves (``MatchService.get``) and ``history()`` alone (its last two positions,
what the view reads of it).

``--app-dir`` measures the ``app`` of another checkout (the code before a change).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from harness import ROOT, database  # bench/ is on sys.path


def cpu_ms(call: Callable[[], object], reps: int) -> float:
    spent = []
    for _ in range(reps):
        began = time.process_time()
        call()
        spent.append((time.process_time() - began) * 1000)
    return statistics.median(spent)


def shown(history: Callable[[Any], Sequence[Any]], match: Any) -> tuple[Any, Any]:
    """What the view reads of the history: the position shown and the one before."""
    positions = history(match)
    return positions[-1], positions[-2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="measure the app of another checkout")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.app_dir))  # before the first import of app
    from fastapi.testclient import TestClient
    from move_cost import endless_line

    from app.config import Settings
    from app.main import create_app
    from app.matches.model import history

    with database(prefix="tablero-view-cost-") as url:
        app = create_app(Settings(database_url=url, secret_key="bench", rate_limits=False))
        alice, bob, watcher = (TestClient(app, base_url="http://localhost") for _ in range(3))
        body = {"game": "morris", "name": "A", "side": "first"}
        match_id = alice.post("/api/matches", json=body).json()["id"]
        bob.post(f"/api/matches/{match_id}/join", json={"name": "B"}).raise_for_status()
        for ply, move in enumerate(endless_line(201, seed=3)):
            if ply in (10, 200):
                match = app.state.matches.get(match_id)
                live = cpu_ms(lambda: watcher.get(f"/matches/{match_id}/live"), args.reps)
                read = cpu_ms(lambda: app.state.matches.get(match_id), args.reps)
                parse = cpu_ms(partial(shown, history, match), args.reps)
                print(f"ply {ply}: live view {live:.2f} ms, the read {read:.2f} ms, history() {parse:.2f} ms")
            client = alice if ply % 2 == 0 else bob
            client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply}).raise_for_status()
    print(f"app: {Path(sys.modules['app'].__file__ or '').parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
