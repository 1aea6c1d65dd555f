"""What a rate-limited request costs the server: a match created, with the limits on.

Run with ``.venv/bin/python bench/create_cost.py`` (not part of CI; figures in
docs/benchmarks.md). It serves the app with uvicorn (``--proxy-headers``, the proxy
127.0.0.1 trusted, so each request's ``X-Forwarded-For`` is its client) and the rate limits
on, and creates ``--creates`` matches over the JSON API in two kinds, alternating: each
from an address never seen (a new bucket), and from ``--creates // 15`` addresses in turn
(buckets already there, all within their burst of 20). The server's CPU (/proc) is summed
per kind and reported per create. ``--app-dir`` serves another checkout (the code before
a change); ``--database-url`` PostgreSQL.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import httpx
from harness import ROOT, cpu_seconds, served  # bench/ is on sys.path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: a fresh SQLite file in a temporary directory")
    parser.add_argument("--creates", type=int, default=300, help="creates per kind")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="serve the app of another checkout")
    args = parser.parse_args(argv)
    env = {"RATE_LIMITS": "on", "FORWARDED_ALLOW_IPS": "127.0.0.1"}
    body = {"game": "morris", "name": "A", "side": "first"}
    spent = {"new address": 0.0, "known address": 0.0}
    with served(
        args.database_url,
        prefix="tablero-create-cost-",
        env=env,
        app_dir=args.app_dir,
        uvicorn_args=["--proxy-headers"],
    ) as server:
        pids = server.pids()
        with httpx.Client(base_url=server.url, timeout=30) as client:
            for i in range(args.creates):
                for kind, address in (
                    ("new address", f"10.{i // 250}.{i % 250}.1"),
                    ("known address", f"10.200.{i % max(1, args.creates // 15)}.1"),
                ):
                    before = sum(cpu_seconds(pids).values())
                    made = client.post("/api/matches", json=body, headers={"X-Forwarded-For": address})
                    spent[kind] += sum(cpu_seconds(pids).values()) - before
                    assert made.status_code == 201, (kind, address, made.status_code, made.text)
    figures = {kind: round(seconds * 1000 / args.creates, 2) for kind, seconds in spent.items()}
    print(
        json.dumps(
            {
                "app": str(args.app_dir),
                "database": "postgresql" if args.database_url else "sqlite",
                "creates": args.creates,
                "ms_per_create": figures,
                "load_average": os.getloadavg(),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
