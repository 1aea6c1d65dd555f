"""/healthz latency while 8 clients import a long record at once (issue 27, item 4).

    .venv/bin/python bench/healthz_during_imports.py [--source DIR] [--rounds 3]

Starts uvicorn serving the app found in ``--source`` (default: this checkout; a
``git archive`` of an older commit measures "before") on a fresh SQLite database, then
per round: 8 threads each POST the same 876-ply Bilsang record (about 12 KB, 0.5 s of
checking) to /api/records while one thread asks /healthz every 20 ms. Prints the
latencies of /healthz during the imports (median, 90th percentile, max) and how long the
imports took.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.app.test_hardening_two import long_bilsang_record  # noqa: E402
from tests.live import free_port  # noqa: E402


def serve(source: Path, database: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(source),
        "DATABASE_URL": f"sqlite:///{database}",
        "SECRET_KEY": "bench",
        "RATE_LIMITS": "off",
    }
    subprocess.run([sys.executable, "-m", "app.manage", "migrate"], cwd=source, env=env, check=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "--factory", "app.main:create_app", "--port", str(port)],
        cwd=source,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return process, url
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")


def one_round(url: str, record: str, clients: int) -> tuple[list[float], float]:
    latencies: list[float] = []
    done = threading.Event()

    def probe() -> None:
        with httpx.Client(timeout=60) as client:
            while not done.is_set():
                started = time.monotonic()
                client.get(url + "/healthz")
                latencies.append(time.monotonic() - started)
                time.sleep(0.02)

    def importer() -> None:
        answer = httpx.post(
            url + "/api/records", content=record, headers={"content-type": "text/plain"}, timeout=120
        )
        assert answer.status_code == 201, answer.text[:200]

    prober = threading.Thread(target=probe)
    workers = [threading.Thread(target=importer) for _ in range(clients)]
    started = time.monotonic()
    prober.start()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    took = time.monotonic() - started
    done.set()
    prober.join()
    return latencies, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    args = parser.parse_args()
    record = long_bilsang_record()
    with tempfile.TemporaryDirectory() as tmp:
        process, url = serve(args.source.resolve(), Path(tmp) / "bench.db")
        try:
            every: list[float] = []
            for number in range(args.rounds):
                latencies, took = one_round(url, record, args.clients)
                every += latencies
                print(f"round {number + 1}: {args.clients} imports in {took:.2f} s, {len(latencies)} probes")
            every.sort()
            print(
                f"/healthz during imports: median {statistics.median(every) * 1000:.0f} ms, "
                f"p90 {every[int(len(every) * 0.9)] * 1000:.0f} ms, max {every[-1] * 1000:.0f} ms"
            )
        finally:
            process.terminate()
            process.wait(timeout=15)


if __name__ == "__main__":
    main()
