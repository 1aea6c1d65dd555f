"""Seek-to-match and move-to-push latency (issue 32), against a real server.

- seek-to-match: Ana's seek waits with its event stream open; from the moment Bo posts a
  compatible seek until Ana's stream says ``paired`` (what her page waits for to go to the
  match). Both seeks are correspondence, so a round needs no presence.
- move-to-push: Bo is subscribed to a push service on 127.0.0.1 (PUSH_HOSTS=127.0.0.1);
  from the moment Ana posts a move in a correspondence game until that service has the
  push (encrypted, signed, sent by the worker).

    nice -n 5 .venv/bin/python bench/seek_push.py [--rounds 30] [--database-url URL]
"""

from __future__ import annotations

import argparse
import base64
import secrets
import statistics
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from harness import served

THREE_DAYS = {"kind": "correspondence", "days": 3}
#: Placements that make no mill, alternating Ana (white) and Bo.
MORRIS = "d2 a1 d6 g1 b4 a7".split()


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def seek_to_match(url: str, rounds: int) -> list[float]:
    took = []
    for i in range(rounds):
        with httpx.Client(base_url=url, timeout=30) as ana, httpx.Client(base_url=url, timeout=30) as bo:
            body = {"game": "bobail", "time_control": THREE_DAYS}
            waiting = ana.post("/api/seeks", json=body).json()
            assert waiting["status"] == "waiting", waiting
            opened, heard = threading.Event(), dict[str, float]()

            def listen(
                seek_id: str = waiting["id"],
                client: httpx.Client = ana,
                opened: threading.Event = opened,
                heard: dict[str, float] = heard,
            ) -> None:
                with client.stream("GET", f"/api/seeks/{seek_id}/events") as response:
                    for line in response.iter_lines():
                        opened.set()
                        if line == "event: paired":
                            heard["at"] = time.perf_counter()
                            return

            listener = threading.Thread(target=listen)
            listener.start()
            opened.wait(10)
            time.sleep(0.05)
            start = time.perf_counter()
            paired = bo.post("/api/seeks", json={**body, "name": f"Bo{i}"}).json()
            listener.join(10)
            assert paired["status"] == "paired" and "at" in heard, (paired, heard)
            took.append(heard["at"] - start)
    return took


def move_to_push(url: str, rounds: int) -> list[float]:
    arrived: list[float] = []
    got = threading.Condition()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with got:
                arrived.append(time.perf_counter())
                got.notify_all()
            self.send_response(201)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_args: object) -> None:
            pass

    pusher = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=pusher.serve_forever, daemon=True).start()
    took = []
    try:
        for _ in range(rounds):
            with httpx.Client(base_url=url, timeout=30) as ana, httpx.Client(base_url=url, timeout=30) as bo:
                created = ana.post(
                    "/api/matches",
                    json={"game": "morris", "name": "Ana", "side": "first", "time_control": THREE_DAYS},
                ).json()
                match_id = created["id"]
                bo.post(f"/api/matches/{match_id}/join", json={"name": "Bo"}).raise_for_status()
                key = (
                    ec.generate_private_key(ec.SECP256R1())
                    .public_key()
                    .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
                )
                endpoint = f"http://127.0.0.1:{pusher.server_address[1]}/{secrets.token_hex(4)}"
                sub = {
                    "endpoint": endpoint,
                    "keys": {"p256dh": b64(key), "auth": b64(secrets.token_bytes(16))},
                }
                bo.post("/api/push/subscriptions", json=sub).raise_for_status()
                before = len(arrived)
                start = time.perf_counter()
                ana.post(f"/api/matches/{match_id}/moves", json={"move": "d2", "ply": 0}).raise_for_status()
                with got:
                    got.wait_for(lambda before=before: len(arrived) > before, timeout=10)
                assert len(arrived) > before, "no push arrived"
                took.append(arrived[-1] - start)
                bo.request("DELETE", "/api/push/subscriptions", json={"endpoint": endpoint})
    finally:
        pusher.shutdown()
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--database-url")
    args = parser.parse_args()
    with served(args.database_url, env={"PUSH_HOSTS": "127.0.0.1"}) as server:
        for name, measure in (("seek-to-match", seek_to_match), ("move-to-push", move_to_push)):
            times = sorted(t * 1000 for t in measure(server.url, args.rounds))
            p90 = times[int(len(times) * 0.9) - 1]
            print(
                f"{name}: median {statistics.median(times):.1f} ms, p90 {p90:.1f} ms, "
                f"min {times[0]:.1f} ms over {len(times)} rounds"
            )


if __name__ == "__main__":
    main()
