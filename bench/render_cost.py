"""What one render of a match page's view costs, in this process, without HTTP around it.

Run with ``.venv/bin/python bench/render_cost.py`` (not part of CI; figures in
docs/benchmarks.md). On a fresh SQLite database it plays the seeded Morris line of
bench/move_cost.py and, at ply 10 and ply 200, times (CPU, median of ``--reps``) the
render of ``partials/live.html`` as a spectator sees it (the ``live`` event of its stream;
the match read beforehand, as the streams share one read) and its context alone. Those
renders are warm: repeated, they find what a position's first render computes (its legal
moves, its click tree, its move list) in their caches. The server renders each version's
views once, so ``first`` is the median first render of each new position over
``--window`` plies from ply 10 and from ply 200, as the first of a move's views pays it.
Finer than bench/page_move.py, whose server CPU comes on 10 ms ticks.

``--app-dir`` measures the ``app`` of another checkout (the code before a change).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from harness import ROOT, database  # bench/ is on sys.path


def cpu_ms(call: Callable[[], object], reps: int) -> float:
    spent = []
    for _ in range(reps):
        began = time.process_time()
        call()
        spent.append((time.process_time() - began) * 1000)
    return statistics.median(spent)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--window", type=int, default=30, help="plies whose first render is timed")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="measure the app of another checkout")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.app_dir))  # before the first import of app
    from fastapi.testclient import TestClient
    from move_cost import endless_line
    from starlette.requests import Request

    from app.config import Settings
    from app.main import create_app
    from app.match_view import match_context
    from app.web import templates

    with database(prefix="tablero-render-cost-") as url:
        app = create_app(Settings(database_url=url, secret_key="bench", rate_limits=False))
        alice, bob = (TestClient(app, base_url="http://localhost") for _ in range(2))
        body = {"game": "morris", "name": "A", "side": "first"}
        match_id = alice.post("/api/matches", json=body).json()["id"]
        bob.post(f"/api/matches/{match_id}/join", json={"name": "B"}).raise_for_status()
        template = templates.get_template("partials/live.html")
        headers = [(b"host", b"localhost"), (b"accept-language", b"en")]
        spectator = Request({"type": "http", "method": "GET", "path": "/", "headers": headers, "app": app})
        first: dict[int, list[float]] = {10: [], 200: []}
        for ply, move in enumerate(endless_line(201 + args.window, seed=3)):
            start = next((s for s in first if s <= ply < s + args.window), None)
            if start is not None:
                viewed = app.state.matches.view(match_id)
                first[start].append(
                    cpu_ms(partial(lambda v: template.render(match_context(spectator, v)), viewed), 1)
                )
            if ply in (10, 200):
                viewed = app.state.matches.view(match_id)
                render = cpu_ms(
                    partial(lambda v: template.render(match_context(spectator, v)), viewed), args.reps
                )
                context = cpu_ms(partial(match_context, spectator, viewed), args.reps)
                print(f"ply {ply}: render {render:.3f} ms (its context {context:.3f} ms)")
            client = alice if ply % 2 == 0 else bob
            client.post(f"/api/matches/{match_id}/moves", json={"move": move, "ply": ply}).raise_for_status()
    for start, spent in first.items():
        print(f"plies {start}-{start + args.window - 1}: first render {statistics.median(spent):.3f} ms")
    print(f"app: {Path(sys.modules['app'].__file__ or '').parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
