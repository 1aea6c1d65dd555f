"""A move as the match page makes it, beside the same move over the JSON API, in one run.

Run with ``.venv/bin/python bench/page_move.py`` (not part of CI; figures in
docs/benchmarks.md, issue 28). It starts uvicorn on a fresh SQLite database (or
``--database-url``) and plays the seeded Morris line of bench/move_cost.py in four groups of
``--matches`` matches: two over the JSON API (``GET /legal``, ``POST /api/…/moves``), two as
the page does, early (plies around 10, or ``--early-ply``) and late (around 200). A page's move is its own
request and then what each page gets or asks for because of it. Every page of a page-kind
match (both players' and one spectator's) holds its event stream open, as the pages do,
and a move counts as done when every stream has brought its event:

- ``--pages push`` (issue 28, item 2; the default): the mover's page posts the move
  (``POST /matches/{id}/moves`` with ``HX-Request``) and gets its new view as the answer;
  each page's stream (``?view=live``) brings that page's view inside the event, the
  mover's being the answer's render, shared;
- ``--pages fetch`` (the code before it): the players' streams bring only ``changed``, and
  the opponent's page then fetches ``GET /live``; the spectator's view comes in its event;
- ``--door click`` (the code before the one move door): the taps to ``POST /matches/{id}/click``.

A third kind, ``account``, is the page's move made by two signed-in accounts (issue 30):
every request then finds its session row, and the seat by the account's holder.
The rounds alternate (JSON early, page early, JSON late, page late, then the next ply) so
that the machine's drift is the same for all; the server's CPU (user + system, /proc) is
summed per kind and window and reported per move.

``--app-dir`` serves the ``app`` of another checkout (the code before a change).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import httpx
from harness import ROOT, cpu_seconds, served  # bench/ is on sys.path
from move_cost import endless_line

import games

HX = {"HX-Request": "true"}


def taps_of(move: str, before: list[str]) -> str:
    """The taps that make ``move`` on the board after the moves ``before`` (the old door)."""
    game = games.get("morris")
    state = game.initial()
    for text in before:
        state = game.apply(state, game.parse_move(state, text))
    return " ".join(game.click_paths(game.parse_move(state, move))[0])


class Heard:
    """The versions each open stream has brought, per match; a move is done for the
    benchmark when all of its match's streams have brought it."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.streams: dict[str, list[int]] = {}

    def read(self, client: httpx.Client, url: str, match_id: str, wanted: str) -> None:
        with self.lock:
            slot = len(self.streams.setdefault(match_id, []))
            self.streams[match_id].append(0)
        try:
            with client.stream("GET", url) as response:
                event, ident = "", 0
                for line in response.iter_lines():
                    if line.startswith("event: "):
                        event = line[7:]
                    elif line.startswith("id: "):
                        ident = int(line[4:])
                    elif line == "" and event:
                        if event == wanted:
                            with self.lock:
                                self.streams[match_id][slot] = max(ident, self.streams[match_id][slot])
                                self.lock.notify_all()
                        event = ""
        except httpx.HTTPError:
            return  # the server stopped at the end of the run

    def wait_for(self, match_id: str, version: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        with self.lock:
            while min(self.streams[match_id]) < version:
                left = deadline - time.monotonic()
                assert left > 0, (match_id, version, self.streams[match_id])
                self.lock.wait(left)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="default: a fresh SQLite file in a temporary directory")
    parser.add_argument("--matches", type=int, default=3, help="matches per group (four groups)")
    parser.add_argument("--window", type=int, default=10, help="plies measured around ply 10 and ply 200")
    parser.add_argument(
        "--early-ply",
        type=int,
        default=10,
        help="the early window's middle: 10 (the issue's) is in Morris's placing phase, 40 in its moving one",
    )
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--door", choices=("moves", "click"), default="moves")
    parser.add_argument("--pages", choices=("push", "fetch"), default="push")
    parser.add_argument("--app-dir", type=Path, default=ROOT, help="serve the app of another checkout")
    args = parser.parse_args(argv)

    line = endless_line(200 + args.window, args.seed)
    starts = {"early": args.early_ply - args.window // 2, "late": 200 - args.window // 2}
    if starts["early"] < 0:
        parser.error("--early-ply must be at least half the window")

    with served(args.database_url, prefix="tablero-page-move-", app_dir=args.app_dir) as server:
        pids = server.pids()

        def client() -> httpx.Client:
            return httpx.Client(base_url=server.url, timeout=30)

        accounts = iter(range(1_000_000))

        def signed_up() -> httpx.Client:
            browser = client()
            name = f"bench{next(accounts)}"
            made = browser.post("/api/account", json={"username": name, "password": "bench password 1"})
            assert made.status_code == 201, made.text
            return browser

        players = (signed_up(), signed_up())
        heard = Heard()
        readers: list[threading.Thread] = []

        def watch(match_id: str, page: httpx.Client, *, spectator: bool, since: int) -> None:
            """The page's event stream, open as the page holds it."""
            view = args.pages == "push" or spectator
            query = f"?view=live&since={since}" if view else ""
            stream = httpx.Client(base_url=server.url, cookies=page.cookies, timeout=None)
            event = "live" if view else "changed"
            url = f"/matches/{match_id}/events{query}"
            reader = threading.Thread(target=heard.read, args=(stream, url, match_id, event), daemon=True)
            reader.start()
            readers.append(reader)

        def new_group(kind: str) -> list[tuple[str, dict[str, httpx.Client], httpx.Client]]:
            group = []
            for _ in range(args.matches):
                if kind == "account":
                    # Two accounts for all these matches: sign-ups check a password, and
                    # password checks are limited per process even with RATE_LIMITS=off.
                    alice, bob = players
                else:
                    alice, bob = client(), client()
                carol = client()
                created = alice.post("/api/matches", json={"game": "morris", "name": "A", "side": "first"})
                match_id = created.json()["id"]
                bob.post(f"/api/matches/{match_id}/join", json={"name": "B"}).raise_for_status()
                group.append((match_id, {"w": alice, "b": bob}, carol))
                if kind != "json":
                    version = alice.get(f"/api/matches/{match_id}").json()["version"]
                    for page in (alice, bob, carol):
                        watch(match_id, page, spectator=page is carol, since=version)
            return group

        def json_move(match_id: str, pair: dict[str, httpx.Client], _carol: httpx.Client, ply: int) -> None:
            mover = pair["w" if ply % 2 == 0 else "b"]
            assert line[ply] in mover.get(f"/api/matches/{match_id}/legal").json()["moves"]
            answer = mover.post(f"/api/matches/{match_id}/moves", json={"move": line[ply], "ply": ply})
            assert answer.status_code == 200, answer.text

        def page_move(match_id: str, pair: dict[str, httpx.Client], carol: httpx.Client, ply: int) -> None:
            mover, other = (pair["w"], pair["b"]) if ply % 2 == 0 else (pair["b"], pair["w"])
            if args.door == "moves":
                data = {"move": line[ply], "ply": str(ply)}
                answer = mover.post(f"/matches/{match_id}/moves", data=data, headers=HX)
            else:
                data = {"taps": taps_of(line[ply], line[:ply]), "ply": str(ply)}
                answer = mover.post(f"/matches/{match_id}/click", data=data, headers=HX)
            assert answer.status_code == 200 and f'data-ply="{ply + 1}"' in answer.text, answer.text[:300]
            version = int(answer.text.split('data-version="', 1)[1].split('"', 1)[0])
            if args.pages == "fetch":  # the opponent's page, on its ``changed`` event
                assert other.get(f"/matches/{match_id}/live", headers=HX).status_code == 200
            heard.wait_for(match_id, version)

        kinds = ("json", "page", "account")
        groups = {(kind, window): new_group(kind) for kind in kinds for window in starts}
        for (_kind, window), group in groups.items():
            for ply in range(starts[window]):  # brought to the window unmeasured, over the API
                for match_id, pair, carol in group:
                    json_move(match_id, pair, carol, ply)

        spent = dict.fromkeys(groups, 0.0)
        for step in range(args.window):
            for (kind, window), group in groups.items():
                ply = starts[window] + step
                play = json_move if kind == "json" else page_move
                before = sum(cpu_seconds(pids).values())
                for match_id, pair, carol in group:
                    play(match_id, pair, carol, ply)
                spent[kind, window] += sum(cpu_seconds(pids).values()) - before

    moves = args.window * args.matches
    per = {key: seconds / moves * 1000 for key, seconds in spent.items()}
    print(f"app: {args.app_dir}  door: {args.door}  pages: {args.pages}  {moves} moves per kind and window")
    for window in starts:
        json_ms, page_ms, account_ms = per["json", window], per["page", window], per["account", window]
        print(
            f"{window:>5}: JSON move {json_ms:5.2f} ms, page {page_ms:5.2f} ms (x{page_ms / json_ms:.1f}), "
            f"page signed in {account_ms:5.2f} ms (x{account_ms / page_ms:.2f} of a guest's) server CPU"
        )
    print(
        f"page move late / early: ×{per['page', 'late'] / per['page', 'early']:.2f}, "
        f"signed in ×{per['account', 'late'] / per['account', 'early']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
